"""What LLM extraction sends: the system prompt, the reply's JSON schema and the user messages.

Kept apart from the control flow in :mod:`gieok.extract.llm` so the wording can be read (and tuned)
in one place. The system prompt is English, whatever the source language, and shows one Korean and
one English example; the rule that matters most for a bilingual memory is that facts stay in the
language they were said in. Each item is rendered as an ``<item>`` element carrying its id, speaker
and timestamp, because relative dates ("지난주", "yesterday") are resolved against the timestamp of
the message they come from, not against the time of extraction.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gieok.extract.llm import SourceItem

__all__ = ["SCHEMA", "SYSTEM_PROMPT", "RELATIONS", "KINDS", "render_items", "follow_up"]

KINDS = ("world", "experience")
_MAX_LISTED = 20
RELATIONS = ("caused_by", "enables", "prevents")

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
<item id="c1" speaker="Caroline" time="2023-05-08T13:56:00">I went to a LGBTQ support group yesterday. It was so powerful.</item>
<item id="c2" speaker="assistant" time="2023-05-08T13:57:00">That's wonderful! I'll remind you before the next meeting.</item>
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
        "Resolve relative dates against the time of the item they appear in.",
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
