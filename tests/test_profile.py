"""Profile slots through the engine (issue #17): retain extracts them, lookup answers with the current
value and its history, the profile recall channel puts the slot's fact first, erase takes them, and
the CLI and HTTP adapters show them. Korean and English."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from click.testing import CliRunner
from conftest import registered
from pg_server import pg_dsn_factory  # noqa: F401

from gieok import Memory
from gieok.cli import cli
from gieok.errors import InputError
from gieok.extract.slot_model import SlotValue
from gieok.extract.slot_question import slot_question
from gieok.providers.decisions import DecisionModel

KO = [
    ("k1", "서연", "제 생일은 6월 23일이에요.", "2025-01-05T10:00:00+09:00"),
    ("k2", "assistant", "생일이 6월 23일이시군요! 저는 12월 1일이에요.", "2025-01-05T10:01:00+09:00"),
    ("k3", "서연", "저 땅콩 알레르기 있어요.", "2025-01-06T10:00:00+09:00"),
    ("k4", "서연", "지금 부산에 살고 있어요.", "2025-01-07T10:00:00+09:00"),
    ("k5", "서연", "우리 언니 이름은 지수예요.", "2025-01-08T10:00:00+09:00"),
    ("k6", "서연", "저 이번 달에 서울로 이사했어요.", "2025-03-01T10:00:00+09:00"),
]
EN = [
    ("e1", "Tom", "I'm a nurse at St. Mary's.", "2025-01-05T10:00:00Z"),
    ("e2", "Tom", "I'm vegetarian, by the way.", "2025-01-06T10:00:00Z"),
    ("e3", "Tom", "My sister Jess lives in Denver.", "2025-01-07T10:00:00Z"),
    ("e4", "Tom", "Honestly I'm not vegetarian anymore, I eat fish and chicken again.", "2025-04-01T10:00:00Z"),
    ("e5", "assistant", "Noted! I'm vegan myself.", "2025-04-01T10:01:00Z"),
]


def _retain(mem: Memory, bank: str, turns: list[tuple[str, str, str, str]]) -> None:
    mem.retain(bank, messages=[{"id": i, "speaker": who, "text": text, "timestamp": ts} for i, who, text, ts in turns],
               document_id=f"{bank}-chat")


def test_lookup_gives_the_current_value_its_memory_and_its_history(mem: Memory) -> None:
    _retain(mem, "ko", KO)
    _retain(mem, "en", EN)
    birthday = mem.lookup("ko", "birthday")
    assert birthday is not None and birthday.person == "서연" and birthday.value == "6월 23일"
    assert mem.get("ko", birthday.memory_ids[0]).source_ids == ["k1"]  # the user's, not the assistant's
    city = mem.lookup("ko", "city")
    assert city is not None and city.value == "서울" and [s.value for s in city.previous()] == ["부산"]
    assert mem.lookup("ko", "allergy").values == ["땅콩"]  # type: ignore[union-attr]
    sister = mem.lookup("ko", "name", "언니")
    assert sister is not None and sister.value == "지수"
    assert mem.lookup("ko", "name", "sister").value == "지수"  # type: ignore[union-attr]
    # a denial empties a single-valued slot; what was said before stays its history
    diet = mem.lookup("en", "diet")
    assert diet is not None and diet.values == [] and [s.value for s in diet.history][0] == "vegetarian"
    assert mem.lookup("en", "job").value == "nurse"  # type: ignore[union-attr]
    jess = mem.lookup("en", "city", "Jess")  # a relative by the name the person gave her
    assert jess is not None and jess.holder == "sister" and jess.value == "Denver"
    assert mem.lookup("en", "birthday") is None
    people = mem.profile("en")
    assert [p.person for p in people] == ["Tom"]  # the assistant states nothing about the user
    with pytest.raises(InputError, match="birthday"):
        mem.lookup("en", "shoe size")


@pytest.mark.parametrize(("question", "slot", "relation", "previous"), [
    ("내 생일 언제야?", "birthday", None, False),
    ("제가 무슨 알레르기 있다고 했죠?", "allergy", None, False),
    ("나 전에 어디 살았지?", "city", None, True),
    ("우리 언니 이름이 뭐였지?", "name", "sister", False),
    ("What's my sister's name?", "name", "sister", False),
    ("Where did I work before?", "employer", None, True),
    ("What do I do for a living?", "job", None, False),
    ("Am I vegetarian?", "diet", None, False),
])
def test_which_slot_a_question_asks_about(question: str, slot: str, relation: str | None, previous: bool) -> None:
    asked = slot_question(question)
    assert asked is not None and (asked.slot, asked.relation, asked.previous) == (slot, relation, previous)


@pytest.mark.parametrize("question", ["오늘 날씨 어때?", "What did we talk about yesterday?"])
def test_other_questions_ask_for_no_slot(question: str) -> None:
    assert slot_question(question) is None


@pytest.mark.parametrize(("bank", "turns", "question", "evidence"), [
    ("ko", KO, "내 생일 언제야?", "k1"),
    ("ko", KO, "나 전에 어디 살았지?", "k4"),
    ("ko", KO, "요즘 어디 살아?", "k6"),
    ("en", EN, "What's my sister's name?", "e3"),
    ("en", EN, "What do I do for a living?", "e1"),
])
def test_the_profile_channel_puts_the_slot_fact_first(mem: Memory, bank: str, turns: list[tuple[str, str, str, str]],
                                                      question: str, evidence: str) -> None:
    _retain(mem, bank, turns)
    top = mem.recall(bank, question, limit=3, explain=True).memories
    found = next(m for m in top if m.source_ids == [evidence])  # among the first three
    assert found.channels["profile"].rank == 1
    assert found.explanation is not None and found.explanation["features"]["profile_rr"] == 1.0


def test_an_erased_fact_takes_its_slot_with_it(mem: Memory) -> None:
    _retain(mem, "ko", KO)
    allergy = mem.lookup("ko", "allergy")
    assert allergy is not None
    mem.forget("ko", memory_id=allergy.memory_ids[0])
    assert mem.lookup("ko", "allergy") is None
    mem.forget("ko", source_id="ko-chat")
    assert mem.profile("ko") == []


def test_the_cli_shows_a_profile_and_a_lookup(db_path: str, fake_embedder: object) -> None:
    with Memory(db_path, embedder="fake") as mem:
        _retain(mem, "ko", KO)
    runner = CliRunner()
    shown = runner.invoke(cli, ["--db", db_path, "--embedder", "fake", "profile", "ko"])
    assert shown.exit_code == 0, shown.output
    assert "서연" in shown.output and "6월 23일" in shown.output and "before: 부산" in shown.output
    looked = runner.invoke(cli, ["--db", db_path, "--embedder", "fake", "lookup", "ko", "city", "--json"])
    assert looked.exit_code == 0 and json.loads(looked.output)["value"] == "서울"
    never = runner.invoke(cli, ["--db", db_path, "--embedder", "fake", "lookup", "ko", "job"])
    assert never.exit_code == 0 and "never stated" in never.output


def test_a_users_profile_and_profile_channel_read_only_that_users_memories(mem: Memory) -> None:
    for user, birthday, home in (("u1", "3월 3일", "부산에 살아요."), ("u2", "9월 9일", "I live in Austin.")):
        mem.retain("shared", messages=[
            {"id": f"{user}-a", "speaker": "user", "text": f"제 생일은 {birthday}이에요.",
             "timestamp": "2025-01-05T10:00:00+09:00"},
            {"id": f"{user}-b", "speaker": "user", "text": home, "timestamp": "2025-01-06T10:00:00+09:00"}],
            document_id=f"{user}-chat", user_id=user)
    assert mem.lookup("shared", "birthday", user_id="u1").value == "3월 3일"  # type: ignore[union-attr]
    assert mem.lookup("shared", "birthday", user_id="u2").value == "9월 9일"  # type: ignore[union-attr]
    assert mem.lookup("shared", "city", user_id="u2").value == "Austin"  # type: ignore[union-attr]
    for user in ("u1", "u2"):
        top = mem.recall("shared", "내 생일 언제야?", limit=3, user_id=user).memories
        assert top[0].source_ids == [f"{user}-a"] and "profile" in top[0].channels


class _ReadsOnlyTheOldHome(DecisionModel):
    """A decision model that reads the old home and misses the news of the move."""

    name = "old-home"
    tasks = frozenset()

    def read_profile(self, text: str, context: str = "") -> list[SlotValue]:
        for home in ("망원동", "Park Slope"):
            at = text.find(home)
            if at >= 0:
                return [SlotValue("self", "city", home, start=at, end=at + len(home))]
        return []


@pytest.fixture
def old_home() -> Iterator[None]:
    with registered(_ReadsOnlyTheOldHome()):
        yield


@pytest.mark.parametrize(("old", "new", "question"), [
    ("나 망원동 살아.", "드디어 이사했어! 이제 판교야.", "나 어디 살아?"),
    ("I live in Park Slope.", "We moved! We're in Jersey City now, near Hamilton Park.", "What city is my home in?"),
])
def test_a_slot_a_later_change_may_have_made_stale_is_not_pushed_first(mem: Memory, old_home: None, old: str,
                                                                       new: str, question: str) -> None:
    """A decision model that read the old home but not the news of the move: the profile channel stays
    out rather than rank the old home first."""
    mem.configure_decisions("mv", "old-home")
    _retain(mem, "mv", [("a", "지우", old, "2025-01-05T10:00:00+09:00"),
                        ("b", "지우", new, "2025-06-05T10:00:00+09:00")])
    assert mem.lookup("mv", "city") is not None  # the old home is the slot's value: the model missed the move
    top = mem.recall("mv", question, limit=2, explain=True).memories
    assert "profile" not in top[0].channels and all("profile" not in m.channels for m in top)


@pytest.mark.parametrize(("old", "new", "home"), [
    ("나 망원동 살아.", "드디어 이사했어! 이제 판교 살아.", "판교"),
    ("I live in Park Slope.", "We moved! We're in Jersey City now, near Hamilton Park.", "Jersey City"),
])
def test_the_learned_model_reads_the_move(mem: Memory, old: str, new: str, home: str) -> None:
    _retain(mem, "mv", [("a", "지우", old, "2025-01-05T10:00:00+09:00"),
                        ("b", "지우", new, "2025-06-05T10:00:00+09:00")])
    city = mem.lookup("mv", "city")
    assert city is not None and city.value == home and mem.get("mv", city.memory_ids[-1]).source_ids == ["b"]


def test_two_users_speaking_as_user_are_two_people(store_mem: Memory) -> None:
    """profile() without a user never merges two customers of one bank (one's birthday beside the
    other's job): a person is a speaker within one user's memories."""
    store_mem.retain("shop", [{"id": "a1", "speaker": "user", "timestamp": "2026-05-04T10:00:00+09:00",
                               "text": "제 생일은 5월 17일이에요. 저 땅콩 알레르기 있어요."}], user_id="cust-1")
    store_mem.retain("shop", [{"id": "b1", "speaker": "user", "text": "I'm a nurse at St. Mary's.",
                               "timestamp": "2026-05-05T10:00:00Z"}], user_id="cust-2")
    profiles = store_mem.profile("shop")
    by_user = {p.user_id: p for p in profiles}
    assert set(by_user) == {"cust-1", "cust-2"} and all(p.person == "user" for p in profiles)
    assert by_user["cust-1"].get("job") is None and by_user["cust-2"].get("birthday") is None
    assert by_user["cust-2"].get("job").value == "nurse"  # type: ignore[union-attr]
    assert [p.to_dict()["user_id"] for p in store_mem.profile("shop", user_id="cust-1")] == ["cust-1"]


@pytest.mark.parametrize(("question", "answer", "slot", "value"), [
    ("성함이 어떻게 되세요?", "정은비요", "name", "정은비"),
    ("What's your name?", "Dana Whitfield", "name", "Dana Whitfield"),
])
def test_a_bare_answer_fills_the_slot_its_question_asked(mem: Memory, question: str, answer: str, slot: str,
                                                         value: str) -> None:
    """Retain hands the slot model the question a short reply answers, and only a question: the same
    reply after a statement states nothing."""
    mem.retain("qa", [{"id": "q", "speaker": "assistant", "text": question},
                      {"id": "a", "speaker": "user", "text": answer}])
    found = mem.lookup("qa", slot)
    assert found is not None and found.value == value
    mem.retain("said", [{"id": "q", "speaker": "assistant", "text": "좋은 하루 보내세요. Have a nice day."},
                        {"id": "a", "speaker": "user", "text": answer}])
    assert mem.lookup("said", slot) is None


@pytest.mark.parametrize(("bank", "turns", "questions"), [
    ("ko", KO, ["내 생일 언제야?", "나 어디 살아?", "언니 이름이 뭐야?", "예전에 어디 살았어?", "나 알레르기 있어?",
            "민준 생일이 언제야?"]),
    ("en", EN, ["What's my job?", "Am I vegetarian?", "Where does Jess live?", "What job did I have before?",
            "What is Ann's job?"]),
])
def test_the_profile_channel_reads_only_the_asked_slot_and_answers_as_the_whole_profile_would(
        mem: Memory, bank: str, turns: list[tuple[str, str, str, str]], questions: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A question about one slot reads that slot's statements and the family slot's (which names the
    relatives), never every slot of everyone — and ranks as a lookup over the whole profile does."""
    from gieok.engine import slots as engine_slots

    _retain(mem, bank, turns)
    _retain(mem, bank, [("x1", "민준", "제 생일은 1월 2일이에요.", "2025-02-01T10:00:00+09:00"),
                        ("x2", "Ann", "I'm a teacher in Leeds.", "2025-02-02T10:00:00Z")])
    ctx = mem.engine.context(mem.store.banks.get(bank))
    read: list[str | None] = []
    real_all = ctx.store.slots.all
    monkeypatch.setattr(ctx.store.slots, "all", lambda *a, **k: read.append(k.get("slot")) or real_all(*a, **k))
    answered = 0
    for question in questions:
        asked = slot_question(question)
        assert asked is not None, question
        read.clear()
        ranked = engine_slots.profile_ranking(ctx, question, asked)
        assert set(read) <= {asked.slot, "family"} and None not in read
        whole = engine_slots.profile(ctx)
        entity = engine_slots._named_in(question, whole) or asked.relation
        found = engine_slots.lookup(ctx, asked.slot, entity, whole)
        ids = [] if found is None else [s.memory_id for s in found.previous()] if asked.previous \
            else list(reversed(found.memory_ids))
        assert ranked == [(engine_slots._number(m), 1.0 / (1 + i)) for i, m in enumerate(dict.fromkeys(ids))]
        answered += bool(ranked)
    assert answered >= 3  # (a denial empties the diet slot; Tom had no job before this one)
