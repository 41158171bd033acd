"""gieok in the OpenAI Agents SDK: memory as ``function_tool``s, and recalled memories for instructions.

``memory_tools(memory, bank, user_id=...)`` gives an ``Agent(tools=...)`` four tools: ``remember``
(retain a statement), ``recall_memories`` (best first, with ids and dates), ``forget_memory`` (erase
one memory by the id recall showed) and ``reflect`` (answer only from memory). The bank and the
user are bound when the tools are made: the model cannot widen the scope (the tools take no such
argument), and ``forget_memory`` refuses a memory that is not that user's. A gieok error reaches the
model as the SDK's tool error message (its text says how to fix the call), never as an exception
that ends the run.

``memory_instructions(memory, bank, query, ...)`` is the block of memories to put into an agent's
instructions; use it from a dynamic-instructions function (``Agent(instructions=fn)``, see
docs/guide/frameworks.md). Adapter only: every call goes through :class:`gieok.Memory`, in a worker
thread so the agent's event loop is never blocked by SQLite or the embedder.
"""

from __future__ import annotations

import asyncio
from typing import Any

from agents import FunctionTool, RunContextWrapper, default_tool_error_function, function_tool

from gieok.errors import BankNotFoundError, GieokError, InputError
from gieok.integrations.openai import memory_block
from gieok.memory import Memory

__all__ = ["memory_instructions", "memory_tools"]


def memory_instructions(memory: Memory, bank: str, query: str, *, user_id: str | None = None,
                        max_tokens: int = 1500, base: str = "") -> str:
    """``base`` followed by what ``bank`` remembers about ``query`` (within ``max_tokens``), each
    memory with its id, date and speaker; just ``base`` when nothing is remembered yet."""
    block = ""
    if query.strip():
        try:
            block = memory_block(memory.recall(bank, query, max_tokens=max_tokens, user_id=user_id))
        except BankNotFoundError:  # nothing retained yet
            pass
    return "\n\n".join(part for part in (base.strip(), block) if part)


def memory_tools(memory: Memory, bank: str, user_id: str | None = None) -> list[FunctionTool]:
    """``remember``, ``recall_memories``, ``forget_memory`` and ``reflect`` bound to ``bank`` (and
    ``user_id``) of ``memory``: the list to give ``Agent(tools=...)``."""

    async def remember(text: str) -> dict[str, Any]:
        """Keep something the user said that is worth remembering later (a fact about them, a decision,
        a preference, a date). Stored verbatim, in the user's words; secrets are redacted first.

        Args:
            text: what to remember, in the user's words.
        """
        result = await asyncio.to_thread(memory.retain, bank, text=text, user_id=user_id)
        return {"stored": result.facts_added, "source_id": result.source_id}

    async def recall_memories(query: str, limit: int = 8) -> dict[str, Any]:
        """Find what long-term memory holds about a question, best first, with ids and dates. Call it
        before answering anything that may depend on earlier conversations.

        Args:
            query: the question or topic.
            limit: at most this many memories.
        """
        try:
            found = await asyncio.to_thread(memory.recall, bank, query, limit=limit, user_id=user_id)
        except BankNotFoundError:
            return {"memories": []}
        return {"memories": [{"id": m.id, "text": m.text, "speaker": m.speaker,
                              "date": str(m.mentioned_at or m.occurred_start or m.valid_from or ""),
                              "source_id": m.source_id} for m in found.memories]}

    async def forget_memory(memory_id: str) -> dict[str, Any]:
        """Erase one memory for good, by the id recall_memories showed (e.g. "f-12"), when the user asks
        to forget it or it is wrong.

        Args:
            memory_id: the memory's id, as recall_memories showed it.
        """
        return await asyncio.to_thread(_forget_one, memory, bank, memory_id, user_id)

    async def reflect(question: str) -> dict[str, Any]:
        """Answer a question only from memory, with verified quotes; says plainly when memory does not
        hold the answer.

        Args:
            question: the question to answer from memory.
        """
        try:
            reflection = await asyncio.to_thread(memory.reflect, bank, question, user_id=user_id)
        except BankNotFoundError:
            return {"answered": False, "answer": "Nothing is remembered yet."}
        return {"answered": reflection.supported, "answer": reflection.answer}

    return [function_tool(f, failure_error_function=_tool_error)
            for f in (remember, recall_memories, forget_memory, reflect)]


def _tool_error(ctx: RunContextWrapper[Any], error: Exception) -> str:
    """What the model reads when a tool fails: a gieok error's own message (it says how to fix the call);
    anything else stays the SDK's opaque message, so no internal detail leaks into the conversation."""
    cause = error if isinstance(error, GieokError) else error.__cause__
    if isinstance(cause, GieokError):
        return f"{type(cause).__name__}: {cause}"
    return default_tool_error_function(ctx, error)


def _forget_one(memory: Memory, bank: str, memory_id: str, user_id: str | None) -> dict[str, Any]:
    # a user-bound agent may erase only that user's memories: a shared one or another user's is refused
    if user_id is not None and memory.get(bank, memory_id).user_id != user_id:
        raise InputError(f"memory {memory_id} is not one of this user's memories: forget only ids that "
                         "recall_memories returned for this user")
    result = memory.forget(bank, memory_id=memory_id)
    return {"forgotten": result.memory_ids}
