"""``detect_update``: does a later statement replace an earlier one?

The engine calls this only on pairs it already found similar, so every rule asks for positive
evidence of replacement and anything else is None. First the vetoes of ``_guards`` (another
holder — 민지's birthday is not 엄마's —, two events, a denied change, another person's news, a
one-off exception, only a guess); then five rules, tried in order on (old, new):

1. **Contrast** — the new statement names both sides ("금요일 말고 월요일", "삼성 다니다가 카카오로
   옮겼어", "switched from almond milk to oat milk", "used to X … now Y"); the old statement must
   mention the replaced side and not the new one. Kind from the pattern (correction / change).
2. **Value** — both share their *frame* (keyword terms minus values and cue words: at least one
   shared term, covering half of the smaller frame) and one value group (day, time, month, number,
   name; see ``_values``) holds a value in old that new lacks and vice versa: "회의는 3시야" →
   "회의 4시로 옮겼어". Without a cue word the kind is "value", only one group may differ ("met
   Sarah on Monday" vs "met Tom on Friday" are two events) and one frame must contain the other
   ("a dog named Max" vs "a cat named Luna" are two pets). A bare value after a cue ("Sorry, I
   meant Saturday", "아니, 월요일이야") stands for old's frame.
3. **Stopped** — new ends the old state ("더 이상 커피 안 마셔", "회의 취소됐어", "I no longer eat
   meat"; not a differently named one) or flips its polarity with a change cue; no values.
4. **Slot** — same frame, one or two content words swapped ("favorite color blue" → "green"), only
   with a correction or change cue, or when the frame holds one value at a time (favorite, 이름,
   birthday) and the values are the same.
5. **State change** (``_state_change``) — the verbose chat case rules 1-4 miss: new has a change of
   state (그만뒀어, 이사했어, 바꿨어, quit, moved, accepted an offer) on a *topic* old is about (job,
   home, phone, team, trip …; ``_topics``) although the two share no value: "LG전자 다녀" →
   "나 회사 그만뒀어", "I work at a law firm" → "I handed in my resignation!".

Questions never update, nor additions ("also", 커피도) without a cue, nor paraphrases (same values).
``old_value`` / ``new_value`` are surface text (None when the update removes a state).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from gieok.lifecycle._guards import not_about_old
from gieok.lifecycle._state_change import detect_state_change
from gieok.lifecycle._update_cues import (
    ADDITIVE,
    CHANGE,
    CONTRASTS,
    CORRECTION,
    CUE_TERMS,
    ENDING,
    NEGATIVE,
    QUESTION,
    SINGLE_SLOT_TERMS,
    STOPPED,
    SYNONYMS,
    Contrast,
)
from gieok.lifecycle._values import Value, find_values, value_group
from gieok.lifecycle._verdict import UpdateKind, UpdateVerdict
from gieok.text.korean import analyze, has_hangul
from gieok.text.sentences import split_sentences
from gieok.text.terms import ENGLISH_STOPWORDS, keyword_terms
from gieok.text.vocatives import strip_vocatives

__all__ = ["UpdateKind", "UpdateVerdict", "detect_update", "says_a_change"]

_GROUP_ORDER = ("time", "day", "month", "number", "name")
_WINDOWED_FROM = 3  # sentences in a new statement from which the rules read it two sentences at a time
_KOREAN_PHRASE_TAGS = ("NNG", "NNP", "NNB", "NR", "SN", "SL", "SH", "XR")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+(?:[.:]\d+)?")
_EDGE_WORDS = ENGLISH_STOPWORDS | {"it's", "its", "i'm", "going", "go"}
# Words a correction adds around a bare value, ignored when comparing value-only statements.
_FILLER_WORDS = frozenset(
    "now actually no sorry correction oh wait i meant mean 이제 이제는 요즘은 지금은 아니 아니야 아니요 정정".split()
)


@dataclass(frozen=True, slots=True)
class _Statement:
    text: str
    values: tuple[Value, ...]
    terms: frozenset[str]  # every keyword term, for "does old mention X"
    frame: frozenset[str]  # keyword terms minus values and cue words


_WEAK_CHANGE = frozenset({"이제", "요즘은", "지금은", "now", "these days", "nowadays", "from now on"})


def says_a_change(text: str) -> bool:
    """Whether ``text`` announces a change of some state ("We moved!", "이직했어", "I switched to …"),
    whatever it changed: a sign that an older statement of that state may be out of date. A word
    that only places the present ("now", "요즘은") is not one on its own."""
    if QUESTION.search(text):
        return False
    return any(m.group().strip().lower() not in _WEAK_CHANGE for m in CHANGE.finditer(text))


def detect_update(old: str, new: str) -> UpdateVerdict | None:
    """How ``new`` (said later) updates ``old``, or None when it does not (see the module docstring).

    A change is stated in one place: a longer ``new`` (three sentences or more) updates only when the
    rules also find the update in one pair of adjacent sentences, so a change word in one sentence
    ("이직 준비 중이야") and a value in another far from it ("회의는 4시야") make no update."""
    old, new = strip_vocatives(old.strip()), strip_vocatives(new.strip())
    if not old or not new or old.casefold() == new.casefold():
        return None
    verdict = _detect_one(old, new)
    windows = _sentence_windows(new)
    if verdict is None or len(windows) == 1:
        return verdict
    # the whole message and one place in it must both read as the update: a window alone lacks the
    # rest of the message that rules out another holder or a second value
    return verdict if any(_detect_one(old, w) is not None for w in windows) else None


def _sentence_windows(text: str) -> list[str]:
    """``text`` itself when it has one or two sentences, else each pair of adjacent sentences."""
    spans = split_sentences(text)
    if len(spans) < _WINDOWED_FROM:
        return [text]
    return [text[a[0]:b[1]] for a, b in zip(spans, spans[1:])]


def _detect_one(old: str, new: str) -> UpdateVerdict | None:
    if old.casefold() == new.casefold():
        return None
    if QUESTION.search(old) or QUESTION.search(new):
        return None
    if not_about_old(old, new):
        return None  # another person's news, a one-off "오늘은 라떼 대신 아이스티", or only a guess
    return _framed_update(old, new) or detect_state_change(old, new)


def _framed_update(old: str, new: str) -> UpdateVerdict | None:
    """Rules 1-4: the two statements share a frame or the new one names both sides."""
    before, after = _statement(old), _statement(new)
    correction = CORRECTION.search(new)
    change = CHANGE.search(new)
    cue = correction or change
    verdict = _contrast(before, after, correction is not None)
    if verdict is not None:
        return verdict
    additive = ADDITIVE.search(new) is not None or _has_korean_also(new)
    if additive and cue is None:
        return None
    kind: UpdateKind = "correction" if correction else "change" if change else "value"
    cue_text = f" ({cue.group().strip(' ,.!')!r})" if cue else ""
    if not after.frame and cue is not None and _skeleton_fits(before, after):
        # A bare value after a cue: "Sorry, I meant Saturday", "아니, 월요일이야", "I'm 33 now".
        return _value_change(before, after, kind, cue_text, fragment=True)
    if not _shares_frame(before.frame, after.frame):
        return None
    verdict = None
    # Only ending cues ("제주도 여행 취소했어" after "오사카 여행 가"): another thing ended, no swap.
    ending = change is not None and correction is None and all(
        ENDING.search(m.group()) for m in CHANGE.finditer(new))
    # Without a cue word, other content words mean another subject: a dog Max, a cat Luna.
    if not ending and (kind != "value" or before.frame <= after.frame or after.frame <= before.frame):
        verdict = _value_change(before, after, kind, cue_text)
    if verdict is None:
        verdict = _stopped(before, after, change is not None)
    single_slot = bool(before.frame & after.frame & SINGLE_SLOT_TERMS) or _korean_favorite(old, new)
    same_values = {v.norm for v in before.values} == {v.norm for v in after.values}
    if verdict is None and not ending and (cue is not None or (single_slot and same_values)):
        verdict = _slot_change(before, after, kind, cue_text)
    return verdict


# ---- rule 1: the new statement names both sides


def _contrast(old: _Statement, new: _Statement, corrective: bool) -> UpdateVerdict | None:
    for contrast in CONTRASTS:
        for match in contrast.pattern.finditer(new.text):
            sides = _contrast_sides(new, match, contrast)
            if sides is None:
                continue
            x, y = sides
            if len(x.replace(" ", "")) < 2:
                continue  # "5월 말이 아니라": a one-syllable X ("말") matches anything ("머리 말리는 게")
            if not _mentions(old, x) or (y is not None and _mentions(old, y)):
                continue
            if y is None:
                y = _new_side(old, new, match.span("x"))
                if y is None:
                    continue
            kind: UpdateKind = "correction" if contrast.kind == "correction" or corrective else "change"
            return UpdateVerdict(
                kind, 0.9 if kind == "correction" else 0.85, x, y, f"{contrast.label}: {x} → {y}"
            )
    return None


def _contrast_sides(new: _Statement, match: re.Match[str], contrast: Contrast) -> tuple[str, str | None] | None:
    x_span = match.span("x")
    y_span = match.span("y") if "y" in match.groupdict() else None
    if contrast.scope == "clause" and y_span is not None:
        return _clause_difference(new, x_span, y_span)
    x = _phrase(new, x_span, last=True)
    y = _phrase(new, y_span, last=contrast.label in ("X다가 Y로", "Y, not X")) if y_span else None
    if x is None or (y_span is not None and y is None):
        return None
    return x, y


def _clause_difference(new: _Statement, x_span: tuple[int, int], y_span: tuple[int, int]) -> tuple[str, str] | None:
    """The values that differ between the "before" and the "now" clause of one statement."""
    x_values = [v for v in new.values if x_span[0] <= v.start and v.end <= x_span[1]]
    y_values = [v for v in new.values if y_span[0] <= v.start and v.end <= y_span[1]]
    for group in _GROUP_ORDER:
        xs = [v for v in x_values if value_group(v) == group]
        ys = [v for v in y_values if value_group(v) == group]
        x_only = [v for v in xs if v.norm not in {w.norm for w in ys}]
        y_only = [v for v in ys if v.norm not in {w.norm for w in xs}]
        if x_only and y_only:
            return x_only[0].surface, y_only[0].surface
    x_terms = _frame_terms(new.text[x_span[0] : x_span[1]], ())
    y_terms = _frame_terms(new.text[y_span[0] : y_span[1]], ())
    x_only_terms, y_only_terms = x_terms - y_terms, y_terms - x_terms
    if x_only_terms and y_only_terms:
        return _render(new.text, x_only_terms), _render(new.text, y_only_terms)
    return None


def _new_side(old: _Statement, new: _Statement, x_span: tuple[int, int]) -> str | None:
    """For "instead of X": what new says that old did not, outside the X phrase."""
    outside = [v for v in new.values if v.end <= x_span[0] or v.start >= x_span[1]]
    fresh = [v for v in outside if v.norm not in {w.norm for w in old.values}]
    if fresh:
        return fresh[0].surface
    x_terms = _frame_terms(new.text[x_span[0] : x_span[1]], ())
    extra = new.frame - old.terms - x_terms
    return _render(new.text, extra) if extra else None


# ---- rules 2-4


def _value_change(
    old: _Statement, new: _Statement, kind: UpdateKind, cue_text: str, *, fragment: bool = False
) -> UpdateVerdict | None:
    changed: list[tuple[str, Value, Value]] = []
    for group in _GROUP_ORDER:
        old_norms = {v.norm for v in old.values if value_group(v) == group}
        new_norms = {v.norm for v in new.values if value_group(v) == group}
        gone = [v for v in old.values if value_group(v) == group and v.norm not in new_norms]
        came = [v for v in new.values if value_group(v) == group and v.norm not in old_norms]
        if gone and came:
            changed.append((group, gone[0], came[0]))
    if not changed or (kind == "value" and len(changed) > 1):
        return None
    group, gone_value, came_value = changed[0]
    confidence = 0.65 if kind == "value" else 0.75 if fragment else 0.85
    frame = "after a bare value" if fragment else "in the same frame"
    reason = f"{group} changed {frame}{cue_text}: {gone_value.surface} → {came_value.surface}"
    return UpdateVerdict(kind, confidence, gone_value.surface, came_value.surface, reason)


def _stopped(old: _Statement, new: _Statement, change_cue: bool) -> UpdateVerdict | None:
    old_names = {v.norm for v in old.values if v.kind == "name"}
    if any(v.kind == "name" and v.norm not in old_names for v in new.values):
        return None  # "제주도 여행 취소했어" ends another trip than "오사카 여행"
    stopped = STOPPED.search(new.text)
    flipped = change_cue and bool(NEGATIVE.search(old.text)) != bool(NEGATIVE.search(new.text))
    if stopped is not None:
        if STOPPED.search(old.text) or NEGATIVE.search(old.text):
            return None  # old already said it stopped: a paraphrase
        evidence = stopped.group().strip()
    elif flipped:
        evidence = "polarity flipped"
    else:
        return None
    shared = old.frame & new.frame
    if len(shared) * 2 < len(new.frame):
        return None  # new stops something old did not say
    return UpdateVerdict("change", 0.75, None, None, f"stopped: {evidence[:40]}")


def _slot_change(old: _Statement, new: _Statement, kind: UpdateKind, cue_text: str) -> UpdateVerdict | None:
    shared = old.frame & new.frame
    gone, came = old.frame - shared, new.frame - shared
    if not (1 <= len(gone) <= 2 and 1 <= len(came) <= 2) or len(shared) < max(len(gone), len(came)):
        return None
    confidence = {"correction": 0.7, "change": 0.7, "value": 0.6}[kind]
    old_value, new_value = _render(old.text, gone), _render(new.text, came)
    reason = f"slot changed in the same frame{cue_text}: {old_value} → {new_value}"
    return UpdateVerdict(kind, confidence, old_value, new_value, reason)


# ---- statements, frames and phrases


@lru_cache(maxsize=4096)
def _statement(text: str) -> _Statement:
    values = tuple(find_values(text))
    terms = frozenset(SYNONYMS.get(t, t) for t in keyword_terms(text))
    return _Statement(text, values, terms, _frame_terms(text, values))


def _frame_terms(text: str, values: tuple[Value, ...] | list[Value]) -> frozenset[str]:
    value_terms = {t for v in values for t in keyword_terms(v.surface)}
    frame = {
        SYNONYMS.get(t, t) for t in keyword_terms(text)
        if t not in value_terms and t not in CUE_TERMS and not t[:1].isdigit() and t not in ("am", "pm", "시")
    }
    # A number's unit is part of the frame: "나 32살이야" → "33살이야" share "#살" and nothing else.
    frame |= {"#" + unit for v in values if v.kind == "number" and (unit := v.norm.lstrip("0123456789."))}
    return frozenset(frame)


def _shares_frame(old_frame: frozenset[str], new_frame: frozenset[str]) -> bool:
    shared = len(old_frame & new_frame)
    return shared >= 1 and shared * 2 >= min(len(old_frame), len(new_frame))


def _skeleton_fits(old: _Statement, new: _Statement) -> bool:
    """Whether new is a bare value ("I meant Saturday") or old's words around another value."""
    if not new.values:
        return False
    if not old.frame:
        return _skeleton(old) == _skeleton(new)
    return len(new.values) == 1


def _skeleton(statement: _Statement) -> list[str]:
    text = statement.text
    for value in reversed(statement.values):
        text = text[: value.start] + " § " + text[value.end :]
    return [word for word in re.findall(r"[\w'§]+", text.casefold()) if word not in _FILLER_WORDS]


def _mentions(old: _Statement, phrase: str) -> bool:
    norms = {v.norm for v in find_values(phrase)}
    if norms and norms & {v.norm for v in old.values}:
        return True
    terms = {SYNONYMS.get(t, t) for t in keyword_terms(phrase)}
    return (bool(terms) and terms <= old.terms) or phrase.casefold() in old.text.casefold()


_KOREAN_TRAILING_PARTICLE = re.compile(r"(?:으로|로|만|은|는|이|가|을|를|도|랑|이랑)$")


def _phrase(statement: _Statement, span: tuple[int, int], *, last: bool) -> str | None:
    """The value or noun phrase of a contrast side: its last (X side) or first (Y side) one."""
    start, end = span
    inside = [v for v in statement.values if start <= v.start and v.end <= end]
    if inside:
        return (inside[-1] if last else inside[0]).surface
    text = statement.text
    if has_hangul(text[start:end]):
        runs: list[list[int]] = []
        previous_end = -1
        for _form, tag, _lemma, token_start, token_end in analyze(text):
            if token_start < start or token_end > end:
                continue
            if tag.split("-")[0] in _KOREAN_PHRASE_TAGS:
                if runs and previous_end >= 0 and text[previous_end:token_start].strip() == "":
                    runs[-1][1] = token_end
                else:
                    runs.append([token_start, token_end])
                previous_end = token_end
            else:
                previous_end = -1
        if not runs:
            # the new side in a word Kiwi does not read as a noun ("아아만 마셔": 아아 tagged as an
            # interjection): its first word, without the particle
            first = text[start:end].split()[0] if not last and text[start:end].split() else ""
            bare = _KOREAN_TRAILING_PARTICLE.sub("", first)
            return bare if len(bare) >= 2 and has_hangul(bare) else None
        run = runs[-1] if last else runs[0]
        return text[run[0] : run[1]]
    words = _LATIN_WORD.findall(text[start:end])
    while words and words[0].lower() in _EDGE_WORDS:
        words.pop(0)
    while words and words[-1].lower() in _EDGE_WORDS:
        words.pop()
    if not words:
        return None
    return " ".join(words[-3:] if last else words[:3])


def _render(text: str, terms: frozenset[str] | set[str]) -> str:
    """Surface words of ``text`` whose keyword term is in ``terms``, in order (stems → words)."""
    words: list[str] = []
    if has_hangul(text):
        for form, tag, lemma, _start, _end in analyze(text):
            term = lemma if tag.startswith(("VV", "VA")) else form
            if SYNONYMS.get(term, term) in terms and form not in words:
                words.append(form)
    for word in _LATIN_WORD.findall(text):
        stems = keyword_terms(word)
        if stems and SYNONYMS.get(stems[0], stems[0]) in terms and word not in words:
            words.append(word)
    return " ".join(words) if words else " ".join(sorted(terms))


def _has_korean_also(text: str) -> bool:
    """The particle 도 after a noun ("커피도 좋아해"): one more item, not a replacement."""
    return has_hangul(text) and any(tag == "JX" and form == "도" for form, tag, *_ in analyze(text))


def _korean_favorite(old: str, new: str) -> bool:
    favorite = re.compile(r"(?:제일|가장)\s*좋아하")
    return bool(favorite.search(old) and favorite.search(new))
