"""Reading state cues: where they are, what they act on, and what is the head of that.

``find_cues`` lists the state cues (``_state_cues``) of a statement with, for each, its sentence and
*segment* — the words it acts on. In Korean (verb last) that is the run of words since the last
clause ending before the verb ("나 **회사** 그만뒀어"), or the whole sentence when that run has no
noun. In English it is the clause of the cue, or only what follows the cue when someone other than
the speaker is its subject ("Todoist changed **its pricing**"). Hypothetical, negated and
ticket-buying cues are left out here.

``head_of`` finds the head noun of the thing changed: the last noun before a Korean verb that is not
a place or destination (…으로), the subject of a passive ("the conference got postponed"), else the
last noun of the object after an English verb ("changed guitar **teachers**", "sold the **Civic**").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import pairwise

from gieok.lifecycle._state_cues import (
    EN_CUES,
    EN_HYPOTHETICAL,
    EN_INTRANSITIVE_MOVE,
    EN_NEGATION_BEFORE,
    EN_NOT_SUBJECT,
    KO_HYPOTHETICAL_ENDINGS,
    KO_LEMMA_CUES,
    KO_NOUN_CUES,
    KO_NOW,
    KO_TICKET_BEFORE,
    StateCue,
)
from gieok.text.korean import analyze, has_hangul
from gieok.text.sentences import split_sentences

__all__ = ["Found", "Span", "find_cues", "head_of", "is_hypothetical"]

Span = tuple[int, int]

_CLAUSE_BREAK = re.compile(r"[,;:—–]|\b(?:and|but|so|because|since|while|when|though|although|which|that)\b",
                           re.IGNORECASE)
_EN_PASSIVE_BEFORE = re.compile(r"\b(?:was|were|got|been|is|are|get|gets|be)\s+(?:\w+\s+)?$", re.IGNORECASE)
_EN_SELF = re.compile(r"\b(?:I|we|i'm|we're|i've|we've|i'd|we'd)\b|^\s*$", re.IGNORECASE)
_EN_WORD = re.compile(r"[A-Za-z0-9][\w'.-]*[\w']|[A-Za-z]")
_EN_PARTICLES = frozenset("of on off out up over from to into with about away by".split())
_EN_OBJECT_STOP = frozenset(
    "for at in on from with because when since as after before last this next yesterday today tonight to into "
    "and but so that which who than instead again now anymore any more completely finally too already entirely "
    "over out off back up down "
    "altogether forever recently".split()
)
_EN_AUX = frozenset("was were got been is are get gets be has have had just finally officially".split())
_EN_LIGHT_HEADS = frozenset("thing things stuff lifestyle phase deal".split())
_EN_NO_HEAD = frozenset("everything it them all stuff things one something me myself us".split())
_KO_HYPOTHETICAL_TEXT = re.compile(r"알아보|고민|생각\s*(?:중|이야|하고)|뻔했|예정|계획|싶|수도\s*있|지도\s*몰라")
_KO_BOUNDARY_TAGS = ("EC", "EF", "SF", "SP", "SE")
_KO_NOUN_TAGS = ("NNG", "NNP", "SL", "SH")
_KO_NOT_HEAD = frozenset("이번 다음 지난 요즘 지금 오늘 어제 내일 최종 결국 하나 정도 때문".split())
_LEAVING = ("left", "quit", "retired", "resigned")


@dataclass(frozen=True, slots=True)
class Found:
    cue: StateCue
    label: str
    start: int
    end: int
    sentence: Span
    segment: Span  # the words the cue acts on
    explicit_subject: bool = False  # someone or something other than the speaker acts (사무실이, Todoist)
    fallback: bool = False  # the segment is the whole sentence: no noun right before the cue


def is_hypothetical(text: str, sentence: Span) -> bool:
    """A guess, intention or condition: 이사할까, 그만두려고, 갈 수도 있어, thinking about, might."""
    if not has_hangul(text[sentence[0]:sentence[1]]):
        return EN_HYPOTHETICAL.search(text, sentence[0], sentence[1]) is not None
    tokens = [t for t in analyze(text) if sentence[0] <= t[3] and t[4] <= sentence[1]]
    return _KO_HYPOTHETICAL_TEXT.search(text, sentence[0], sentence[1]) is not None or any(
        tag.startswith(("EC", "EF")) and form in KO_HYPOTHETICAL_ENDINGS for form, tag, *_ in tokens
    )


@lru_cache(maxsize=4096)
def find_cues(text: str) -> tuple[Found, ...]:
    """Every state cue of ``text`` that is not hypothetical, negated or a ticket bought, in order."""
    found: list[Found] = []
    for sentence in split_sentences(text):
        if has_hangul(text[sentence[0]:sentence[1]]):
            found.extend(_korean_cues(text, sentence))
        else:
            found.extend(_english_cues(text, sentence))
    return tuple(sorted(found, key=lambda f: f.start))


def _korean_cues(text: str, sentence: Span) -> list[Found]:
    tokens = [t for t in analyze(text) if sentence[0] <= t[3] and t[4] <= sentence[1]]
    hypothetical = is_hypothetical(text, sentence)
    found: list[Found] = []
    for index, (form, tag, lemma, start, end) in enumerate(tokens):
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        cue: StateCue | None = None
        if tag.startswith("VV") and lemma == "두다" and index and tokens[index - 1][0] == "그만":
            cue = KO_LEMMA_CUES["그만두다"]  # Kiwi sometimes reads 그만뒀어 as 그만 + 두다
        elif tag.startswith("VV") and lemma in KO_LEMMA_CUES:
            cue = KO_LEMMA_CUES[lemma]
            if lemma == "끊다" and KO_TICKET_BEFORE.search(text[sentence[0]:start]):
                continue  # 표를 끊다 is buying a ticket
            if lemma == "끝나다" and following is not None and following[1] not in ("EP", "EF"):
                continue  # 필라테스 끝나고: after the class, not the end of it
        elif tag == "NNG" and form in KO_NOUN_CUES:
            if following is not None and (following[1] == "XSN" or (
                    following[1] == "NNG" and following[0] not in ("확정", "완료", "끝", "성공", "결정"))):
                continue  # 이사님; 졸업 작품 is a noun, not a change
            cue = KO_NOUN_CUES[form]
            if following is not None and following[0] == "되":
                cue = replace(cue, passive=True)
        if cue is None or hypothetical or _korean_negated(tokens, index):
            continue
        first = index
        while first > 0 and not tokens[first - 1][1].startswith(_KO_BOUNDARY_TAGS):
            first -= 1
        segment_tokens = tokens[first:index]
        nouns = [t for t in segment_tokens if t[1].startswith(_KO_NOUN_TAGS)]
        segment = (segment_tokens[0][3], start) if nouns else sentence
        subject = any(
            t[1].startswith(("NNG", "NNP")) and nxt[1] == "JKS"
            for t, nxt in pairwise(segment_tokens)
        )
        found.append(Found(cue, form, start, end, sentence, segment, subject, not nouns))
    if not hypothetical:
        for m in KO_NOW.finditer(text, sentence[0], sentence[1]):
            found.append(Found(StateCue("now"), m.group(), m.start(), m.end(), sentence, sentence, fallback=True))
    return found


def _korean_negated(tokens: list[tuple[str, str, str, int, int]], index: int) -> bool:
    before = tokens[index - 1] if index else None
    if before is not None and before[1] == "MAG" and before[0] in ("안", "못"):
        return True
    after = tokens[index + 1 : index + 5]
    if after and after[0][1] == "MAG" and after[0][0] in ("안", "못"):
        return True  # 등록 안 하기로
    if any(token[0] in ("거", "것", "건") and nxt[2] == "아니다" for token, nxt in pairwise(after)):
        return True  # 그만둔 거 아니야: denied
    if any(form in ("소문", "얘기") for form, *_ in after[:3]):
        return True  # 옮긴다는 소문: only a rumour
    return any(lemma in ("않다", "못하다") for _f, _t, lemma, *_ in after)


def _english_cues(text: str, sentence: Span) -> list[Found]:
    found: list[Found] = []
    for pattern, cue in EN_CUES:
        for m in pattern.finditer(text, sentence[0], sentence[1]):
            clause = _clause(text, sentence, m.start(), m.end())
            before = text[clause[0]:m.start()]
            if EN_HYPOTHETICAL.search(text, clause[0], clause[1]):
                continue
            if not cue.needs_self and EN_NEGATION_BEFORE.search(before):
                continue
            if cue.needs_self and not _EN_SELF.search(before):
                continue  # "Equinox doesn't have towels anymore" is about Equinox
            word = m.group().casefold()
            if word == "stopped" and re.match(r"\s*(?:by|in|at|over)\b", text[m.end():]):
                continue  # "stopped by the club" is a visit
            if word == "moving" and re.search(r"\b(?:a|an|so|very|really|truly|deeply|incredibly|most)\s+$", before):
                continue  # "a moving experience", "so moving": touching, not a move
            if word.startswith("push") and re.match(r"\s+(?:me|us|him|her|them|myself|ourselves)\b", text[m.end():]):
                continue  # "it pushed me to keep fighting": spurred someone on, not a postponement
            if word == "left" and re.match(r"\s*(?:for|over|behind|with|to|side|hand)\b|\s*[.,!?]", text[m.end():]):
                continue
            passive = cue.passive or bool(_EN_PASSIVE_BEFORE.search(before))
            segment, subject = clause, False
            if passive:
                cue = replace(cue, passive=True)
            elif any(w.lower() not in EN_NOT_SUBJECT for w in re.findall(r"[A-Za-z']+", before)) \
                    and cue.kind != "now" and word not in _LEAVING:
                # "Todoist changed its pricing": someone else acts; only what it acts on counts.
                segment, subject = (m.end(), clause[1]), True
            elif word in ("moved", "moving") and EN_INTRANSITIVE_MOVE.match(text, m.end()):
                cue = replace(cue, topic="home")
            found.append(Found(cue, m.group(), m.start(), m.end(), sentence, segment, subject))
    return found


def _clause(text: str, sentence: Span, start: int, end: int) -> Span:
    left, right = sentence
    for m in _CLAUSE_BREAK.finditer(text, sentence[0], sentence[1]):
        if m.end() <= start:
            left = m.end()
        elif m.start() >= end:
            right = m.start()
            break
    return left, right


def head_of(text: str, found: Found) -> Span | None:
    """The span of the head noun of what ``found`` changes, or None when there is none to read."""
    if has_hangul(text[found.sentence[0]:found.sentence[1]]):
        if found.fallback:
            return None
        tokens = [t for t in analyze(text) if found.segment[0] <= t[3] and t[4] <= found.start]
        skip_until = -1  # the start of a word that ends in 으로/에서: where to or from, not what
        for index in range(len(tokens) - 1, -1, -1):
            form, tag, _lemma, start, end = tokens[index]
            following = [t for t in tokens[index + 1 : index + 3] if t[1] != "XSN"]
            if following and following[0][1] == "JKB":
                skip_until = start
            elif tag.startswith(_KO_NOUN_TAGS) and end == skip_until:
                skip_until = start  # 알뜰 + 폰으로 is one word
            elif tag.startswith(_KO_NOUN_TAGS) and form not in _KO_NOT_HEAD:
                return start, end
        return None
    if found.cue.passive:
        words = list(_EN_WORD.finditer(text, found.segment[0], found.start))
        while words and words[-1].group().lower() in _EN_AUX:
            words.pop()
        if not words or words[-1].group().lower() in EN_NOT_SUBJECT:
            return None
        return words[-1].span()
    words = list(_EN_WORD.finditer(text, found.end, found.segment[1]))
    if words and words[0].group().lower() in ("to", "into"):
        return None  # "switched to Neovim": the new value, not the thing changed
    while words and words[0].group().lower() in _EN_PARTICLES:
        words.pop(0)
    kept = []
    for index, word in enumerate(words):
        gap = text[words[index - 1].end() : word.start()] if index else ""
        if word.group().lower() in _EN_OBJECT_STOP or re.search(r"[,.;!?]", gap):
            break
        kept.append(word)
    while kept and (kept[-1].group().isdigit() or kept[-1].group().lower().endswith("ly")
                    or kept[-1].group().lower() in _EN_LIGHT_HEADS):
        kept.pop()  # "an iPhone 15", "the vegetarian thing": the head is the word before
    if not kept or kept[-1].group().lower() in _EN_NO_HEAD:
        return None
    return kept[-1].span()
