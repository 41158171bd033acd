"""LLM fact extraction: narrative, self-contained facts with times, places, people and causes.

Used by retain when an LLM is configured; deterministic extraction stays the default and the
fallback. :func:`extract_facts` never swallows a transport error (:class:`LLMUnavailableError`,
:class:`LLMAuthError`, :class:`LLMRateLimitError` propagate as they are), so the caller decides
whether to fall back.

Design:

* **Chunks.** Consecutive :class:`SourceItem` s are grouped up to ``chunk_chars`` characters of text;
  a longer item is first cut at sentence boundaries. One ``complete(..., operation="extract")`` call
  per chunk; a chunk made only of small talk is not sent at all.
* **Truncation.** A reply cut off at ``max_tokens`` (``truncated``, or JSON that ends mid-value) is not
  trusted: the chunk is split near its middle, at an item boundary when one lies in the middle half,
  else at a sentence boundary, and each half is asked again. A split that would leave a half under
  ``min_chunk_chars`` is not made; at that size the complete fact objects of the cut-off reply are
  kept, and with none :class:`ExtractionError` names the chunk's items.
* **Validation.** Each fact is checked key by key. A fact missing ``text`` or with a wrong type is
  bad and dropped. Soft problems are repaired silently: unreadable dates become None, unknown
  message ids are dropped (none left means every id of the chunk), and causes pointing at the same,
  a later or a dropped fact, or with an unknown relation, are dropped. When more than half the facts
  are bad, or the reply is not a readable ``{"facts": [...]}`` object, the model is asked once more
  with a follow-up naming the problems ("facts[2].text is missing"); the better reply is kept.
* **Indices.** ``ExtractedFact.causes`` index the list :func:`extract_facts` returns, so they can be
  linked directly; the model only ever links a fact to an earlier one of the same chunk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from gieok.errors import ExtractionError, InputError, LLMOutputError
from gieok.extract._llm_prompt import (
    SCHEMA,
    SYSTEM_PROMPT,
    ExtractedFact,
    SourceItem,
    cut_off,
    follow_up,
    item_ids,
    read_facts,
    render_items,
    salvage,
)
from gieok.extract.deterministic import is_small_talk
from gieok.providers.llms import LLM
from gieok.text.sentences import split_sentences

__all__ = ["SCHEMA", "ExtractedFact", "ExtractionError", "SourceItem", "extract_facts"]


def extract_facts(
    llm: LLM,
    items: Sequence[SourceItem],
    *,
    chunk_chars: int = 3000,
    min_chunk_chars: int = 500,
    max_tokens: int = 4096,
) -> list[ExtractedFact]:
    """Facts from ``items``, in source order, one LLM call per chunk (more on truncation or bad output).

    Raises :class:`ExtractionError` when a chunk yields nothing usable, and lets every LLM transport
    error through untouched.
    """
    if isinstance(chunk_chars, bool) or not isinstance(chunk_chars, int) or chunk_chars < 1:
        raise InputError(f"chunk_chars must be a whole number of 1 or more, not {chunk_chars!r}")
    if isinstance(min_chunk_chars, bool) or not isinstance(min_chunk_chars, int) or not 1 <= min_chunk_chars:
        raise InputError(f"min_chunk_chars must be a whole number of 1 or more, not {min_chunk_chars!r}")
    for i, item in enumerate(items):
        if not isinstance(item, SourceItem) or not isinstance(item.text, str):
            raise InputError(f"items[{i}] must be a SourceItem with text, not {type(item).__name__}")
    extractor = _Extractor(llm, min_chunk_chars, max_tokens)
    facts: list[ExtractedFact] = []
    for chunk in _chunks(items, chunk_chars):
        if all(is_small_talk(item.text) for item in chunk):
            continue  # nothing to remember, and no tokens to pay for it
        facts.extend(_shifted(extractor.chunk_facts(chunk), len(facts)))
    return facts


# --- chunking ---------------------------------------------------------------------------------------


def _size(chunk: Sequence[SourceItem]) -> int:
    return sum(len(item.text) for item in chunk)


def _chunks(items: Sequence[SourceItem], chunk_chars: int) -> list[list[SourceItem]]:
    pieces: list[SourceItem] = []
    for item in items:
        text = item.text.strip()
        if not text:
            continue
        if len(text) <= chunk_chars:
            pieces.append(replace(item, text=text))
        else:
            pieces.extend(replace(item, text=part) for part in _cut_text(text, chunk_chars))
    chunks: list[list[SourceItem]] = []
    size = 0
    for piece in pieces:
        if chunks and size + len(piece.text) <= chunk_chars:
            chunks[-1].append(piece)
            size += len(piece.text)
        else:
            chunks.append([piece])
            size = len(piece.text)
    return chunks


def _cut_text(text: str, limit: int) -> list[str]:
    """``text`` in parts of at most ``limit`` characters, cut between sentences where possible."""
    parts: list[str] = []
    start = 0  # start of the part being filled
    for a, b in split_sentences(text):
        if b - start <= limit:
            continue
        if a > start:
            parts.append(text[start:a].strip())
            start = a
        while b - start > limit:  # one sentence longer than the limit: cut at a space, else anywhere
            space = text.rfind(" ", start + 1, start + limit + 1)
            end = space if space > start else start + limit
            parts.append(text[start:end].strip())
            start = end
    parts.append(text[start:].strip())
    return [part for part in parts if part]


def _split(chunk: list[SourceItem], min_chars: int) -> tuple[list[SourceItem], list[SourceItem]] | None:
    """Two halves of ``chunk`` cut near its middle, or None when a half would be under ``min_chars``."""
    size = _size(chunk)
    offsets = [0]
    for item in chunk:
        offsets.append(offsets[-1] + len(item.text))
    between_items = [(abs(offsets[k] - size / 2), offsets[k], k, 0) for k in range(1, len(chunk))]
    best = min(between_items, default=None)
    if best is None or not size / 4 <= best[1] <= 3 * size / 4:
        within_items = [
            (abs(offsets[k] + a - size / 2), offsets[k] + a, k, a)
            for k, item in enumerate(chunk)
            for a, _ in split_sentences(item.text)[1:]
        ]
        best = min(between_items + within_items, default=None)
    if best is None or min(best[1], size - best[1]) < min_chars:
        return None
    _, _, k, cut = best
    if cut == 0:
        return chunk[:k], chunk[k:]
    item = chunk[k]
    left, right = item.text[:cut].rstrip(), item.text[cut:].lstrip()
    return chunk[:k] + [replace(item, text=left)], [replace(item, text=right)] + chunk[k + 1 :]


# --- asking and reading -----------------------------------------------------------------------------


@dataclass
class _Reply:
    data: dict[str, Any] | None
    text: str
    truncated: bool
    problem: str = ""  # why data is None

    @property
    def readable(self) -> bool:
        """A ``{"facts": [...]}`` object, whatever the facts in it are worth."""
        return self.data is not None and isinstance(self.data.get("facts"), list)

    def read(self, chunk: Sequence[SourceItem]) -> tuple[list[ExtractedFact], list[str], int, int]:
        if self.data is None:
            return [], [self.problem], 0, 0
        return read_facts(self.data, chunk)


class _Extractor:
    def __init__(self, llm: LLM, min_chunk_chars: int, max_tokens: int) -> None:
        self.llm, self.min_chunk_chars, self.max_tokens = llm, min_chunk_chars, max_tokens

    def chunk_facts(self, chunk: list[SourceItem]) -> list[ExtractedFact]:
        request = [{"role": "user", "content": render_items(chunk)}]
        reply = self._ask(request)
        if reply.truncated:
            return self._after_truncation(chunk, reply)
        facts, problems, bad, total = reply.read(chunk)
        if reply.readable and bad * 2 <= total:
            return facts
        if reply.text.strip():
            request.append({"role": "assistant", "content": reply.text})
        request.append({"role": "user", "content": follow_up(problems)})
        second = self._ask(request)
        if second.truncated:
            return self._after_truncation(chunk, second)
        second_facts, second_problems, _, second_total = second.read(chunk)
        best = second_facts if len(second_facts) >= len(facts) else facts
        if not best and (not second.readable or second_total):  # an honest {"facts": []} is fine
            raise ExtractionError(
                f"LLM extraction of {_describe(chunk)} failed: {self.llm.describe()} replied twice without a "
                f"usable fact ({'; '.join(second_problems[:3])}); use deterministic extraction or another model",
                item_ids=item_ids(chunk),
            )
        return best

    def _ask(self, messages: list[dict[str, str]]) -> _Reply:
        try:
            response = self.llm.complete(messages, system=SYSTEM_PROMPT, json_schema=SCHEMA,
                                         max_tokens=self.max_tokens, operation="extract")
        except LLMOutputError as error:
            return _Reply(None, error.raw_text, cut_off(error.raw_text), f"the reply is unreadable: {error}")
        return _Reply(response.data, response.text, response.truncated)

    def _after_truncation(self, chunk: list[SourceItem], reply: _Reply) -> list[ExtractedFact]:
        halves = _split(chunk, self.min_chunk_chars)
        if halves is not None:
            left = self.chunk_facts(halves[0])
            return left + _shifted(self.chunk_facts(halves[1]), len(left))
        facts = read_facts(reply.data if reply.data is not None else {"facts": salvage(reply.text)}, chunk)[0]
        if not facts:
            raise ExtractionError(
                f"LLM extraction of {_describe(chunk)} failed: the reply was cut off at max_tokens="
                f"{self.max_tokens} before one complete fact, and {_size(chunk)} characters is too short to "
                "split further; raise max_tokens or use deterministic extraction",
                item_ids=item_ids(chunk),
            )
        return facts


def _describe(chunk: Sequence[SourceItem]) -> str:
    ids = item_ids(chunk)
    if ids:
        return f"item{'s' * (len(ids) > 1)} {', '.join(ids)}"
    return f"document text starting {chunk[0].text[:30]!r}"


def _shifted(facts: list[ExtractedFact], offset: int) -> list[ExtractedFact]:
    if not offset:
        return facts
    return [replace(fact, causes=[(index + offset, relation) for index, relation in fact.causes]) for fact in facts]
