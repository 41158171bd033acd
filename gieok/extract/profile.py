"""Profile slots: typed facts a message states about its speaker or the speaker's family.

``extract_slots(text)`` reads one message said by one person and returns ``SlotValue`` rows such as
(self, job, 간호사) or (sister, city, Seoul).  It is deterministic and conservative: a wrong slot value
is worse than a missing one, so every rule needs an explicit trigger ("알레르기", "allergic to", "I
live in", "다녀요") next to its value, and a sentence is skipped as a whole when it

- is a question (ends with "?", or a Korean question ending / interrogative word),
- talks about the listener (너, 네, 당신, you, your; "thank you" and "call me" excepted),
- is a plan, wish or hypothesis (볼까, 려고, 싶다, 만약, ...면, maybe, might, will, going to, if, want).

Holder.  A statement is about "self" unless a family subject stands before its evidence in the
same sentence: Korean "우리 언니는", "제 동생 민호가", "엄마가", "남편은"; English "my sister ...",
"my older brother Tom ...".  A Korean subject that is a name or another person ("민수는", "친구가")
makes the statement a third party's, and nothing is extracted from it; English rules are anchored to
"I", "we" or "my <relative>", so third parties never match.

Rules per slot (values are trimmed to the value itself: Korean particles by Kiwi, English by the
pattern):

- name: "제 이름은 X", "저는 X라고 해요", "저는 X입니다" (X a Kiwi proper noun), "my name is X",
  "Hi, I'm X" (a greeting first; nationalities refused).
- nickname: "저를 X라고 불러요", "X라고 불러 주세요", "별명은 X", "call me X", "my nickname is X",
  "I go by X", "everyone calls me X".
- birthday: "생일" or "birthday"/"bday"/"born on" followed by a single calendar day found by
  ``gieok.temporal`` (6월 23일, 6/23, March 3rd, the 3rd of March); Sino-Korean month and day words
  (유월 이십삼일) are read here.  A month alone or a relative day ("tomorrow") is not a birthday.
- allergy: "X 알레르기 있어요", "X에 알레르기가 있어요", "X 알레르기라서", "allergic to X and Y",
  "I have a X allergy".  Negated: "알레르기 없어요", "no allergies", "not allergic to X".
- diet: a small lexicon (채식, 채식주의자, 비건, 페스코, vegetarian, vegan, pescatarian, keto, ...)
  stated as a state ("비건이에요", "채식해요", "I'm vegan", "I went vegan", "I eat pescatarian").
  Negated: "채식 안 해요", "비건 그만뒀어", "I'm not vegetarian anymore", "I stopped being vegan".
- health: a lexicon of chronic conditions (당뇨, 천식, 고혈압, asthma, type 2 diabetes, ...) with
  "있어요 / 앓고 / 진단", "I have", "diagnosed with", "I suffer from"; negated by 없다 / 나았다 /
  "don't have".
- job: a lexicon of occupations with an optional modifier word ("프론트엔드 개발자", "data engineer")
  as a copula complement ("간호사예요", "I'm a nurse") or after "로 일하다" / "work as".  A past
  copula ("교사였어요"), "아니에요", "그만뒀어", "not ... anymore", "used to be", "former",
  "retired" negate it.
- employer: "X 다녀요", "X에서 일해요 / 근무해요", "X에 입사했어요", "I work at/for X", "I joined X",
  "a designer at X"; negated by 그만두다 / 퇴사 / 관두다 / 다녔다, "I quit/left X".  Generic places
  (회사, 학교, 병원, a hospital) and places of living (서울, 강남) are not employers.
- city: "X(에) 살아요", "X로 이사했어요", "I live in X", "we moved to X", "I'm based in X".  Korean X must
  be a proper noun or end in 동/구/시/군/읍/면; English X must be capitalised.  "살았었어", "used to
  live in", "moved out of X", "서울에서 부산으로" (서울) negate.
- family (multi): "우리 언니 이름은 지수야", "제 동생 민호가", "my sister Jisoo", "my daughter's name
  is Lily", "언니가 있어요", "I have a sister".  Value is the name if given, else the relation word.
- preference (multi): "제일 좋아하는 X는 Y야", "Y를 좋아해요" (Y may be "매운 거"), "my favorite X is
  Y", "Y is my favorite", "I love/like/enjoy Y", "I'm a big fan of Y", "I'm into Y"; negated by
  "안 좋아해", "좋아하지 않아", "I don't like Y".

Relations: 동생 is "sibling", 여동생 "sister", 남동생 "brother"; 남자친구/boyfriend and
여자친구/girlfriend keep their own keys, 애인 and partner are "partner".

Left out on purpose: counts of relatives ("I have two kids"), hometowns ("I'm from Seoul", 고향),
past states without an end marker ("I lived in Paris", "부산에 살았어"), dislikes ("I hate X",
"싫어해"), Korean "X 좋아" (also "X is nice"), schools (서울대 다녀요), ages and pets, and anything the
speaker says about a friend, colleague or the listener.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date

from gieok.temporal import find_time_expressions
from gieok.temporal._numbers import sino_korean
from gieok.text.korean import analyze, has_hangul
from gieok.text.sentences import split_sentences

__all__ = ["MULTI_VALUED", "RELATIONS", "SLOTS", "SlotValue", "extract_slots"]

SLOTS = ("name", "nickname", "birthday", "allergy", "diet", "health", "job", "employer", "city", "family", "preference")
MULTI_VALUED = frozenset({"allergy", "health", "family", "preference"})
SELF = "self"

RELATIONS: dict[str, str] = {
    "언니": "sister", "누나": "sister", "여동생": "sister", "sister": "sister", "sis": "sister",
    "형": "brother", "오빠": "brother", "남동생": "brother", "brother": "brother",
    "동생": "sibling", "sibling": "sibling",
    "엄마": "mother", "어머니": "mother", "어머님": "mother", "mom": "mother", "mother": "mother", "mum": "mother",
    "아빠": "father", "아버지": "father", "아버님": "father", "dad": "father", "father": "father",
    "남편": "husband", "신랑": "husband", "husband": "husband",
    "아내": "wife", "와이프": "wife", "부인": "wife", "wife": "wife",
    "딸": "daughter", "daughter": "daughter", "아들": "son", "son": "son",
    "할머니": "grandmother", "grandma": "grandmother", "grandmother": "grandmother",
    "할아버지": "grandfather", "grandpa": "grandfather", "grandfather": "grandfather",
    "남자친구": "boyfriend", "남친": "boyfriend", "boyfriend": "boyfriend",
    "여자친구": "girlfriend", "여친": "girlfriend", "girlfriend": "girlfriend",
    "애인": "partner", "partner": "partner", "fiance": "partner", "fiancé": "partner", "fiancee": "partner",
    "fiancée": "partner",
    # the wider family: without them "내 사촌 Jess는 간호사야" gave the speaker Jess's job
    "사촌": "cousin", "cousin": "cousin",
    "삼촌": "uncle", "외삼촌": "uncle", "큰아버지": "uncle", "작은아버지": "uncle", "uncle": "uncle",
    "이모": "aunt", "고모": "aunt", "aunt": "aunt", "auntie": "aunt",
    "조카": "nephew or niece", "nephew": "nephew or niece", "niece": "nephew or niece",
    "손자": "grandchild", "손녀": "grandchild", "grandson": "grandchild", "granddaughter": "grandchild",
    "시어머니": "mother-in-law", "장모님": "mother-in-law", "장모": "mother-in-law", "mother-in-law": "mother-in-law",
    "시아버지": "father-in-law", "장인어른": "father-in-law", "장인": "father-in-law", "father-in-law": "father-in-law",
}


@dataclass(frozen=True)
class SlotValue:
    """One typed fact: ``holder`` is "self" (the speaker) or a relation key ("sister")."""

    holder: str
    slot: str
    value: str
    relation: str | None = None
    negated: bool = False
    start: int = 0
    end: int = 0


def _alternation(words: list[str] | set[str] | frozenset[str]) -> str:
    return "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))


_KO_RELATIONS = [w for w in RELATIONS if has_hangul(w)]
_EN_RELATIONS = [w for w in RELATIONS if not has_hangul(w)]
_KO_REL = _alternation(_KO_RELATIONS)
_EN_REL = _alternation(_EN_RELATIONS)


def extract_slots(text: str) -> list[SlotValue]:
    """The profile facts ``text`` states about its speaker or the speaker's family (see the module
    docstring for the rules), in order of appearance, without duplicates."""
    found: list[SlotValue] = []
    for start, end in split_sentences(text):
        sentence = text[start:end]
        korean = has_hangul(sentence)
        if not korean:
            sentence = _EN_TAG_QUESTION.sub("", sentence)
        if _is_question(sentence, korean):
            continue
        rules = _KOREAN_RULES if korean else _ENGLISH_RULES
        for rule in rules:
            for value in rule(sentence):
                shifted = SlotValue(value.holder, value.slot, value.value, value.relation, value.negated,
                                    value.start + start, value.end + start)
                if not any(_same(shifted, other) for other in found):
                    found.append(shifted)
    found.sort(key=lambda v: v.start)
    return found


def _same(a: SlotValue, b: SlotValue) -> bool:
    return (a.holder, a.slot, a.value.lower(), a.negated) == (b.holder, b.slot, b.value.lower(), b.negated)


# --------------------------------------------------------------------------- sentence filters

_KO_WH = frozenset({"언제", "뭐", "무엇", "어디", "누구", "왜", "어때", "어떻"})
_EN_QUESTION_START = re.compile(
    r"^\s*(?:are|is|do|does|did|what|when|where|who|whom|why|how|which|can|could|would|will|have|has|"
    r"should|shall|am)\b",
    re.IGNORECASE,
)


# "I'm vegetarian, how about you?" states a fact before asking one back
_EN_TAG_QUESTION = re.compile(r"[,;]?\s*(?:(?:what|how)\s+about\s+you|and\s+you|you\?|right|isn't\s+it)\s*\?+\s*$",
                              re.IGNORECASE)


def _is_question(sentence: str, korean: bool) -> bool:
    """Questions state nothing: "너 생일 언제야?", "Are you vegetarian?"."""
    if "?" in sentence or "？" in sentence:
        return True
    if not korean:
        return _EN_QUESTION_START.match(sentence) is not None
    tokens = analyze(sentence)
    if any(form in _KO_WH and tag.startswith(("NP", "MM", "MAG", "VA", "NNG")) for form, tag, *_ in tokens):
        return True
    endings = [form for form, tag, *_ in tokens if tag == "EF"]
    return bool(endings) and endings[-1].endswith(("까", "니", "냐", "나요", "가요", "는지", "ᆫ가"))


_KO_LISTENER = frozenset({"너", "당신", "니", "자네", "너희"})


def _korean_listener(sentence: str) -> bool:
    """"네 생일 축하해", "너는 간호사잖아": the listener's facts are not the speaker's."""
    return any(form in _KO_LISTENER and tag == "NP" for form, tag, *_ in analyze(sentence))


_EN_LISTENER = re.compile(r"\byou(?:r|rs|'re|'ve|'d|'ll|rself)?\b", re.IGNORECASE)
_EN_NOT_LISTENER = re.compile(r"\b(?:thank you|thank-you|you know|see you|(?:you can |you could )?call me)\b",
                              re.IGNORECASE)


def _english_listener(sentence: str) -> bool:
    """Any "you" or "your" besides "thank you", "you know", "see you" and "call me"."""
    return _EN_LISTENER.search(_EN_NOT_LISTENER.sub(" ", sentence)) is not None


_KO_PLAN_ENDINGS = ("려고", "으려고", "려면", "으면", "면", "다면", "라면", "ᆫ다면", "는다면")
_KO_PLAN_NOUNS = frozenset({"예정", "계획", "만약", "혹시", "아마", "생각중"})
_KO_CLAUSE_ENDS = frozenset({"어서", "아서", "고", "는데", "은데", "ᆫ데", "지만", "니까", "으니까", "어", "아"})


def _korean_plan(sentence: str, at: int) -> bool:
    """A plan, wish or hypothesis in the clause holding the evidence at ``at``: "채식 해볼까",
    "부산으로 이사 가려고", "비건 하고 싶어", "만약 ... 살면", "할 거야"."""
    tokens = analyze(sentence)
    if any(form in _KO_PLAN_NOUNS for form, *_ in tokens):
        return True
    for i, (form, tag, _lemma, start, _end) in enumerate(tokens):
        if start < at:
            continue
        if tag in ("EF", "EC") and form.endswith("까"):
            return True
        if tag == "EC" and form in _KO_PLAN_ENDINGS:
            return True
        if tag == "VX" and form in ("싶", "보"):
            return True
        if tag == "ETM" and form in ("ᆯ", "을") and i + 1 < len(tokens) and tokens[i + 1][0] in ("거", "것", "수"):
            return True
        if tag == "EC" and form in _KO_CLAUSE_ENDS and i + 1 < len(tokens) and tokens[i + 1][1] != "VX":
            return False
    return False


_EN_PLAN = re.compile(
    r"\b(?:maybe|might|perhaps|thinking (?:about|of)|planning|plan to|plans to|want to|wants to|wanna|going to|"
    r"gonna|will|would|could|should|if|hope|hoping|someday|one day|considering|wish|tempted|might)\b|'ll\b|'d\b",
    re.IGNORECASE,
)


def _english_plan(sentence: str) -> bool:
    """Modal, future and conditional words anywhere in the sentence (lowercase "may" only)."""
    return _EN_PLAN.search(sentence) is not None or re.search(r"\bmay\b", sentence) is not None


# --------------------------------------------------------------------------- Korean helpers

_NOUN_TAGS = ("NNG", "NNP", "SL", "SN", "SH", "XSN", "XPN", "NR", "W_")


def _trim_korean(word: str) -> str:
    """The noun an eojeol starts with, particles and copula cut by Kiwi: "토스뱅크에서" -> "토스뱅크"."""
    end = 0
    for _form, tag, _lemma, _start, token_end in analyze(word):
        if not tag.startswith(_NOUN_TAGS):
            break
        end = token_end
    return word[:end].strip()


def _has_final_consonant(syllable: str) -> bool:
    code = ord(syllable) - 0xAC00
    return 0 <= code < 11172 and code % 28 != 0


_KO_NAME_ENDING = re.compile(
    r"^(?P<stem>.+?)(?:이에요|예요|이야|야|입니다|이고|고|이라고|라고|이래요|래요|이요|임|요)?$"
)


def _name_stem(word: str) -> str:
    """A name with its copula cut by spelling, not by Kiwi, which splits unknown names: "곰돌이예요" is
    곰돌이 + 예요 (예요 follows a vowel), "김서연이에요" is 김서연 + 이에요."""
    m = _KO_NAME_ENDING.match(word)
    return m.group("stem") if m else word


def _drop_copula_i(name: str) -> str:
    """"서연이라고" and "서연입니다" leave Kiwi with "서연이": after a syllable with a final consonant
    that 이 belongs to the copula (이라고, 이에요), not to the name."""
    if len(name) >= 3 and name.endswith("이") and _has_final_consonant(name[-2]):
        return name[:-1]
    return name


_KO_POSSESSIVE = r"(?:우리|울|제|내|저희|나의|저의)"
_KO_SELF_SUBJECT = re.compile(r"(?:^|(?<=\s))(?:저는|전|나는|난|제가|내가|저도|나도|저희는|우리는)(?=\s|$)")
_KO_REL_SUBJECT = re.compile(
    rf"(?:(?:^|(?<=\s)){_KO_POSSESSIVE}\s*)?(?<![가-힣])(?P<rel>{_KO_REL})"
    r"(?:\s+(?P<name>[가-힣]{2,3}?))?(?:은|는|이|가|도|께서|께선|이는|이가)?(?=\s|$)"
)
_KO_OTHER_PEOPLE = frozenset({"친구", "동료", "선배", "후배", "팀장", "사장", "상사", "걔", "쟤", "얘", "그녀",
                              "그", "사람", "룸메", "룸메이트", "이웃", "선생님", "교수님"})


_KO_ATTRIBUTES = frozenset({"생일", "이름", "직업", "회사", "직장", "고향", "별명", "취미", "알레르기"})


def _korean_subjects(sentence: str) -> list[tuple[int, str]]:
    """Subjects as ``(position, holder)``: "self", a relation key, or "other" for a named or unrelated
    person ("민수는", "친구가", "팀장님은", "민수 생일은", and "친구 동생은", someone else's relative)."""
    subjects: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []
    for m in _KO_SELF_SUBJECT.finditer(sentence):
        subjects.append((m.start(), SELF))
    for m in _KO_REL_SUBJECT.finditer(sentence):
        has_particle = m.end() > m.end("rel") + (len(m.group("name")) if m.group("name") else 0)
        possessive = m.start() < m.start("rel")
        if not (has_particle or possessive):
            continue
        owner = re.search(r"(?P<word>[가-힣]+)\s+$", sentence[:m.start()])
        bare_owner = owner is not None and _trim_korean(owner.group("word")) == owner.group("word")
        someone_elses = not possessive and bare_owner  # "친구 동생은": a friend's sibling
        name = m.group("name")
        if name and name in _KO_OTHER_PEOPLE:
            someone_elses = True  # "우리 엄마 친구는": a relative's friend, not the relative
        subjects.append((m.start(), "other" if someone_elses else RELATIONS[m.group("rel")]))
        taken.append((m.start(), m.end()))
    tokens = analyze(sentence)
    for i, (form, tag, _lemma, _start, _end) in enumerate(tokens):
        if i == 0 or tag not in ("JX", "JKS") or form not in ("은", "는", "이", "가", "도", "께서"):
            continue
        h = i - 1
        while h > 0 and tokens[h][1] == "XSN":  # "팀장님은", "사람들은"
            h -= 1
        head, head_tag, head_start = tokens[h][0], tokens[h][1], tokens[h][3]
        if any(a <= head_start < b for a, b in taken):
            continue
        before = tokens[h - 1] if h > 0 else None
        if head in _KO_ATTRIBUTES and before is not None and before[1] == "NNP":
            subjects.append((before[3], "other"))  # "민수 생일은": someone else's
        elif head_tag == "NNP" and head not in RELATIONS and (before is None or before[0] not in RELATIONS):
            subjects.append((head_start, "other"))
        elif head in _KO_OTHER_PEOPLE and head_tag in ("NNG", "NP"):
            subjects.append((head_start, "other"))
    subjects.sort()
    return subjects


def _korean_holder(sentence: str, at: int) -> str:
    """The holder set by the last subject before ``at``; "self" when there is none."""
    holder = SELF
    for position, who in _korean_subjects(sentence):
        if position < at:  # a subject before the evidence; the evidence itself may be a proper noun
            holder = who
    return holder


def _korean_fact(sentence: str, slot: str, value: str, start: int, end: int, negated: bool = False,
                 at: int | None = None, relation: str | None = None, holder: str | None = None) -> SlotValue | None:
    """A Korean fact after the filters: no listener, no plan, holder self or family."""
    at = start if at is None else at
    if not value or _korean_listener(sentence) or _korean_plan(sentence, at):
        return None
    who = holder if holder is not None else _korean_holder(sentence, at)
    if who == "other" or (holder is None and who == SELF and _honorific_after(sentence, at)):
        return None  # a speaker never honours themself: "강아지 좋아하세요" is about the listener
    return SlotValue(who, slot, value, relation, negated, start, end)


def _honorific_after(sentence: str, at: int) -> bool:
    """Subject honorifics (으시, 세요) after ``at``."""
    for form, tag, _lemma, start, _end in analyze(sentence):
        if start < at:
            continue
        if tag == "EP" and form in ("시", "으시", "세", "셨", "으셨"):
            return True
        if tag == "EF" and form.startswith(("세요", "으세요", "셔", "십시오", "시죠", "세여")):
            return True
    return False


def _words(*facts: SlotValue | None) -> list[SlotValue]:
    return [f for f in facts if f is not None]


# --------------------------------------------------------------------------- Korean rules

_KO_NAME = re.compile(rf"(?:(?P<who>{_KO_POSSESSIVE}|{_KO_REL})\s*(?:의\s*)?)?이름(?:은|이)\s+(?P<v>[가-힣A-Za-z]+)")
_KO_NAME_SAY = re.compile(
    r"(?:^|(?<=\s))(?:저는|전|나는|난)\s+(?P<v>[가-힣]{1,5}?)(?:이라고|라고)\s*(?P<verb>해|합|하|불러)"
)
_KO_NAME_COPULA = re.compile(r"(?:^|(?<=\s))(?:저는|전)\s+(?P<v>[가-힣]{2,5}?)(?:입니다|이에요|예요)")
_KO_NICK = (
    re.compile(r"(?:저를|절|나를|날)\s*(?P<v>[가-힣A-Za-z]+?)(?:이라고|라고)\s*(?:불러|부르)"),
    re.compile(r"(?P<v>[가-힣A-Za-z]+?)(?:이라고|라고)\s*불러\s*(?:주세요|줘|주면|주십시오|주셔도)"),
    re.compile(r"별명(?:은|이)\s+(?P<v>[가-힣A-Za-z]+)"),
)


def _korean_names(sentence: str) -> list[SlotValue]:
    """Own name, nickname, and a relative's name ("우리 언니 이름은 지수야" is a family fact)."""
    out: list[SlotValue] = []
    for m in _KO_NAME.finditer(sentence):
        value = _name_stem(m.group("v"))
        who = m.group("who")
        if who in RELATIONS:
            relation = RELATIONS[who]
            out += _words(_korean_fact(sentence, "family", value, m.start(), m.end(), relation=relation, holder=SELF))
        elif who is None and _korean_holder(sentence, m.start()) != SELF:
            continue  # "민수 이름은" / "언니는 이름이": not the speaker's own name
        else:
            out += _words(_korean_fact(sentence, "name", value, m.start(), m.end(), holder=SELF))
    for m in _KO_NAME_SAY.finditer(sentence):
        slot = "nickname" if m.group("verb") == "불러" else "name"
        value = _drop_copula_i(_trim_korean(m.group("v")))
        out += _words(_korean_fact(sentence, slot, value, m.start(), m.end("v"), holder=SELF))
    for m in _KO_NAME_COPULA.finditer(sentence):
        value = _drop_copula_i(m.group("v"))
        if _is_proper_name(value):
            out += _words(_korean_fact(sentence, "name", value, m.start(), m.end("v"), holder=SELF))
    for pattern in _KO_NICK:
        for m in pattern.finditer(sentence):
            value = _name_stem(m.group("v"))
            out += _words(_korean_fact(sentence, "nickname", value, m.start(), m.end(), holder=SELF))
    return out


def _is_proper_name(word: str) -> bool:
    """A lone Kiwi proper noun that is not a place or an occupation."""
    tokens = analyze(word)
    return (1 <= len(tokens) <= 2 and all(tag == "NNP" for _f, tag, *_ in tokens) and word not in _KO_PLACES
            and word not in _KO_JOBS and not word.endswith(_KO_PLACE_SUFFIXES))


_KO_SINO_DATE = re.compile(
    r"(?P<m>(?:[이삼사오칠팔구]?십[일이]?|[일이삼사오칠팔구]|유|시))월\s*(?P<d>[이삼]?십[일이삼사오육칠팔구]?|[일이삼사오육칠팔구])일"
)
_KO_BIRTH = re.compile(
    rf"(?:(?P<who>{_KO_POSSESSIVE}|{_KO_REL})\s*(?:의\s*)?)?(?:생일|생신)|태어났|(?<=일)생(?=이|입|$|\s)"
)


def _korean_birthday(sentence: str) -> list[SlotValue]:
    """"제 생일은 6월 23일이에요", "우리 언니 생일은 3월 5일이야" (the date after 생일); "12월 25일생",
    "5월 5일에 태어났어요" (the date before)."""
    out: list[SlotValue] = []
    for m in _KO_BIRTH.finditer(sentence):
        if m.group(0).endswith(("생일", "생신")):
            day = _calendar_day(sentence, m.end())
        else:
            day = _calendar_day_before(sentence, m.start())
        if day is None:
            continue
        who = m.group("who")
        holder = RELATIONS[who] if who in RELATIONS else None
        start, end = min(m.start(), day[0]), max(m.end(), day[1])
        out += _words(_korean_fact(sentence, "birthday", sentence[day[0]:day[1]], start, end, holder=holder))
    return out


def _single_days(sentence: str) -> Iterator[tuple[int, int]]:
    """Spans of explicit calendar days: a month and a day, in digits or Sino-Korean words."""
    for mention in find_time_expressions(sentence, date(2001, 1, 1)):
        one_day = (mention.range[1] - mention.range[0]).days == 1
        explicit = re.search(r"\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec", mention.text, re.IGNORECASE)
        if one_day and explicit and not re.search(r"ago|전|후|later", mention.text):
            yield mention.start, mention.end
    for m in _KO_SINO_DATE.finditer(sentence):
        month_word = {"유": "육", "시": "십"}.get(m.group("m"), m.group("m"))
        month, day = sino_korean(month_word), sino_korean(m.group("d"))
        if month and day and 1 <= month <= 12 and 1 <= day <= 31:
            yield m.start(), m.end()


def _calendar_day(sentence: str, after: int) -> tuple[int, int] | None:
    """The first explicit day at most a few characters after ``after`` ("생일은 6월 23일")."""
    days = sorted(d for d in _single_days(sentence) if d[0] >= after and d[0] - after <= 8)
    return days[0] if days else None


def _calendar_day_before(sentence: str, before: int) -> tuple[int, int] | None:
    days = sorted((d for d in _single_days(sentence) if d[1] <= before and before - d[1] <= 6), reverse=True)
    return days[0] if days else None


_KO_ALLERGY = frozenset({"알레르기", "알러지", "앨러지"})
_KO_LIST_JOINS = frozenset({"와", "과", "하고", "이랑", "랑", ",", "이나", "나"})


def _korean_allergies(sentence: str) -> list[SlotValue]:
    """Nouns listed before 알레르기 with 있다 / 없다 / a copula after it; a bare "알레르기 없어요"
    denies them all (value "알레르기")."""
    out: list[SlotValue] = []
    tokens = analyze(sentence)
    for i, (form, _tag, _lemma, start, end) in enumerate(tokens):
        if form not in _KO_ALLERGY:
            continue
        predicate = _predicate_after(tokens, i + 1)
        if predicate is None:
            continue
        negated = predicate == "없"
        values = _noun_list_before(sentence, tokens, i)
        if not values:
            if negated:
                out += _words(_korean_fact(sentence, "allergy", form, start, end, True))
            continue
        for value, value_start, _value_end in values:
            out += _words(_korean_fact(sentence, "allergy", value, value_start, end, negated))
    return out


def _predicate_after(tokens: tuple[tuple[str, str, str, int, int], ...], i: int) -> str | None:
    """"있" or "없" (or "이" for a copula) right after a noun, particles skipped."""
    while i < len(tokens) and tokens[i][1] in ("JKS", "JX", "JKO", "MAG"):
        i += 1
    if i >= len(tokens):
        return None
    form, tag = tokens[i][0], tokens[i][1]
    if form in ("있", "생기", "생겼") and tag.startswith(("VA", "VV")):
        return "있"
    if form == "없" and tag.startswith("VA"):
        return "없"
    if tag == "VCP":
        return "이"
    return None


def _noun_list_before(sentence: str, tokens: tuple[tuple[str, str, str, int, int], ...],
                      i: int) -> list[tuple[str, int, int]]:
    """The nouns listed right before token ``i``, one eojeol each: "땅콩이랑 새우 알레르기" ->
    땅콩, 새우; "새우에 알레르기" -> 새우; "저 갑각류 알레르기" -> 갑각류."""
    values: list[tuple[str, int, int]] = []
    j = i - 1
    if j >= 0 and tokens[j][0] == "에" and tokens[j][1] == "JKB":
        j -= 1
    while j >= 0:
        end = tokens[j][4]
        k = j
        while k >= 0 and tokens[k][1].startswith(_NOUN_TAGS) and (k == j or tokens[k][4] == tokens[k + 1][3]):
            k -= 1
        if k == j:
            break
        start = tokens[k + 1][3]
        value = sentence[start:end]
        if value in RELATIONS or value in ("저", "나", "우리"):
            break
        values.append((value, start, end))
        if k >= 0 and tokens[k][0] in _KO_LIST_JOINS and tokens[k][1] in ("JC", "JKB", "SP"):
            j = k - 1
            continue
        break
    values.reverse()
    return values


_KO_DIETS = ["채식주의자", "채식주의", "채식", "비건", "베지테리언", "페스코 베지테리언", "페스코베지테리언",
             "페스코테리언", "페스코", "락토오보", "락토 오보", "키토", "할랄"]
_KO_DIET = re.compile(rf"(?<![가-힣])(?P<v>{_alternation(_KO_DIETS)})(?=(?P<rest>.{{0,14}}))")
_KO_DIET_STATE = re.compile(
    r"^(?:이에요|예요|이야|야|입니다|이라서|라서|이고|고|인데|이거든|거든|이죠|죠|임|이지만|지만|이라|라)(?:요)?(?![가-힣])"
    r"|^\s*(?:을|를)?\s*(?:해|하고|합니다|하는 중|한 지|중|했어|시작했|하게 됐)"
    r"|^\s*(?:으로|로)\s*(?:바꿨|바뀌|전향)"
)
_KO_DIET_END = re.compile(
    r"^\s*(?:은|는|을|를|도)?\s*(?:안\s*해|안\s*하|그만|끊|포기|접었|관뒀)|^\s*(?:가|이|은|는)?\s*아니"
)


def _korean_diet(sentence: str) -> list[SlotValue]:
    """A diet word stated as a state ("비건이에요", "채식해요", "채식을 하고 있어요") or ended ("채식 안
    해요", "비건 그만뒀어", "비건은 아니고"); "비건 레스토랑" and "채식 해볼까" are not diets."""
    out: list[SlotValue] = []
    for m in _KO_DIET.finditer(sentence):
        rest = m.group("rest")
        ended = _KO_DIET_END.search(rest)
        if ended is None and _KO_DIET_STATE.search(rest) is None:
            continue
        # "이제 채식 안 해" ends it; so does a past perfect ("비건이었었어")
        negated = ended is not None or re.search(r"(?:더 이상|이제)\s*(?:안|못)|었었|았었", sentence) is not None
        end = m.end("v") + (ended.end() if ended else 0)
        out += _words(_korean_fact(sentence, "diet", m.group("v"), m.start(), end, negated))
    return out


_KO_CONDITIONS = ["제1형 당뇨", "제2형 당뇨", "1형 당뇨", "2형 당뇨", "당뇨병", "당뇨", "고혈압", "저혈압", "고지혈증",
                  "천식", "비염", "알레르기성 비염", "아토피", "편두통", "우울증", "공황장애", "불안장애", "불면증",
                  "ADHD", "빈혈", "갑상선 기능 저하증", "갑상선 기능 항진증", "통풍", "관절염", "류머티즘", "위염",
                  "역류성 식도염", "허리 디스크", "목 디스크", "디스크", "과민성 대장 증후군", "셀리악병", "유당불내증",
                  "간질", "뇌전증", "고콜레스테롤", "크론병", "건선", "자폐", "adhd"]
_KO_CONDITION = re.compile(rf"(?<![가-힣A-Za-z])(?P<v>{_alternation(_KO_CONDITIONS)})(?=(?P<rest>.{{0,12}}))")
_KO_CONDITION_HAVE = re.compile(
    r"^\s*(?:이|가|은|는|도|을|를)?\s*(?:(?:좀|조금|약간|살짝|심한|심하게|심각한|오래)\s*)?(?:있|앓|생겼|걸렸|진단|환자|약\s*먹)"
    r"|^(?:이에요|예요|이야|야|이라서|라서|입니다)(?![가-힣])"
)
_KO_CONDITION_GONE = re.compile(r"^\s*(?:이|가|은|는|도)?\s*(?:없|(?:다\s*)?나았|완치)")


def _korean_health(sentence: str) -> list[SlotValue]:
    """A condition from the lexicon that one has ("당뇨가 있어요", "천식 있어", "고혈압 진단받았어요") or
    no longer has ("비염은 다 나았어요", "천식 없어")."""
    out: list[SlotValue] = []
    for m in _KO_CONDITION.finditer(sentence):
        rest = m.group("rest")
        gone = _KO_CONDITION_GONE.search(rest)
        if gone is None and _KO_CONDITION_HAVE.search(rest) is None:
            continue
        out += _words(_korean_fact(sentence, "health", m.group("v"), m.start(), m.end("v"), gone is not None))
    return out


_KO_JOBS = frozenset("""간호사 의사 치과의사 한의사 수의사 약사 교사 선생님 교수 강사 변호사 회계사
세무사 노무사 변리사 건축가 건축사 요리사 셰프 바리스타 미용사 디자이너 엔지니어 개발자 프로그래머 연구원
연구자 과학자 기자 작가 번역가 통역사 공무원 회사원 직장인 군인 경찰 경찰관 소방관 학생 대학생 대학원생
고등학생 중학생 초등학생 주부 프리랜서 마케터 기획자 매니저 컨설턴트 사업가 자영업자 은행원 물리치료사
간호조무사 영양사 상담사 사회복지사 유튜버 크리에이터 사진작가 음악가 가수 배우 화가 운동선수 트레이너 코치
파일럿 승무원 조종사 아나운서 피디 PD PM 애널리스트 분석가 사서 판사 검사 보육교사 교직원 임상병리사 방사선사
치위생사 웹툰작가 일러스트레이터 편집자 에디터 작곡가 피아니스트 상담가 심리상담사""".split())
_KO_JOB = re.compile(
    rf"(?:(?<![가-힣A-Za-z])(?P<mod>[가-힣A-Za-z]+)\s+)?(?<![가-힣A-Za-z])(?P<job>{_alternation(_KO_JOBS)})"
    r"(?=(?P<rest>.{0,14}))"
)
_KO_COPULA = re.compile(
    r"^(?:이에요|예요|이야|야|입니다|이고|고|이라서|라서|인데|이거든|거든|이죠|죠|이셔|셔|이세요|세요|이십니다|십니다|"
    r"이시고|시고|이지만|지만|임|이랍니다|랍니다|이다|다|이시거든|시거든)(?:요)?(?![가-힣])"
)
_KO_WORK_AS = re.compile(r"^\s*(?:으로|로)\s*(?:일하|일해|일을|근무|활동|재직|일하고)")
_KO_JOB_ENDED = re.compile(r"^(?:이었|였|이셨|셨)|^\s*(?:가|이)?\s*아니|^\s*(?:을|를)?\s*(?:그만|관뒀|관두|때려치)")
_KO_NOT_MODIFIERS = frozenset({"저", "나", "전", "난", "지금", "현재", "이제", "원래", "예전", "요즘", "제", "내",
                               "우리", "그냥", "직업", "직업은", "일단", "사실", "아직", "벌써", "이미", "전직", "이상",
                               "더"}) | set(RELATIONS)


def _korean_job(sentence: str) -> list[SlotValue]:
    """An occupation from the lexicon, with one modifier word ("프론트엔드 개발자"), as a copula
    complement ("간호사예요", "선생님이셔") or before 로 일하다; ended by a past copula ("교사였어요"),
    아니다 or 그만두다.  "카카오에서 개발자로 일해요" also gives the employer."""
    out: list[SlotValue] = []
    for m in _KO_JOB.finditer(sentence):
        rest = m.group("rest")
        ended = _KO_JOB_ENDED.search(rest)
        if ended is None and _KO_COPULA.search(rest) is None and _KO_WORK_AS.search(rest) is None:
            continue
        if _KO_WORK_AS.search(rest) and re.search(r"했|었", rest[:10]):
            continue  # "간호사로 일했어요": past work without an end marker
        start = m.start("job")
        mod = m.group("mod")
        if mod and mod not in _KO_NOT_MODIFIERS and _trim_korean(mod) == mod:
            start = m.start("mod")
        value = sentence[start:m.end("job")]
        negated = ended is not None or "전직" in sentence[max(0, start - 4):start]
        out += _words(_korean_fact(sentence, "job", value, start, m.end("job"), negated))
        workplace = re.search(r"(?P<org>[가-힣A-Za-z0-9&]+)에서\s*$", sentence[:start])
        if workplace and _KO_WORK_AS.search(rest) and _is_organisation(workplace.group("org")):
            # "카카오에서 백엔드 개발자로 일해요": the employer stands before the job
            out += _words(_korean_fact(sentence, "employer", workplace.group("org"), workplace.start(),
                                       m.end("job"), at=workplace.start()))
    return out


_KO_GENERIC_WORKPLACES = frozenset("""회사 학교 대학교 대학 대학원 학원 병원 교회 성당 절 헬스장 직장 유치원
어린이집 집 카페 식당 가게 공장 사무실 은행 본사 지사 스타트업 대기업 중소기업 공기업 외국계 여기 거기 곳 데
알바 재택 현장 센터 연구소 회사에 요가 필라테스 수영장 도서관 군대""".split())
_KO_PLACES = frozenset("""서울 부산 대구 인천 광주 대전 울산 세종 제주 제주도 수원 성남 판교 강남 홍대 여의도
분당 일산 용인 고양 창원 청주 전주 천안 포항 김해 한국 미국 일본 중국 캐나다 호주 영국 독일 프랑스 해외 지방
시골 경기도 경기 서울시 부산시 송도 잠실 신촌 합정 성수 이태원 목동 마포 강북 강서 노원 해운대""".split())
_KO_PLACE_SUFFIXES = ("동", "구", "시", "군", "읍", "면", "도", "리")
_KO_SCHOOL_SUFFIXES = ("대", "대학교", "학교", "고", "중", "초", "대학원", "학원")
_KO_WORK_VERB = re.compile(
    r"(?<![가-힣A-Za-z0-9&])(?P<org>[가-힣A-Za-z0-9&]+?)(?:은|는|을|를|도)?\s*(?P<not>안\s*)?"
    r"(?P<verb>다니|다녀|다녔|다닌"
    r"|(?:에서|에)\s*(?:일하|일해|일했|근무|재직)"
    r"|(?:에|으로|로)\s*(?:입사|이직)\s*(?:했|하게\s*됐)|에\s*들어갔"
    r"|(?:을|를)?\s*(?:그만두|그만뒀|그만\s*뒀|관뒀|관두|퇴사)|에서\s*(?:나왔|퇴사))"
)
_KO_WORK_ENDED = re.compile(r"그만|관뒀|관두|퇴사|나왔|다녔")


def _korean_employer(sentence: str) -> list[SlotValue]:
    """"토스뱅크 다녀요", "카카오에서 일해", "네이버에 입사했어요"; ended by 그만두다 / 퇴사 / 다녔다 / 안
    다녀, also later in the clause: "삼성전자 다니다가 그만뒀어"."""
    out: list[SlotValue] = []
    for m in _KO_WORK_VERB.finditer(sentence):
        org = m.group("org")
        if not _is_organisation(org):
            continue
        verb = m.group("verb")
        later = sentence[m.end("verb"):m.end("verb") + 12]
        ended = (m.group("not") is not None or _KO_WORK_ENDED.search(verb) is not None
                 or re.match(r"\S*\s*(?:그만|관뒀|퇴사)", later) is not None
                 or re.search(r"(?:더 이상|이제)\s*안", sentence) is not None)
        joined = re.search(r"입사|이직|들어갔", verb) is not None  # once done, joining is the new state
        if not ended and not joined and re.search(r"했|었", verb + later[:2]):
            continue  # "카카오에서 일했어": past work without an end marker says nothing about now
        out += _words(_korean_fact(sentence, "employer", org, m.start("org"), m.end("verb"), ended,
                                   at=m.start("org")))
    return out


# what ends a word that is a time, an extent or a companion, never a workplace: "6월까지만 다닌대",
# "합정까지 다녀", "친구랑 다녀"
_KO_NOT_ORG_ENDINGS = ("까지", "까지만", "부터", "만", "처럼", "이랑", "랑", "하고", "보다", "마다", "째")
_KO_TIME_WORD = re.compile(r"^\d+\s*(?:월|일|년|시|주|달|개월)")


def _is_organisation(org: str) -> bool:
    if len(org) < 2 or org in _KO_GENERIC_WORKPLACES or org in _KO_PLACES or org in RELATIONS or org in _KO_JOBS:
        return False
    if has_hangul(org) and (org.endswith(_KO_NOT_ORG_ENDINGS) or _KO_TIME_WORD.match(org)):
        return False
    tokens = analyze(org) if has_hangul(org) else ()
    if tokens and not tokens[-1][1].startswith(("NN", "SL", "SH", "XSN")):
        return False  # "매일 다녀", "자주 다녀": an adverb, not a workplace
    if org.endswith(_KO_PLACE_SUFFIXES) and _is_place(org):
        return False
    if has_hangul(org) and org.endswith(_KO_SCHOOL_SUFFIXES):
        return False
    return not any(org.endswith(generic) and len(org) - len(generic) <= 1 for generic in ("회사", "학교"))


def _is_place(word: str) -> bool:
    if word in _KO_PLACES:
        return True
    tokens = analyze(word)
    proper = bool(tokens) and all(tag in ("NNP", "NNG") for _f, tag, *_ in tokens)
    return proper and (word.endswith(_KO_PLACE_SUFFIXES) and len(word) >= 2 or any(t[1] == "NNP" for t in tokens))


_KO_LIVE = re.compile(
    r"(?P<place>[가-힣A-Za-z]+?)\s*(?P<verb>(?:에서|에)?\s*(?:살아|살고|살았었|삽니다|살거든|살죠|살아요|사는데|살지|거주|산\s*지)|"
    r"(?:으로|로|에)\s*이사\s*(?:했|왔|갔|옴|온 지)|에서\s*이사\s*(?:나왔|했|왔|갔))"
)


_KO_MOVED_FROM = re.compile(r"(?P<place>[가-힣A-Za-z]+?)에서\s+[가-힣A-Za-z]+?(?:으로|로)\s*이사\s*(?:했|왔|갔)")


_KO_NOT_LIVING = re.compile(
    r"(?<![가-힣A-Za-z])(?P<place>[가-힣A-Za-z]+?)(?:에서|에|은|는|엔|에는)?\s*(?:(?:이제|더 이상|지금은)\s*)?안\s*살"
)


def _korean_city(sentence: str) -> list[SlotValue]:
    """"서울 살아요", "부산에 살고 있어", "망원동으로 이사했어"; ended by "살았었어", "서울은 안 살아" and
    moving away ("서울에서 부산으로 이사했어" ends 서울).  The place must look like one (``_is_place``)."""
    out: list[SlotValue] = []
    for m in _KO_LIVE.finditer(sentence):
        place = _trim_korean(m.group("place"))
        if not place or not _is_place(place) or place in _KO_GENERIC_WORKPLACES:
            continue
        verb = m.group("verb")
        negated = "었었" in verb or "았었" in verb or verb.startswith("에서") and "이사" in verb
        out += _words(_korean_fact(sentence, "city", place, m.start("place"), m.end("verb"), negated,
                                   at=m.start("place")))
    for m in _KO_MOVED_FROM.finditer(sentence):
        if _is_place(m.group("place")):
            out += _words(_korean_fact(sentence, "city", m.group("place"), m.start(), m.end(), True))
    for m in _KO_NOT_LIVING.finditer(sentence):
        place = m.group("place")
        if _is_place(place):
            out += _words(_korean_fact(sentence, "city", place, m.start("place"), m.end(), True))
    return out


_KO_FAMILY_NAMED = re.compile(
    rf"(?:^|(?<=\s)){_KO_POSSESSIVE}\s*(?P<rel>{_KO_REL})\s+(?P<name>[가-힣]{{2,3}}?)"
    r"(?:이가|이는|이도|이랑|이가|이|가|는|은|도|랑|하고|를|을|한테|에게|와|과)?(?=\s|$)"
)
_KO_FAMILY_HAVE = re.compile(
    rf"(?<![가-힣])(?P<rel>{_KO_REL})(?:이|가|는|도)?\s*(?P<count>한 명|하나|두 명|둘|세 명|셋|\d+\s*명)?\s*"
    r"(?P<verb>있어|있고|있는데|있습니다|있거든|있죠|있음)"
)


def _korean_family(sentence: str) -> list[SlotValue]:
    """A relative named after a possessive ("제 동생 민호가", Kiwi must read the name as proper), or
    had ("언니가 한 명 있어요"); counts above one are left out."""
    out: list[SlotValue] = []
    tokens = analyze(sentence)
    proper = {start for _form, tag, _lemma, start, _end in tokens if tag == "NNP"}
    for m in _KO_FAMILY_NAMED.finditer(sentence):
        name = _drop_copula_i(m.group("name"))
        if m.start("name") in proper and name not in _KO_PLACES:
            out += _words(_korean_fact(sentence, "family", name, m.start(), m.start("name") + len(name),
                                       relation=RELATIONS[m.group("rel")], holder=SELF))
    for m in _KO_FAMILY_HAVE.finditer(sentence):
        count = m.group("count")
        if count and not count.startswith(("한", "하나", "1")):
            continue  # "동생이 둘 있어": counts are left out
        rel = m.group("rel")
        out += _words(_korean_fact(sentence, "family", rel, m.start(), m.end(), relation=RELATIONS[rel],
                                   holder=SELF))
    return out


_KO_FAVORITE = re.compile(
    r"(?:(?:제일|가장|젤|진짜)\s*)?좋아하는\s+(?:(?P<cat>[가-힣A-Za-z]+?)(?:은|는|이|가)|건|게)\s+"
    r"(?P<v>[가-힣A-Za-z0-9 ]+)"
)
_KO_BEST = re.compile(r"최애(?:\s*[가-힣]+)?(?:은|는)\s+(?P<v>[가-힣A-Za-z0-9 ]+)")
_KO_NOT_PREFERENCES = frozenset({"저", "나", "너", "그거", "이거", "저거", "그것", "이것", "것", "거", "사람", "당신"})


def _korean_preferences(sentence: str) -> list[SlotValue]:
    """"제일 좋아하는 X는 Y야", "최애는 Y", and the object of 좋아하다 ("고양이를 좋아해요"); negated by
    안 / 별로 before it, 지 않다 after it, or 었었."""
    out: list[SlotValue] = []
    for pattern in (_KO_FAVORITE, _KO_BEST):
        for m in pattern.finditer(sentence):
            value = _copula_complement(m.group("v"))
            if value and value not in _KO_NOT_PREFERENCES and len(value.split()) <= 3:
                out += _words(_korean_fact(sentence, "preference", value, m.start(), m.start("v") + len(value)))
    tokens = analyze(sentence)
    for i in range(len(tokens)):
        last = _likes_verb(tokens, i)
        if last is None:
            continue
        end = tokens[last][4]
        after = tokens[last + 1] if last + 1 < len(tokens) else None
        if after is None or after[1] == "ETM":
            continue  # "좋아하는 음식은": handled by _KO_FAVORITE
        negated = after[0] == "지" and last + 2 < len(tokens) and tokens[last + 2][0] == "않"
        if after[0] in ("었었", "았었"):
            negated = True
        j = i - 1
        while j >= 0 and tokens[j][1] == "MAG":
            negated = negated or tokens[j][0] in ("안", "별로")
            j -= 1
        if j >= 0 and tokens[j][1] in ("JKO", "JX") and tokens[j][0] in ("을", "를", "ᆯ", "도", "는", "은"):
            j -= 1
        value_span = _phrase_before(tokens, j)
        if value_span is None:
            continue
        value = sentence[value_span[0]:value_span[1]]
        if value.endswith("걸"):
            value = value[:-1] + "거"  # "매운 걸" is 매운 거 with its object particle
        if value in _KO_NOT_PREFERENCES or value in RELATIONS or _has_final_person(value):
            continue
        out += _words(_korean_fact(sentence, "preference", value, value_span[0], end, negated, at=value_span[0]))
    return out


def _likes_verb(tokens: tuple[tuple[str, str, str, int, int], ...], i: int) -> int | None:
    """The last token of 좋아하다 starting at ``i``: Kiwi gives 좋아하/VV, or 좋/VA 아/EC 하/VX."""
    form, tag = tokens[i][0], tokens[i][1]
    if form == "좋아하" and tag.startswith("VV"):
        return i
    if (form == "좋" and tag.startswith("VA") and i + 2 < len(tokens) and tokens[i + 1][0] in ("어", "아")
            and tokens[i + 2][0] == "하" and tokens[i + 2][1] == "VX"):
        return i + 2
    return None


def _copula_complement(words: str) -> str:
    """"떡볶이야" -> "떡볶이", "김치 찌개예요" -> "김치 찌개": the phrase must end in a copula."""
    parts = words.split()
    if not parts:
        return ""
    last = _trim_korean(parts[-1])
    if not last or last == parts[-1]:
        return ""
    return " ".join([*parts[:-1], last])


def _has_final_person(value: str) -> bool:
    return value.split()[-1] in _KO_OTHER_PEOPLE if value.split() else True


def _phrase_before(tokens: tuple[tuple[str, str, str, int, int], ...], j: int) -> tuple[int, int] | None:
    """The object noun ending at token ``j``: one eojeol, "매운 거" (an adjective before 거/것), or the
    noun of a 하다 verb before 거 ("등산하는 거" -> 등산)."""
    if j < 0 or not tokens[j][1].startswith((*_NOUN_TAGS, "NNB")):
        return None
    end = tokens[j][4]
    k = j
    while k > 0 and tokens[k - 1][1].startswith((*_NOUN_TAGS, "NNB")) and tokens[k - 1][4] == tokens[k][3]:
        k -= 1
    if tokens[k][1] == "NNB":
        if tokens[k][0] not in ("거", "것") or k < 2 or tokens[k - 1][1] != "ETM":
            return None
        k -= 2  # the adjective or verb stem before the ETM
        if tokens[k][1] == "XSV" and k > 0 and tokens[k - 1][1] == "NNG":
            return tokens[k - 1][3], tokens[k - 1][4]
        if not tokens[k][1].startswith(("VA", "VV")):
            return None
        return tokens[k][3], end
    # one common noun before, as its own word: "비건 음식", "공포 영화"
    if k > 0 and tokens[k - 1][1] == "NNG" and tokens[k - 1][4] < tokens[k][3] and tokens[k - 1][0] not in RELATIONS \
            and tokens[k - 1][0] not in _KO_OTHER_PEOPLE and (k == 1 or tokens[k - 2][4] < tokens[k - 1][3]):
        k -= 1
    return tokens[k][3], end


# More Korean phrasings: what a person says about themselves in passing rather than as a statement
# of the fact ("집이 망원동이라", "성수동에 원룸 구했어", "다들 '준이'라고 불러", "비건으로 살고 있어",
# "데이터 분석가로 들어가").
_KO_HOME_IS = re.compile(
    r"(?:^|(?<=\s))집이\s+(?P<place>[가-힣]{2,8}?)(?:이라서|라서|이라|라|이야|야|이에요|예요|인데|이고)")
_KO_FOUND_HOME = re.compile(
    r"(?P<place>[가-힣]{2,8}?)에\s+(?:새\s+)?(?:원룸|집|방|투룸|오피스텔|아파트|전세|월세)(?:을|를|도)?\s*"
    r"(?:따로\s+)?(?:구했|얻었|샀|계약했|잡았)")
_KO_CALLED = re.compile(r"['‘\"“](?P<v>[가-힣A-Za-z]{1,8})['’\"”]\s*(?:이)?라고\s*(?:불러|부르|부릅)")
_KO_LIVE_AS = re.compile(r"(?P<v>채식주의자|채식|비건|페스코|베지테리언)(?:으로|로)\s+(?:살고|살아|지내)")
_KO_PARTICLE_END = re.compile(r"(?:부터|에서|에게|한테|까지|에|은|는|이|가|을|를|도|만)$")
_KO_JOINED_AS = re.compile(r"(?P<job>(?:[가-힣A-Za-z]+\s)?[가-힣A-Za-z]+?)(?:으로|로)\s+(?:들어가|입사|취업|합격)")


def _korean_more(sentence: str) -> list[SlotValue]:
    out: list[SlotValue] = []
    for pattern in (_KO_HOME_IS, _KO_FOUND_HOME):
        for m in pattern.finditer(sentence):
            place = m.group("place")
            if _is_place(place) and place not in _KO_GENERIC_WORKPLACES:
                out += _words(_korean_fact(sentence, "city", place, m.start("place"), m.end(), at=m.start("place")))
    for m in _KO_CALLED.finditer(sentence):
        out += _words(_korean_fact(sentence, "nickname", m.group("v"), m.start(), m.end()))
    for m in _KO_LIVE_AS.finditer(sentence):
        out += _words(_korean_fact(sentence, "diet", m.group("v"), m.start(), m.end()))
    for m in _KO_JOINED_AS.finditer(sentence):
        job = m.group("job").strip()
        if " " in job and _KO_PARTICLE_END.search(job.split()[0]):
            job = job.split()[-1]  # "다음 달부터 간호사로": 달부터 is no part of the job
        if job.split()[-1] in _KO_JOBS or any(job.endswith(j) for j in _KO_JOBS if len(j) >= 2):
            out += _words(_korean_fact(sentence, "job", job, m.start("job"), m.end()))
    return out


_KOREAN_RULES = (_korean_names, _korean_birthday, _korean_allergies, _korean_diet, _korean_health, _korean_job,
                 _korean_employer, _korean_city, _korean_family, _korean_preferences,
                 _korean_more)


# --------------------------------------------------------------------------- English rules

_EN_REL_MOD = r"(?:(?:older|younger|little|big|baby|twin|elder|oldest|youngest|step)\s+)?"
_EN_SUBJECT = rf"(?P<subj>\bI\b|\bwe\b|\bmy\s+{_EN_REL_MOD}(?P<rel>{_EN_REL})(?:\s+(?P<relname>[A-Z][a-z]+))?)"
_EN_BE = r"(?:'m|'s|'re|\s+am|\s+is|\s+are)\s+(?:(?:currently|now|still|also|actually|really)\s+)?"
# between a subject and its verb, contractions allowed: "I've been", "I currently work"
_EN_ADVERB = r"\s*(?:(?:currently|now|still|also|actually|just|recently|finally)\s+)?"
_NOT_NAMES = frozenset("""i i'm and but so the a an just not really also here there from in at on with so very
american korean british canadian chinese japanese english french german indian australian mexican spanish italian
fine good okay ok sorry glad happy tired new back home sure done vegan vegetarian allergic monday tuesday wednesday
thursday friday saturday sunday""".split())


def _english_fact(sentence: str, match: re.Match[str], slot: str, value: str, start: int, end: int,
                  negated: bool = False, relation: str | None = None, holder: str | None = None,
                  listener_ok: bool = False) -> SlotValue | None:
    """An English fact after the filters; the holder is the ``rel`` group of the subject, else self."""
    value = value.strip(" .,!;:'\"")
    if not value or _english_plan(sentence) or (not listener_ok and _english_listener(sentence)):
        return None
    if holder is None:
        rel = match.groupdict().get("rel")
        holder = RELATIONS[rel.lower()] if rel else SELF
    return SlotValue(holder, slot, value, relation, negated, start, end)


def _capitalised(words: str) -> str:
    """The leading capitalised words ("Google in Seoul" -> "Google"; "Bank of America" kept)."""
    kept: list[str] = []
    for word in words.split():
        bare = word.strip(".,!;:")
        if bare[:1].isupper():
            kept.append(bare)
            if bare != word:
                break
        elif kept and bare in ("of", "&"):
            kept.append(bare)
        else:
            break
    while kept and kept[-1] in ("of", "&"):
        kept.pop()
    return " ".join(kept)


_EN_NAME = (
    re.compile(r"\bmy\s+(?:full\s+)?name(?:'s|\s+is)\s+(?P<v>[A-Za-z][\w'-]*(?:\s+[A-Za-z][\w'-]*)?)", re.IGNORECASE),
    re.compile(r"^(?:hi|hello|hey|hiya)\b[\s,!]*(?:(?:everyone|all|there|guys)[\s,!]+)?(?:I'm|I\s+am)\s+"
               r"(?P<v>[A-Za-z][\w'-]*(?:\s+[A-Za-z][\w'-]*)?)", re.IGNORECASE),
    re.compile(r"^(?:I'm|I\s+am)\s+(?P<v>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*)?)\s*[.!]?$", re.IGNORECASE),
)
_EN_NICK = (
    re.compile(r"\b(?:you\s+can\s+|please\s+|just\s+)?call\s+me\s+(?P<v>[A-Za-z][\w'-]*)", re.IGNORECASE),
    re.compile(r"\bmy\s+nick(?:name)?(?:'s|\s+is)\s+(?P<v>[A-Za-z][\w'-]*)", re.IGNORECASE),
    re.compile(r"\bI\s+go\s+by\s+(?P<v>[A-Za-z][\w'-]*)", re.IGNORECASE),
    re.compile(r"\b(?:everyone|everybody|people|friends|my\s+friends|they|most\s+people)\s+calls?\s+me\s+"
               r"(?P<v>[A-Za-z][\w'-]*)", re.IGNORECASE),
)


def _english_names(sentence: str) -> list[SlotValue]:
    """Capitalised names only: "my name is Tom Baker", "Hi, I'm Tom", "call me Tommy".  These rules may
    mention the listener ("you can call me Sam")."""
    out: list[SlotValue] = []
    if re.search(r"\b(?:don't|do not|never)\s+call\s+me\b", sentence, re.IGNORECASE):
        return out
    for slot, patterns in (("name", _EN_NAME), ("nickname", _EN_NICK)):
        for pattern in patterns:
            for m in pattern.finditer(sentence):
                value = _capitalised(m.group("v"))  # "call me anytime" leaves nothing
                if not value or value.split()[0].lower() in _NOT_NAMES:
                    continue
                out += _words(_english_fact(sentence, m, slot, value, m.start(), m.start("v") + len(value),
                                            holder=SELF, listener_ok=True))
    return out


_EN_BIRTH = re.compile(
    rf"\b(?:my|my\s+{_EN_REL_MOD}(?P<rel>{_EN_REL})(?:\s+[A-Z][a-z]+)?'s)\s+(?:birthday|bday|b-day|birth\s*date|date\s+of\s+birth)"
    rf"(?:'s|\s+is|\s+falls)?"
    rf"|{_EN_SUBJECT.replace('subj', 'subj2').replace('rel', 'rel2')}\s+(?:was|were)\s+born",
    re.IGNORECASE,
)


def _english_birthday(sentence: str) -> list[SlotValue]:
    """An explicit calendar day right after "my (sister's) birthday is" or "I was born"."""
    out: list[SlotValue] = []
    for m in _EN_BIRTH.finditer(sentence):
        day = _calendar_day(sentence, m.end())
        if day is None or sentence[m.start():m.start() + 2].lower() == "we":
            continue
        rel = m.group("rel") or m.group("rel2")
        holder = RELATIONS[rel.lower()] if rel else SELF
        out += _words(_english_fact(sentence, m, "birthday", sentence[day[0]:day[1]], m.start(), day[1],
                                    holder=holder))
    return out


_EN_LIST_SPLIT = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s*&\s*")
_EN_LIST_STOP = r"(?=[.!;]|,?\s+(?:so|but|which|because|since|though|and\s+(?:I|my|it|that|they))\b|$)"
_EN_ALLERGIC = re.compile(
    rf"{_EN_SUBJECT}{_EN_BE}(?P<neg>not\s+|no\s+longer\s+)?(?:(?:very|really|super|severely|seriously|deathly|"
    rf"mildly|highly|also)\s+)?allergic\s+to\s+(?P<v>.+?){_EN_LIST_STOP}",
    re.IGNORECASE,
)
_EN_ALLERGY_HAVE = re.compile(
    rf"{_EN_SUBJECT}{_EN_ADVERB}(?:have|has|'ve\s+got|'s\s+got|have\s+got|has\s+got)\s+(?:an?\s+)?(?:(?:severe|mild|bad|"
    rf"serious|slight)\s+)?(?P<v>[a-z][a-z-]*(?:\s+[a-z][a-z-]*)?)\s+allerg(?:y|ies)\b",
    re.IGNORECASE,
)
_EN_NO_ALLERGY = re.compile(
    r"\b(?:I\s+have\s+no|I've\s+got\s+no|I\s+don't\s+have\s+any|I\s+do\s+not\s+have\s+any|^no|,\s*no)\s+(?:known\s+|food\s+)?"
    r"(?P<v>allergies)\b|\bI'm\s+not\s+allergic\s+to\s+(?P<v2>anything)\b",
    re.IGNORECASE,
)
_NOT_ITEMS = frozenset({"it", "this", "that", "them", "these", "those", "something", "stuff", "lots", "a lot",
                        "food", "anything", "many things", "everything"})


def _english_allergies(sentence: str) -> list[SlotValue]:
    """Each item of "allergic to X, Y and Z", "a X allergy"; "no allergies" denies them all."""
    out: list[SlotValue] = []
    for m in _EN_ALLERGIC.finditer(sentence):
        negated = m.group("neg") is not None
        for item in _items(m.group("v")):
            out += _words(_english_fact(sentence, m, "allergy", item, m.start(), m.end(), negated))
    for m in _EN_ALLERGY_HAVE.finditer(sentence):
        item = re.sub(r"^(?:a|an|the)\s+", "", m.group("v"), flags=re.IGNORECASE)
        if item.lower() not in _NOT_ITEMS and item.lower() not in ("food", "seasonal"):
            out += _words(_english_fact(sentence, m, "allergy", item, m.start(), m.end()))
    for m in _EN_NO_ALLERGY.finditer(sentence):
        out += _words(_english_fact(sentence, m, "allergy", "allergies", m.start(), m.end(), True, holder=SELF))
    return out


def _items(listed: str) -> list[str]:
    """"peanuts, tree nuts and shellfish" -> three items; items longer than three words are dropped."""
    items = []
    for part in _EN_LIST_SPLIT.split(listed.strip()):
        part = re.sub(r"^(?:a|an|the|some|all|most)\s+", "", part.strip(), flags=re.IGNORECASE)
        part = re.sub(r"\s+(?:too|as well|also|though|anymore|now|either)$", "", part, flags=re.IGNORECASE)
        if part and part.lower() not in _NOT_ITEMS and len(part.split()) <= 3:
            items.append(part)
    return items


_EN_DIETS = r"(?P<v>vegetarian|vegan|pescatarian|pescetarian|plant-based|keto|paleo|gluten-free|halal|kosher|" \
            r"lacto-ovo\s+vegetarian|lacto-vegetarian|flexitarian|dairy-free)(?![\w-])"
_EN_DIET = (
    re.compile(rf"{_EN_SUBJECT}{_EN_BE}(?P<neg>not\s+|no\s+longer\s+)?(?:an?\s+)?(?:(?:strict|full|mostly|fully|"
               rf"totally|pretty\s+much)\s+)?{_EN_DIETS}(?!\s+(?:food|restaurant|place|recipe|option|dish|meal))",
               re.IGNORECASE),
    re.compile(rf"{_EN_SUBJECT}{_EN_ADVERB}(?:went|became|turned|go|eat|eats|have\s+been|'ve\s+been|has\s+been|am\s+now|"
               rf"keep|follow|follows)\s+(?:an?\s+)?(?:strict\s+)?{_EN_DIETS}(?!\s+(?:food|restaurant|place|recipe))",
               re.IGNORECASE),
    re.compile(rf"{_EN_SUBJECT}{_EN_BE}on\s+an?\s+(?:strict\s+)?{_EN_DIETS}\s+diet", re.IGNORECASE),
)
_EN_DIET_END = re.compile(
    rf"{_EN_SUBJECT}{_EN_ADVERB}(?:stopped|quit|gave\s+up)\s+(?:being\s+)?(?:an?\s+)?{_EN_DIETS}"
    rf"|{_EN_SUBJECT.replace('subj', 's2').replace('rel', 'r2')}\s+(?:used\s+to\s+be|was)\s+(?:an?\s+)?"
    rf"{_EN_DIETS.replace('?P<v>', '?P<v2>')}",
    re.IGNORECASE,
)


def _english_diet(sentence: str) -> list[SlotValue]:
    """A diet word after "I'm", "I went", "I eat", "on a ... diet"; ended by "not ... anymore",
    "no longer", "stopped being", "used to be"."""
    out: list[SlotValue] = []
    for pattern in _EN_DIET:
        for m in pattern.finditer(sentence):
            negated = bool(m.groupdict().get("neg")) or re.search(r"\banymore\b|\bno\s+longer\b", sentence, re.I)
            out += _words(_english_fact(sentence, m, "diet", m.group("v"), m.start(), m.end(), bool(negated)))
    for m in _EN_DIET_END.finditer(sentence):
        rel = m.group("rel") or m.group("r2")
        holder = RELATIONS[rel.lower()] if rel else SELF
        if m.group("v2") and not re.search(r"\bused\s+to\b|\banymore\b", sentence, re.I):
            continue  # "I was vegan for a week" says nothing about now
        value = m.group("v") or m.group("v2")
        out += _words(_english_fact(sentence, m, "diet", value, m.start(), m.end(), True, holder=holder))
    return out


_EN_CONDITIONS = (r"(?P<v>(?:type\s+(?:1|2|one|two|I|II)\s+)?diabetes|asthma|high\s+blood\s+pressure|hypertension|"
                  r"low\s+blood\s+pressure|high\s+cholesterol|migraines?|depression|anxiety|ADHD|autism|celiac(?:\s+"
                  r"disease)?|coeliac(?:\s+disease)?|IBS|crohn's(?:\s+disease)?|arthritis|eczema|psoriasis|insomnia|"
                  r"lactose\s+intolerance|epilepsy|anemia|anaemia|gout|hypothyroidism|hyperthyroidism|PCOS|"
                  r"sleep\s+apnea|a\s+heart\s+condition|lupus|fibromyalgia|bipolar\s+disorder|OCD|PTSD|"
                  r"chronic\s+back\s+pain|tinnitus|glaucoma|diabetic|asthmatic|lactose\s+intolerant)(?![\w-])")
_EN_HEALTH = re.compile(
    rf"{_EN_SUBJECT}\s*(?P<verb>have|has|'ve\s+got|'s\s+got|have\s+got|has\s+got|suffer\s+from|suffers\s+from|"
    rf"(?:was|were|got|'ve\s+been|have\s+been|has\s+been)\s+diagnosed\s+with|live\s+with|lives\s+with|"
    rf"(?P<neg>don't\s+have|doesn't\s+have|do\s+not\s+have|does\s+not\s+have|no\s+longer\s+have|"
    rf"no\s+longer\s+has)|'m|\s+am|'s|\s+is|'m\s+not|\s+am\s+not|\s+is\s+not|'s\s+not)\s+"
    rf"(?:(?:mild|severe|chronic|bad|really\s+bad|some)\s+)?{_EN_CONDITIONS}\b",
    re.IGNORECASE,
)


def _english_health(sentence: str) -> list[SlotValue]:
    """A lexicon condition after have / suffer from / diagnosed with, or an adjective after be
    ("I'm diabetic"); "don't have" / "no longer have" negate."""
    out: list[SlotValue] = []
    for m in _EN_HEALTH.finditer(sentence):
        value, verb = m.group("v"), m.group("verb").lower()
        adjective = value.lower() in ("diabetic", "asthmatic", "lactose intolerant")
        copula = verb.strip().startswith(("'m", "am", "'s", "is"))
        if adjective != copula:
            continue  # "I have diabetic" / "I'm asthma" are not statements of a condition
        negated = m.group("neg") is not None or "not" in verb.split()
        out += _words(_english_fact(sentence, m, "health", value, m.start(), m.end(), negated))
    return out


_EN_JOB_HEADS = (r"nurse|doctor|physician|surgeon|dentist|pharmacist|teacher|professor|lecturer|tutor|engineer|"
                 r"developer|programmer|designer|architect|manager|analyst|scientist|researcher|consultant|"
                 r"accountant|lawyer|attorney|paralegal|writer|author|journalist|editor|reporter|translator|artist|"
                 r"illustrator|photographer|musician|chef|baker|barista|bartender|waiter|waitress|cashier|"
                 r"firefighter|police\s+officer|pilot|mechanic|electrician|plumber|carpenter|farmer|student|"
                 r"freelancer|entrepreneur|founder|marketer|recruiter|therapist|counselor|counsellor|psychologist|"
                 r"psychiatrist|veterinarian|vet|paramedic|technician|librarian|intern|secretary|administrator|"
                 r"coordinator|salesperson|director|producer|actor|actress|dancer|singer|social\s+worker|"
                 r"caregiver|nanny|realtor|banker|economist|chemist|biologist|physicist|optometrist|CEO|CTO|PM|"
                 r"product\s+owner|data\s+scientist|YouTuber|streamer|electrician|civil\s+servant|soldier|"
                 r"flight\s+attendant|midwife|radiologist|specialist|strategist|copywriter|animator")
_EN_JOB_MODS = r"(?:[A-Za-z][\w/+.-]*\s+){0,3}?"
_EN_JOB = (
    re.compile(rf"{_EN_SUBJECT}{_EN_BE}(?P<neg>not\s+|no\s+longer\s+)?(?:an?\s+)(?P<job>{_EN_JOB_MODS}(?:{_EN_JOB_HEADS}))"
               rf"(?:s)?\b(?!'s|-)(?:\s+(?:at|for|with)\s+(?P<org>[A-Z][\w&.'-]*(?:\s+(?:[A-Z][\w&.'-]*|of|&))*))?",
               re.IGNORECASE),
    re.compile(rf"{_EN_SUBJECT}{_EN_ADVERB}(?:work|works|am\s+working|'m\s+working|is\s+working|'s\s+working)\s+as\s+"
               rf"(?:an?\s+)?(?P<job>[A-Za-z][\w/+.-]*(?:\s+[A-Za-z][\w/+.-]*){{0,3}}?)"
               rf"(?=\s+(?:at|for|in|with|and|since|now)\b|[.,!;]|$)"
               rf"(?:\s+(?:at|for)\s+(?P<org>[A-Z][\w&.'-]*(?:\s+(?:[A-Z][\w&.'-]*|of|&))*))?", re.IGNORECASE),
    re.compile(rf"{_EN_SUBJECT}{_EN_ADVERB}used\s+to\s+be\s+(?:an?\s+)(?P<job>{_EN_JOB_MODS}(?:{_EN_JOB_HEADS}))\b(?P<used>)",
               re.IGNORECASE),
)
_EN_NOT_JOB_MODS = frozenset({"good", "great", "bad", "terrible", "awful", "decent", "big", "huge", "really", "very",
                              "pretty", "amateur", "home", "aspiring", "wannabe", "total", "such", "proud", "lazy",
                              "frustrated", "failed", "hobby", "weekend", "bit", "little", "kind", "sort"})
_EN_ENDED_MODS = frozenset({"former", "retired", "ex"})


def _english_job(sentence: str) -> list[SlotValue]:
    """A job-head noun after "I'm a" (with up to three modifiers), anything after "I work as";
    "a designer at Kakao" also gives the employer.  A bare "I'm not a doctor" is a disclaimer and
    ignored; "not ... anymore", "used to be", "former", "retired" end the job."""
    out: list[SlotValue] = []
    for pattern in _EN_JOB:
        for m in pattern.finditer(sentence):
            words = m.group("job").split()
            negated = bool(m.groupdict().get("neg")) or m.groupdict().get("used") is not None
            while words and words[0].lower().rstrip("-") in _EN_ENDED_MODS:
                words.pop(0)
                negated = True
            if not words or any(w.lower() in _EN_NOT_JOB_MODS for w in words[:-1]):
                continue
            if words[0].lower() in ("a", "an", "the", "my", "his", "her", "our", "their"):
                continue
            ended = re.search(r"\banymore\b|\bno\s+longer\b", sentence, re.IGNORECASE) is not None
            if (m.groupdict().get("neg") or "").strip().lower() == "not" and not ended:
                continue  # "I'm not a doctor, but...": a disclaimer, not a change of job
            negated = negated or ended
            job = " ".join(words)
            out += _words(_english_fact(sentence, m, "job", job, m.start("job"), m.end("job"), negated))
            org = _capitalised(m.groupdict().get("org") or "")
            if org and not negated and words[-1].lower() != "student":
                out += _words(_english_fact(sentence, m, "employer", org, m.start("job"), m.start("org") + len(org)))
    return out


_EN_ORG = r"(?P<org>[A-Za-z][\w&.'-]*(?:\s+[\w&.'-]+){0,3})"
_EN_EMPLOYER = re.compile(
    rf"{_EN_SUBJECT}{_EN_ADVERB}(?P<verb>work\s+(?:at|for)|works\s+(?:at|for)|(?:'m|am|is|'s)\s+(?:currently\s+|now\s+|still\s+)?working\s+(?:at|for)|"
    rf"(?:'m|am|is|'s)\s+employed\s+(?:at|by)|joined|just\s+joined|started\s+(?:at|working\s+at|working\s+for)|"
    rf"got\s+a\s+job\s+(?:at|with)|got\s+hired\s+(?:at|by)|"
    rf"(?P<neg>quit|left|no\s+longer\s+work\s+(?:at|for)|no\s+longer\s+works\s+(?:at|for)|"
    rf"(?:don't|doesn't)\s+work\s+(?:at|for)|got\s+laid\s+off\s+from|was\s+laid\s+off\s+from|"
    rf"got\s+fired\s+from|resigned\s+from|stopped\s+working\s+(?:at|for)|used\s+to\s+work\s+(?:at|for)))\s+{_EN_ORG}",
    re.IGNORECASE,
)
# "I left Seoul" is a move, not a job change; a short list of places people leave
_EN_PLACE_WORDS = frozenset("""Seoul Busan Incheon Jeju London Paris Tokyo Osaka Berlin Austin Denver Boston Chicago
Seattle Portland Miami Atlanta Dallas Houston Toronto Vancouver Sydney Melbourne Singapore Hong NYC LA SF New San Los
Korea Japan China America Canada Europe Australia Texas California Florida England Germany France Italy Spain
Mexico India Vietnam Thailand""".split())


def _english_employer(sentence: str) -> list[SlotValue]:
    """A capitalised organisation after work at/for, joined, got a job at; ended by quit, left,
    laid off from, no longer work at.  Well-known places are refused ("I left Seoul")."""
    out: list[SlotValue] = []
    for m in _EN_EMPLOYER.finditer(sentence):
        org = _capitalised(m.group("org"))
        if not org or org.split()[0].lower() in _NOT_NAMES or org.split()[0] in ("I", "My"):
            continue
        if org.split()[0] in _EN_PLACE_WORDS:
            continue  # "I left Seoul": a place, not an employer
        negated = m.group("neg") is not None or bool(re.search(r"\banymore\b", sentence, re.IGNORECASE))
        out += _words(_english_fact(sentence, m, "employer", org, m.start(), m.start("org") + len(org), negated))
    return out


_EN_CITY = re.compile(
    rf"{_EN_SUBJECT}{_EN_ADVERB}(?P<verb>live\s+in|lives\s+in|(?:'m|am|'re|are|is|'s)\s+(?:currently\s+|now\s+)?(?:living|based)\s+in|"
    rf"(?:'ve|\s*have|'s|\s*has)\s+been\s+living\s+in|"
    rf"(?:just\s+|recently\s+|finally\s+)?(?:moved|relocated)\s+(?:here\s+)?to|"
    rf"(?P<neg>(?:don't|doesn't|do\s+not|does\s+not|no\s+longer)\s+live\s+in|used\s+to\s+live\s+in|"
    rf"moved\s+(?:out\s+of|away\s+from)))\s+(?P<place>[A-Za-z][\w.'-]*(?:\s+[\w.'-]+){{0,2}})",
    re.IGNORECASE,
)


def _english_city(sentence: str) -> list[SlotValue]:
    """A capitalised place after live in, based in, moved to; ended by "don't live in ... anymore",
    "used to live in", "moved out of"."""
    out: list[SlotValue] = []
    for m in _EN_CITY.finditer(sentence):
        place = _capitalised(m.group("place"))
        if not place or place.split()[0] in ("I", "My", "The"):
            continue
        negated = m.group("neg") is not None or bool(re.search(r"\banymore\b", sentence, re.IGNORECASE))
        out += _words(_english_fact(sentence, m, "city", place, m.start(), m.start("place") + len(place), negated))
    return out


_EN_FAMILY_NAMED = re.compile(
    rf"\bmy\s+{_EN_REL_MOD}(?P<rel>{_EN_REL})(?:'s\s+name\s+is|\s+is\s+called|\s+is\s+named|\s+named|\s+called|,)?\s+"
    r"(?P<name>[A-Za-z][a-z-]+)\b",
    re.IGNORECASE,
)
_EN_FAMILY_HAVE = re.compile(
    rf"\bI\s+(?:have|'ve\s+got|have\s+got)\s+(?:an?|one)\s+{_EN_REL_MOD}(?P<rel>{_EN_REL})\b"
    r"(?:\s+(?:named|called)\s+(?P<name>[A-Za-z][a-z'-]+))?",
    re.IGNORECASE,
)


def _english_family(sentence: str) -> list[SlotValue]:
    """A capitalised name after "my sister", "my sister's name is", "a brother named"; or the
    relation word for "I have a sister"."""
    out: list[SlotValue] = []
    for m in _EN_FAMILY_NAMED.finditer(sentence):
        name = m.group("name")
        if not name[:1].isupper() or name.lower() in _NOT_NAMES:
            continue
        relation = RELATIONS[m.group("rel").lower()]
        out += _words(_english_fact(sentence, m, "family", name, m.start(), m.end(), relation=relation, holder=SELF))
    for m in _EN_FAMILY_HAVE.finditer(sentence):
        name = m.group("name")
        value = name if name and name[:1].isupper() else m.group("rel")
        relation = RELATIONS[m.group("rel").lower()]
        out += _words(_english_fact(sentence, m, "family", value, m.start(), m.end(), relation=relation, holder=SELF))
    return out


_EN_PREF_VALUE = (r"(?P<v>[A-Za-z][\w'-]*(?:\s+[\w'-]+){0,5}?)(?=\s+(?:on|in|at|with|when|because|since|during|every|"
                  r"but|so|too|a\s+lot|very\s+much|so\s+much|more|than|now|lately|these|whenever|if|and\s+I)\b|[.,!;]|$)")
_EN_FAVORITE = re.compile(
    rf"\bmy\s+(?:absolute\s+|all-time\s+)?fav(?:ou?rite)?\s+(?P<cat>[a-z]+(?:\s+[a-z]+)?)\s+(?:is|are|has\s+to\s+be)\s+"
    rf"{_EN_PREF_VALUE}",
    re.IGNORECASE,
)
_EN_FAVORITE_AFTER = re.compile(
    r"^(?P<v>[A-Za-z][\w'-]*(?:\s+[\w'-]+){0,3}?)\s+(?:is|are)\s+my\s+(?:absolute\s+|all-time\s+)?"
    r"fav(?:ou?rite)?\b",
    re.IGNORECASE,
)
_EN_LIKE = re.compile(
    rf"{_EN_SUBJECT}{_EN_ADVERB}(?:(?:really|absolutely|just|totally|truly|also|do)\s+)?(?P<neg>don't\s+(?:really\s+)?|"
    rf"doesn't\s+(?:really\s+)?|do\s+not\s+|does\s+not\s+|no\s+longer\s+)?"
    rf"(?:love|loves|like|likes|enjoy|enjoys|adore|adores)\s+{_EN_PREF_VALUE}"
    rf"|{_EN_SUBJECT.replace('subj', 's2').replace('rel', 'r2')}{_EN_BE}(?P<neg2>not\s+)?(?:a\s+)?"
    rf"(?:(?:really|so|totally|super|very|big|huge|massive)\s+)*(?:fan\s+of|into)\s+"
    rf"{_EN_PREF_VALUE.replace('?P<v>', '?P<v2>')}",
    re.IGNORECASE,
)
_NOT_PREFERENCE_STARTS = frozenset({"it", "this", "that", "them", "him", "her", "you", "how", "what", "when", "where",
                                    "my", "your", "his", "our", "their", "being", "who", "to", "the", "a",
                                    "an", "me", "us", "myself", "everything", "everyone", "anything", "nothing"})


def _english_preferences(sentence: str) -> list[SlotValue]:
    """"my favorite X is Y", "Y is my favorite", the items of "I love / like / enjoy Y", "a fan of
    Y", "into Y"; "don't like" negates; pronouns and people ("my sister") are not preferences."""
    out: list[SlotValue] = []
    for pattern in (_EN_FAVORITE, _EN_FAVORITE_AFTER):
        for m in pattern.finditer(sentence):
            value = m.group("v").strip()
            if value.split()[0].lower() not in _NOT_PREFERENCE_STARTS - {"the", "a", "an"}:
                value = re.sub(r"^(?:the|a|an)\s+", "", value, flags=re.IGNORECASE)
                out += _words(_english_fact(sentence, m, "preference", value, m.start(), m.end()))
    for m in _EN_LIKE.finditer(sentence):
        listed = m.group("v") or m.group("v2")
        negated = bool(m.group("neg") or m.group("neg2"))
        rel = m.group("rel") or m.group("r2")
        holder = RELATIONS[rel.lower()] if rel else SELF
        listed = re.sub(r"^(?:to|the|a|an)\s+", "", listed, flags=re.IGNORECASE)
        first = listed.split()[0].lower() if listed.split() else ""
        if not first or first in _NOT_PREFERENCE_STARTS:
            continue
        for item in _items(listed):
            out += _words(_english_fact(sentence, m, "preference", item, m.start(), m.end(), negated, holder=holder))
    return out


# More English phrasings of the same facts said in passing: "my team calls me "Beck"", "Name's Tom
# Becker", "we're moving to Denver" (a move decided), "Finally settled in Denver", "I took an offer
# from Stripe", "I got the Duolingo offer", "I'm doing keto", "Started the Mediterranean diet",
# "Being a product designer there …", "Officially a licensed electrician".
_EN_CALLED = re.compile(r"\bcall(?:s|ed)?\s+me\s+[\"“'‘](?P<v>[A-Z][\w-]{1,20})[\"”'’,]")
_EN_NAMES_SHORT = re.compile(r"(?:^|(?<=[.!]\s))Name's\s+(?P<v>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)")
_EN_MOVING = re.compile(r"\b(?:I'm|I\s+am|we're|we\s+are)\s+(?:finally\s+|officially\s+)?moving\s+to\s+"
                        r"(?P<v>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)")
_EN_SETTLED = re.compile(r"(?:^|(?<=\s))(?:(?:I|we)(?:'ve|\s+have)?\s+)?(?:finally\s+)?settled\s+in\s+"
                         r"(?P<v>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)", re.IGNORECASE)
_EN_OFFER = re.compile(r"\b(?:I|I've|I\s+have)\s+(?:just\s+)?(?:took|taken|accepted|got|signed)\s+"
                       r"(?:an?\s+|the\s+)?(?:(?:job|full-time)\s+)?offer\s+(?:from|at|with)\s+"
                       r"(?P<v>[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*)*)"
                       r"|\b(?:I|I've)\s+(?:just\s+)?got\s+the\s+(?P<v2>[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*)?)\s+"
                       r"(?:job|offer|position)\b")
_EN_DIET_DOING = re.compile(
    r"\b(?:I'm|I\s+am)\s+(?:doing|on)\s+(?P<v>keto|paleo|whole30|low-carb|gluten-free)\b"
    r"|(?:^|(?<=\s))(?:I\s+)?(?:started|began)\s+(?:the\s+|a\s+)?(?P<v2>[A-Z]?[a-z-]+)\s+diet\b", re.IGNORECASE)
_EN_BEING_JOB = re.compile(
    rf"(?:^|(?<=\s))(?:Being|Officially|Now)\s+an?\s+(?P<job>{_EN_JOB_MODS}(?:{_EN_JOB_HEADS}))\b", re.IGNORECASE)


def _english_more(sentence: str) -> list[SlotValue]:
    out: list[SlotValue] = []
    for m in _EN_CALLED.finditer(sentence):
        if m.group("v").lower() not in _NOT_NAMES:
            out += _words(_english_fact(sentence, m, "nickname", m.group("v"), m.start(), m.end(), holder=SELF,
                                        listener_ok=True))
    for m in _EN_NAMES_SHORT.finditer(sentence):
        out += _words(_english_fact(sentence, m, "name", m.group("v"), m.start("v"), m.end(), holder=SELF,
                                    listener_ok=True))
    for pattern in (_EN_MOVING, _EN_SETTLED):
        for m in pattern.finditer(sentence):
            out += _words(_english_fact(sentence, m, "city", m.group("v"), m.start("v"), m.end(), holder=SELF))
    for m in _EN_OFFER.finditer(sentence):
        org = m.group("v") or m.group("v2")
        out += _words(_english_fact(sentence, m, "employer", org, m.start(), m.end(), holder=SELF))
    for m in _EN_DIET_DOING.finditer(sentence):
        diet = (m.group("v") or m.group("v2") or "").lower()
        if diet and diet not in ("new", "same", "this", "that", "crash"):
            out += _words(_english_fact(sentence, m, "diet", diet, m.start(), m.end(), holder=SELF))
    for m in _EN_BEING_JOB.finditer(sentence):
        out += _words(_english_fact(sentence, m, "job", m.group("job"), m.start("job"), m.end(), holder=SELF))
    return out


_ENGLISH_RULES = (_english_names, _english_birthday, _english_allergies, _english_diet, _english_health,
                  _english_job, _english_employer, _english_city, _english_family, _english_preferences,
                  _english_more)
