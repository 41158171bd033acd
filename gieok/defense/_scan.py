"""Run every detector over a text and settle overlaps by priority.

Detectors run in catalog order. All their hits are collected, then accepted most-specific first: a hit
that overlaps one already accepted is dropped. So ``sk-ant-…`` is reported once, as anthropic_key, even
though the openai and generic detectors see it too, and a JWT after "Bearer" stays a jwt.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from gieok.defense._detector import Detector, Hit, ScanContext
from gieok.defense._identifiers import IDENTIFIER_DETECTORS
from gieok.defense._secrets import SECRET_DETECTORS

__all__ = ["DETECTORS", "find_hits", "wide_anchor_words"]

DETECTORS: tuple[Detector, ...] = SECRET_DETECTORS + IDENTIFIER_DETECTORS


def wide_anchor_words(detectors: tuple[Detector, ...]) -> list[str]:
    """Non-ASCII anchors of all detectors, longest first."""
    return sorted({key for d in detectors for key in d.anchor_keys if isinstance(key, str)}, key=len, reverse=True)


def _wide_anchor_pattern(detectors: tuple[Detector, ...]) -> re.Pattern[str] | None:
    words = wide_anchor_words(detectors)
    # finditer reports only one of two overlapping words; a test pins that no two anchors can overlap.
    return re.compile("|".join(map(re.escape, words))) if words else None


_WIDE_ANCHORS = _wide_anchor_pattern(DETECTORS)


def find_hits(text: str, detectors: tuple[Detector, ...] = DETECTORS) -> list[Hit]:
    """Non-overlapping hits sorted by start."""
    if not text:
        return []
    context = ScanContext(text, _WIDE_ANCHORS if detectors is DETECTORS else _wide_anchor_pattern(detectors))
    found: list[Hit] = []
    # (priority, start, end, type): detectors run in priority order, so sorting keeps that order and
    # breaks ties inside one detector by position.
    candidates: list[tuple[int, int, int, str]] = []
    for priority, detector in enumerate(detectors):
        detector.scan(context, found)
        if found:
            candidates.extend((priority, hit.start, hit.end, hit.type) for hit in found)
            found.clear()
    if not candidates:
        return []
    candidates.sort()

    starts: list[int] = []
    accepted: list[Hit] = []
    for _, start, end, type_name in candidates:
        index = bisect_right(starts, start)
        if index > 0 and accepted[index - 1].end > start:
            continue
        if index < len(accepted) and accepted[index].start < end:
            continue
        starts.insert(index, start)
        accepted.insert(index, Hit(type_name, start, end))
    return accepted
