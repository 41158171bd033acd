"""Sentence splitting for Korean (kiwipiepy) and English (punctuation rules)."""

from __future__ import annotations

import re
from functools import lru_cache

from gieok.text.korean import get_kiwi, has_hangul

__all__ = ["asks_only", "ends_asking", "split_sentences"]

_ENGLISH_BOUNDARY = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])|\n{2,}|\n(?=\s*[-*•\d])")
# a cheap split for recall, which judges a few hundred candidates per query (Kiwi would cost ~1 ms each)
_PIECES = re.compile(r"[^.!?？！。~…\n]+[.!?？！。~…]*")
_ASKED = re.compile(r"[?？]+[\s\"')\]~.ㅎㅋㅠ^]*$")
_LAUGHTER = re.compile(r"^[ㅋㅎㅠㅜㄷㅇ^~;:()\s]+$")
# "I'm vegetarian, how about you?" / "난 채식해, 너는?": a statement with a question tagged on
_TAGGED = re.compile(
    r"[,，]\s*(?:(?:what|how)\s+about\s+you|and\s+you|right|isn't\s+it|너는|넌|당신은|you)\s*[?？]+\W*$", re.IGNORECASE)
_ABBREVIATIONS = re.compile(r"(?:\b(?:Mr|Mrs|Ms|Dr|Prof|St|vs|etc|e\.g|i\.e|Jr|Sr|No)\.)$")


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the sentences of ``text``, whitespace trimmed."""
    return list(_sentence_spans(text))


@lru_cache(maxsize=8192)
def _sentence_spans(text: str) -> tuple[tuple[int, int], ...]:
    """Cached: supersede detection splits the same new fact once per candidate it is compared with."""
    if not text.strip():
        return ()
    if has_hangul(text):
        spans = [(s.start, s.end) for s in get_kiwi().split_into_sents(text)]
    else:
        spans = []
        start = 0
        for m in _ENGLISH_BOUNDARY.finditer(text):
            if _ABBREVIATIONS.search(text[start : m.start()]):
                continue
            spans.append((start, m.start()))
            start = m.end()
        spans.append((start, len(text)))
    out = []
    for a, b in spans:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a:
            out.append((a, b))
    return tuple(out)


@lru_cache(maxsize=65536)  # recall asks it of every candidate; the same facts come back query after query
def asks_only(text: str, max_words: int = 20) -> bool:
    """Whether ``text`` is a short question and nothing else: at most ``max_words`` words (a long
    question carries what the asker is doing: "How do I index a JSONB column in Postgres 16 for …?"),
    and every piece of it that says something ends with a question mark
    ("Wow, Caroline! What kinda jobs are you thinkin' of? Anything that stands out?", "헐 진짜? 언제
    가?"). A short exclamation in front ("Wow, Caroline!", "와!") says nothing; "I'm vegetarian, how
    about you?" states a fact before it asks, so it is not one."""
    if len(text.split()) > max_words:
        return False
    said = False
    for piece in _PIECES.finditer(text):
        chunk = piece.group().strip()
        if not chunk or not any(ch.isalnum() for ch in chunk) or _LAUGHTER.match(chunk):
            continue
        if _ASKED.search(chunk) and not _TAGGED.search(chunk):
            said = True
            continue
        if chunk.endswith(("!", "！")) and len(chunk.split()) <= 3:
            continue  # "Wow, Caroline!", "우와 대박!": a reaction in front of the question
        return False
    return said


def ends_asking(text: str) -> bool:
    """Whether ``text`` ends with a question mark, past trailing laughter, tildes and dots
    ("어디 갔어?ㅋㅋ", "How did it go?~")."""
    return text.rstrip().rstrip("~.!ㅋㅎㅠ ").endswith(("?", "？"))
