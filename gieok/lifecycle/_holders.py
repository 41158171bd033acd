"""Whose statement it is: the person an attribute belongs to.

"민지 생일은 6월 23일이야" and "엄마 생일은 1월 6일이야" share their frame (생일) and a date changed,
yet they are two people's birthdays; "My sister's birthday is May 2" is not "My birthday is June 23".
``holders(text)`` names the people a statement is about — ``"self"`` (the speaker) unless a person
stands where the subject or the possessor goes:

* **Korean** — a family word (엄마, 동생, 첫째 …) as subject or topic (이/가/은/는), possessor (의) or
  bare ("우리 딸 다섯 살이야"); a proper noun or a name with 이/씨/님 ("서윤이는", "도윤 씨는") as
  subject, topic or possessor, or right before an attribute noun ("민지 생일", "민서 결혼식"); a title
  (팀장, 대리) only as possessor ("팀장님 번호", "대리님 성함"), because "우리 팀장은 김수현이야" says who
  *my* team lead is. Not as companion or object (수아랑, 엄마한테, 민지를).
* **English** — "X's" (Julie's, Grandma's, my sister's), "my/our <person>" (my brother, my mom), or a
  name opening a clause with its verb ("Mia works …", "Deborah left").

I, my, me, we, our (without a person after them) and 나, 내, 저, 제, 우리 add ``"self"``, so "Deborah
left, my new manager is Marcus" is about the speaker too. ``same_holder`` is the veto of
``_guards``: two statements with no holder in common are about different people.
"""

from __future__ import annotations

import re
from functools import lru_cache

from gieok.lifecycle._state_cues import KO_PERSONS
from gieok.text.korean import analyze, has_hangul
from gieok.text.sentences import split_sentences

__all__ = ["holders", "same_holder"]

SELF = "self"

_KO_ORDINALS = frozenset("첫째 둘째 셋째".split())  # "8월 첫째 주" is a week: these need a particle
_KO_FAMILY = KO_PERSONS | _KO_ORDINALS | frozenset("막내 큰애 작은애 외삼촌 큰아버지 작은아버지 외할머니 외할아버지 "
                                    "시아버지 장인 장모 손자 손녀 며느리 사위 약혼자".split())
_KO_TITLES = frozenset("팀장 과장 대리 부장 차장 사장 실장 상무 전무 주임 사원 인턴 본부장 대표 매니저 원장 선생 교수 "
                       "선생님 교수님 쌤 선배 후배 이사 센터장 국장 회장 반장 총무 코치 감독".split())
# Nouns a person has one of: "민지 생일", "팀장님 번호" make the word before them its owner.
_KO_ATTRIBUTES = frozenset(
    "생일 생신 나이 이름 성함 번호 전화번호 연락처 주소 직업 직장 회사 학교 유치원 어린이집 학년 전공 키 몸무게 혈액형 "
    "결혼식 결혼 기념일 남자친구 여자친구 남친 여친 남편 아내 차 폰 집 취미 집들이 돌잔치 월급 연봉 사무실 자리 책상 "
    "메일 이메일 계좌 알레르기 담당 부서 팀 고향 반".split()
)
_KO_SELF = frozenset("나 내 저 제 우리 저희".split())
_KO_HOLDER_PARTICLES = frozenset("이 가 은 는 께서 의".split())
_KO_NOT_HOLDER_PARTICLES = frozenset("도 만 까지 부터 조차 마저".split())

_EN_PERSON = (
    r"sister|brother|mom|mum|mother|dad|father|parents?|husband|wife|boyfriend|girlfriend|friend|roommate|son"
    r"|daughter|kids?|cousin|aunt|uncle|grandma|grandpa|grandmother|grandfather|neighbou?r|fianc[eé]e?"
    r"|in-laws?|coworker|colleague|partner|boss|landlord|landlady|niece|nephew|baby|toddler|stepson|stepdaughter"
    r"|sibling|twin|bestie|buddy"
)
_EN_MY_PERSON = re.compile(
    rf"(?:^|[.!?;,:]\s*|\b(?:and|but|so|then|because|oops|sorry|actually|also)\s+)(?:my|our)\s+(?:(?:best|close|older|younger|little|big|eldest|oldest|youngest|new|old)\s+)?"
    rf"(?P<who>{_EN_PERSON})s?\b(?!(?:\s+\w+)?\s+and\s+(?:I|me)\b)", re.IGNORECASE)
_EN_OBJECT_PERSON = re.compile(rf"\b(?:moved|took|enrolled|switched|sent|put)\s+(?:my|our)\s+(?P<who>{_EN_PERSON})s?\b",
                               re.IGNORECASE)
_EN_BARE_PERSON = re.compile(r"(?:^|[.!?;,]\s*)(?P<who>mom|mum|dad|grandma|grandpa)\b", re.IGNORECASE)
_EN_POSSESSIVE = re.compile(r"\b(?P<who>[A-Za-z][a-z]+(?:\s[A-Z][a-z]+)?)['’]s\s+(?=[a-z])")
_EN_CLAUSE_SUBJECT = re.compile(
    r"(?:^|[.!?;]\s+|,\s+|\b(?:and|but|so|because)\s+)(?:(?:Aunt|Uncle|Cousin|Dr|Mr|Mrs|Ms)\.?\s+)?"
    r"(?P<who>[A-Z][a-z]{2,})\s+(?:(?:just|finally|also|still|now|already|recently|never)\s+)?"
    r"(?:is|was|has|had|works|worked|lives|lived|left|quit|moved|got|gets|uses|used|drives|drove|teaches|taught"
    r"|studies|studied|goes|went|started|joined|runs|ran|plays|played|loves|likes|hates|turned|turns|sold"
    r"|bought|married|dates|dated)\b")
_EN_SELF = re.compile(r"\b(?:I|me|my|mine|we|us|our)\b", re.IGNORECASE)
# Capitalised words that open a sentence without being anyone's name.
_EN_NOT_NAMES = frozenset(
    "it that what let there here he she who where how when why this these those everything nothing something "
    "everyone someone today tonight tomorrow yesterday life work mine rent standup practice school class lunch "
    "dinner breakfast traffic coffee weather the our my your their his her its one book piano gym therapy pay "
    "payday salary dinner meeting team company office home sorry oops oh correction update news yeah yes no "
    "also still just now then well actually honestly anyway besides plus each every last next".split()
)


@lru_cache(maxsize=4096)
def holders(text: str) -> frozenset[str]:
    """The people ``text`` is about: names, family words, ``"self"`` (see the module docstring). Each
    sentence without a holder of its own is the speaker's."""
    found: set[str] = set()
    for start, end in split_sentences(text) or [(0, len(text))]:
        sentence = text[start:end]
        own = _korean_holders(sentence) if has_hangul(sentence) else set()
        own |= _english_holders(sentence)
        found |= own or {SELF}
    return frozenset(found)


def same_holder(old: str, new: str) -> bool:
    """Whether the two statements are about one same person: a holder in common, or a holder of one
    that the other names ("필라테스는 끊었어" after "필라테스 다녀")."""
    old_holders, new_holders = holders(old), holders(new)
    if old_holders & new_holders:
        return True
    return any(_names(new, person) for person in old_holders - {SELF}) or any(
        _names(old, person) for person in new_holders - {SELF})


def _names(text: str, person: str) -> bool:
    if has_hangul(person):
        return person.replace(" ", "") in re.sub(r"\s", "", text)
    return re.search(rf"\b{re.escape(person)}", text, re.IGNORECASE) is not None


def _korean_holders(text: str) -> set[str]:
    words = _eojeols(text)
    found: set[str] = set()
    possessor: str | None = None  # a name right before a family word: 수아 남자친구 is her boyfriend
    for index, word in enumerate(words):
        owner, possessor = possessor, None
        run = []
        for form, tag in word:
            if not tag.startswith(("NN", "XSN", "NR")):
                break
            run.append((form, tag))
        if not run:
            if word and word[0][1] == "NP" and word[0][0] in _KO_SELF:
                found.add(SELF)
            continue
        rest = word[len(run):]
        particle = rest[0] if rest else None
        core = "".join(form for form, tag in run if tag != "XSN")
        hypocoristic = run[-1] == ("이", "XSN")  # 서윤이는, 지현이가
        honorific = run[-1] == ("님", "XSN")
        following = _next_core(words, index)
        if particle is None and "씨" in following:  # "도윤 씨는": the title word carries the particle
            particle = _particle_of(words[index + 1])
            hypocoristic = True
        forms = {form for form, _tag in run}
        subject = particle is not None and particle[0] not in _KO_NOT_HOLDER_PARTICLES and (
            particle[1] == "JKS" or (particle[1] == "JX" and particle[0] in _KO_HOLDER_PARTICLES))
        topic = subject and particle is not None and particle[1] == "JX"
        possessive = (particle is not None and particle[1] == "JKG") or (
            particle is None and bool(following & _KO_ATTRIBUTES))
        family = bool(forms & _KO_FAMILY)
        proper = any(tag == "NNP" for _f, tag in run)
        if (proper or hypocoristic) and not family and particle is None and following & _KO_FAMILY:
            possessor = core
        elif family and not honorific:
            ordinal = bool(forms & _KO_ORDINALS)
            bare = particle is None and not ordinal and not _has_or_lacks(words, index)
            if subject or possessive or bare:
                found.add(f"{owner} {core}" if owner else core)
        elif honorific or forms & _KO_TITLES:
            if possessive:  # 팀장님 번호, 대리님 성함; "팀장님이 바뀌었어" names the role itself
                found.add(next(iter(sorted(forms & _KO_TITLES)), core))
        elif (proper or hypocoristic) and len(core) >= 2 and (topic or possessive or (subject and hypocoristic)):
            found.add(core)
    return found


def _has_or_lacks(words: list[list[tuple[str, str]]], index: int) -> bool:
    """"나 남자친구 있어", "여자친구 생겼어": the family word is what the speaker has, not a holder."""
    if index + 1 >= len(words):
        return False
    return any(form in ("있", "없", "생기", "생겼") for form, _tag in words[index + 1])


def _eojeols(text: str) -> list[list[tuple[str, str]]]:
    """Kiwi tokens grouped into space-separated words; punctuation ends a word."""
    words: list[list[tuple[str, str]]] = []
    previous_end = -1
    for form, tag, _lemma, start, end in analyze(text):
        if tag.startswith("S") and tag not in ("SL", "SH", "SN"):
            previous_end = -1
            continue
        if words and previous_end == start:
            words[-1].append((form, tag))
        else:
            words.append([(form, tag)])
        previous_end = end
    return words


def _next_core(words: list[list[tuple[str, str]]], index: int) -> set[str]:
    if index + 1 >= len(words):
        return set()
    return {form for form, tag in words[index + 1] if tag.startswith("NN")}


def _particle_of(word: list[tuple[str, str]]) -> tuple[str, str] | None:
    return next(((form, tag) for form, tag in word if tag.startswith("J")), None)


def _english_holders(text: str) -> set[str]:
    found: set[str] = set()
    for m in _EN_MY_PERSON.finditer(text):
        found.add(_person(m.group("who")))
    for m in _EN_OBJECT_PERSON.finditer(text):  # "we moved our daughter": she is who the statement is about too
        found.add(_person(m.group("who")))
    for m in _EN_BARE_PERSON.finditer(text):
        found.add(_person(m.group("who")))
    for m in _EN_POSSESSIVE.finditer(text):
        who = m.group("who")
        last = who.split()[-1]
        if re.fullmatch(_EN_PERSON, last.lower()):
            found.add(_person(last))
        elif who[0].isupper() and who.split()[0].lower() not in _EN_NOT_NAMES:
            found.add(last.lower())
    for m in _EN_CLAUSE_SUBJECT.finditer(text):
        if m.group("who").lower() not in _EN_NOT_NAMES:
            found.add(_person(m.group("who")))
    if _EN_SELF.search(_EN_MY_PERSON.sub(" ", text)):
        found.add(SELF)
    return found


def _person(word: str) -> str:
    word = word.lower()
    return {"mum": "mom", "mother": "mom", "father": "dad", "parents": "parent", "kids": "kid",
            "grandmother": "grandma", "grandfather": "grandpa", "neighbour": "neighbor"}.get(word, word)
