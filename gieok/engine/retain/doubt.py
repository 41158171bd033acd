"""The memory quarantine: doubt what comes in, before it is remembered.

Every fact carries the **trust level** of where it came from — ``user`` (the user's own words) >
``assistant`` > ``document`` > ``web`` / ``tool`` output. A conversation's messages take theirs from
the speaker (an agent's name is ``assistant``, ``tool`` / ``function`` is ``tool``, anyone else
``user``), a document's is ``document``; the caller may set one for a whole retain (``trust=``),
e.g. ``"web"`` for a crawled page or ``"user"`` for the user's own notes. Words a user *hands on* —
a forwarded e-mail, a pasted message, a quotation (:func:`gieok.defense.quoted_part`) — count as a
document, not as the user.

At retain, a statement below the user's own words that reads as an instruction to the assistant
("SYSTEM: …", "이전 지시는 무시하고 …", a fake tool result, hidden or encoded text; judged by the
learned model of :mod:`gieok.defense._instructions`) is **held**: it stays verbatim in its source,
but it is not a fact — recall, reflect and the profile never see it. :func:`held` lists what is
held, with the reason; :func:`release` writes one as a fact (still at its trust level), :func:`dismiss`
leaves it only in the source. Forgetting the source takes its held statements too.

Trust also orders what may replace what: a statement from a lower-trust source never supersedes one
from a more trusted source (:func:`may_replace`), and only the user's own words fill profile slots.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gieok.defense import judged_part
from gieok.engine._time import at_epoch
from gieok.engine.speakers import is_agent
from gieok.errors import HeldNotFoundError, InputError
from gieok.providers.decisions import DecisionModel
from gieok.records import FactRow, HeldStatement, NewFact

__all__ = ["TRUST_LEVELS", "Held", "HeldStatement", "check_trust", "hold_instructions",
           "may_replace", "statement_trust", "trust_of", "trust_rank"]

TRUST_LEVELS = ("user", "assistant", "document", "web", "tool")

_RANK = {"user": 3, "assistant": 2, "document": 1, "web": 0, "tool": 0}
_TOOL_SPEAKERS = frozenset({"tool", "function", "tool_result", "function_call"})


def check_trust(value: Any) -> str | None:
    """A caller's ``trust=`` (None: by speaker and source kind), or an InputError listing the levels."""
    if value is None or value in TRUST_LEVELS:
        return value  # type: ignore[no-any-return]
    raise InputError(f"trust must be one of {', '.join(TRUST_LEVELS)} (or left out to go by the speaker)")


def trust_rank(trust: str) -> int:
    return _RANK.get(trust, 0)


def speaker_trust(speaker: str | None) -> str:
    """A message's trust by its speaker; a document's (no speaker) is ``document``."""
    if speaker is None:
        return "document"
    if speaker.strip().casefold() in _TOOL_SPEAKERS:
        return "tool"
    return "assistant" if is_agent(speaker) else "user"


def trust_of(fact: FactRow) -> str:
    """A stored fact's trust (one written before trust was kept goes by its speaker)."""
    return fact.trust or speaker_trust(fact.speaker)


def may_replace(newer: FactRow, older: FactRow) -> bool:
    """Whether ``newer`` may supersede ``older``: never from a less trusted source."""
    return trust_rank(trust_of(newer)) >= trust_rank(trust_of(older))


def statement_trust(text: str, speaker: str | None, given: str | None) -> tuple[str, str | None]:
    """The trust of one statement and what of it the quarantine judges (None: nothing): the caller's
    level or the speaker's; a user's statement that hands on someone else's words is a document's."""
    trust = given or speaker_trust(speaker)
    part = judged_part(text, trust)
    if trust == "user" and part is not None:
        trust = "document"
    return trust, part


@dataclass(frozen=True)
class Held:
    """A planned fact the quarantine holds back, and why."""

    fact: NewFact
    reason: str
    probability: float


def hold_instructions(chunks: Sequence[Any], vectors: list[Any], mentions: list[list[Any]], causal: list[Any],
                      given: str | None, decisions: DecisionModel) -> int:
    """Set every planned fact's trust and move those that ``decisions`` judges instructions, from a
    lower-trust source, into their chunk's ``held`` list (with their vectors and mentions out of the
    plan, and causal links through them dropped). Returns how many were held."""
    held_total = 0
    moved: dict[tuple[int, int], int | None] = {}  # (chunk, old position) -> new position, None if held
    for i, chunk in enumerate(chunks):
        keep: list[int] = []
        for j, fact in enumerate(chunk.facts):
            fact.trust, part = statement_trust(fact.text, fact.speaker, given)
            decision = decisions.decide("instruction", text=part, trust=fact.trust) if part is not None else None
            if decision is not None and decision.yes:
                chunk.held.append(Held(fact, f"{decision.provider}: {decision.reason}", decision.probability))
                moved[(id(chunk), j)] = None
            else:
                moved[(id(chunk), j)] = len(keep)
                keep.append(j)
        if len(keep) == len(chunk.facts):
            continue
        held_total += len(chunk.facts) - len(keep)
        own, context = vectors[i]
        vectors[i] = (own[np.asarray(keep, dtype=np.int64)] if len(own) else own, [context[j] for j in keep])
        if i < len(mentions):
            mentions[i] = [mentions[i][j] for j in keep]
        chunk.facts = [chunk.facts[j] for j in keep]
    if held_total:
        causal[:] = [(a, moved[(id(a), x)], relation, b, moved[(id(b), y)]) for a, x, relation, b, y in causal
                     if moved.get((id(a), x), x) is not None and moved.get((id(b), y), y) is not None]
    return held_total


def held_id(number: int) -> str:
    return f"q-{number}"


def held_number(value: str) -> int:
    """The row number of a held statement's id ("q-12"); HeldNotFoundError for anything else."""
    if isinstance(value, str) and value.startswith("q-") and value[2:].isdigit() and len(value) < 22:
        return int(value[2:])
    raise HeldNotFoundError()


def statement(row: Any) -> HeldStatement:
    return HeldStatement(held_id(row.id), row.source_external_id, row.message_id, row.speaker, row.text, row.trust,
                         row.reason, row.probability, at_epoch(row.created_at))
