"""Working memory: a session's recent turns verbatim, the older ones folded into a summary.

Every turn is stored raw (``session_turns``) and retained to long-term memory as a message of the
conversation ``session:<session_id>``. When the verbatim turns exceed ``max_tokens``, all but the
last ``keep_recent`` are folded: the summary is rebuilt from the raw turns before the fold point —
every time, from the raw turns, never from the previous summary, so nothing drifts however many
folds a session goes through. With an LLM configured for the bank it writes the summary; offline
an extractive summary keeps the sentences that carry decisions, corrections, preferences, dates,
health and explicit "remember this" requests (Korean and English cues).

Capture: a user's correction or decision is kept as stable, important memory; a borderline turn (a
date, a preference) is judged by the bank's LLM when one is configured (keep, and how important),
and offline keeps what retain gives it. A near-duplicate of a fact the bank holds raises that fact's
importance instead of adding a row.

``context(query, max_tokens)`` is the rendered session plus, when the recall gate lets the query
through, the long-term memories recall finds inside what is left of the same token budget.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from gieok.engine._edge import check_every_method
from gieok.engine.context import BankContext, Engine
from gieok.engine.llm_calls import call_llm
from gieok.engine.recall import run as _recall
from gieok.engine.retain import run as _retain
from gieok.engine.scopes import check_scope, recall_scope
from gieok.errors import (
    InputError,
    LLMOutputError,
    LLMRateLimitError,
    LLMUnavailableError,
    SessionUserError,
    SpendLimitError,
)
from gieok.extract.recall_gate import GateDecision, recall_gate
from gieok.lifecycle._decay import classify_memory
from gieok.records import SESSION_ROLES, Recall, ScopeFilter, memory_lines
from gieok.store.protocol import Store
from gieok.text.terms import keyword_terms
from gieok.text.tokens import count_tokens

__all__ = ["ROLES", "Session", "SessionContext", "extractive_summary", "session_source"]

ROLES = SESSION_ROLES
SUMMARY_HEADER = "Summary of the earlier conversation:"
DUPLICATE_MIN_TERMS = 2  # "ok" / "응" are not statements a duplicate check should fold away
MEMORY_HEADER = "Long-term memories that may help (cite the id in brackets):"
_SENTENCE = re.compile(r"[^.!?。\n]+[.!?。]*")
# decisions and corrections: what a summary must never lose
_DECISION = re.compile(r"하기로|정했|결정|확정|그걸로 하|으로 가자|로 가자|decided|decision|let's go with|"
                       r"we'll go with|settled on|chose|going with|agreed to", re.IGNORECASE)
_CORRECTION = re.compile(r"아니[, ]*사실|사실은|정정|잘못 말|말고|actually|correction|i meant|not .+ but|scratch that",
                         re.IGNORECASE)
_DATE = re.compile(r"\d{1,4}[./-]\d{1,2}|\d+\s*(?:월|일|시)|월요일|화요일|수요일|목요일|금요일|토요일|일요일|내일|모레|"
                   r"다음 ?주|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|next week|"
                   r"january|february|march|april|may|june|july|august|september|october|november|december)\b",
                   re.IGNORECASE)


BORDERLINE = 0.5  # capture scores from here up to a pin (a date 0.8, a preference) go to the LLM when there is one
_CAPTURE_SYSTEM = ("A user said this to an assistant. Decide whether it is worth keeping in the user's long-term "
                   "memory (a fact about them, a plan, a preference, a decision), and how important it is from 0 to 1. "
                   "Offline rules flagged it as borderline ({reason}). Reply as JSON: {{\"keep\": bool, "
                   "\"importance\": number}}.")
_CAPTURE_SCHEMA = {"type": "object", "properties": {"keep": {"type": "boolean"}, "importance": {"type": "number"}},
                   "required": ["keep", "importance"]}


def session_source(session_id: str) -> str:
    """The long-term source a session's turns are retained under."""
    return f"session:{session_id}"


def _score(sentence: str, role: str) -> tuple[float, str]:
    """How much a sentence must survive the fold, and why."""
    if _CORRECTION.search(sentence):
        return 1.0, "correction"
    if _DECISION.search(sentence):
        return 0.95, "decision"
    kind = classify_memory(sentence, speaker=role)
    if kind.decay_class == "pinned":
        return 0.9, kind.reason
    if _DATE.search(sentence):
        return 0.8, "date"
    if kind.decay_class == "stable" and kind.importance > 0.5:
        return kind.importance, kind.reason
    return 0.0, kind.reason


def extractive_summary(turns: list[Any], max_tokens: int) -> str:
    """The sentences of ``turns`` that carry decisions, corrections, preferences, dates or health,
    most important first while they fit ``max_tokens``, written back in the order they were said."""
    scored = []
    for turn in turns:
        for m in _SENTENCE.finditer(turn.content):
            sentence = m.group(0).strip()
            if not sentence:
                continue
            score, _ = _score(sentence, turn.role)
            if score > 0:
                scored.append((score, turn.position, m.start(), f"- {turn.role}: {sentence}"))
    chosen, used = [], count_tokens(SUMMARY_HEADER)
    for item in sorted(scored, key=lambda s: (-s[0], s[1], s[2])):
        cost = count_tokens(item[3]) + 1
        if used + cost > max_tokens:
            continue
        chosen.append(item)
        used += cost
    if not chosen:
        return ""
    return "\n".join([SUMMARY_HEADER, *(c[3] for c in sorted(chosen, key=lambda s: (s[1], s[2])))])


def _turn_views(turns: list[Any]) -> list[dict[str, Any]]:
    return [{"position": t.position, "role": t.role, "content": t.content} for t in turns]


def _messages(summary: str, turns: list[Any]) -> list[dict[str, str]]:
    """Chat messages: the summary as a system message (when there is one), then the turns."""
    return ([{"role": "system", "content": summary}] if summary else []) + \
        [{"role": t.role, "content": t.content} for t in turns]


@dataclass
class SessionContext:
    """What ``Session.context`` hands a model: the chat messages, the recall behind them (None when
    the gate skipped it), the gate's decision and the tokens used."""

    messages: list[dict[str, str]]
    recall: Recall | None
    gate: GateDecision
    tokens: int
    memories: list[Any] = field(default_factory=list)


class Session:
    """One session's working memory; see the module docstring."""

    def __init__(self, engine: Engine, bank: str, session_id: str, *, max_tokens: int = 3000,
                 keep_recent: int = 6, user_id: str | None = None) -> None:
        if not isinstance(session_id, str) or not session_id.strip():
            raise InputError("session_id must be a non-empty string, e.g. mem.session('alice', 'chat-1')")
        # whose session: its turns are retained as that user's, and its context recalls only what that
        # user (and no one in particular) said
        self.scope = check_scope(user_id=user_id, session_id=session_id)
        self.user_id = self.scope.user_id
        if max_tokens < 50:
            raise InputError(f"max_tokens={max_tokens} is too small for a session: pass at least 50")
        if keep_recent < 1:
            raise InputError(f"keep_recent={keep_recent}: keep at least one turn verbatim (keep_recent=1)")
        self.engine, self.bank, self.session_id = engine, bank, session_id
        self.max_tokens, self.keep_recent = max_tokens, keep_recent
        self.summary_tokens = max(64, max_tokens // 3)  # room for a few facts even in a tiny session

    @property
    def source_id(self) -> str:
        return session_source(self.session_id)

    def add(self, role: str, content: str) -> int:
        """Append a turn (kept raw, retained to long-term memory); fold when over budget. Its position.
        A turn for a session of another user is refused (SessionUserError) before anything is judged,
        embedded or written; the raw turn and its long-term copy are written in one transaction."""
        if role not in ROLES:
            raise InputError(f"role must be one of {', '.join(ROLES)}")
        if not isinstance(content, str) or not content.strip():
            raise InputError("a session turn needs non-empty content")
        if self.engine.find_bank(self.bank) is not None:  # no bank, no session yet: nobody else's
            existing = self.engine.bank(self.bank)
            self._check_user(existing.store, existing.bank.id)
        now = datetime.now(timezone.utc).isoformat()
        # unique across restarts and erasures: a reused message id with new text would replace the old one
        message = {"id": f"{self.session_id}-{uuid.uuid4().hex[:12]}", "role": role, "text": content,
                   "timestamp": now}
        # redacted with the bank's policy before anything is kept: the raw turn is what the session
        # stores and renders, so it must not hold the card number the long-term copy does not
        # (a "block" finding raises here and stores nothing)
        # the turn's facts carry the session as their scope (recall(session_id=...) finds them)
        screened = _retain.screen(self.engine, self.bank, [message], document_id=self.source_id, scope=self.scope)
        content = screened.redacted.messages[0].text
        ctx = self.engine.bank_for_write(self.bank)
        options = self._capture(ctx, role, content)
        # a near-duplicate of what the bank already holds raises that memory instead of adding a row
        same = self._duplicates(ctx, role, content)
        store, position = ctx.store, -1

        def write_turn(_: object = None) -> None:  # an on_commit of retain, or called alone
            nonlocal position
            store.lock_bank(ctx.bank.id)
            self._check_user(store, ctx.bank.id)  # again, under the bank's lock: two users' first turns race
            position = store.sessions.add_turn(ctx.bank.id, self.session_id, role, content, count_tokens(content),
                                               user_id=self.user_id)

        if same:
            with store.write():
                write_turn()
                for f in same:
                    store.versions.set_class([f.id], f.decay_class, min(1.0, f.importance + 0.1), f.pinned)
        else:
            # the turn is written inside the retain's transaction, after its scope check: a retain
            # refused there (the session's source has another scope) leaves no turn behind either
            _retain.write_screened(self.engine, screened, options, on_commit=write_turn)
        self._fold_if_needed()
        return position

    def _check_user(self, store: Store, bank_id: int) -> None:
        """Refuse a read or a write of a session opened by another user (or by none, or by one when
        this call gives none). Why an error and not "no such session": session ids are one namespace
        per bank, so another user's write to this id must be refused anyway and would tell them the id
        is taken; answering their read with an empty session would hide nothing and would mislead a
        caller who passed the wrong user_id. The message never names the session's user, and the real
        boundary between tenants stays the bank and its keys (a user_id is the caller's word)."""
        owner = store.sessions.owner(bank_id, self.session_id)
        if owner is None or owner.user_id == self.user_id:
            return
        if self.user_id is None:
            fix = "this session was opened with a user_id: pass the same user_id to read or add to it"
        elif owner.user_id is None:
            fix = "this session was opened without a user_id: open it without one to read or add to it"
        else:
            fix = "this session belongs to another user: open it with the user_id it was opened with"
        raise SessionUserError(f"{fix} (mem.session(bank, session_id, user_id=...)), or use another session_id")

    def _capture(self, ctx: BankContext, role: str, content: str) -> _retain.FactOptions:
        """How a user's turn is kept long-term. A correction or a decision is raised to stable,
        important memory (the decay cues already pin "기억해 줘" / health); a borderline turn (a date,
        a preference: ``BORDERLINE`` ≤ score < pinned) is judged by the bank's LLM when one is
        configured — kept at the importance it gives, or left as retain classifies it; everything else,
        and every borderline turn offline or when the LLM does not answer, keeps what retain gives it."""
        if role != "user":
            return _retain.NO_OVERRIDES
        score, reason = max((_score(m.group(0), role) for m in _SENTENCE.finditer(content)), default=(0.0, ""))
        if score >= 0.95:
            return _retain.fact_options("stable", 0.9)
        if ctx.llm is None or not BORDERLINE <= score < 0.9:
            return _retain.NO_OVERRIDES
        try:
            reply = call_llm(ctx.store, ctx.bank, ctx.llm, "capture_turn", [{"role": "user", "content": content}],
                             limit_usd=ctx.spend_limit, system=_CAPTURE_SYSTEM.format(reason=reason),
                             json_schema=_CAPTURE_SCHEMA, max_tokens=60)
        except (LLMUnavailableError, LLMRateLimitError, LLMOutputError, SpendLimitError):
            return _retain.NO_OVERRIDES  # the offline decision stands; the turn is retained all the same
        verdict = reply.data if isinstance(reply.data, dict) else {}
        importance = verdict.get("importance")
        if verdict.get("keep") is True and isinstance(importance, (int, float)) and 0 <= importance <= 1:
            return _retain.fact_options("stable", float(importance))
        return _retain.NO_OVERRIDES

    def _duplicates(self, ctx: BankContext, role: str, content: str) -> list[Any]:
        """Facts of the same speaker that say what ``content`` says, word for word up to inflection and
        punctuation ("나 땅콩 알레르기 있어" / "나 땅콩 알레르기 있어!", "I'm allergic to peanuts" / "I am
        allergic to peanuts."), of this session's user, still valid: :meth:`add` raises each in
        importance (+0.1, its decay clock restarted) instead of adding a second copy."""
        terms = keyword_terms(content)
        if len(set(terms)) < DUPLICATE_MIN_TERMS:
            return []
        mine = ScopeFilter(user_id=self.user_id, include_shared=False) if self.user_id is not None else None
        hits = ctx.store.search.keyword(ctx.bank.id, terms, 5, 0.0, mine)
        # the same user's only (a session without a user: shared ones only): a turn never changes
        # another user's memory
        return [f for f in ctx.store.facts.get(ctx.bank.id, [i for i, _ in hits])
                if f.speaker == role and f.valid_to is None and f.scope.user_id == self.user_id
                and set(keyword_terms(f.text)) == set(terms)]

    def _state(self) -> tuple[str, int, list[Any]]:
        ctx = self.engine.bank(self.bank)
        self._check_user(ctx.store, ctx.bank.id)  # every read of the session comes through here
        state = ctx.store.sessions.state(ctx.bank.id, self.session_id)
        folded = state.folded_upto if state else 0
        return (state.summary if state else ""), folded, ctx.store.sessions.turns(ctx.bank.id, self.session_id, folded)

    def _fold_if_needed(self) -> None:
        _, _, recent = self._state()
        if sum(t.tokens for t in recent) <= self.max_tokens or len(recent) <= self.keep_recent:
            return
        self.refold(recent[-self.keep_recent].position)

    def refold(self, upto: int | None = None) -> str:
        """Rebuild the summary from the raw turns before ``upto`` (default: the current fold point)."""
        ctx = self.engine.bank(self.bank)
        self._check_user(ctx.store, ctx.bank.id)
        if upto is None:
            _, upto, _ = self._state()
        raw = [t for t in ctx.store.sessions.turns(ctx.bank.id, self.session_id) if t.position < upto]
        summary = self._summarise(raw)
        with ctx.store.write():
            ctx.store.sessions.set_summary(ctx.bank.id, self.session_id, summary, upto)
        return summary

    def _summarise(self, raw: list[Any]) -> str:
        ctx = self.engine.bank(self.bank)
        llm = ctx.llm
        if llm is None or not raw:
            return extractive_summary(raw, self.summary_tokens)
        transcript = "\n".join(f"{t.role}: {t.content}" for t in raw)
        system = ("Summarise this conversation for the assistant's working memory in the conversation's language. "
                  "Keep every decision, correction, preference, date, health fact and explicit request to remember; "
                  f"drop small talk. At most {self.summary_tokens} tokens, as short lines.")
        reply = call_llm(ctx.store, ctx.bank, llm, "summarize_session", [{"role": "user", "content": transcript}],
                         limit_usd=ctx.spend_limit, system=system, max_tokens=self.summary_tokens * 2)
        text = reply.text.strip()
        return f"{SUMMARY_HEADER}\n{text}" if text else extractive_summary(raw, self.summary_tokens)

    @property
    def summary(self) -> str:
        return self._state()[0] if self.engine.find_bank(self.bank) else ""

    def turns(self) -> list[dict[str, Any]]:
        """The turns kept verbatim (after the summary), oldest first."""
        if self.engine.find_bank(self.bank) is None:
            return []
        return _turn_views(self._state()[2])

    def render(self) -> list[dict[str, str]]:
        """Chat messages: the summary as a system message (when there is one), then the recent turns."""
        if self.engine.find_bank(self.bank) is None:
            return []
        summary, _, recent = self._state()
        return _messages(summary, recent)

    def context(self, query: str, max_tokens: int = 4000) -> SessionContext:
        """The rendered session plus the long-term memories ``query`` needs, all within ``max_tokens``.
        Recall is skipped only when the gate reads ``query`` as small talk."""
        messages = self.render()
        used = sum(count_tokens(m["content"]) for m in messages)
        gate = recall_gate(query)
        left = max_tokens - used - count_tokens(MEMORY_HEADER)
        if not gate.recall or left <= 0 or self.engine.find_bank(self.bank) is None:
            return SessionContext(messages, None, gate, used)
        found = _recall.recall(self.engine.bank(self.bank), query, max_tokens=left,
                               scope=recall_scope(user_id=self.user_id))
        # the session's own recent turns are already in the messages: do not spend the budget twice
        recent = {m["content"] for m in messages}
        memories = [m for m in found.memories if m.text not in recent]
        kept, spent = [], 0
        for memory in memories:
            cost = count_tokens(memory_lines([memory]))
            if spent + cost > left:
                continue
            kept.append(memory)
            spent += cost
        if not kept:
            return SessionContext(messages, found, gate, used)
        block = {"role": "system", "content": MEMORY_HEADER + "\n" + memory_lines(kept)}
        messages = [*messages[:1], block, *messages[1:]] if messages and messages[0]["role"] == "system" \
            else [block, *messages]
        return SessionContext(messages, found, gate, used + spent + count_tokens(MEMORY_HEADER), kept)

    def show(self, query: str | None = None, max_tokens: int = 4000) -> dict[str, Any]:
        """The session as JSON: its summary, the verbatim turns and the rendered messages; with a
        ``query``, the context for it (messages, the gate's decision, recalled memory ids, tokens)."""
        summary: str = ""
        recent: list[Any] = []
        if self.engine.find_bank(self.bank) is not None:  # one read of the session for all three views
            summary, _, recent = self._state()
        view: dict[str, Any] = {"bank": self.bank, "session_id": self.session_id, "source_id": self.source_id,
                                "summary": summary, "turns": _turn_views(recent),
                                "messages": _messages(summary, recent)}
        if query is not None:
            ctx = self.context(query, max_tokens)
            view.update(messages=ctx.messages, tokens=ctx.tokens, memories=[m.id for m in ctx.memories],
                        recalled=ctx.gate.recall, gate_reason=ctx.gate.reason)
        return view


# A session is handed out by the facade (Memory.session): its public methods check their arguments
# at the edge as Memory's own do (gieok.engine._edge).
check_every_method(Session)
