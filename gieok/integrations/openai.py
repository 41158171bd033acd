"""Memory around an OpenAI-compatible chat client, and memory as function tools.

``MemoryChat(client, mem, bank)`` stands where the client's ``chat.completions`` stood: each
``create(messages=..., model=...)`` recalls what the bank holds about the newest user message,
puts it (within ``memory_tokens``) into the system message with each memory's id, date and
speaker, calls the client, and retains the user's message and the reply as two messages of the
conversation ``chat:<session_id>``. Nothing of the OpenAI SDK is imported: any client whose
``client.chat.completions.create(**kwargs)`` takes OpenAI's arguments works (the SDK's ``OpenAI``,
an Azure or local server's client pointed at it with ``base_url``).

For tool-calling agents, :func:`memory_tools` is the tool list in OpenAI's ``tools`` format and
:func:`run_tool` executes one tool call the model made, returning the JSON string to send back as
the ``tool`` message; a bad call comes back as ``{"error": ...}`` with the fix, never as an exception
the agent loop has to catch.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from gieok.errors import BankNotFoundError, GieokError, InputError
from gieok.memory import Memory
from gieok.records import Recall, memory_lines

__all__ = ["MemoryChat", "memory_tools", "run_tool"]

_HEADER = ("Memories about this user and conversation, recalled by gieok (best first; [id] (date or "
           "document place, speaker) text). Use them when they bear on the answer; do not invent what they "
           "do not say:")


def _field(obj: Any, name: str) -> Any:
    """``obj.name`` or ``obj[name]``: SDK objects and plain dicts alike."""
    return obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "\n".join(str(_field(p, "text")) for p in content if _field(p, "type") == "text" and _field(p, "text"))
    return ""


def memory_block(recall: Recall) -> str:
    """The recalled memories as the lines the system message carries ("" when there are none)."""
    return _HEADER + "\n" + memory_lines(recall.memories) if recall.memories else ""


class _Completions:
    def __init__(self, chat: MemoryChat) -> None:
        self._chat = chat

    def create(self, **kwargs: Any) -> Any:
        return self._chat.create(**kwargs)


class _Namespace:
    def __init__(self, chat: MemoryChat) -> None:
        self.completions = _Completions(chat)


class MemoryChat:
    """An OpenAI-compatible chat client with long-term memory (see the module docstring).

    ``memory_tokens`` bounds the memories put into the prompt; ``retain=False`` reads memory without
    writing the conversation to it. ``last_recall`` is what the newest call was given. ``user_id``
    scopes both: the conversation is retained as that user's (with ``session_id`` as its session), and
    recall sees only that user's memories and the shared ones."""

    def __init__(self, client: Any, memory: Memory, bank: str, *, session_id: str | None = None,
                 memory_tokens: int = 1500, retain: bool = True, user_id: str | None = None) -> None:
        self.client, self.memory, self.bank, self.user_id = client, memory, bank, user_id
        self.session_id = session_id or time.strftime("%Y%m%d-%H%M%S")
        self.memory_tokens, self.retain = int(memory_tokens), retain
        self.last_recall: Recall | None = None
        self.chat = _Namespace(self)  # MemoryChat(...).chat.completions.create(...), as on the client

    def create(self, *, messages: Sequence[Mapping[str, Any]], **kwargs: Any) -> Any:
        """``client.chat.completions.create(messages=..., **kwargs)`` with memory before and after."""
        if kwargs.get("stream"):
            raise InputError("MemoryChat does not stream yet: call it without stream=True, or recall and "
                             "retain around your own streaming call (mem.recall / mem.retain)")
        given = [dict(m) for m in messages]
        question = next((_text(m.get("content")) for m in reversed(given) if m.get("role") == "user"), "")
        prompt = self._with_memories(given, question)
        response = self.client.chat.completions.create(messages=prompt, **kwargs)
        if self.retain and question.strip():
            choices = _field(response, "choices") or []
            reply = _text(_field(_field(choices[0], "message"), "content")) if choices else ""
            self._remember(question, reply)
        return response

    def _with_memories(self, messages: list[dict[str, Any]], question: str) -> list[dict[str, Any]]:
        self.last_recall = None
        if not question.strip():
            return messages
        try:
            self.last_recall = self.memory.recall(self.bank, question, max_tokens=self.memory_tokens,
                                                  user_id=self.user_id)
        except BankNotFoundError:  # nothing retained yet: the first turn goes without memories
            return messages
        block = memory_block(self.last_recall)
        if not block:
            return messages
        first = messages[0] if messages else {}
        if first.get("role") in ("system", "developer") and isinstance(first.get("content"), str):
            return [{**first, "content": first["content"] + "\n\n" + block}, *messages[1:]]
        return [{"role": "system", "content": block}, *messages]

    def _remember(self, question: str, reply: str) -> None:
        turn = uuid.uuid4().hex[:16]  # unique across restarts: a reused id with new text would replace the old turn
        now = datetime.now(timezone.utc).isoformat()
        said = [{"id": f"{self.session_id}-{turn}-user", "role": "user", "text": question, "timestamp": now}]
        if reply.strip():
            said.append({"id": f"{self.session_id}-{turn}-assistant", "role": "assistant", "text": reply,
                         "timestamp": now})
        self.memory.retain(self.bank, said, document_id=f"chat:{self.session_id}", user_id=self.user_id,
                           session_id=self.session_id)


def memory_tools(*, prefix: str = "memory_") -> list[dict[str, Any]]:
    """``retain``, ``recall`` and ``reflect`` as OpenAI function tools (``tools=memory_tools()``)."""
    def tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
        return {"type": "function", "function": {
            "name": prefix + name, "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required,
                           "additionalProperties": False}}}
    text = {"type": "string"}
    return [
        tool("retain", "Keep something the user said that is worth remembering later (a fact about them, a "
             "decision, a preference, a date). Stored verbatim; secrets are redacted first.",
             {"text": {**text, "description": "what to remember, in the user's words"}}, ["text"]),
        tool("recall", "Find what long-term memory holds about a question, best first, with ids and dates. "
             "Call it before answering anything that may depend on earlier conversations.",
             {"query": {**text, "description": "the question or topic"},
              "limit": {"type": "integer", "description": "at most this many memories (default 8)"}}, ["query"]),
        tool("reflect", "Answer a question only from memory, with verified quotes; says plainly when memory "
             "does not hold the answer.", {"question": text}, ["question"]),
    ]


def run_tool(memory: Memory, bank: str, tool_call: Any, *, prefix: str = "memory_", user_id: str | None = None) -> str:
    """Execute one of :func:`memory_tools` the model called (an SDK tool call or its dict); the JSON
    string to send back as the ``tool`` message. ``user_id`` scopes every call (the model cannot
    widen it: the tools take no scope argument)."""
    function = _field(tool_call, "function") or {}
    name, raw = str(_field(function, "name") or ""), _field(function, "arguments") or "{}"
    try:
        args = json.loads(raw) if isinstance(raw, str) else dict(raw)
        if not isinstance(args, dict):
            raise ValueError("the arguments are not a JSON object")
        return json.dumps(_call(memory, bank, name.removeprefix(prefix), args, user_id), ensure_ascii=False,
                          default=str)
    except (GieokError, ValueError, TypeError, KeyError) as exc:
        fix = f"{type(exc).__name__}: {exc}"
        return json.dumps({"error": fix, "tool": name}, ensure_ascii=False)


def _call(memory: Memory, bank: str, name: str, args: dict[str, Any], user_id: str | None) -> dict[str, Any]:
    if name == "retain":
        result = memory.retain(bank, text=str(args["text"]), user_id=user_id)
        return {"stored": result.facts_added, "source_id": result.source_id}
    if name == "recall":
        try:
            found = memory.recall(bank, str(args["query"]), limit=int(args.get("limit") or 8), user_id=user_id)
        except BankNotFoundError:
            return {"memories": []}
        return {"memories": [{"id": m.id, "text": m.text, "speaker": m.speaker,
                              "date": (m.mentioned_at or m.occurred_start or m.valid_from),
                              "source_id": m.source_id} for m in found.memories]}
    if name == "reflect":
        try:
            reflection = memory.reflect(bank, str(args["question"]), user_id=user_id)
        except BankNotFoundError:
            return {"answered": False, "answer": "Nothing is remembered yet."}
        return {"answered": reflection.supported, "answer": reflection.answer}
    raise KeyError(f"no memory tool {name!r}: the tools are {', '.join(t['function']['name'] for t in memory_tools())}")
