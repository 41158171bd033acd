"""Check an LLM answer's quotations and citations against the memories it was given.

The answer is cut into sentences (``gieok.text.sentences`` per line), then repaired for how answers
are written: a sentence boundary inside a quotation is undone, a boundary is added after
"…fun.\" [f-1]" where the English splitter would run on into the next sentence, and citations that
open a sentence (". [f-1] Then") are given back to the sentence before them.  Each quotation is
checked only against the memories cited in its own sentence (so a real quote credited to the wrong
memory fails), or against every cited memory when its sentence cites none it was given.

``cleaned_answer`` drops each sentence holding an unverified quotation and strips invented memory
ids from the citations that remain.  ``supported`` is False when no verified quotation and no
sentence citing a real memory is left: the caller should then refuse rather than pass the answer on.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from gieok.answering._quotes import Quote, QuoteCheck, find_quotes, verify_quote
from gieok.text.sentences import split_sentences

__all__ = ["AnswerCheck", "CheckedQuote", "check_answer", "find_citations"]

CITATION = re.compile(r"\[\s*([A-Za-z]-\d+(?:\s*[,;]\s*[A-Za-z]-\d+)*)\s*\]")
_MEMORY_ID = re.compile(r"[A-Za-z]-\d+")
_CITATIONS_AFTER_END = re.compile(
    r"[.!?。…][\"'”’」』)]*[ \t]*(?:\[\s*[A-Za-z]-\d+(?:\s*[,;]\s*[A-Za-z]-\d+)*\s*\][ \t]*)+(?=\S)"
)
_LEADING_CITATIONS = re.compile(r"(?:[ \t]*\[\s*[A-Za-z]-\d+(?:\s*[,;]\s*[A-Za-z]-\d+)*\s*\][ \t.,;:]*)+")
_EMPTY_LINE = re.compile(r"^[\s>*•\-–—:]*(?:\d+[.)])?[\s>*•\-–—:]*$")


@dataclass(frozen=True)
class CheckedQuote:
    """A quotation of the answer and how it fared; ``memory_id`` is the best-matching cited memory."""

    quote: Quote
    memory_id: str | None
    check: QuoteCheck


@dataclass(frozen=True)
class AnswerCheck:
    """The verdict on an answer: which quotes held, which were dropped, and the answer without them."""

    verified: list[CheckedQuote]
    dropped: list[CheckedQuote]
    invented_citations: list[str]
    cleaned_answer: str
    supported: bool
    citations: list[str] = field(default_factory=list)  # real memory ids left in cleaned_answer


def find_citations(text: str) -> list[tuple[int, int, list[str]]]:
    """Citation groups ``[f-1]`` / ``[f-1, o-2]`` of ``text`` as ``(start, end, ids)``."""
    return [(m.start(), m.end(), _MEMORY_ID.findall(m.group(1))) for m in CITATION.finditer(text)]


def check_answer(answer: str, cited: Mapping[str, str], min_ratio: float = 0.9) -> AnswerCheck:
    """Verify the quotations of ``answer`` against ``cited`` (memory id → text) and clean it."""
    quotes = find_quotes(answer)
    citations = find_citations(answer)
    segments = _segments(answer, quotes)

    def ids_in(start: int, end: int) -> list[str]:
        return [i for a, b, ids in citations if start <= a and b <= end for i in ids]

    verified: list[CheckedQuote] = []
    dropped: list[CheckedQuote] = []
    removed: list[tuple[int, int]] = []
    for quote in quotes:
        segment = next((s for s in segments if s[0] <= quote.start < s[1]), (quote.start, quote.end))
        known = [i for i in dict.fromkeys(ids_in(*segment)) if i in cited]
        checked = _check_quote(quote, known or list(cited), cited, min_ratio)
        if checked.check.verified:
            verified.append(checked)
        else:
            dropped.append(checked)
            removed.append(segment)

    invented = list(dict.fromkeys(i for _, _, ids in citations for i in ids if i not in cited))
    edits: list[tuple[int, int, str]] = [(a, b, "") for a, b in _merge(removed)]
    for start, end, ids in citations:
        if any(a <= start < b for a, b, _ in edits) or all(i in cited for i in ids):
            continue
        kept = [i for i in ids if i in cited]
        edits.append((start, end, f"[{', '.join(kept)}]" if kept else ""))
    cleaned = _tidy(_apply(answer, edits))
    remaining = [i for _, _, ids in find_citations(cleaned) for i in ids if i in cited]
    # A verified quote shares the fate of its sentence: it is gone if a fabricated one sat beside it.
    surviving = [v for v in verified if not any(a <= v.quote.start < b for a, b in removed)]
    return AnswerCheck(
        verified=verified,
        dropped=dropped,
        invented_citations=invented,
        cleaned_answer=cleaned,
        supported=bool(cleaned) and bool(surviving or remaining),
        citations=list(dict.fromkeys(remaining)),
    )


def _check_quote(quote: Quote, ids: list[str], cited: Mapping[str, str], min_ratio: float) -> CheckedQuote:
    best: CheckedQuote | None = None
    for memory_id in ids:
        check = verify_quote(quote.text, cited[memory_id], min_ratio)
        if best is None or (check.verified, check.ratio) > (best.check.verified, best.check.ratio):
            best = CheckedQuote(quote, memory_id, check)
    return best or CheckedQuote(quote, None, QuoteCheck(False, False, 0.0, 0, 0, ""))


def _segments(answer: str, quotes: list[Quote]) -> list[tuple[int, int]]:
    """Sentence spans of ``answer`` that keep quotations whole and citations with their sentence."""
    spans: list[tuple[int, int]] = []
    offset = 0
    for line in answer.split("\n"):
        for start, end in split_sentences(line):
            cuts = [m.end() for m in _CITATIONS_AFTER_END.finditer(line, start, end)]
            for a, b in zip([start, *cuts], [*cuts, end], strict=True):
                if line[a:b].strip():
                    spans.append((offset + a, offset + b))
        offset += len(line) + 1
    outer = [(q.start - 1, q.end + 1) for q in quotes]
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged:
            previous = merged[-1]
            straddled = any(a < previous[1] and b > start for a, b in outer)
            same_line = "\n" not in answer[previous[1] : start]
            leading = _LEADING_CITATIONS.match(answer, start)
            if straddled:
                merged[-1] = (previous[0], end)
                continue
            if leading and (same_line or leading.end() >= end):
                merged[-1] = (previous[0], leading.end())
                start = leading.end()
                if not answer[start:end].strip():
                    continue
        merged.append((start, end))
    return merged


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(set(spans)):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    """Apply non-overlapping edits; a deletion also takes the spaces it would leave doubled."""
    out = []
    position = 0
    for start, end, replacement in sorted(edits):
        if not replacement:
            at_line_start = start == 0 or text[start - 1] == "\n"
            while end < len(text) and text[end] in " \t":
                end += 1
            if at_line_start and end < len(text) and text[end] == "\n":
                end += 1  # the whole line went
            elif not at_line_start and (end >= len(text) or text[end] in "\n.,!?;:"):
                while start > position and text[start - 1] in " \t":
                    start -= 1
        out.append(text[position:start])
        out.append(replacement)
        position = end
    out.append(text[position:])
    return "".join(out)


def _tidy(text: str) -> str:
    """Drop lines left as a bare bullet or blockquote marker, and runs of blank lines."""
    lines = [line for line in text.split("\n") if not (line.strip() and _EMPTY_LINE.match(line))]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
