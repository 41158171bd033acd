"""English (Latin-script) mentions: capitalised spans, with the sentence-start problem handled.

A span is a run of capitalised words separated by single spaces, which may take numbers (Room 101,
Q3 2024) and small connectors followed by another capitalised word (Bank of America). Then:

* grammar words are trimmed from its edges (The, Yesterday, Hey; months and weekdays; "I");
* a leading title becomes ``Mention.title`` (Dr. Kim → name "Kim", title "dr");
* a possessive ends the span and is dropped (Caroline's → Caroline);
* a single word at the start of a sentence is capitalised by grammar, so it only counts when
  something else vouches for it: it is a known name, it also appears capitalised mid-sentence in
  the same text, or it is possessive. The first word of a longer span there is dropped when nothing
  vouches for it and the next word is a known name ("Cheers Caroline" once Caroline is known; "New
  York" stays). Inside Korean text this rule is off (Caroline이랑…): a Latin
  word there is capitalised because it is a name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gieok.entities._lexicon import (
    ENGLISH_COMMON_STARTERS,
    ENGLISH_CONNECTORS,
    ENGLISH_NEVER_NAMES,
    ENGLISH_PREFIX_ROLES,
    ENGLISH_TITLES,
)
from gieok.entities._normalize import is_hub_name
from gieok.entities._types import Mention
from gieok.text.korean import has_hangul

_LETTER = "A-Za-zÀ-ÖØ-öø-ÿ"
_TOKEN = re.compile(rf"[{_LETTER}0-9]+(?:['’\-][{_LETTER}0-9]+)*")
_SENTENCE_END = ".!?:;…\n"
_OPENERS = " \t\"'“‘(["
_TITLE_ABBREVIATIONS = frozenset({"mr", "mrs", "ms", "dr", "prof", "mt", "st", "mx"})


@dataclass(frozen=True, slots=True)
class _Token:
    text: str
    start: int
    end: int
    possessive: bool  # "Caroline's": the token text has the 's removed already

    @property
    def lower(self) -> str:
        return self.text.lower().replace("’", "'")

    @property
    def capitalised(self) -> bool:
        return self.text[:1].isupper()


def english_mentions(text: str, known_lower: frozenset[str] = frozenset()) -> list[Mention]:
    tokens = _tokenize(text)
    korean_context = has_hangul(text)
    mid_sentence_words = {
        t.lower for t in tokens if t.capitalised and not _sentence_start(text, t.start)
    }
    mentions: list[Mention] = []
    index = 0
    while index < len(tokens):
        if not tokens[index].capitalised:
            index += 1
            continue
        last = _extend(text, tokens, index)
        mention = _span_mention(
            text, tokens[index : last + 1], korean_context, known_lower, mid_sentence_words
        )
        if mention is not None and mention.title is None and index > 0:
            mention = _with_prefix_role(text, tokens[index - 1], mention)
        if mention is not None:
            mentions.append(mention)
        index = last + 1
    return mentions


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    for match in _TOKEN.finditer(text):
        word, start, end = match.group(), match.start(), match.end()
        possessive = False
        if len(word) > 2 and word[-2:].lower() in ("'s", "’s"):
            word, end, possessive = word[:-2], end - 2, True
        elif end < len(text) and text[end] in "'’" and word.endswith("s") and (
            end + 1 == len(text) or not text[end + 1].isalnum()
        ):
            possessive = True  # plural possessive: "the Smiths' house"
        tokens.append(_Token(word, start, end, possessive))
    return tokens


def _joined(text: str, left: _Token, right: _Token) -> bool:
    gap = text[left.end : right.start]
    if left.possessive:
        return False
    if gap == " ":
        return True
    # "Dr. Kim", "Mt. Halla": the abbreviation dot does not end the name.
    return gap == ". " and left.lower in _TITLE_ABBREVIATIONS


def _extend(text: str, tokens: list[_Token], first: int) -> int:
    last = first
    while last + 1 < len(tokens):
        current, following = tokens[last], tokens[last + 1]
        if not _joined(text, current, following):
            break
        if following.capitalised or following.text.isdigit():
            last += 1
            continue
        if (
            following.lower in ENGLISH_CONNECTORS
            and last + 2 < len(tokens)
            and tokens[last + 2].capitalised
            and _joined(text, following, tokens[last + 2])
        ):
            last += 2
            continue
        break
    return last


def _span_mention(
    text: str,
    span: list[_Token],
    korean_context: bool,
    known_lower: frozenset[str],
    mid_sentence_words: set[str],
) -> Mention | None:
    at_sentence_start = _sentence_start(text, span[0].start)
    # Grammar words at the edges: "Yesterday Caroline", "The Beatles", "Caroline Monday".
    while span and (span[0].lower in ENGLISH_COMMON_STARTERS or span[0].lower in ENGLISH_NEVER_NAMES):
        span = span[1:]
        at_sentence_start = False
    while span and (
        span[-1].lower in ENGLISH_NEVER_NAMES
        or span[-1].lower in ENGLISH_CONNECTORS
        or (span[-1].lower in ENGLISH_COMMON_STARTERS and len(span) > 1)
    ):
        span = span[:-1]
    if not span:
        return None
    if len(span) > 1 and at_sentence_start and not korean_context:
        def vouched(token: _Token) -> bool:
            return token.lower in known_lower or token.lower in mid_sentence_words or token.possessive
        if not vouched(span[0]) and span[1].lower in known_lower:
            span = span[1:]  # "Cheers Caroline": a word capitalised by grammar before a name
    title: str | None = None
    if len(span) > 1 and span[0].lower in ENGLISH_TITLES:
        title = span[0].lower
        name_tokens = span[1:]
    else:
        name_tokens = span
    if all(t.text.isdigit() for t in name_tokens) or (len(name_tokens) == 1 and len(name_tokens[0].text) < 2):
        return None
    name = " ".join(t.text for t in name_tokens)
    if is_hub_name(name):
        return None
    if len(span) == 1 and at_sentence_start and not korean_context:
        word = span[0]
        word_vouched = word.lower in known_lower or word.lower in mid_sentence_words or word.possessive
        if not word_vouched:
            return None
    if len(span) == 1 and span[0].lower in ENGLISH_TITLES:
        return None
    return Mention(
        surface=text[span[0].start : span[-1].end],
        name=name,
        kind="unknown",  # judged by extract_mentions
        start=span[0].start,
        end=span[-1].end,
        title=title,
    )


def _with_prefix_role(text: str, before: _Token, mention: Mention) -> Mention:
    """"my cousin Minsu": the role noun right before the name becomes its title."""
    if before.capitalised or before.lower not in ENGLISH_PREFIX_ROLES:
        return mention
    if text[before.end : mention.start] != " ":
        return mention
    return Mention(
        surface=text[before.start : mention.end],
        name=mention.name,
        kind=mention.kind,
        start=before.start,
        end=mention.end,
        title=before.lower,
    )


def _sentence_start(text: str, position: int) -> bool:
    index = position - 1
    while index >= 0 and text[index] in _OPENERS:
        index -= 1
    return index < 0 or text[index] in _SENTENCE_END or text[index] == "\r"
