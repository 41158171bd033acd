"""Scopes: whose a memory is inside its bank, and what a recall may see.

A bank is the hard boundary. Inside it, retain takes a scope — ``user_id``, ``agent_id``,
``session_id`` and ``tags`` — that is stored with the source (a conversation or a document) and
inherited by every fact and chunk derived from it; a source has one scope, set when it is created.

Recall filters by the same four (a hard filter, applied in SQL by every channel: see
:mod:`gieok.store._scopes`):

* ``user_id`` — that user's memories, plus *shared* ones (retained without a ``user_id``: documents,
  the agent's own knowledge) unless ``include_shared=False``. Another user's memory is never
  returned, by any channel, observation, mental model or reflect quote.
* ``agent_id`` / ``session_id`` — memories retained with exactly that agent / session.
* ``tags`` — memories carrying every one of the tags.

``scopes={"user": 1.0, "session": 1.2, "agent": 0.5, "tags": 1.1}`` re-weighs instead of filtering:
each dimension named there (other than ``user``) stops being a filter, and a memory that matches
the id given for it has its score multiplied by its weight; a memory's multiplier is the product of
the weights of every named dimension it matches (×1 when it matches none). ``user`` stays a filter
whatever ``scopes`` says; its weight multiplies the user's own memories against the shared ones.
A weight for a dimension whose id the call does not give is refused (ScopeError).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gieok.errors import ScopeError
from gieok.limits import limit
from gieok.records import UNSCOPED, Scope, ScopeFilter

__all__ = ["MAX_SCOPE_CHARS", "MAX_TAGS", "SCOPE_DIMENSIONS", "UNFILTERED", "RecallScope", "check_scope",
           "common_scope", "memory_scope", "own_facts", "recall_scope", "scope_weight"]

MAX_SCOPE_CHARS = limit("id_chars")  # a user / agent / session id or a tag: an id, not a text
MAX_TAGS = 32
SCOPE_DIMENSIONS = ("user", "agent", "session", "tags")


def _kind(value: Any) -> str:
    """What a refused value was, without echoing it (a server sends the message back)."""
    return "an empty string" if value == "" else type(value).__name__


def _check_id(value: Any, name: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ScopeError(f"{name} must be a non-empty string, e.g. {name}='alice' (got {_kind(value)}); leave it out "
                         "for a memory no one owns")
    if len(value) > MAX_SCOPE_CHARS or any(ord(c) < 32 for c in value):
        raise ScopeError(f"{name} must be a short id of at most {MAX_SCOPE_CHARS} characters without control "
                         f"characters (got {len(value)} characters): use an opaque id such as 'u-1042'")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ScopeError(f"{name} holds a lone surrogate: decode it with errors='replace' first") from None
    return value


def _check_tags(tags: Any) -> tuple[str, ...]:
    if tags is None:
        return ()
    if isinstance(tags, (str, bytes)) or not isinstance(tags, Sequence):
        raise ScopeError(f"tags must be a list of short strings, e.g. tags=['work', '여행'] (got {_kind(tags)})")
    checked = tuple(dict.fromkeys(_check_id(t, "a tag") or "" for t in tags))
    if len(checked) > MAX_TAGS:
        raise ScopeError(f"{len(checked)} tags: give at most {MAX_TAGS}; put longer descriptions in metadata")
    return checked


def check_scope(user_id: Any = None, agent_id: Any = None, session_id: Any = None, tags: Any = None) -> Scope:
    """The scope a retain call gives, checked (ScopeError says what to fix)."""
    return Scope(_check_id(user_id, "user_id"), _check_id(agent_id, "agent_id"), _check_id(session_id, "session_id"),
                 _check_tags(tags))


@dataclass(frozen=True)
class RecallScope:
    """What a recall may see (``filter``, applied in SQL) and how it re-weighs what it sees."""

    filter: ScopeFilter = ScopeFilter()
    asked: Scope = UNSCOPED  # every id the call gave, filtered on or weighed
    weights: Mapping[str, float] = field(default_factory=dict)


UNFILTERED = RecallScope()  # a recall of the whole bank (the default)


def recall_scope(user_id: Any = None, agent_id: Any = None, session_id: Any = None, tags: Any = None,
                 include_shared: bool = True, scopes: Mapping[str, Any] | None = None) -> RecallScope:
    """The filter and weights of a recall call, checked (see the module docstring)."""
    asked = check_scope(user_id, agent_id, session_id, tags)
    if not isinstance(include_shared, bool):
        raise ScopeError(f"include_shared must be True or False (got {_kind(include_shared)})")
    if not include_shared and asked.user_id is None:
        raise ScopeError("include_shared=False leaves out the memories without a user: give the user_id whose "
                         "memories to keep, e.g. user_id='u-1042'")
    weights: dict[str, float] = {}
    if scopes is not None:
        if not isinstance(scopes, Mapping):
            raise ScopeError("scopes must map a dimension to a weight, e.g. scopes={'session': 1.2, 'agent': 0.5}")
        given = {"user": asked.user_id, "agent": asked.agent_id, "session": asked.session_id, "tags": asked.tags}
        for name, weight in scopes.items():
            if name not in SCOPE_DIMENSIONS:
                raise ScopeError(f"scopes names {name!r}: use {', '.join(SCOPE_DIMENSIONS)}")
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight) \
                    or weight <= 0:
                raise ScopeError(f"the weight of {name!r} in scopes must be a positive number, e.g. 1.2")
            if not given[name]:
                key = "tags" if name == "tags" else f"{name}_id"
                raise ScopeError(f"scopes weighs {name!r} but the call gives no {key}: pass {key}=... too")
            weights[name] = float(weight)
    weighed = set(weights) - {"user"}  # user_id is always a filter
    scope_filter = ScopeFilter(
        user_id=asked.user_id, include_shared=include_shared,
        agent_id=None if "agent" in weighed else asked.agent_id,
        session_id=None if "session" in weighed else asked.session_id,
        tags=() if "tags" in weighed else asked.tags)
    return RecallScope(scope_filter, asked, weights)


def scope_weight(memory: Scope, recall: RecallScope) -> float:
    """The product of the weights of every dimension in ``recall.weights`` that ``memory`` matches."""
    asked, weight = recall.asked, 1.0
    matches = {"user": memory.user_id is not None and memory.user_id == asked.user_id,
               "agent": memory.agent_id is not None and memory.agent_id == asked.agent_id,
               "session": memory.session_id is not None and memory.session_id == asked.session_id,
               "tags": bool(asked.tags) and set(asked.tags) <= set(memory.tags)}
    for name, factor in recall.weights.items():
        if matches[name]:
            weight *= factor
    return weight


def common_scope(scopes: Sequence[Scope]) -> Scope:
    """What every one of ``scopes`` shares (an observation's scope, from its facts')."""
    if not scopes:
        return Scope()

    def shared(values: set[str | None]) -> str | None:
        return next(iter(values)) if len(values) == 1 else None

    tags = set.intersection(*(set(s.tags) for s in scopes))
    return Scope(shared({s.user_id for s in scopes}), shared({s.agent_id for s in scopes}),
                 shared({s.session_id for s in scopes}), tuple(t for t in scopes[0].tags if t in tags))


def memory_scope(memory: Any) -> Scope:
    """A recalled memory's scope, as a Scope."""
    return Scope(memory.user_id, memory.agent_id, memory.session_id, tuple(memory.tags))


def own_facts(scope: Scope) -> ScopeFilter | None:
    """The filter retain's neighbour searches (semantic links, supersede candidates) use for facts of
    ``scope``: that user's facts only — in a bank of many users, a user's older version must not be
    crowded out of the nearest few by other users' alike statements. None (the whole bank) for shared
    facts."""
    return ScopeFilter(user_id=scope.user_id, include_shared=False) if scope.user_id is not None else None
