"""Filler: do acknowledgements, greetings, offers to help and system prompts stay out of the facts?

    python bench/filler.py [--messages 600] [--seed 7] [--embedder e5-small] [--json]

A generated support/assistant chat, half Korean, of user turns that say something worth keeping
(an allergy, a move, a booking), assistant turns that carry content (a recommendation, a booking
confirmation, an answer) and filler (a user's "ㅋㅋ 고마워", an assistant's "축하드려요!" or "How can I
help you today?", a system prompt at the start of each session). Every message is labelled when it
is generated, so the figures do not depend on the classifier being measured:

* **filler share**: facts whose message is filler / all facts (the issue's target: ≤ 5 %);
* **content kept**: content messages that yielded at least one fact (should be 1.0).

The filler phrases come in three sets: ``tune`` (the examples the rules were written against),
``held-out`` (written for this benchmark; held out until its two misses were used to generalise
the rules, so it is tuning data now) and ``fresh`` (filler *and* content written blind by a helper
who read neither the rules nor these phrases: bench/data/filler_fresh.json). All three are
reported; the fresh figure is the one to quote. ``tune`` and ``held-out`` share the content templates.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console  # noqa: E402
from rich.progress import Progress  # noqa: E402
from rich.table import Table  # noqa: E402

from gieok import Memory  # noqa: E402

NAMES_KO = "서연 민준 지우 하은 도윤 수아 예린 지호".split()
NAMES_EN = "Tom Lily Alex Maya Sam Nora Leo Grace".split()
SYSTEM = {"ko": "당신은 친절한 고객지원 어시스턴트입니다. 항상 존댓말을 쓰고 짧게 답하세요.",
          "en": "You are a helpful support assistant. Be concise and friendly."}

FILLER = {
    "tune": {
        "ko": ["축하해!", "축하드려요!", "반가워요 {name}님! 무엇을 도와드릴까요?", "ㅋㅋ 고마워", "넵 알겠습니다!",
               "재밌겠다!", "좋은 하루 되세요!", "오케이", "고마워요ㅎㅎ", "그렇구나"],
        "en": ["Congrats!", "Sounds fun!", "That's awesome, {name}!", "How can I help you today?", "ok thanks",
               "I'm so happy for you!", "Let me know if you need anything else.", "haha yeah", "cool", "nice"],
    },
    "held-out": {
        "ko": ["우와 진짜 대박이다!", "{name}님 안녕하세요! 궁금한 점 있으시면 편하게 물어보세요.", "다행이네요!",
               "부러워요ㅎㅎ", "화이팅!", "힘내요 {name}님!", "맞아요 맞아요", "물론이죠!", "잘됐네요!",
               "아이고 저런ㅠㅠ", "언제든지 말씀해 주세요!", "즐거운 시간 보내세요~"],
        "en": ["Wow, congratulations!", "Hey {name}, how are you?", "That sounds wonderful!", "Glad to help!",
               "Good morning {name}!", "Aww, I'm sorry to hear that.", "Yay!", "Feel free to ask anytime.",
               "Absolutely, happy to help!", "I'm doing well, thanks!", "Sounds like fun, enjoy!", "See you soon!"],
    },
}

CONTENT_USER = {
    "ko": ["나 {food} 알레르기 있어.", "다음 달에 {place}로 이사 가.", "우리 딸 이름은 {name}이고 여섯 살이야.",
           "{org}에서 데이터 엔지니어로 일해.", "주말마다 {sport} 쳐.", "{place}에 있는 치과 예약했어, 목요일 3시.",
           "비밀번호 바꾸는 법 알려줘, 로그인이 안 돼.", "주문한 {item} 아직 안 왔어."],
    "en": ["I'm allergic to {food_en}.", "We're moving to {place_en} next month.", "My son {name_en} is six.",
           "I work at {org_en} as a nurse.", "I play {sport_en} every Sunday.", "My flight to {place_en} is on Friday.",
           "The {item_en} I ordered never arrived.", "I can't log in since I changed my phone."],
}
CONTENT_ASSISTANT = {
    "ko": ["{place} 근처라면 '바다정원' 식당을 추천드려요, 땅콩 없는 메뉴가 있어요.",
           "목요일 오후 3시로 {place} 치과 예약을 확인했습니다.", "환불은 구매 후 14일까지 가능하고 영수증이 필요해요.",
           "주문하신 {item}은 내일 오전에 도착 예정이에요, 송장번호는 문자로 보내드렸어요."],
    "en": ["I booked a table for two at Lupa in {place_en} for 7 pm.", "Refunds are possible within 14 days.",
           "Your {item_en} ships tomorrow; it should arrive by Tuesday.",
           "Try resetting the app: Settings, then Accounts, then Sign in again."],
}
FILL = {"food": "땅콩 새우 우유 복숭아".split(), "place": "제주 부산 판교 망원동".split(),
        "org": "카카오 네이버 토스".split(),
        "sport": "테니스 배드민턴 탁구".split(), "item": "운동화 노트북 가습기".split(),
        "food_en": "peanuts shellfish gluten".split(), "place_en": "Austin Lisbon Denver".split(),
        "org_en": ["St. Mary's", "Mayo Clinic"], "sport_en": "tennis squash golf".split(),
        "item_en": ["blender", "desk lamp", "raincoat"]}


# written blind by a helper who read neither the rules nor the phrases above: its own filler and
# content (bench/data/filler_fresh.json)
FRESH = json.loads((Path(__file__).parent / "data" / "filler_fresh.json").read_text(encoding="utf-8"))
FILLER["fresh"] = FRESH["filler"]
CONTENT = {"tune": (CONTENT_USER, CONTENT_ASSISTANT), "held-out": (CONTENT_USER, CONTENT_ASSISTANT),
           "fresh": (FRESH["content_user"], FRESH["content_assistant"])}


def generate(n: int, seed: int, half: str) -> list[dict[str, Any]]:
    """``n`` labelled messages in sessions of about 12, each opened by a system prompt."""
    rng = random.Random(seed)
    content_user, content_assistant = CONTENT[half]
    out: list[dict[str, Any]] = []
    session = 0
    while len(out) < n:
        lang = "ko" if session % 2 == 0 else "en"
        day = f"2026-{1 + session // 28 % 12:02d}-{1 + session % 28:02d}"
        turns = [("system", SYSTEM[lang], "filler")]
        for _ in range(6):
            turns.append(("user", _fill(rng, rng.choice(content_user[lang]), lang), "content") if rng.random() < 0.6
                         else ("user", _fill(rng, rng.choice(FILLER[half][lang]), lang), "filler"))
            turns.append(("assistant", _fill(rng, rng.choice(content_assistant[lang]), lang), "content")
                         if rng.random() < 0.35 else ("assistant", _fill(rng, rng.choice(FILLER[half][lang]), lang),
                                                      "filler"))
        for i, (speaker, text, label) in enumerate(turns):
            out.append({"id": f"s{session}-{i}", "speaker": speaker, "text": text, "label": label,
                        "timestamp": f"{day}T{9 + i // 6:02d}:{(i * 5) % 60:02d}:00+09:00", "session": session})
        session += 1
    return out[:n]


def _fill(rng: random.Random, template: str, lang: str) -> str:
    values = {k: rng.choice(v) for k, v in FILL.items()}
    values["name"], values["name_en"] = rng.choice(NAMES_KO), rng.choice(NAMES_EN)
    if lang == "en":
        values["name"] = values["name_en"]
    return template.format(**values)


def measure(messages: list[dict[str, Any]], embedder: str) -> dict[str, Any]:
    label = {m["id"]: m["label"] for m in messages}
    with tempfile.TemporaryDirectory() as tmp, Memory(f"{tmp}/filler.db", embedder=embedder) as mem:
        sessions: dict[int, list[dict[str, Any]]] = {}
        for m in messages:
            sessions.setdefault(m["session"], []).append(
                {k: m[k] for k in ("id", "speaker", "text", "timestamp")})
        with Progress(transient=True) as bar:
            task = bar.add_task("retain", total=len(sessions))
            for number, said in sessions.items():
                mem.retain("chat", said, document_id=f"session-{number}")
                bar.advance(task)
        rows = _fact_message_ids(mem)
        from_message: Counter[str] = Counter()
        for message_ids in rows:
            from_message[label.get(message_ids[0], "content") if message_ids else "content"] += 1
        with_fact = {ids[0] for ids in rows if ids}
    content = [m for m in messages if m["label"] == "content"]
    total = sum(from_message.values())
    return {"messages": len(messages), "facts": total, "filler_facts": from_message["filler"],
            "filler_share": from_message["filler"] / total if total else 0.0,
            "content_kept": sum(m["id"] in with_fact for m in content) / len(content) if content else 1.0,
            "filler_messages": sum(m["label"] == "filler" for m in messages)}


def _fact_message_ids(mem: Memory) -> list[list[str]]:
    """Every fact's message ids, read through the public API (fact ids are f-1, f-2, ... in order)."""
    from gieok.errors import MemoryNotFoundError

    ids: list[list[str]] = []
    misses, number = 0, 0
    while misses < 50:
        number += 1
        try:
            ids.append(list(mem.get("chat", f"f-{number}").source_ids))
            misses = 0
        except MemoryNotFoundError:
            misses += 1
    return ids


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=600)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--embedder", default="e5-small")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = {half: measure(generate(args.messages, args.seed, half), args.embedder) for half in FILLER}
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    table = Table(title=f"Filler in facts ({args.messages} generated messages per half, seed {args.seed})")
    for column in ("phrases", "messages", "filler msgs", "facts", "filler facts", "filler share", "content kept"):
        table.add_column(column, justify="right")
    for half, r in results.items():
        table.add_row(half, str(r["messages"]), str(r["filler_messages"]), str(r["facts"]), str(r["filler_facts"]),
                      f"{r['filler_share']:.3f}", f"{r['content_kept']:.3f}")
    Console().print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
