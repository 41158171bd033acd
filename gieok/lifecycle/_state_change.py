"""Rule 5 of ``detect_update``: a change of state on a topic the old statement holds.

Chat messages rarely name both sides of a change. "나 LG전자 다녀" is followed weeks later by
"드디어 이직 확정됐어!", "I work at a law firm" by "I handed in my resignation!" — the values
share no word. What they share is a *topic* (``_topics``: job, home, phone, team, trip …) and the
new one has a *state cue* (``_state_cues``: end, replace, begin, now). For each cue in the new
statement the rule reads the words it acts on (Korean: the nouns just before the verb, or the
sentence; English: its clause) and fires when

* **end / replace** — those words share an item with old (a name, a noun: "카니발 팔았어" after
  "우리 차는 카니발이야"), or a single-value topic (회사 옮겼어 after any job statement), or a
  many-valued topic without naming another item ("여행 취소했어" but not "제주도 여행 취소했어"
  after a trip to Osaka);
* **begin** — a single-value topic is shared ("합격했어", "accepted an offer", "휴대폰 새로 샀어");
  on a many-valued one only with 대신/instead or when old disliked the item ("민트초코 싫어" →
  "민트초코 입문했어");
* **now** — a single-value topic is shared and the sentence brings a new name or item
  ("요즘은 자전거로 출근해" after a bus commute).

The *head* of what the cue acts on must be something old holds (``_head_holds``): in "필라테스
선생님이 바뀌었어" the teacher changed, not the pilates; in "스타벅스 메뉴 바뀌었더라", "changed
guitar teachers", "moved our Friday standup" an attribute of a shared thing changed, so nothing fires.
A name or date head (서비스 이름, 휴가 일정) stands for the noun before it.

A cue is dropped when it is hypothetical or an intention (이사할까, 그만두려고, thinking about,
almost), negated (안 옮겼어, didn't quit), a one-off exception (오늘은 … 대신), about someone else
(동생이 이사했어, my brother moved; or old was about a sister and new never mentions her), acted by
an explicit non-person subject with nothing shared (회사 사무실이 이사했어), moving *to* what old
already holds (판교로 이사 오니까, switched to a new bike route), or the same kind of change old
already stated with nothing new ("카카오로 이직했어" → "카카오 옮긴 지 한 달"). Additions (also, 도)
block begin and now cues only: "I also quit the gym" still ends the gym.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from gieok.lifecycle._state_cues import SUBSTITUTION
from gieok.lifecycle._state_parse import Found, Span, find_cues, head_of
from gieok.lifecycle._third_party import mentions, third_parties
from gieok.lifecycle._topics import TOPIC_BY_NAME, TopicHit, topic_hits
from gieok.lifecycle._update_cues import ADDITIVE, CUE_TERMS, STOPPED
from gieok.lifecycle._values import find_values
from gieok.lifecycle._verdict import UpdateVerdict
from gieok.text.korean import analyze, has_hangul
from gieok.text.terms import keyword_terms

__all__ = ["detect_state_change"]

_KO_NOUN_TAGS = ("NNG", "NNP", "SL", "SH")
_EN_DESTINATION = re.compile(
    r"\b(?:to|into)\s+([^.,;!?]+?)(?=\s+\b(?:for|at|in|on|because|since|and|when)\b|[.,;!?]|$)", re.IGNORECASE
)
_KO_DISLIKE = re.compile(r"싫어|싫|별로|못\s*먹|안\s*먹|\bhate|\bdislike|\bcan'?t stand|\bnever liked", re.IGNORECASE)
# Heads that name an attribute of what precedes them: "서비스 이름 바꿨어", "휴가 일정 바뀌었어".
_EN_DETERMINERS = frozenset("the a an my our your his her their its this that new old".split())
_ATTRIBUTE_HEADS = frozenset("이름 일정 날짜 시간 장소 코드네임 name names date dates time schedule".split())
_QUOTED = re.compile(r"['\"‘“]([^'\"’”]{1,24})['\"’”]")
_STOP_TERMS = frozenset(
    "요즘 이번 다음 지금 오늘 어제 내일 정도 사람 생각 진짜 완전 결국 드디어 그냥 하나 이제 소식 한동안 당분간 "
    "week month year day time today last next final honest realli way quick updat news big huge lot thing "
    "weekend morn night everi one two three just still actual new old start stop finish plot twist".split()
) | CUE_TERMS


def detect_state_change(old: str, new: str) -> UpdateVerdict | None:
    """A change of state in ``new`` on a topic ``old`` holds (see the module docstring), or None."""
    old_hits = topic_hits(old)
    old_topics = {hit.topic for hit in old_hits}
    old_kinds: set[str] = {f.cue.kind for f in find_cues(old) if f.cue.kind != "now" and not f.cue.requires}
    old_people = third_parties(old)
    new_hits = topic_hits(new)
    old_stopped = STOPPED.search(old) is not None
    for found in find_cues(new):
        if _blocked(old, new, found, old_people):
            continue
        verdict = _judge(old, new, found, old_hits, old_topics, new_hits, old_kinds, old_stopped)
        if verdict is not None:
            return verdict
    return None


def _judge(old: str, new: str, found: Found, old_hits: Sequence[TopicHit], old_topics: set[str],
           new_hits: Sequence[TopicHit], old_kinds: set[str], old_stopped: bool) -> UpdateVerdict | None:
    cue = found.cue
    if cue.requires and not old_topics & set(cue.requires):
        return None
    sentence_new = _new_items(old, new, found.sentence, new_hits)
    if cue.kind in old_kinds and not sentence_new:
        return None  # old already said this change; new adds nothing to it
    if cue.kind == "end" and old_stopped:
        return None  # old already ended it ("더 이상 커피 안 마셔" → "커피 끊었어")
    if cue.kind == "replace" and _moves_to_old(old, new, found):
        return None
    segment_hits = _within(new_hits, found.segment)
    if not segment_hits and cue.topic is None and not found.explicit_subject:
        segment_hits = _within(new_hits, found.sentence)
    head = head_of(new, found)
    head_hits = [h for h in new_hits if head is not None and h.start <= head[0] and head[1] <= h.end]
    if cue.purchase:  # what was bought: 휴대폰 새로 샀어, "a new MacBook Air"; not 클라이밍 신발
        segment_hits = head_hits or [h for h in new_hits if head is not None and found.end <= h.start
                                     and h.end <= head[1] and not has_hangul(new[h.start:h.end])]
        if not segment_hits:
            return None
    topics = {h.topic for h in segment_hits} | ({cue.topic} if cue.topic else set())
    single = sorted(t for t in topics if t in old_topics and TOPIC_BY_NAME[t].single)
    many = sorted(t for t in topics if t in old_topics and not TOPIC_BY_NAME[t].single)
    shared = _shared_items(old, new, found.segment, segment_hits, found)
    if not shared and cue.kind == "replace":
        # "I moved everything over to Obsidian, Notion got too slow": the old name may sit in the
        # next clause of the same sentence.
        shared = [name for name in _names(new, found.sentence) if name.casefold() in old.casefold()]
    if found.explicit_subject and not cue.passive and not shared:
        return None
    if cue.kind in ("end", "replace") and cue.topic is None and not cue.needs_self and head is not None \
            and not _head_holds(old, new, head, head_hits, old_topics, shared):
        return None  # "필라테스 선생님이 바뀌었어": the teacher changed, not the pilates
    additive = ADDITIVE.search(new, *found.sentence) is not None or _korean_also(new, found)
    confidence = 0.0
    topic = (single or many or ["item"])[0]
    if cue.passive and cue.kind == "end" and topic == "item":
        return None  # an event that is over ("점심 시간 끝났네요", "the surgery ended well") was no state
    if cue.kind in ("end", "replace"):
        segment_new = _new_items(old, new, found.segment, new_hits)
        if shared:
            confidence = 0.7
        elif single and not (cue.kind == "end" and segment_new):
            confidence = 0.65  # but "자전거 팔았어" ends another item than old's car
        elif many and not segment_new:
            confidence = 0.6
    elif cue.kind == "begin" and not additive:
        substitutes = bool(SUBSTITUTION.search(new) or _KO_DISLIKE.search(old))
        confidence = 0.6 if single or ((many or shared) and substitutes) else 0.0
    elif cue.kind == "now" and not additive and single and sentence_new:
        confidence = 0.6
    if not confidence:
        return None
    old_value = _old_item(old, old_hits, topic) or (shared[0] if shared else None)
    if cue.kind == "replace" and not sentence_new:  # "밴드 이름 바꿨어. 이제 '물결'이야."
        sentence_new = _new_items(old, new, (0, len(new)), new_hits)
    new_value = sentence_new[0] if sentence_new and cue.kind != "end" else None
    reason = f"{topic} {cue.kind} ({found.label!r}): {old_value or '…'} → {new_value or '…'}"
    return UpdateVerdict("change", confidence, old_value, new_value, reason)


def _noun_before(text: str, head: Span) -> Span | None:
    """The noun right before ``head`` in a noun phrase (서비스 이름, the wedding date), if any."""
    if has_hangul(text[head[0]:head[1]]):
        before = [t for t in analyze(text) if t[4] <= head[0]]
        if before and before[-1][1].startswith(_KO_NOUN_TAGS) and text[before[-1][4]:head[0]].strip() == "":
            return before[-1][3], before[-1][4]
        return None
    m = re.search(r"([A-Za-z][\w'-]*)\s+$", text[:head[0]])
    if m is None or m.group(1).lower() in _EN_DETERMINERS:
        return None
    return m.start(1), m.end(1)


def _within(hits: Sequence[TopicHit], span: Span) -> list[TopicHit]:
    return [h for h in hits if span[0] <= h.start and h.end <= span[1]]


def _head_holds(old: str, new: str, head: Span, head_hits: Sequence[TopicHit], old_topics: set[str],
                shared: list[str]) -> bool:
    """Whether the head of what changed is something old holds: itself, a topic old is about, a
    name or date of it, or a topic word whose modifier old names ("the Lisbon trip")."""
    word = new[head[0]:head[1]]
    if word.casefold() in _ATTRIBUTE_HEADS:
        # the name or date of what comes right before it: 서비스 이름, not 회식 장소 of a team
        owner = _noun_before(new, head)
        return owner is not None and _head_holds(
            old, new, owner, [h for h in topic_hits(new) if h.start <= owner[0] and owner[1] <= h.end],
            old_topics, shared)
    if any(h.topic in old_topics for h in head_hits):
        return True
    if any(not h.item for h in head_hits) and shared:
        return True
    if has_hangul(word):
        return word in {form for form, tag, *_ in analyze(old) if tag.startswith(("NN", "SL"))}
    return bool(set(keyword_terms(word)) & set(keyword_terms(old))) or word.casefold() in old.casefold()


# ---- what the two statements share and what is new


def _shared_items(old: str, new: str, segment: Span, hits: Sequence[TopicHit], found: Found) -> list[str]:
    """Names and nouns the cue's words share with old, beyond the bare topic words (회사, job) and
    the cue itself ("sold" after "sold")."""
    topic_words = {h.word for h in hits if not h.item}
    # the cue's own words, except where the cue spans a clause ("don't rehearse at Jake's anymore")
    cue_words = set() if found.cue.needs_self else {found.label.casefold(), *keyword_terms(found.label)}
    old_folded = old.casefold()
    shared: list[str] = []
    text = new[segment[0]:segment[1]]
    for quoted in _QUOTED.findall(text):
        if quoted.casefold() in old_folded:
            shared.append(quoted)
    if has_hangul(text):
        old_forms = {form for form, tag, *_ in analyze(old) if tag.startswith(_KO_NOUN_TAGS)}
        skip = topic_words | cue_words | _STOP_TERMS
        for form, tag, _lemma, start, end in analyze(new):
            if (segment[0] <= start and end <= segment[1] and tag.startswith(_KO_NOUN_TAGS)
                    and (len(form) >= 2 or tag != "NNG") and form not in skip
                    and (form in old_forms or (tag != "NNG" and form.casefold() in old_folded))):
                shared.append(form)
    topic_stems = {t for word in topic_words for t in keyword_terms(word)}
    old_terms = set(keyword_terms(old))
    for word in re.findall(r"[A-Za-z][A-Za-z'.-]*", text):
        stems = keyword_terms(word)
        if stems and stems[0] in old_terms and stems[0] not in topic_stems | cue_words | _STOP_TERMS:
            shared.append(word)
    return list(dict.fromkeys(shared))


def _names(text: str, span: Span) -> list[str]:
    """Proper nouns and quoted names in ``text[span]``."""
    part = text[span[0]:span[1]]
    return [v.surface for v in find_values(part) if v.kind == "name"] + _QUOTED.findall(part)


def _new_items(old: str, new: str, span: Span, hits: Sequence[TopicHit]) -> list[str]:
    """Names, quoted names and topic items in ``span`` of new that old never mentions."""
    candidates = _names(new, span)
    candidates += [new[h.start:h.end] for h in hits if h.item and span[0] <= h.start and h.end <= span[1]]
    old_folded = old.casefold()
    return list(dict.fromkeys(c for c in candidates if c.strip() and c.casefold() not in old_folded))


def _old_item(old: str, hits: Sequence[TopicHit], topic: str) -> str | None:
    for hit in hits:
        if hit.topic == topic and hit.item:
            return old[hit.start:hit.end]
    names = [v.surface for v in find_values(old) if v.kind == "name"] + _QUOTED.findall(old)
    return names[0] if names else None


def _moves_to_old(old: str, new: str, found: Found) -> bool:
    """"판교로 이사 오니까", "switched to a new bike route": the change goes to what old holds."""
    if has_hangul(new[found.sentence[0]:found.sentence[1]]):
        tokens = [t for t in analyze(new) if found.segment[0] <= t[3] and t[4] <= found.end]
        targets = {t[0].casefold() for t, nxt in pairwise(tokens)
                   if t[1].startswith(_KO_NOUN_TAGS) and nxt[1] == "JKB" and nxt[0] in ("로", "으로")}
        return bool(targets & {form.casefold() for form, tag, *_ in analyze(old) if tag.startswith(_KO_NOUN_TAGS)})
    m = _EN_DESTINATION.search(new, found.end, found.segment[1])
    if m is None:
        return False
    old_terms = set(keyword_terms(old)) - _STOP_TERMS
    return bool(set(keyword_terms(m.group(1))) & old_terms)


def _korean_also(text: str, found: Found) -> bool:
    return any(tag == "JX" and form == "도" for form, tag, _l, start, end in analyze(text)
               if found.sentence[0] <= start and end <= found.sentence[1]) if has_hangul(text) else False


_KO_AND = frozenset({"고", "서", "어서", "아서", "면서", "으면서"})
_KO_HEARSAY = frozenset({"ᆫ대", "는대", "대", "래", "ᆫ대요", "는대요", "대요", "래요", "이래", "이래요"})


def _reported_or_honoured(text: str, found: Found) -> bool:
    """A Korean change told as hearsay ("이직한대", "포닥 간대") or with the honorific 시 ("졸업하셨나",
    "이사하셨어") is someone else's: nobody reports their own move or honours themselves."""
    if not has_hangul(text[found.start:found.end]):
        return False
    for form, tag, *_rest in (t for t in analyze(text) if found.start <= t[3] and t[4] <= found.sentence[1]):
        if tag == "EP" and form == "시":
            return True
        if tag == "EC" and form in _KO_AND:
            continue  # "졸업하고 … 포닥 간대": the last verb tells how the chain was said
        if tag in ("EF", "EC"):
            return tag == "EF" and form in _KO_HEARSAY
    return False


def _blocked(old: str, new: str, found: Found, old_people: set[str]) -> bool:
    """Someone else's change (sentence by sentence; ``_guards`` already checked the whole text)."""
    new_people = third_parties(new, found.sentence[0], found.start, (found.end, found.segment[1]),
                               pronouns=True)
    if new_people:
        return not (new_people & old_people)
    if _reported_or_honoured(new, found):  # someone's: the one old was about, if new names them
        return not any(mentions(new, person) for person in old_people)
    return bool(old_people) and not any(mentions(new, person) for person in old_people)
