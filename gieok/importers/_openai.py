"""ChatGPT's data export (``conversations.json``) and OpenAI-format messages as JSONL.

``conversations.json`` is a list of conversations, each a tree of messages (``mapping``: node →
``{message, parent, children}``) because an edited question branches it; the branch the user last
saw ends at ``current_node``, and that branch, root to leaf, is what is imported. System and tool
messages and empty ones (a hidden context node) are skipped; text parts are kept, images and other
attachments are not.

JSONL is either one message per line — ``{"role", "content"}`` (content a string or a list of
``{"type": "text", "text"}`` parts), optionally with ``name`` and ``timestamp`` — forming one
conversation, or one conversation per line, ``{"messages": [...]}`` (the fine-tuning layout).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from gieok.errors import UnreadableLineError
from gieok.importers._ids import StableIds
from gieok.importers._types import BadLine, Conversation, Parsed

__all__ = ["parse_chatgpt", "parse_jsonl"]

_SKIPPED_ROLES = ("system", "tool", "function", "developer")
# a field of another type than the format's (a role that is a number, a node that is a list) is a bad
# line or conversation, reported with the others, never an AttributeError out of the import
_SHAPE_ERRORS = (UnreadableLineError, AttributeError, TypeError, KeyError)


def _reason(exc: Exception) -> str:
    return str(exc) if isinstance(exc, UnreadableLineError) else "a field has another type than the format's"


def _text_of(content: Any) -> str:
    """The text of an OpenAI message's ``content`` (a string, or a list of parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        parts = [p if isinstance(p, str) else p.get("text", "") if isinstance(p, dict) else "" for p in content]
        return "\n".join(p.strip() for p in parts if isinstance(p, str) and p.strip())
    raise UnreadableLineError(f"content is a {type(content).__name__}, not text or a list of parts")


def _epoch(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(float(value), timezone.utc).isoformat()
        except (OverflowError, OSError, ValueError):  # beyond the years datetime can hold, or NaN
            raise UnreadableLineError("a time stamp is not seconds since 1970 within the years 1 to 9999") from None
    raise UnreadableLineError(f"a time stamp is a {type(value).__name__}, not seconds since 1970")


def _active_branch(mapping: dict[str, Any], current: str | None) -> list[dict[str, Any]]:
    """The messages from the root to ``current`` (or, without it, to the last leaf)."""
    if current is None or current not in mapping:
        leaves = [key for key, node in mapping.items() if not node.get("children")]
        if not leaves:
            raise UnreadableLineError("the message tree has no leaf")
        current = leaves[-1]
    branch: list[dict[str, Any]] = []
    seen: set[str] = set()
    node_id: str | None = current
    while node_id is not None and node_id in mapping:
        if node_id in seen:
            raise UnreadableLineError("the message tree has a cycle")
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            raise UnreadableLineError(f"node {node_id!r} is not an object")
        if node.get("message"):
            branch.append(node["message"])
        node_id = node.get("parent")
    return branch[::-1]


def _chatgpt_conversation(item: Any, position: int, parsed: Parsed) -> Conversation:
    if not isinstance(item, dict) or not isinstance(item.get("mapping"), dict):
        raise UnreadableLineError("a conversation needs a 'mapping' of messages")
    conv_id = str(item.get("conversation_id") or item.get("id") or f"{position}")
    chat = Conversation(f"chatgpt:{conv_id}", str(item.get("title") or conv_id))
    fallback = _epoch(item.get("create_time"))
    for message in _active_branch(item["mapping"], item.get("current_node")):
        role = ((message.get("author") or {}).get("role") or "").lower()
        content = message.get("content") or {}
        text = _text_of(content.get("parts") if isinstance(content, dict) else content)
        if role in _SKIPPED_ROLES or not text:
            parsed.skipped += 1
            continue
        if role not in ("user", "assistant"):
            raise UnreadableLineError(f"a message with role {role!r} (expected user or assistant)")
        stamp = _epoch(message.get("create_time")) or fallback
        entry: dict[str, Any] = {"id": f"chatgpt-{message.get('id') or len(chat.messages)}", "role": role, "text": text}
        if stamp:
            entry["timestamp"] = stamp
        chat.messages.append(entry)
    return chat


def parse_chatgpt(text: str, name: str) -> Parsed:
    """Read ChatGPT's ``conversations.json``; a bad conversation is reported by its position (1-based)."""
    parsed = Parsed("chatgpt")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        parsed.bad.append(BadLine(exc.lineno, f"not valid JSON ({exc.msg})"))
        return parsed
    if isinstance(data, dict) and "mapping" in data:
        data = [data]
    if not isinstance(data, list):
        parsed.bad.append(BadLine(1, "expected the list of conversations of ChatGPT's conversations.json"))
        return parsed
    for position, item in enumerate(data, start=1):
        try:
            chat = _chatgpt_conversation(item, position, parsed)
        except _SHAPE_ERRORS as exc:
            title = item.get("title", "") if isinstance(item, dict) else ""
            parsed.bad.append(BadLine(position, f"conversation {position}: {_reason(exc)}", str(title)))
            continue
        if chat.messages:
            parsed.conversations.append(chat)
    return parsed


def _jsonl_message(obj: Any, ids: StableIds) -> dict[str, Any] | None:
    if not isinstance(obj, dict) or "role" not in obj:
        raise UnreadableLineError("expected {\"role\": ..., \"content\": ...} or {\"messages\": [...]}")
    role = str(obj["role"]).lower()
    text = _text_of(obj.get("content"))
    if role in _SKIPPED_ROLES or not text:
        return None
    if role not in ("user", "assistant"):
        raise UnreadableLineError(f"role {role!r} (expected user, assistant, system or tool)")
    stamp = obj.get("timestamp")
    if stamp is not None and not isinstance(stamp, str):
        stamp = _epoch(stamp)
    # a name is a person's only on the user's side: an assistant named "Hana" is still the assistant,
    # and its trust level is the assistant's (gieok.engine.retain.doubt), not the user's
    speaker = str(obj.get("name") or role) if role == "user" else role
    given = obj.get("id")
    if given is not None and (isinstance(given, bool) or not isinstance(given, (str, int))):
        raise UnreadableLineError(f"an id is a {type(given).__name__}, not a string or an integer")
    message: dict[str, Any] = {"id": str(given or ids.next(stamp or "", speaker, text)), "role": role, "text": text}
    if obj.get("name") and role == "user":
        message["speaker"] = speaker
    if stamp:
        message["timestamp"] = stamp
    return message


def parse_jsonl(text: str, name: str) -> Parsed:
    """Read OpenAI-format messages, one JSON object a line (see the module docstring)."""
    parsed = Parsed("jsonl")
    single = Conversation(f"jsonl:{name}", name)
    ids = StableIds("jsonl")
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
            if isinstance(obj, dict) and isinstance(obj.get("messages"), list):
                chat = Conversation(f"jsonl:{name}:{number}", f"{name} line {number}")
                chat_ids = StableIds(f"jsonl{number}")
                for item in obj["messages"]:
                    message = _jsonl_message(item, chat_ids)
                    if message is None:
                        parsed.skipped += 1
                    else:
                        chat.messages.append(message)
                if chat.messages:
                    parsed.conversations.append(chat)
                continue
            message = _jsonl_message(obj, ids)
        except json.JSONDecodeError as exc:
            parsed.bad.append(BadLine(number, f"not valid JSON ({exc.msg})", raw.strip()))
            continue
        except _SHAPE_ERRORS as exc:
            parsed.bad.append(BadLine(number, _reason(exc), raw.strip()))
            continue
        if message is None:
            parsed.skipped += 1
        else:
            single.messages.append(message)
    if single.messages:
        parsed.conversations.insert(0, single)
    return parsed
