"""The cue table behind ``classify_memory``: what a statement says that makes it last.

Each ``Cue`` belongs to a category (health, job, plan, ...) that fixes its decay class and
importance. A cue matches in one of three ways:

* ``pattern`` — a regex over the text (case-insensitive). Used for English, for Korean nouns that
  survive any particle (알레르기가 → 알레르기) and for fixed phrases (기억해 줘, 잊지 마).
* ``lemmas`` — Kiwi lemmas of verbs and adjectives, so every inflection matches: 좋아해요,
  좋아했어 and 좋아하는 are all 좋아하다; 다니고 있어요 and 다녀 are 다니다.
* ``nouns`` — whole Kiwi noun tokens, for short Korean nouns whose spelling hides inside other
  words (형 in 인형, 딸 in 딸기).

``weak`` cues are nouns that only mention a person or a workplace (엄마, 회사, boss). They make a
statement stable on their own, but lose to a plan, mood or one-off event cue: "내일 엄마랑 점심
먹어" is tomorrow's lunch, not a fact about the family. Verb-level cues (다니다, work at, prefer)
always win over transient ones. A bare time word (오늘, yesterday: a one-off event) is weak too: a
mood or plan in the same statement says more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from gieok.text.korean import analyze, has_hangul

__all__ = ["CUES", "Cue", "DecayClass", "matched_cues"]

DecayClass = Literal["pinned", "stable", "transient"]


@dataclass(frozen=True, slots=True)
class Cue:
    category: str
    decay_class: DecayClass
    importance: float
    pattern: re.Pattern[str] | None = None
    lemmas: frozenset[str] = field(default_factory=frozenset)
    nouns: frozenset[str] = field(default_factory=frozenset)
    weak: bool = False
    requester_only: bool = False  # an explicit "remember this" counts only from the user's side


def _re(*alternatives: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{a})" for a in alternatives), re.IGNORECASE)


_CLAUSE_START = r"(?:^|[.!?,;:]\s*|\bplease\s+|\band\s+)"
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"

CUES: tuple[Cue, ...] = (
    # ---- pinned: who the user is and what must never be forgotten
    Cue("explicit request", "pinned", 1.0, _re(
        r"기억\s*(?:해|하고)\s*(?:줘|주세요|줄래|둬|두세요|둬요|놔|놓아)",
        r"잊지\s*(?:마|말아|마세요|말아요|말고)", r"꼭\s*기억", r"메모해\s*(?:줘|둬|주세요|두세요)",
        rf"{_CLAUSE_START}remember\s+(?:this|that|:)", r"\bplease\s+(?:remember|note)\b",
        r"\bdon'?t\s+forget\b", r"\bdo not forget\b", r"\bnever forget\b",
        rf"{_CLAUSE_START}note\s+that\b", r"\bkeep\s+(?:this|that|it)\s+in\s+mind\b",
    ), requester_only=True),
    Cue("health", "pinned", 0.95, _re(
        r"당뇨", r"고혈압", r"저혈압", r"천식", r"임신", r"복용", r"혈압약", r"인슐린", r"지병",
        r"갑상선", r"공황\s*장애", r"우울증", r"뇌전증", r"투석", r"(?<![가-힣])약\s*(?:을\s*)?(?:먹|챙겨)",
        r"\bdiabet(?:es|ic)\b", r"\basthma(?:tic)?\b", r"\bpregnan(?:t|cy)\b", r"\bmedications?\b",
        r"\binsulin\b", r"\bhypertension\b", r"\bhigh blood pressure\b", r"\bepilep(?:sy|tic)\b",
        r"\bprescri(?:bed|ption)\b", r"\bi take\b[^.!?]*?\b\d+\s?mg\b", r"\b\d+\s?mg\b",
    )),
    Cue("allergy", "pinned", 0.95, _re(r"알레르기", r"알러지", r"\ballerg(?:y|ies|ic)\b")),
    Cue("name", "pinned", 0.9, _re(
        r"(?:제|내|저의|나의)\s*이름", r"(?:라고|이라고)\s*불러", r"\bmy name(?:'s|\s+is)\b",
        r"\b(?:i'?m|i am) called\b", r"\bmy nickname\b",
        # "call me Jay" is a name, "call me tomorrow" is not: the next word must be capitalised.
        r"\b(?:just\s+)?call me\s+(?-i:[A-Z][a-z]+)",
    )),
    Cue("birthday", "pinned", 0.9, _re(
        r"생일", r"생신", r"태어났", r"\bbirthday\b", r"\bb-?day\b", r"\bborn on\b",
        r"\bborn in \d{4}\b", r"\bdate of birth\b",
    )),
    # ---- stable: preferences, work, family, home, diet
    Cue("dietary", "stable", 0.8, _re(
        r"채식", r"비건", r"할랄", r"글루텐", r"\bvegetarian\b", r"\bvegan\b", r"\bpescatarian\b",
        r"\bhalal\b", r"\bkosher\b", r"\bgluten[- ]free\b", r"\blactose[- ]intolerant\b",
    )),
    Cue("relationship", "stable", 0.75, _re(
        r"결혼\s*했", r"결혼한\s*지", r"약혼", r"이혼", r"기혼",
        r"\b(?:i'?m|i am|we'?re|we are|got|get(?:ting)?)\s+(?:married|engaged|divorced)\b",
        r"\bi have (?:a|an|one|two|three|four|\d+) (?:sisters?|brothers?|siblings?|kids|children|sons?|daughters?)\b",
        r"\bmarried\b",
    )),
    Cue("relationship", "stable", 0.7, _re(
        r"여자\s*친구", r"남자\s*친구", r"와이프",
        r"\b(?:husband|wife|sister|brother|boyfriend|girlfriend|partner|fianc[eé]e?|mom|mother|dad|father"
        r"|son|daughter|parents|grandma|grandmother|grandpa|grandfather)\b",
    ), nouns=frozenset(
        "남편 아내 부인 여친 남친 동생 엄마 아빠 어머니 아버지 부모님 형 누나 언니 오빠 딸 아들 "
        "할머니 할아버지 애인 손자 손녀 남동생 여동생".split()
    ), weak=True),
    Cue("job", "stable", 0.7, _re(
        r"직장", r"근무", r"재직", r"취직", r"이직", r"입사", r"퇴사", r"직업", r"다니는\s*회사",
        r"\bi work (?:at|for|as|in|on)\b", r"\bworks? (?:at|for|as)\b", r"\bmy (?:job|employer|company)\b",
        r"\bemployed\b", r"\bi'?m an? (?:\w+ )?(?:engineer|developer|teacher|nurse|doctor|designer|lawyer"
        r"|student|manager|accountant|programmer|chef|writer|researcher|professor)\b",
    ), lemmas=frozenset({"다니다"})),
    Cue("job", "stable", 0.65, _re(r"\b(?:boss|colleagues?|co-?workers?|my office)\b"),
        nouns=frozenset("회사 팀장 상사 동료 부장 과장 대리 사장님 사수".split()), weak=True),
    Cue("home", "stable", 0.7, _re(
        r"(?:에|에서)\s*(?:살|사는|삽니다|사세요)", r"거주", r"이사", r"\bi live\b", r"\blives? (?:in|at|near)\b",
        r"\bmoved (?:to|into)\b", r"\brelocated\b", r"\bmy (?:home|apartment|house|hometown)\b",
    ), lemmas=frozenset({"살다"})),
    Cue("preference", "stable", 0.6, _re(
        r"싫어\s*(?:해|하|했)", r"선호", r"최애", r"즐겨", r"(?:제일|가장)\s*좋",
        r"\bfavou?rite\b", r"\bprefer(?:s|red)?\b", r"(?<!'d )(?<!would )\b(?:love|loves|loved)\b(?! to\b)",
        r"\bhate[sd]?\b", r"\bi (?:really |also |don'?t |do not |)like\b", r"\bi enjoy\b",
        r"\bcan'?t stand\b", r"\bfan of\b", r"\bdislike\b",
    ), lemmas=frozenset({"좋아하다", "즐기다"})),
    # ---- transient: what is over soon
    Cue("plan", "transient", 0.4, _re(
        r"내일", r"모레", r"다음\s*(?:주|달|번)", r"이번\s*주말", r"이따", r"약속", r"회의", r"미팅", r"마감",
        r"예약", r"일정", r"[가-힣]\s+거(?:야|예요|에요|임|다)", r"려고", r"예정", r"계획",
        r"\btomorrow\b", r"\btonight\b", rf"\bnext (?:week|month|year|weekend|time|{_WEEKDAY})\b",
        r"\bthis (?:weekend|evening|afternoon)\b", r"\bmeeting\b", r"\bdeadline\b", r"\bappointment\b",
        r"\bgoing to\b", r"\bgonna\b", r"\bplan(?:ning)? to\b", r"\bscheduled?\b", r"\bi'?ll\b",
        r"\blater today\b", r"\bdue (?:on|by)\b",
    )),
    Cue("one-off event", "transient", 0.3, _re(
        r"어제", r"오늘", r"방금", r"아까", r"지난\s*주", r"그저께", r"엊그제",
        r"\byesterday\b", r"\btoday\b", r"\blast (?:night|week|weekend)\b", r"\bthis morning\b",
        r"\bjust now\b", r"\bearlier today\b",
    ), weak=True),
    Cue("mood", "transient", 0.2, _re(
        r"피곤", r"기분", r"배고", r"짜증", r"졸려", r"졸리", r"심심", r"스트레스", r"지쳤", r"지친",
        r"힘들어", r"우울해", r"외로워", r"신나",
        r"\b(?:tired|hungry|bored|stressed|sleepy|exhausted|anxious|grumpy|cranky|upset|sad|lonely)\b",
        r"\bin a (?:good|bad|great|terrible) mood\b", r"\bfeel(?:ing)? (?:great|bad|down|sick|good|awful)\b",
    )),
)


def matched_cues(text: str) -> list[tuple[Cue, str]]:
    """Every cue that fires on ``text`` with the words that fired it, in table order."""
    lemmas: set[str] = set()
    nouns: set[str] = set()
    if has_hangul(text):
        tokens = analyze(text)
        for form, tag, lemma, _start, _end in tokens:
            if tag.startswith("NN"):
                nouns.add(form)
            elif tag.startswith(("VV", "VA")):
                lemmas.add(lemma)
    hits: list[tuple[Cue, str]] = []
    for cue in CUES:
        match = cue.pattern.search(text) if cue.pattern is not None else None
        if match is not None:
            hits.append((cue, match.group().strip()))
        elif cue.lemmas & lemmas:
            hits.append((cue, min(cue.lemmas & lemmas)))
        elif cue.nouns & nouns:
            hits.append((cue, min(cue.nouns & nouns)))
    return hits
