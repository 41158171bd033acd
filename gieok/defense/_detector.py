"""The detector shape shared by every redaction type, and how a detector finds where to look.

A detector is one compiled pattern plus an ``accept`` check (checksum, context, placeholder), so the
pattern can stay loose and the arithmetic strict. What makes redaction cheap is *where* the pattern
runs, because Python's regex engine costs roughly the same per character whatever the pattern:

- ``anchors``: literal prefixes (``sk-``, ``pass``, ``://``) located with ``bytes.find``, which runs
  at memory speed; the pattern is only tried at those positions.
- ``numeric``: one pass marks clusters of nine or more digits (with separators); the digit patterns
  (registration numbers, cards, phones, accounts) then run inside those small windows only.
- ``near``: windows around context words ("여권", "passport") for types that need one.
- otherwise the whole text.

Boundaries are ASCII on purpose: Python's ``\\b`` counts Hangul and CJK as word characters, so
"번호는010-1234-5678이야" would have no boundary around the number at all. Here a value only may not
be glued to ASCII letters, digits or ``_``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "Accept",
    "Hit",
    "Detector",
    "ScanContext",
    "anchor_key",
    "gate_bytes",
    "regex_detector",
    "value_span",
    "WORD_BEFORE",
    "WORD_AFTER",
    "NUM_BEFORE",
    "NUM_AFTER",
]

# Not preceded / followed by an ASCII word character.
WORD_BEFORE = r"(?<![A-Za-z0-9_])"
WORD_AFTER = r"(?![A-Za-z0-9_])"
# A number must also not continue an identifier such as "A-4471" or "1.2.3" through '-' or '.'.
NUM_BEFORE = r"(?<![A-Za-z0-9_])(?<![A-Za-z0-9_][.\-])"
NUM_AFTER = r"(?![A-Za-z0-9_])(?![.\-][A-Za-z0-9])"

# Nine or more digits (or mask characters) joined by at most two separators each: every numeric type
# has at least nine ("02-123-4567"). Starting only at the head of a digit run keeps the pass linear.
# It runs on the folded projection (see ScanContext), where an en dash has become '?'.
_NUMERIC_CLUSTER = re.compile(rb"[0-9](?<![0-9][0-9])(?:[ \-?./()]{0,2}[0-9*x]){8,}+")
# How far a numeric window reaches before its cluster: "+82 ", "(02)".
_CLUSTER_LEAD = 4
# A masked registration number ("900101-1******") is the numeric type with the fewest digits.
_MIN_DIGITS = 7
_DIGITS = b"0123456789"
_GATE_BYTES = (ord("_"), ord("-"), ord(":"))
_CONTINUES = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.*+")


@dataclass(frozen=True, slots=True)
class Hit:
    """One finding, before policy: a half-open range of the original text and its type."""

    type: str
    start: int
    end: int


class ScanContext:
    """The text being scanned plus work shared by the detectors, each done at most once per text.

    ``folded`` is the text projected to one byte per character (non-ASCII becomes '?') and lowered:
    offsets are unchanged, ASCII anchors are found case-insensitively with ``bytes`` searches, and
    bytes scan faster than a string holding Hangul. ``present`` answers, for every anchor of every
    detector at once, whether it occurs at all, so detectors with nothing to anchor on cost nothing.
    """

    __slots__ = ("text", "_ascii_groups", "_wide_pattern", "_folded", "_present", "_occurrences", "_numeric")

    def __init__(
        self,
        text: str,
        ascii_groups: tuple[tuple[bytes, tuple[bytes, ...]], ...] = (),
        wide_pattern: re.Pattern[str] | None = None,
        ascii_text: bytes | None = None,
    ) -> None:
        self.text = text
        self._ascii_groups = ascii_groups  # (gate bytes, anchors containing exactly those gate bytes)
        # One alternation of every non-ASCII anchor ("비밀", "여권", …): a single regex pass over the
        # text beats one str.find pass per Korean word.
        self._wide_pattern = wide_pattern
        self._folded: bytes | None = ascii_text.lower() if ascii_text is not None else None
        self._present: set[bytes | str] | None = None
        self._occurrences: dict[bytes | str, list[int]] = {}
        self._numeric: list[tuple[int, int]] | None = None

    @property
    def folded(self) -> bytes:
        if self._folded is None:
            self._folded = self.text.encode("ascii", "replace").lower()
        assert len(self._folded) == len(self.text)
        return self._folded

    @property
    def present(self) -> set[bytes | str]:
        """Anchor keys that occur in the text."""
        if self._present is None:
            folded = self.folded
            present: set[bytes | str] = set()
            for gates, keys in self._ascii_groups:
                # One memchr per gate byte ('_', '-', ':') rules out every anchor containing it.
                if all(byte in folded for byte in gates):
                    present.update(key for key in keys if key in folded)
            if self._wide_pattern is not None and not self.text.isascii():  # isascii() is O(1)
                for match in self._wide_pattern.finditer(self.text):
                    word = match.group()
                    present.add(word)
                    self._occurrences.setdefault(word, []).append(match.start())
            self._present = present
        return self._present

    def occurrences(self, key: bytes | str) -> list[int]:
        """Start offsets of an anchor key (see :func:`anchor_key`)."""
        present = self.present  # computing it also records where the non-ASCII anchors are
        found = self._occurrences.get(key)
        if found is None:
            found = []
            if key in present:  # an ASCII anchor: non-ASCII ones were all recorded above
                assert isinstance(key, bytes)
                find = self.folded.find
                at = find(key)
                while at != -1:
                    found.append(at)
                    at = find(key, at + 1)
            self._occurrences[key] = found
        return found

    def numeric_windows(self) -> list[tuple[int, int]]:
        if self._numeric is None:
            folded = self.folded
            if len(folded) - len(folded.translate(None, _DIGITS)) < _MIN_DIGITS:
                self._numeric = []  # prose with hardly any digits: skip the cluster pass entirely
            else:
                text = self.text
                self._numeric = [
                    (max(0, m.start() - _CLUSTER_LEAD), _window_end(text, m.end()))
                    for m in _NUMERIC_CLUSTER.finditer(folded)
                ]
        return self._numeric


def anchor_key(anchor: str) -> bytes | str:
    """ASCII anchors are searched lowered in the folded bytes (case-insensitive); others verbatim."""
    return anchor.lower().encode("ascii") if anchor.isascii() else anchor


def gate_bytes(key: bytes) -> bytes:
    return bytes(byte for byte in _GATE_BYTES if byte in key)


def _window_end(text: str, end: int) -> int:
    """Stretch a window's end past whatever could continue the token, so a lookahead at the window
    edge never mistakes a cut-off number for a whole one."""
    n = len(text)
    limit = min(n, end + 64)  # a match cannot end deep inside a long token anyway
    while end < limit and (
        text[end] in _CONTINUES or (text[end] == " " and end + 1 < n and text[end + 1] in "0123456789")
    ):
        end += 1
    return min(n, end + 2)


Accept = Callable[[str, "re.Match[str]"], "Hit | None"]
# A scan appends its hits to the list it is given: cheaper than a generator per detector per call.
Scan = Callable[[ScanContext, list[Hit]], None]


@dataclass(frozen=True)
class Detector:
    """``scan`` runs only when one of ``anchor_keys`` occurs (if it has any) and, for ``numeric``
    detectors, when the text has numeric windows; ``find_hits`` checks both before calling it."""

    type: str
    scan: Scan
    also_emits: tuple[str, ...] = ()  # further types ``scan`` may report (kr_rrn's scan finds kr_frn too)
    anchor_keys: tuple[bytes | str, ...] = ()
    numeric: bool = False

    @property
    def types(self) -> tuple[str, ...]:
        return (self.type, *self.also_emits)


def value_span(match: re.Match[str]) -> tuple[int, int]:
    """Span of the ``value`` group when the pattern has one (keyword-anchored types redact only the
    value, not "password=")."""
    if "value" in match.re.groupindex and match.start("value") >= 0:
        return match.span("value")
    return match.span()


def _search_all(
    pattern: re.Pattern[str], accept: Accept, text: str, start: int, end: int, out: list[Hit]
) -> None:
    """Every accepted match in ``text[start:end]``. A rejected match resumes one character after its
    start, not after its end, so a loose match that swallowed a neighbour ("4111 1111 1111 1111 123")
    cannot hide the real value inside it."""
    search = pattern.search
    pos = start
    while pos < end:
        match = search(text, pos, end)
        if match is None:
            return
        hit = accept(text, match)
        if hit is not None and hit.end > hit.start:
            out.append(hit)
            pos = max(hit.end, match.start() + 1)
        else:
            pos = match.start() + 1


def _merge(windows: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(windows):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def regex_detector(
    type_name: str,
    pattern: str,
    accept: Accept | None = None,
    *,
    anchors: tuple[str, ...] = (),
    anchor_start: Callable[[str, int], int] | None = None,
    numeric: bool = False,
    near: tuple[tuple[str, ...], int, int] | None = None,
    flags: int = 0,
    also_emits: tuple[str, ...] = (),
) -> Detector:
    """A detector from one pattern; see the module docstring for ``anchors``/``numeric``/``near``.

    With ``anchors`` the pattern must match starting at the anchor (``anchor_start`` may move the start
    back, e.g. from "://" to the scheme). ASCII anchors are case-insensitive: the pattern decides case.
    ``near=(words, before, after)`` scans from ``before`` characters ahead of each occurrence of a word
    to ``after`` characters past its start.
    """
    compiled = re.compile(pattern, flags | re.ASCII)

    def default_accept(text: str, match: re.Match[str]) -> Hit | None:
        return Hit(type_name, *value_span(match))

    check: Accept = accept or default_accept
    keys = tuple(anchor_key(anchor) for anchor in anchors)
    word_keys = tuple(anchor_key(word) for word in near[0]) if near is not None else ()

    if anchors:

        def scan(ctx: ScanContext, out: list[Hit]) -> None:
            text = ctx.text
            match_at = compiled.match
            for key in keys:
                for at in ctx.occurrences(key):
                    match = match_at(text, anchor_start(text, at) if anchor_start else at)
                    if match is not None:
                        hit = check(text, match)
                        if hit is not None:
                            out.append(hit)

    elif numeric:

        def scan(ctx: ScanContext, out: list[Hit]) -> None:
            text = ctx.text
            for start, end in ctx.numeric_windows():
                _search_all(compiled, check, text, start, end, out)

    elif near is not None:
        _, before, after = near

        def scan(ctx: ScanContext, out: list[Hit]) -> None:
            text = ctx.text
            windows = [
                (max(0, at - before), _window_end(text, min(len(text), at + after)))
                for key in word_keys
                for at in ctx.occurrences(key)
            ]
            for start, end in _merge(windows):
                _search_all(compiled, check, text, start, end, out)

    else:

        def scan(ctx: ScanContext, out: list[Hit]) -> None:
            _search_all(compiled, check, ctx.text, 0, len(ctx.text), out)

    used = keys if anchors else word_keys if near is not None else ()
    return Detector(type_name, scan, also_emits, used, numeric)
