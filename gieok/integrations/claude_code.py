"""gieok as Claude Code's long-term memory, through its hooks.

Claude Code runs a command at each hook event with the event's JSON on stdin (``session_id``,
``transcript_path``, ``cwd``, ``hook_event_name``, and per event ``source`` / ``prompt`` /
``stop_hook_active`` / ``last_assistant_message``). Three events are wired (``gieok hooks claude-code``
prints the settings snippet):

- **SessionStart** → :func:`session_start`: what the bank knows about the user (profile slots) and,
  on a resumed or compacted session, its last retained turns.
- **UserPromptSubmit** → :func:`prompt_submit`: recall for the prompt, unless the gate reads it as
  small talk (:meth:`gieok.Memory.should_recall`).
- **Stop** → :func:`stop`: the turn (the last prompt and Claude's reply, read from the transcript) is
  queued with :meth:`gieok.Memory.submit_retain`, so the hook returns at once; a worker writes it.

The first two return Claude Code's JSON output, ``{"hookSpecificOutput": {"hookEventName": ...,
"additionalContext": ...}}``, or None when there is nothing to add. Each turn is retained as two
messages of the source ``claude-code:<session_id>`` with ids from the transcript's entries, so a Stop
that fires twice for one turn re-queues the same messages instead of storing them twice.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gieok.errors import BankNotFoundError, InputError, SourceNotFoundError
from gieok.integrations.openai import memory_block
from gieok.memory import Memory
from gieok.records import Operation

__all__ = ["last_turn", "prompt_submit", "session_start", "stop"]

_PROFILE_HEADER = "What gieok remembers about the user (profile; use it when it bears on the work):"
_RECENT_HEADER = "The last turns of this session, as gieok retained them:"


def _session_id(payload: Mapping[str, Any]) -> str:
    session_id = payload.get("session_id")
    if not isinstance(session_id, str) or not session_id.strip():
        raise InputError("the hook payload has no session_id: run this command from a Claude Code hook, which "
                         "passes the event's JSON on stdin")
    return session_id


def _context(event: str, text: str) -> dict[str, Any] | None:
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}} if text else None


def session_start(memory: Memory, bank: str, payload: Mapping[str, Any], *,
                  user_id: str | None = None) -> dict[str, Any] | None:
    """SessionStart: the user's profile, plus this session's last retained turns when it is resumed."""
    parts: list[str] = []
    try:
        slots = [f"- {s.person}: {s.slot} = {', '.join(s.values)}" + ("" if s.holder == "self" else f" ({s.holder})")
                 for p in memory.profile(bank, user_id=user_id) for s in p.slots if s.values]
        if slots:
            parts.append("\n".join([_PROFILE_HEADER, *slots]))
        if payload.get("source") in ("resume", "compact"):
            turns = memory.source(bank, "claude-code:" + _session_id(payload)).messages[-6:]
            if turns:
                parts.append("\n".join([_RECENT_HEADER, *(f"[{t.speaker}] {t.text}" for t in turns)]))
    except (BankNotFoundError, SourceNotFoundError):
        pass  # nothing retained yet: a first session starts without context
    return _context("SessionStart", "\n\n".join(parts))


def prompt_submit(memory: Memory, bank: str, payload: Mapping[str, Any], *, user_id: str | None = None,
                  max_tokens: int = 1500) -> dict[str, Any] | None:
    """UserPromptSubmit: the memories the prompt needs, or None (small talk, nothing remembered)."""
    prompt = payload.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip() or not memory.should_recall(prompt):
        return None
    try:
        recall = memory.recall(bank, prompt, max_tokens=max_tokens, user_id=user_id)
    except BankNotFoundError:
        return None
    return _context("UserPromptSubmit", memory_block(recall))


def _text(content: Any) -> str:
    """A transcript message's text: a string, or its ``text`` parts (tool calls and results are not said)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p["text"] for p in content
                         if isinstance(p, Mapping) and p.get("type") == "text" and isinstance(p.get("text"), str))
    return ""


def last_turn(transcript_path: str | Path) -> list[dict[str, Any]]:
    """The last user prompt of a Claude Code transcript (JSONL) and the assistant's text after it, as
    gieok messages (id from the entry's ``uuid``, role, text, timestamp)."""
    turn: list[dict[str, Any]] = []
    with open(transcript_path, encoding="utf-8") as lines:
        for line in lines:
            entry = json.loads(line) if line.strip() else {}
            message = entry.get("message") if isinstance(entry, Mapping) else None
            if entry.get("type") not in ("user", "assistant") or not isinstance(message, Mapping):
                continue
            text = _text(message.get("content")).strip()
            if not text:
                continue  # a tool call or a tool result: not part of what was said
            said = {"id": str(entry.get("uuid") or len(turn)), "role": entry["type"], "text": text}
            if entry.get("timestamp"):
                said["timestamp"] = entry["timestamp"]
            turn = [said] if entry["type"] == "user" else [*turn, said]
    return turn if turn and turn[0]["role"] == "user" else []


def stop(memory: Memory, bank: str, payload: Mapping[str, Any], *, user_id: str | None = None) -> Operation | None:
    """Stop: queue the turn that just ended for retain; None when there is no turn to keep."""
    session_id = _session_id(payload)
    path = payload.get("transcript_path")
    turn = last_turn(path) if isinstance(path, str) and Path(path).is_file() else []
    reply = payload.get("last_assistant_message")
    if isinstance(reply, str) and reply.strip() and turn and turn[-1]["role"] == "user":
        # the transcript may not hold the reply yet when Stop fires; the payload's copy of it does
        turn.append({"id": f"{turn[0]['id']}-reply", "role": "assistant", "text": reply.strip()})
    if not turn:
        return None
    messages = [{**m, "id": f"{session_id}:{m['id']}"} for m in turn]
    return memory.submit_retain(bank, messages, document_id=f"claude-code:{session_id}", user_id=user_id,
                                session_id=session_id)
