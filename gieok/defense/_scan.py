"""Run the detectors over a text and settle overlaps by priority.

A :class:`ScanPlan` is prepared once per detector list: which anchors exist, grouped by the rare
bytes that gate them, and which detectors each anchor wakes up. Per text, the plan asks the context
which anchors occur and runs only the detectors that can possibly fire, in priority order.

All hits are then accepted most-specific first: a hit that overlaps one already accepted is dropped.
So ``sk-ant-…`` is reported once, as anthropic_key, even though the openai and generic detectors see
it too, and a JWT after "Bearer" stays a jwt.

The detectors read the normalised projection of the text (:mod:`gieok.defense._normalize`), and the
accepted hits are mapped back to the caller's text before they are returned.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from gieok.defense._detector import Detector, Hit, ScanContext, anchor_key, gate_bytes
from gieok.defense._identifiers import IDENTIFIER_DETECTORS
from gieok.defense._normalize import KEY_ANCHORS, Projection, project, split_keys
from gieok.defense._secrets import SECRET_DETECTORS

__all__ = ["DETECTORS", "ScanPlan", "find_hits", "wide_anchor_words"]

DETECTORS: tuple[Detector, ...] = SECRET_DETECTORS + IDENTIFIER_DETECTORS


def wide_anchor_words(detectors: tuple[Detector, ...]) -> list[str]:
    """Non-ASCII anchors of all detectors, longest first."""
    return sorted({key for d in detectors for key in d.anchor_keys if isinstance(key, str)}, key=len, reverse=True)


class ScanPlan:
    def __init__(self, detectors: tuple[Detector, ...]) -> None:
        self.detectors = detectors
        words = wide_anchor_words(detectors)
        # finditer reports only one of two overlapping words; a test pins that no two anchors overlap.
        self.wide_pattern = re.compile("|".join(map(re.escape, words))) if words else None
        groups: dict[bytes, list[bytes]] = {}
        for ascii_key in sorted({key for d in detectors for key in d.anchor_keys if isinstance(key, bytes)}):
            groups.setdefault(gate_bytes(ascii_key), []).append(ascii_key)
        self.ascii_groups = tuple((gates, tuple(keys)) for gates, keys in groups.items())
        self.woken_by: dict[bytes | str, list[int]] = {}
        self.unconditional: list[int] = []
        self.numeric: list[int] = []
        for index, detector in enumerate(detectors):
            for key in detector.anchor_keys:
                self.woken_by.setdefault(key, []).append(index)
            if not detector.anchor_keys:
                (self.numeric if detector.numeric else self.unconditional).append(index)

    def active(self, context: ScanContext) -> list[int]:
        """Indices of the detectors worth running on this text, in priority order."""
        indices = set(self.unconditional)
        for key in context.present:
            indices.update(self.woken_by[key])
        if self.numeric and context.numeric_windows():
            indices.update(self.numeric)
        return sorted(indices)


_DEFAULT_PLAN = ScanPlan(DETECTORS)
_KEY_ANCHOR_KEYS = tuple((anchor_key(anchor), back) for anchor, back in KEY_ANCHORS.items())


def find_hits(text: str, plan: ScanPlan = _DEFAULT_PLAN) -> list[Hit]:
    """Non-overlapping hits sorted by start, in ``text``'s own positions."""
    if not text:
        return []
    projection = project(text)
    context = ScanContext(projection.text, plan.ascii_groups, plan.wide_pattern, projection.folded)
    present = context.present
    starts = [at - back for key, back in _KEY_ANCHOR_KEYS if key in present for at in context.occurrences(key)]
    if starts:
        edits = split_keys(projection.text, starts)
        if edits:
            projection.add(edits)
            context = ScanContext(projection.text, plan.ascii_groups, plan.wide_pattern)
    hits = _detect(context, plan)
    return _map_back(projection, hits) if projection.layers and hits else hits


def _map_back(projection: Projection, hits: list[Hit]) -> list[Hit]:
    """Hits of the projection as spans of the original; two that meet in one folded edit become one."""
    out: list[Hit] = []
    for hit in hits:
        start, end = projection.span(hit.start, hit.end)
        if out and start < out[-1].end:
            out[-1] = Hit(out[-1].type, out[-1].start, max(end, out[-1].end))
        elif end > start:
            out.append(Hit(hit.type, start, end))
    return out


def _detect(context: ScanContext, plan: ScanPlan) -> list[Hit]:
    detectors = plan.detectors
    found: list[Hit] = []
    # (priority, start, end, type): sorting keeps detector priority and, inside one detector, position.
    candidates: list[tuple[int, int, int, str]] = []
    for priority in plan.active(context):
        detectors[priority].scan(context, found)
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
