"""Find quotations in an answer and check them against a memory's text.

``find_quotes`` recognises straight and curly double quotes, corner brackets (「」『』), single quotes
and markdown blockquote lines.  Single quotes double as apostrophes in English ("I'm", "students'",
"don’t"), so a single quote opens only where no Latin letter precedes it and closes only where no
Latin letter follows it, and an apostrophe between two Latin letters stays inside the quotation.
Korean particles may follow a closing mark directly ('안녕'이라고).  Quotations shorter than four
non-space characters (text with Hangul) or two words (other text) are scare quotes or single terms
("좋다", "the"), not claims about what a memory says, and are not reported.

``verify_quote`` compares after NFKC, whitespace collapsing and mapping every quote mark to one
character (an LLM re-quoting changes “ to " and ’ to ').  An exact substring match wins; otherwise the
best window of the source, of 80-120% of the quote's length, is scored with difflib's
``SequenceMatcher`` ratio (case-folded, autojunk off) and the quote is verified when that ratio
reaches ``min_ratio``.  Windows start at word boundaries and the best one is then refined by a few
characters either way.  In a long source (over 600 characters) only word starts near offsets that
many of the quote's character trigrams vote for are tried, so a fabricated quote against a long
memory costs milliseconds, not a scan of every window.  A quote that elides
text with an ellipsis ("I went … to Jeju") is checked fragment by fragment, in order.
"""

from __future__ import annotations

import math
import re
import unicodedata
from bisect import bisect_left
from collections import Counter, defaultdict
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import pairwise

from gieok.text.korean import has_hangul

__all__ = ["Quote", "QuoteCheck", "find_quotes", "is_checkable", "normalise", "verify_quote"]

_LATIN = "A-Za-z\u00c0-\u024f"
_PAIRED: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("double", re.compile(r'"([^"\n]+)"')),
    ("curly", re.compile(r"“([^”\n]+)”")),
    ("corner", re.compile(r"「([^」]+)」")),
    ("double_corner", re.compile(r"『([^』]+)』")),
    (
        "curly_single",
        re.compile(rf"(?<![{_LATIN}0-9’])‘(?=\S)((?:[^’\n]|(?<=[{_LATIN}])’(?=[{_LATIN}]))+?)(?<=\S)’(?![{_LATIN}])"),
    ),
    (
        "single",
        re.compile(rf"(?<![{_LATIN}0-9'])'(?=\S)((?:[^'\n]|(?<=[{_LATIN}])'(?=[{_LATIN}]))+?)(?<=\S)'(?![{_LATIN}])"),
    ),
)
_BLOCKQUOTE = re.compile(r"^[ \t]*(?:>[ \t]?)+(.*)$", re.MULTILINE)
_TRAILING_CITATIONS = re.compile(r"(?:\s*[—–-]?\s*\[[A-Za-z]-\d+(?:\s*[,;]\s*[A-Za-z]-\d+)*\])+\s*$")
_WRAPPING_QUOTES = {'"': '"', "“": "”", "'": "'", "‘": "’", "「": "」", "『": "』"}
_QUOTE_MARKS = str.maketrans({c: '"' for c in "\"'“”„‟«»‹›「」『』‘’‚‛′″`´"})
_EDGE_PUNCTUATION = ' .,;:!?"…'
_FULL_SCAN_CHARS = 600  # below this every word start is tried; above, trigram-voted ones
_VOTE_BUCKET = 8
_VOTED_BUCKETS = 12
_ELLIPSIS = re.compile(r"\s*(?:\.{3,}|…)\s*")


@dataclass(frozen=True)
class Quote:
    """A quotation in an answer; ``answer[start:end] == text`` (the marks are outside the span)."""

    text: str
    start: int
    end: int
    kind: str  # double, curly, corner, double_corner, curly_single, single, blockquote


@dataclass(frozen=True)
class QuoteCheck:
    """How a quotation matched a source text; ``source[start:end] == matched_text``."""

    verified: bool
    exact: bool
    ratio: float
    start: int
    end: int
    matched_text: str


def is_checkable(text: str) -> bool:
    """Long enough to be a claim about wording: 4+ non-space characters with Hangul, else 2+ words."""
    if has_hangul(text):
        return len(re.sub(r"\s+", "", text)) >= 4
    return len(re.findall(r"\w+", text)) >= 2


def find_quotes(answer: str) -> list[Quote]:
    """The checkable quotations of ``answer`` in order; a quotation nested in another is left out."""
    found: list[tuple[int, int, Quote]] = []  # outer span (with marks), quote
    for match in _BLOCKQUOTE.finditer(answer):
        quote = _blockquote(answer, match)
        if quote is not None:
            found.append((match.start(), match.end(), quote))
    for kind, pattern in _PAIRED:
        for match in pattern.finditer(answer):
            text = match.group(1)
            stripped = text.strip()
            if not stripped:
                continue
            start = match.start(1) + text.index(stripped)
            found.append((match.start(), match.end(), Quote(stripped, start, start + len(stripped), kind)))
    found.sort(key=lambda item: (item[0], -item[1]))
    quotes: list[Quote] = []
    covered_until = -1
    for outer_start, outer_end, quote in found:
        if outer_start < covered_until:
            continue  # nested in (or tangled with) an earlier, longer quotation
        covered_until = outer_end
        if is_checkable(quote.text):
            quotes.append(quote)
    return quotes


def _blockquote(answer: str, match: re.Match[str]) -> Quote | None:
    text = _TRAILING_CITATIONS.sub("", match.group(1)).strip()
    if len(text) >= 2 and _WRAPPING_QUOTES.get(text[0]) == text[-1]:
        text = text[1:-1].strip()
    if not text:
        return None
    start = answer.index(text, match.start(1))
    return Quote(text, start, start + len(text), "blockquote")


def normalise(text: str, *, fold: bool = False) -> tuple[str, list[int]]:
    """NFKC text with one quote mark and single spaces, and the source index of every character."""
    chars: list[str] = []
    index: list[int] = []
    in_space = True  # drops leading whitespace
    for position, char in enumerate(text):
        for out in unicodedata.normalize("NFKC", char).translate(_QUOTE_MARKS):
            if out.isspace():
                if in_space:
                    continue
                out, in_space = " ", True
            else:
                in_space = False
                if fold:
                    out = out.lower()
            chars.append(out)
            index.append(position)
    if chars and chars[-1] == " ":
        chars.pop()
        index.pop()
    return "".join(chars), index


def verify_quote(quote: str, source_text: str, min_ratio: float = 0.9) -> QuoteCheck:
    """Whether ``quote`` appears in ``source_text``, exactly (after normalisation) or nearly."""
    needle = normalise(quote)[0].strip(_EDGE_PUNCTUATION)
    fragments = [f.strip(_EDGE_PUNCTUATION) for f in _ELLIPSIS.split(needle)]
    fragments = [f for f in fragments if f]
    if not fragments:
        return QuoteCheck(False, False, 0.0, 0, 0, "")
    checks = [_verify_fragment(fragment, source_text, min_ratio) for fragment in fragments]
    if len(checks) == 1:
        return checks[0]
    in_order = all(a.end <= b.start for a, b in pairwise(checks))
    start, end = checks[0].start, max(checks[-1].end, checks[0].start)
    return QuoteCheck(
        verified=in_order and all(c.verified for c in checks),
        exact=in_order and all(c.exact for c in checks),
        ratio=min(c.ratio for c in checks),
        start=start,
        end=end,
        matched_text=source_text[start:end],
    )


def _verify_fragment(needle: str, source_text: str, min_ratio: float) -> QuoteCheck:
    haystack, index = normalise(source_text)
    position = haystack.find(needle)
    if position >= 0:
        start, end = index[position], index[position + len(needle) - 1] + 1
        return QuoteCheck(True, True, 1.0, start, end, source_text[start:end])
    folded, folded_index = normalise(source_text, fold=True)
    if not folded:
        return QuoteCheck(False, False, 0.0, 0, 0, "")
    ratio, window_start, window_end = _best_window(needle.lower(), folded)
    start, end = folded_index[window_start], folded_index[window_end - 1] + 1
    return QuoteCheck(ratio >= min_ratio, False, round(ratio, 4), start, end, source_text[start:end])


def _best_window(needle: str, haystack: str) -> tuple[float, int, int]:
    """The highest SequenceMatcher ratio of ``needle`` against windows of ``haystack``."""
    matcher = SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(needle)  # seq2 is the side SequenceMatcher pre-indexes
    size = len(haystack)
    shortest = max(1, math.floor(len(needle) * 0.8))
    longest = max(shortest, math.ceil(len(needle) * 1.2))
    best = (-1.0, 0, size)

    def score(start: int, length: int) -> None:
        nonlocal best
        end = min(size, start + length)
        if start < 0 or end <= start:
            return
        matcher.set_seq1(haystack[start:end])
        if matcher.real_quick_ratio() <= best[0] or matcher.quick_ratio() <= best[0]:
            return
        ratio = matcher.ratio()
        if ratio > best[0]:
            best = (ratio, start, end)

    if size <= shortest:
        score(0, size)
        return best
    step = max(1, (longest - shortest) // 6)
    for start in _window_starts(needle, haystack):
        for length in range(shortest, longest + 1, step):
            score(start, length)
    _, best_start, best_end = best
    for start in range(best_start - 3, best_start + 4):
        for length in range(best_end - best_start - 3, best_end - best_start + 4):
            score(start, length)
    return best


def _window_starts(needle: str, haystack: str) -> list[int]:
    """Where to try windows: every word start of a short source; in a long one, the word starts
    near offsets that many of the quote's character trigrams vote for."""
    word_starts = [i for i in range(len(haystack)) if i == 0 or haystack[i - 1] == " "]
    if len(haystack) <= _FULL_SCAN_CHARS or len(needle) < 3:
        return word_starts
    positions: dict[str, list[int]] = defaultdict(list)
    for i in range(len(haystack) - 2):
        positions[haystack[i : i + 3]].append(i)
    votes: Counter[int] = Counter()
    for j in range(len(needle) - 2):
        for i in positions.get(needle[j : j + 3], ()):
            votes[(i - j) // _VOTE_BUCKET] += 1
    starts: set[int] = set()
    for bucket, _ in votes.most_common(_VOTED_BUCKETS):
        low, high = (bucket - 1) * _VOTE_BUCKET, (bucket + 2) * _VOTE_BUCKET
        starts.update(word_starts[bisect_left(word_starts, low) : bisect_left(word_starts, high)])
    return sorted(starts) or word_starts[:1]
