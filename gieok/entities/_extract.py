"""``extract_mentions``: Korean and English mentions of one text, plus known names and the speaker.

Three sources of spans, merged without overlap (longer spans win; on equal length a known name
wins, since the caller vouched for it):

1. Korean proper nouns through Kiwi (``_extract_korean``);
2. capitalised Latin spans (``_extract_english``);
3. names the caller already knows (bank entities, explicit entities, speakers), found wherever they
   occur — case-insensitively for Latin names, at word starts for Hangul names.

Each span's kind (person, place, org, thing — or ``none``, a word that names nothing: 배송지,
고객님) is judged by ``kind_of`` (the engine asks the bank's decision model; the default is the
learned head of ``_kind_model``). A ``none`` span is dropped, unless the caller knows the name: a
known name stays, of kind ``unknown``, and resolution keeps its entity's kind. A kind judged
below the head's ``kind_bar`` (chosen out of fold for precision) is left ``unknown``. Exact parts stay
code: the speaker is a person, and so is a name that carries a title or role (김 팀장님, Dr. Kim).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import lru_cache

from gieok.entities._extract_english import english_mentions
from gieok.entities._extract_korean import korean_mentions
from gieok.entities._kind_model import kind_model
from gieok.entities._korean_names import is_hangul_syllable, is_surname
from gieok.entities._lexicon import KOREAN_HONORIFICS, KOREAN_TITLES
from gieok.entities._normalize import is_hub_name, name_words, normalize_name
from gieok.entities._types import EntityKind, Mention
from gieok.text.korean import has_hangul

_REDACTION_MARK = re.compile(r"\[REDACTED:[a-z0-9_]+\]")

# (text, start, end of the mention as written) -> ("person" / "place" / "org" / "thing" / "none", probability)
KindOf = Callable[[str, int, int], tuple[str, float]]


def learned_kind(text: str, start: int, end: int) -> tuple[str, float]:
    """The shipped head's kind for ``text[start:end]`` (what extraction uses without a decision model)."""
    judgment = kind_model().judge(text, start, end)
    return judgment.kind, judgment.probability


def extract_mentions(
    text: str,
    speaker: str | None = None,
    known: Iterable[str] = (),
    *,
    include_speaker: bool = False,
    kind_of: KindOf | None = None,
) -> list[Mention]:
    """Entity mentions of ``text``, in order of appearance.

    ``known`` names are found wherever they occur; pass the bank's entity names that matter (recent
    ones, explicit entities of the retain call) and the conversation's speakers — that is also what
    lets a sentence-initial English name ("Caroline went home.") count. ``speaker`` is treated as a
    known name; with ``include_speaker=True`` it is also returned first as a person mention with
    offsets -1 (hub speakers such as "user" or "assistant" never are). ``kind_of`` judges each
    span's kind (default: :func:`learned_kind`); see the module docstring.
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

    speaker_key = normalize_name(speaker_name) if speaker_name else None
    mentions = _judged(text, _without_overlaps(found), kind_of or learned_kind, speaker_key)
    if include_speaker and speaker_name:
        mentions.insert(0, Mention(speaker_name, speaker_name, "person", -1, -1))
    return mentions


def _without_overlaps(found: list[tuple[Mention, bool]]) -> list[tuple[Mention, bool]]:
    ranked = sorted(found, key=lambda item: (-(item[0].end - item[0].start), not item[1], item[0].start))
    # The title an extractor read for a span also applies when a known name wins it.
    inferred = {(m.start, m.end): m for m, is_known in found if not is_known}
    kept: list[tuple[Mention, bool]] = []
    for mention, is_known in ranked:
        if all(mention.end <= other.start or mention.start >= other.end for other, _ in kept):
            twin = inferred.get((mention.start, mention.end))
            if is_known and twin is not None and mention.title is None:
                mention = replace(mention, title=twin.title)
            kept.append((mention, is_known))
    kept.sort(key=lambda item: item[0].start)
    return kept


def _judged(text: str, found: list[tuple[Mention, bool]], kind_of: KindOf, speaker_key: str | None) -> list[Mention]:
    """Each mention with its judged kind; a non-name dropped unless the caller knows it."""
    out: list[Mention] = []
    for mention, is_known in found:
        # exact: the speaker is a person, and so is a name the extractor found a title or role on
        # (김 팀장님, Dr. Kim, my cousin Minsu) — titles come from the lexicon and attach only to names
        if mention.title is not None or (speaker_key is not None and normalize_name(mention.name) == speaker_key):
            out.append(replace(mention, kind="person"))
            continue
        # the judge reads the mention as written, title and honorific included (김 팀장님, Dr. Kim)
        kind, probability = kind_of(text, mention.start, mention.end)
        if kind == "none" and not is_known:
            continue
        # an unsure kind is left unknown: a wrong one would keep the name from its entity (_resolve)
        out.append(replace(mention, kind=_entity_kind(kind) if probability >= kind_model().kind_bar else "unknown"))
    return out


_KINDS: dict[str, EntityKind] = {"person": "person", "place": "place", "org": "org", "thing": "thing"}


def _entity_kind(kind: str) -> EntityKind:
    return _KINDS.get(kind, "unknown")


@lru_cache(maxsize=64)
def _latin_pattern(names: tuple[str, ...]) -> re.Pattern[str] | None:
    # One alternation per set of known names, longest first, cached: the engine passes the same
    # names for every message of a conversation.
    if not names:
        return None
    alternatives = "|".join(re.escape(n) for n in names)
    return re.compile(rf"(?<![\w])(?:{alternatives})(?=['’]s\b|[^\w]|$|[\uac00-\ud7a3])", re.IGNORECASE)


def _latin_known_mentions(text: str, names: tuple[str, ...]) -> list[Mention]:
    # only the names the text holds go into the pattern: a recall passes its candidates' speakers,
    # a set that changes with every query, and compiling an alternation of all of them cost more
    # than the rest of the search (the few present are a set seen again and again, so cached)
    folded = text.casefold()
    pattern = _latin_pattern(tuple(n for n in names if n.casefold() in folded))
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
