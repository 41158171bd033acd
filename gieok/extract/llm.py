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

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from gieok.answering import detect_language
from gieok.errors import GieokError, InputError, InvalidTimeError
from gieok.extract._llm_prompt import KINDS, RELATIONS, SCHEMA, SYSTEM_PROMPT, follow_up, render_items
from gieok.extract.deterministic import is_small_talk
from gieok.providers.llms import LLM, LLMOutputError
from gieok.temporal import parse_datetime
from gieok.text.sentences import split_sentences

__all__ = ["SCHEMA", "ExtractedFact", "ExtractionError", "SourceItem", "extract_facts"]


class ExtractionError(GieokError):
    """The LLM gave no usable facts for a chunk, even after splitting or re-asking it.

    ``item_ids`` names the chunk's message ids (empty for document text). Retain falls back to
    deterministic extraction for that source.
    """

    def __init__(self, message: str, *, item_ids: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.item_ids = list(item_ids)


@dataclass(frozen=True)
class SourceItem:
    """One message (``id``, ``speaker``, ``timestamp``) or one document piece (``id`` and ``speaker`` None).

    ``timestamp`` (ISO 8601) is what relative dates in ``text`` are resolved against.
    """

    id: str | None
    speaker: str | None
    text: str
    timestamp: str | None = None


@dataclass
class ExtractedFact:
    """One fact, written as a self-contained statement in the language of its source.

    ``occurred_start`` / ``occurred_end`` are ISO 8601 (end exclusive) or None. ``causes`` pairs the
    index of an earlier fact in the list :func:`extract_facts` returned with how this fact relates
    to it: "caused_by" (this happened because of it), "enables" (this made it possible) or
    "prevents" (this stopped it). ``language`` is "ko" or "en", read from the supporting items.
    """

    text: str
    kind: Literal["world", "experience"] = "world"
    occurred_start: str | None = None
    occurred_end: str | None = None
    where: str | None = None
    who: list[str] = field(default_factory=list)
    why: str | None = None
    entities: list[str] = field(default_factory=list)
    message_ids: list[str] = field(default_factory=list)
    causes: list[tuple[int, str]] = field(default_factory=list)
    language: str = "en"


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


class _Extractor:
    def __init__(self, llm: LLM, min_chunk_chars: int, max_tokens: int) -> None:
        self.llm, self.min_chunk_chars, self.max_tokens = llm, min_chunk_chars, max_tokens

    def chunk_facts(self, chunk: list[SourceItem]) -> list[ExtractedFact]:
        request = [{"role": "user", "content": render_items(chunk)}]
        reply = self._ask(request)
        if reply.truncated:
            return self._after_truncation(chunk, reply)
        facts, problems, bad, total = _read(reply, chunk)
        if reply.data is not None and bad * 2 <= total:
            return facts
        if reply.text.strip():
            request.append({"role": "assistant", "content": reply.text})
        request.append({"role": "user", "content": follow_up(problems)})
        second = self._ask(request)
        if second.truncated:
            return self._after_truncation(chunk, second)
        second_facts, second_problems, _, second_total = _read(second, chunk)
        best = second_facts if len(second_facts) >= len(facts) else facts
        if not best and (second.data is None or second_total):  # an honest {"facts": []} is fine
            raise ExtractionError(
                f"LLM extraction of {_describe(chunk)} failed: {self.llm.describe()} replied twice without a "
                f"usable fact ({'; '.join(second_problems[:3])}); use deterministic extraction or another model",
                item_ids=_ids(chunk),
            )
        return best

    def _ask(self, messages: list[dict[str, str]]) -> _Reply:
        try:
            response = self.llm.complete(messages, system=SYSTEM_PROMPT, json_schema=SCHEMA,
                                         max_tokens=self.max_tokens, operation="extract")
        except LLMOutputError as error:
            return _Reply(None, error.raw_text, _cut_off(error.raw_text), f"the reply is unreadable: {error}")
        return _Reply(response.data, response.text, response.truncated)

    def _after_truncation(self, chunk: list[SourceItem], reply: _Reply) -> list[ExtractedFact]:
        halves = _split(chunk, self.min_chunk_chars)
        if halves is not None:
            left = self.chunk_facts(halves[0])
            return left + _shifted(self.chunk_facts(halves[1]), len(left))
        if reply.data is None:
            reply = replace(reply, data={"facts": _salvage(reply.text)})
        facts = _read(reply, chunk)[0]
        if not facts:
            raise ExtractionError(
                f"LLM extraction of {_describe(chunk)} failed: the reply was cut off at max_tokens="
                f"{self.max_tokens} before one complete fact, and {_size(chunk)} characters is too short to "
                "split further; raise max_tokens or use deterministic extraction",
                item_ids=_ids(chunk),
            )
        return facts


def _ids(chunk: Sequence[SourceItem]) -> list[str]:
    return list(dict.fromkeys(item.id for item in chunk if item.id is not None))


def _describe(chunk: Sequence[SourceItem]) -> str:
    ids = _ids(chunk)
    if ids:
        return f"item{'s' * (len(ids) > 1)} {', '.join(ids)}"
    return f"document text starting {chunk[0].text[:30]!r}"


def _shifted(facts: list[ExtractedFact], offset: int) -> list[ExtractedFact]:
    if not offset:
        return facts
    return [replace(fact, causes=[(index + offset, relation) for index, relation in fact.causes]) for fact in facts]


_FENCE_START = re.compile(r"^```[ \t]*(?:json)?[ \t]*\n?", re.IGNORECASE)
_FACTS_LIST = re.compile(r'"facts"\s*:\s*\[')


def _cut_off(raw: str) -> bool:
    """True when ``raw`` is a JSON object that stops mid-value: brackets or a string left open."""
    text = _FENCE_START.sub("", raw.strip())
    if not text.startswith("{"):
        return False
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            escaped = not escaped and char == "\\"
            in_string = escaped or char != '"'
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth < 0:
                return False  # malformed, not merely cut off
    return in_string or depth > 0


def _salvage(raw: str) -> list[Any]:
    """The complete fact objects at the start of a cut-off ``{"facts": [...`` reply."""
    found = _FACTS_LIST.search(raw)
    if found is None:
        return []
    decoder, at = json.JSONDecoder(), found.end()
    facts: list[Any] = []
    while True:
        while at < len(raw) and raw[at] in " \t\r\n,":
            at += 1
        if at >= len(raw) or raw[at] == "]":
            return facts
        try:
            value, at = decoder.raw_decode(raw, at)
        except json.JSONDecodeError:
            return facts
        facts.append(value)


def _read(reply: _Reply, chunk: list[SourceItem]) -> tuple[list[ExtractedFact], list[str], int, int]:
    """The good facts of ``reply``, the problems found, and how many facts were bad out of how many."""
    if reply.data is None:
        return [], [reply.problem or "the reply is not a JSON object"], 0, 0
    raw_facts = reply.data.get("facts")
    if not isinstance(raw_facts, list):
        return [], ['"facts" must be a list of fact objects'], 0, 0
    chunk_ids = _ids(chunk)
    kept: dict[int, int] = {}  # index in the reply -> index in the result
    facts: list[ExtractedFact] = []
    problems: list[str] = []
    bad = 0
    for index, raw in enumerate(raw_facts):
        fact, fact_problems = _read_fact(raw, f"facts[{index}]", chunk, chunk_ids)
        if fact is None:
            bad += 1
            problems.extend(fact_problems)
            continue
        fact.causes = [(kept[target], relation) for target, relation in _causes(raw.get("causes"), index)
                       if target in kept]
        kept[index] = len(facts)
        facts.append(fact)
    return facts, problems, bad, len(raw_facts)


def _read_fact(
    raw: Any, name: str, chunk: list[SourceItem], chunk_ids: list[str]
) -> tuple[ExtractedFact | None, list[str]]:
    if not isinstance(raw, dict):
        return None, [f"{name} must be an object"]
    problems: list[str] = []
    text = raw.get("text")
    if text is None:
        problems.append(f"{name}.text is missing")
    elif not isinstance(text, str):
        problems.append(f"{name}.text must be a string")
    elif not text.strip():
        problems.append(f"{name}.text is empty")
    kind = raw.get("kind") or "world"
    if not isinstance(kind, str) or kind.strip().lower() not in KINDS:
        problems.append(f"{name}.kind must be world or experience")
    for key in ("occurred_start", "occurred_end", "where", "why"):
        if raw.get(key) is not None and not isinstance(raw[key], str):
            problems.append(f"{name}.{key} must be a string or null")
    for key in ("who", "entities", "message_ids"):
        value = raw.get(key)
        if value is not None and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            if key != "message_ids" or not isinstance(value, list) or not all(_is_id(v) for v in value):
                problems.append(f"{name}.{key} must be a list of strings")
    if raw.get("causes") is not None and not isinstance(raw["causes"], list):
        problems.append(f"{name}.causes must be a list")
    if problems:
        return None, problems
    assert isinstance(text, str) and isinstance(kind, str)
    message_ids = [str(v) for v in raw.get("message_ids") or () if str(v) in chunk_ids]
    message_ids = list(dict.fromkeys(message_ids)) or chunk_ids
    start, end = _iso(raw.get("occurred_start")), _iso(raw.get("occurred_end"))
    if start is not None and end is not None and _before(end, start):
        end = None
    sources = [item.text for item in chunk if item.id in message_ids] or [item.text for item in chunk]
    return ExtractedFact(
        text=text.strip(),
        kind="experience" if kind.strip().lower() == "experience" else "world",
        occurred_start=start,
        occurred_end=end,
        where=_optional(raw.get("where")),
        who=_names(raw.get("who")),
        why=_optional(raw.get("why")),
        entities=_names(raw.get("entities")),
        message_ids=message_ids,
        language=detect_language(" ".join(sources)),
    ), []


def _is_id(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def _optional(value: str | None) -> str | None:
    return (value.strip() or None) if value is not None else None


def _names(values: list[str] | None) -> list[str]:
    return list(dict.fromkeys(v.strip() for v in values or () if v.strip()))


def _iso(value: str | None) -> str | None:
    if value is None or not value.strip():
        return None
    try:
        parse_datetime(value.strip())
    except InvalidTimeError:
        return None  # "last Tuesday", "2023-13-45": a bad date is dropped, not the fact
    return value.strip()


def _before(end: str, start: str) -> bool:
    try:
        return parse_datetime(end) < parse_datetime(start)
    except TypeError:  # one has a UTC offset and the other not: they cannot be ordered, keep both
        return False


def _causes(raw: Any, index: int) -> list[tuple[int, str]]:
    """The well-formed links of fact ``index`` to earlier facts; anything else is dropped."""
    links: list[tuple[int, str]] = []
    for cause in raw if isinstance(raw, list) else ():
        if not isinstance(cause, dict):
            continue
        target, relation = cause.get("fact"), cause.get("relation")
        if isinstance(target, bool) or not isinstance(target, int) or not 0 <= target < index:
            continue
        if isinstance(relation, str) and relation.strip().lower() in RELATIONS:
            links.append((target, relation.strip().lower()))
    return list(dict.fromkeys(links))
