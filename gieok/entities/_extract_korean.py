"""Korean mentions from Kiwi tokens.

Kiwi tags most names as proper nouns (NNP) but sometimes splits unfamiliar ones into pieces
(김서준 → 김/NNP 서/NNG 준/NNG), so a name is the NNP plus the one-syllable nouns glued to it, or
an NNP plus a known continuation (카카오 + 뱅크). Around that core:

* after it, in order: the affectionate -이 (서준이), a title (팀장, 선배, 언니) and/or an honorific
  (씨, 님), then particles, which are never part of the mention;
* before it, a role noun (사촌 민수, 팀장 김민지) becomes the title when no title follows;
* a bare surname is kept only with a title (김 팀장님): on its own 김 is as likely to be seaweed.

The kind is not decided here: ``extract_mentions`` asks the learned head (``_kind_model``), which
reads these same cues — the title, the honorific, the particle after the name — among others.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass

from gieok.entities._korean_names import (
    is_hangul_syllable,
    split_korean_name,
    strip_hypocoristic,
)
from gieok.entities._lexicon import (
    KOREAN_COMPOUND_SURNAMES,
    KOREAN_HONORIFICS,
    KOREAN_NAME_CONTINUATIONS,
    KOREAN_PREFIX_ROLES,
    KOREAN_RELATIONAL_TITLES,
    KOREAN_TITLES,
    KOREAN_TITLES_NEEDING_HONORIFIC,
)
from gieok.entities._normalize import is_hub_name
from gieok.entities._types import Mention
from gieok.text.korean import analyze

Token = tuple[str, str, str, int, int]  # (form, tag, lemma, start, end) as gieok.text.korean gives

_WHITESPACE = re.compile(r"[ \t]?")


@dataclass(frozen=True, slots=True)
class NameSpan:
    """A candidate name core (character offsets) before titles are attached."""

    start: int
    end: int
    known: bool = False


def korean_name_spans(text: str, tokens: tuple[Token, ...]) -> list[NameSpan]:
    """Name cores from proper nouns, gluing the pieces Kiwi split apart."""
    spans: list[NameSpan] = []
    index = 0
    while index < len(tokens):
        form, tag, _lemma, start, end = tokens[index]
        if tag != "NNP" or not all(is_hangul_syllable(c) for c in form):
            index += 1
            continue
        fragmented = len(form) == 1
        limit = 4 if form in KOREAN_COMPOUND_SURNAMES else 3
        last = index
        while last + 1 < len(tokens):
            next_form, next_tag, _, next_start, next_end = tokens[last + 1]
            if next_start != end or not all(is_hangul_syllable(c) for c in next_form):
                break
            length = next_end - start
            if next_form in KOREAN_TITLES or next_form in KOREAN_HONORIFICS:
                break
            glued = next_tag == "NNP" or (
                next_tag == "NNG"
                and (
                    (fragmented and len(next_form) == 1 and length <= limit)
                    or next_form in KOREAN_NAME_CONTINUATIONS
                )
            )
            if not glued:
                break
            end = next_end
            last += 1
        spans.append(NameSpan(start, end))
        index = last + 1
    return spans


def known_korean_spans(text: str, tokens: tuple[Token, ...], known: Iterable[str]) -> list[NameSpan]:
    """Occurrences of caller-known Hangul names that start a word and end at a morpheme edge."""
    boundaries = {t[3] for t in tokens} | {t[4] for t in tokens}
    spans: list[NameSpan] = []
    for name in known:
        position = text.find(name)
        while position >= 0:
            end = position + len(name)
            left_ok = position == 0 or not is_hangul_syllable(text[position - 1])
            right_ok = (
                end == len(text)
                or not is_hangul_syllable(text[end])
                or end in boundaries
                or _hypocoristic_inside_token(text, tokens, end)
            )
            if left_ok and right_ok:
                spans.append(NameSpan(position, end, known=True))
            position = text.find(name, position + 1)
    return spans


def build_korean_mention(text: str, tokens: tuple[Token, ...], span: NameSpan) -> Mention | None:
    """Attach hypocoristic, title, honorific and role to a name core; None when it is no entity."""
    starts = [t[3] for t in tokens]
    core = text[span.start : span.end]
    name = strip_hypocoristic(core)
    surface_end = span.end
    after = bisect.bisect_left(starts, span.end)
    if _hypocoristic_inside_token(text, tokens, span.end):
        surface_end = tokens[after - 1][4]
    if after < len(tokens) and tokens[after][3] == surface_end and tokens[after][:2] == ("이", "XSN"):
        surface_end = tokens[after][4]
        after += 1

    title: str | None = None
    title_index = _attached_index(text, tokens, after, surface_end)
    if title_index is not None:
        form, tag = tokens[title_index][0], tokens[title_index][1]
        if form in KOREAN_HONORIFICS and tag in ("NNB", "XSN", "NNG"):
            surface_end = tokens[title_index][4]
            after = title_index + 1
        elif form in KOREAN_TITLES and form not in KOREAN_RELATIONAL_TITLES and tag.startswith("NN"):
            has_nim = _is_nim(tokens, title_index + 1)
            if form not in KOREAN_TITLES_NEEDING_HONORIFIC or has_nim:
                title = form
                surface_end = tokens[title_index + 1 if has_nim else title_index][4]
                after = title_index + (2 if has_nim else 1)

    surface_start = span.start
    if title is None:
        before = bisect.bisect_left(starts, span.start) - 1
        if before >= 0:
            form, tag, _, start, end = tokens[before]
            gap = text[end : span.start]
            if tag == "NNG" and form in KOREAN_PREFIX_ROLES and gap in ("", " "):
                title = form
                surface_start = start


    parts = split_korean_name(name)
    if parts is None or is_hub_name(name):
        return None
    if parts.surname_only:
        if title is None:
            return None
    elif len(name) < 2:
        return None
    return Mention(
        surface=text[surface_start:surface_end],
        name=name,
        kind="unknown",  # judged by extract_mentions
        start=surface_start,
        end=surface_end,
        title=title,
    )


def korean_mentions(text: str, known: Iterable[str] = ()) -> list[tuple[Mention, bool]]:
    """Korean mentions of ``text`` with a flag saying whether each came from a known name."""
    tokens = analyze(text)
    spans = known_korean_spans(text, tokens, known) + korean_name_spans(text, tokens)
    out: list[tuple[Mention, bool]] = []
    for span in spans:
        mention = build_korean_mention(text, tokens, span)
        if mention is not None:
            out.append((mention, span.known))
    return out


def _attached_index(text: str, tokens: tuple[Token, ...], index: int, position: int) -> int | None:
    """Index of the token right after ``position`` (glued, or after one space), if any."""
    if index >= len(tokens):
        return None
    start = tokens[index][3]
    gap = text[position:start]
    if start < position or not _WHITESPACE.fullmatch(gap):
        return None
    return index


def _is_nim(tokens: tuple[Token, ...], index: int) -> bool:
    return (
        index < len(tokens)
        and tokens[index][0] == "님"
        and tokens[index][3] == tokens[index - 1][4]
    )


def _hypocoristic_inside_token(text: str, tokens: tuple[Token, ...], position: int) -> bool:
    """True when ``position`` falls inside a token whose remainder is the affectionate -이."""
    for _form, _tag, _lemma, start, end in tokens:
        if start < position < end:
            return text[position:end] == "이"
    return False
