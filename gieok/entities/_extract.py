"""``extract_mentions``: Korean and English mentions of one text, plus known names and the speaker.

Three sources of spans, merged without overlap (longer spans win; on equal length a known name
wins, since the caller vouched for it):

1. Korean proper nouns through Kiwi (``_extract_korean``);
2. capitalised Latin spans (``_extract_english``);
3. names the caller already knows (bank entities, explicit entities, speakers), found wherever they
   occur — case-insensitively for Latin names, at word starts for Hangul names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from functools import lru_cache

from gieok.entities._extract_english import english_mentions
from gieok.entities._extract_korean import korean_mentions
from gieok.entities._korean_names import is_hangul_syllable, is_surname
from gieok.entities._lexicon import KOREAN_HONORIFICS, KOREAN_TITLES
from gieok.entities._normalize import is_hub_name, name_words, normalize_name
from gieok.entities._types import Mention
from gieok.text.korean import has_hangul

_REDACTION_MARK = re.compile(r"\[REDACTED:[a-z0-9_]+\]")


def extract_mentions(
    text: str,
    speaker: str | None = None,
    known: Iterable[str] = (),
    *,
    include_speaker: bool = False,
) -> list[Mention]:
    """Entity mentions of ``text``, in order of appearance.

    ``known`` names are found wherever they occur; pass the bank's entity names that matter (recent
    ones, explicit entities of the retain call) and the conversation's speakers — that is also what
    lets a sentence-initial English name ("Caroline went home.") count. ``speaker`` is treated as a
    known name; with ``include_speaker=True`` it is also returned first as a person mention with
    offsets -1 (hub speakers such as "user" or "assistant" never are).
    """
    text = _REDACTION_MARK.sub(lambda m: " " * len(m.group()), text)  # "[REDACTED:phone]" names no one
    known_names = [k.strip() for k in known if k and k.strip() and not is_hub_name(k)]
    speaker_name = speaker.strip() if speaker and not is_hub_name(speaker) else None
    if speaker_name:
        known_names.append(speaker_name)
    known_names += _titled_full_names(text)
    hangul_known = tuple(sorted({k for k in known_names if has_hangul(k)}, key=len, reverse=True))
    latin_known = tuple(sorted({k for k in known_names if not has_hangul(k)}, key=len, reverse=True))

    found: list[tuple[Mention, bool]] = []
    if has_hangul(text):
        found += korean_mentions(text, hangul_known)
    found += [(m, True) for m in _latin_known_mentions(text, latin_known)]
    # A known "John Smith" also vouches for a sentence-initial "Smith".
    known_lower = frozenset(
        part for k in latin_known for part in (normalize_name(k), *name_words(normalize_name(k)))
    )
    found += [(m, False) for m in english_mentions(text, known_lower)]

    mentions = _without_overlaps(found)
    if speaker_name:
        speaker_key = normalize_name(speaker_name)
        mentions = [
            replace(m, kind="person") if m.kind == "unknown" and normalize_name(m.name) == speaker_key else m
            for m in mentions
        ]
    if include_speaker and speaker_name:
        mentions.insert(0, Mention(speaker_name, speaker_name, "person", -1, -1))
    return mentions


def _without_overlaps(found: list[tuple[Mention, bool]]) -> list[Mention]:
    ranked = sorted(found, key=lambda item: (-(item[0].end - item[0].start), not item[1], item[0].start))
    # What the extractors inferred for a span (kind, title) also applies when a known name wins it.
    inferred = {(m.start, m.end): m for m, is_known in found if not is_known}
    kept: list[Mention] = []
    for mention, is_known in ranked:
        if all(mention.end <= other.start or mention.start >= other.end for other in kept):
            twin = inferred.get((mention.start, mention.end))
            if is_known and twin is not None and mention.kind == "unknown":
                mention = replace(mention, kind=twin.kind, title=twin.title)
            kept.append(mention)
    kept.sort(key=lambda m: m.start)
    return kept


@lru_cache(maxsize=64)
def _latin_pattern(names: tuple[str, ...]) -> re.Pattern[str] | None:
    # One alternation per set of known names, longest first, cached: the engine passes the same
    # names for every message of a conversation.
    if not names:
        return None
    alternatives = "|".join(re.escape(n) for n in names)
    return re.compile(rf"(?<![\w])(?:{alternatives})(?=['’]s\b|[^\w]|$|[\uac00-\ud7a3])", re.IGNORECASE)


def _latin_known_mentions(text: str, names: tuple[str, ...]) -> list[Mention]:
    pattern = _latin_pattern(names)
    if pattern is None:
        return []
    by_lower = {n.casefold(): n for n in names}
    mentions: list[Mention] = []
    for match in pattern.finditer(text):
        surface = match.group()
        if match.start() > 0 and is_hangul_syllable(text[match.start() - 1]):
            continue
        name = by_lower.get(surface.casefold(), surface)
        mentions.append(Mention(surface, name, "unknown", match.start(), match.end()))
    return mentions


_TITLED = re.compile(
    r"(?<![가-힣])([가-힣]{3})\s?(?=(?:"
    + "|".join(sorted({*KOREAN_TITLES, *KOREAN_HONORIFICS}, key=len, reverse=True))
    + r"))"
)


def _titled_full_names(text: str) -> list[str]:
    """Three-syllable surname+given names right before a title or honorific ("동료 이민수 대리").

    Kiwi sometimes splits such a name into common nouns (이민 + 수); the title that follows is strong
    enough evidence that it is a person's full name, so it is treated as a known name.
    """
    return [
        m.group(1) for m in _TITLED.finditer(text)
        if is_surname(m.group(1)[0]) and m.group(1)[1:] not in KOREAN_TITLES  # 김팀장님 is 김 + 팀장
    ]
