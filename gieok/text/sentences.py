"""Sentence splitting for Korean (kiwipiepy) and English (punctuation rules)."""

from __future__ import annotations

import re
from functools import lru_cache

from gieok.text.korean import get_kiwi, has_hangul

__all__ = ["split_sentences"]

_ENGLISH_BOUNDARY = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])|\n{2,}|\n(?=\s*[-*•\d])")
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
