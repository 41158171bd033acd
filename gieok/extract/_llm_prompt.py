"""The exchange with the model: what extraction asks, and how it reads the answer.

Asking: the system prompt (English whatever the source language, with one Korean and one English
example), the reply's JSON :data:`SCHEMA`, the user message and the follow-up after a bad reply. The
rule that matters most for a bilingual memory is that facts stay in the language they were said in.
Each item is rendered as an ``<item>`` element carrying its id, speaker and timestamp, because
relative dates ("지난주", "yesterday") are resolved against the timestamp of the message they come
from, not against the time of extraction.

Reading: :func:`read_facts` checks each fact key by key, turns the good ones into
:class:`ExtractedFact` and names the problems of the bad ones in words the follow-up can quote
("facts[2].text is missing"). Harmless slips are repaired rather than reported: an unreadable date
becomes None, unknown message ids and malformed causes are dropped. :func:`cut_off` tells a reply
that stopped mid-JSON from one that is merely malformed, and :func:`salvage` recovers the complete
fact objects at the start of a cut-off reply.

The control flow (chunking, splitting on truncation, re-asking) lives in :mod:`gieok.extract.llm`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any, Literal

from gieok.answering import detect_language
from gieok.errors import InvalidTimeError
from gieok.temporal import parse_datetime

__all__ = [
    "KINDS", "RELATIONS", "SCHEMA", "SYSTEM_PROMPT", "ExtractedFact", "SourceItem",
    "cut_off", "follow_up", "item_ids", "read_facts", "render_items", "salvage",
]

KINDS = ("world", "experience")
RELATIONS = ("caused_by", "enables", "prevents")


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


_MAX_LISTED = 20  # problems named in one follow-up

_NAMES: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
_OPTIONAL_TEXT: dict[str, Any] = {"type": ["string", "null"]}

SCHEMA: dict[str, Any] = {
    "title": "extracted_facts",
    "type": "object",
    "properties": {
        "facts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "kind": {"type": "string", "enum": list(KINDS)},
                    "occurred_start": _OPTIONAL_TEXT,
                    "occurred_end": _OPTIONAL_TEXT,
                    "where": _OPTIONAL_TEXT,
                    "who": _NAMES,
                    "why": _OPTIONAL_TEXT,
                    "entities": _NAMES,
                    "message_ids": _NAMES,
                    "causes": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "fact": {"type": "integer"},
                                "relation": {"type": "string", "enum": list(RELATIONS)},
                            },
                            "required": ["fact", "relation"],
                        },
                    },
                },
                "required": ["text"],
            },
        }
    },
    "required": ["facts"],
}

SYSTEM_PROMPT = """\
You extract long-term memories for an AI agent from a conversation or a document.
Reply with one JSON object {"facts": [...]}, one entry per fact worth remembering.

Rules:
1. Each fact is a self-contained narrative statement: what happened or what is true, who was involved, \
and when, where and why when the text says so. It must make sense read alone, months later.
2. Resolve pronouns and vague references to names: "she" -> "Caroline", "I" -> the speaker's name, \
"you" -> the person addressed.
3. Resolve relative dates ("yesterday", "last week", "어제", "지난주") to absolute dates against the \
time of the item they were said in, which each <item> gives. Write the absolute date in the text and \
put the time of the event in occurred_start / occurred_end as ISO 8601 ("2026-05-04" or \
"2026-05-04T19:00:00+09:00"), end exclusive. Use null when the text does not say when.
4. Write each fact in the language it was said in. Never translate: Korean items give Korean facts, \
English items give English facts.
5. State only what the text says. No speculation, no advice, no comments about the conversation.
6. Skip greetings, thanks and small talk. {"facts": []} is a valid answer.
7. kind: "experience" for what the assistant/agent itself did or said; "world" for everything else.
8. message_ids: the ids of the items that support the fact.
9. who: the people involved; entities: the named people, places, organisations and things; \
where: the place; why: the stated reason. Leave out what is unknown.
10. causes: links from this fact to EARLIER facts of your list only, by 0-based index, \
{"fact": 0, "relation": R}. R is "caused_by" (this fact happened because of that one), "enables" \
(this fact made that one possible) or "prevents" (this fact stopped that one).

Example (Korean):
<item id="m1" speaker="민지" time="2026-05-12T15:00:00+09:00">지난주에 부산 갔다 왔어! 언니 결혼식이었거든 ㅎㅎ</item>
{"facts": [
 {"text": "민지의 언니는 2026년 5월 4일 주에 부산에서 결혼했다.", "kind": "world", \
"occurred_start": "2026-05-04", "occurred_end": "2026-05-11", "where": "부산", "who": ["민지의 언니"], \
"entities": ["민지", "부산"], "message_ids": ["m1"]},
 {"text": "민지는 언니의 결혼식 때문에 2026년 5월 4일 주에 부산에 갔다.", "kind": "world", \
"occurred_start": "2026-05-04", "occurred_end": "2026-05-11", "where": "부산", "who": ["민지"], \
"why": "언니의 결혼식", "entities": ["민지", "부산"], "message_ids": ["m1"], \
"causes": [{"fact": 0, "relation": "caused_by"}]}]}

Example (English):
<item id="c1" speaker="Caroline" time="2023-05-08T13:56:00">I went to a LGBTQ support group yesterday. \
It was so powerful.</item>
<item id="c2" speaker="assistant" time="2023-05-08T13:57:00">That's wonderful! I'll remind you before \
the next meeting.</item>
{"facts": [
 {"text": "Caroline went to a LGBTQ support group on 7 May 2023 and found it powerful.", \
"kind": "world", "occurred_start": "2023-05-07", "occurred_end": "2023-05-08", "who": ["Caroline"], \
"entities": ["Caroline", "LGBTQ support group"], "message_ids": ["c1"]},
 {"text": "On 8 May 2023 the assistant promised to remind Caroline before the next LGBTQ support group \
meeting.", "kind": "experience", "occurred_start": "2023-05-08T13:57:00", "who": ["Caroline"], \
"entities": ["Caroline", "LGBTQ support group"], "message_ids": ["c2"]}]}
"""


def render_items(items: Sequence[SourceItem]) -> str:
    """The user message: every item with its id, speaker and time, in order."""
    lines = [
        f"Extract the facts from these {len(items)} item{'s' * (len(items) != 1)}. "
        + "Resolve relative dates against the time of the item they appear in.",
        "",
    ]
    for item in items:
        attributes = []
        if item.id is not None:
            attributes.append(f'id="{escape(item.id)}"')
        attributes.append(f'speaker="{escape(item.speaker)}"' if item.speaker is not None else 'source="document"')
        attributes.append(f'time="{escape(item.timestamp)}"' if item.timestamp else 'time="unknown"')
        lines.append(f"<item {' '.join(attributes)}>{item.text}</item>")
    return "\n".join(lines)


def follow_up(problems: Sequence[str]) -> str:
    """The second user message after a reply that could not be used, naming what was wrong."""
    listed = "\n".join(f"- {problem}" for problem in problems[:_MAX_LISTED])
    if len(problems) > _MAX_LISTED:
        listed += f"\n- and {len(problems) - _MAX_LISTED} more problems like these"
    return (
        f"Your reply could not be used:\n{listed}\n"
        'Reply again with the complete JSON object {"facts": [...]} for the same items, with these fixed.'
    )


# --- reading the reply ------------------------------------------------------------------------------


def item_ids(chunk: Sequence[SourceItem]) -> list[str]:
    """The distinct message ids of ``chunk``, in order (document pieces have none)."""
    return list(dict.fromkeys(item.id for item in chunk if item.id is not None))


_FENCE_START = re.compile(r"^```[ \t]*(?:json)?[ \t]*\n?", re.IGNORECASE)
_FACTS_LIST = re.compile(r'"facts"\s*:\s*\[')


def cut_off(raw: str) -> bool:
    """True when ``raw`` is a JSON object that stops mid-value: brackets or a string left open."""
    text = _FENCE_START.sub("", raw.strip())
    if not text.startswith("{"):
        return False
    open_brackets: list[str] = []
    in_string, escaped = False, False
    for char in text:
        if in_string:
            escaped = not escaped and char == "\\"
            in_string = escaped or char != '"'
        elif char == '"':
            in_string = True
        elif char in "{[":
            open_brackets.append("}" if char == "{" else "]")
        elif char in "}]" and (not open_brackets or open_brackets.pop() != char):
            return False  # malformed, not merely cut off
    return in_string or bool(open_brackets)


def salvage(raw: str) -> list[Any]:
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


def read_facts(
    data: Mapping[str, Any], chunk: Sequence[SourceItem]
) -> tuple[list[ExtractedFact], list[str], int, int]:
    """The good facts of a reply, the problems found, and how many facts were bad out of how many."""
    raw_facts = data.get("facts")
    if not isinstance(raw_facts, list):
        return [], ['"facts" must be a list of fact objects'], 0, 0
    chunk_ids = item_ids(chunk)
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
    raw: Any, name: str, chunk: Sequence[SourceItem], chunk_ids: list[str]
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
        allowed = _is_id if key == "message_ids" else _is_text  # ids sometimes come back as numbers
        if value is not None and not (isinstance(value, list) and all(allowed(v) for v in value)):
            problems.append(f"{name}.{key} must be a list of strings")
    if raw.get("causes") is not None and not isinstance(raw["causes"], list):
        problems.append(f"{name}.causes must be a list")
    if problems:
        return None, problems
    message_ids = [str(v) for v in raw.get("message_ids") or () if str(v) in chunk_ids]
    message_ids = list(dict.fromkeys(message_ids)) or chunk_ids
    start, end = _iso(raw.get("occurred_start")), _iso(raw.get("occurred_end"))
    if start is not None and end is not None and _before(end, start):
        end = None
    sources = [item.text for item in chunk if item.id in message_ids] or [item.text for item in chunk]
    return ExtractedFact(
        text=str(raw["text"]).strip(),
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


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


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
