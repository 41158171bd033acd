"""Profile slots: typed facts about a person, with their current value and history, found in O(1).

At retain (before the write lock) every fact a person (not an agent) said is read by the bank's
decision model (``DecisionModel.read_profile``; offline the learned slot model,
:mod:`gieok.extract.slot_model`: name, nickname, birthday, allergy, diet, health, job, employer, city,
family members, preferences — Korean and English, a bare answer read with the question it answers);
each value found is a ``profile_slots`` row that points at its fact, so it carries the fact's
provenance and goes with it when the fact is erased.

Which value is current is decided when the rows are read, in the order they were said:

* a **single-valued** slot (name, birthday, job, employer, city, diet, …) holds the value said last;
  a later denial ("이제 채식 안 해", "I left Samsung") leaves it empty; the earlier values are its history
  (supersede per slot);
* a **multi-valued** slot (allergy, health, family, preference) holds every value not denied since;
  a denial of no particular value ("알레르기는 없어요", "no allergies") clears it.

``lookup(ctx, slot, entity)`` answers "내 생일 언제야?" / "What's my sister's name?" from these rows;
``profile_ranking`` is the recall channel that puts the fact holding the asked slot first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gieok.engine._time import from_epoch
from gieok.engine.context import BankContext
from gieok.engine.speakers import is_agent
from gieok.errors import InputError
from gieok.extract.slot_model import MULTI_VALUED, RELATIONS, SLOTS, SlotValue
from gieok.extract.slot_question import SlotQuestion, slot_question
from gieok.ids import fact_memory_id as memory_id
from gieok.ids import fact_number
from gieok.providers.decisions import DecisionModel
from gieok.records import NewFact, Profile, ScopeFilter, Slot, SlotRow, SlotStatement

__all__ = ["Profile", "Slot", "SlotStatement", "check_slot", "lookup", "plan_slots", "profile", "profile_ranking",
           "profile_rows"]

SELF = "self"


def plan_slots(facts: Sequence[NewFact], decisions: DecisionModel) -> list[list[SlotValue]]:
    """The slot values each fact states, read by the bank's decision model before the write lock: only
    the user's own words fill a slot (an agent's facts, a document's, a forwarded message's state
    nothing about the person — gieok.engine.retain.doubt)."""
    return [decisions.read_profile(f.text, f.replies_to or "")
            if f.speaker and not is_agent(f.speaker) and f.trust == "user" else [] for f in facts]


def profile_rows(fact_ids: Sequence[int], facts: Sequence[NewFact], slots: Sequence[Sequence[SlotValue]],
                 now: float) -> list[SlotRow]:
    """The rows of newly written facts, from what :func:`plan_slots` read in them."""
    rows: list[SlotRow] = []
    for fact_id, fact, found in zip(fact_ids, facts, slots, strict=True):
        said = fact.mentioned_at if fact.mentioned_at is not None else now
        rows += [SlotRow(fact_id, fact.speaker or "", v.holder, v.slot, v.value, v.relation, v.negated, said)
                 for v in found]
    return rows


def _statements(rows: Iterable[SlotRow]) -> list[SlotStatement]:
    """The rows as statements; one whose time cannot be read back is left out (from_epoch logs it)."""
    return [SlotStatement(r.value, memory_id(r.fact_id), said_at, r.negated, r.relation)
            for r in rows if (said_at := from_epoch(r.said_at)) is not None]


def _slot(person: str, holder: str, slot: str, history: list[SlotStatement]) -> Slot:
    current: dict[str, str] = {}  # value -> memory id, in the order said
    for statement in history:
        if slot in MULTI_VALUED:
            if statement.negated:
                if statement.value in current:
                    del current[statement.value]
                else:
                    current.clear()  # "알레르기는 없어요": none of them
            else:
                current.pop(statement.value, None)
                current[statement.value] = statement.memory_id
        else:
            current = {} if statement.negated else {statement.value: statement.memory_id}
    return Slot(person, holder, slot, list(current), list(current.values()), history)


def _profiles(rows: Sequence[SlotRow]) -> list[Profile]:
    # a person is a speaker within one user's memories: two customers both speaking as "user" in one
    # bank are never merged into one profile (one's birthday beside the other's job)
    grouped: dict[tuple[str | None, str], dict[tuple[str, str], list[SlotRow]]] = {}
    for row in rows:
        grouped.setdefault((row.user_id, row.person), {}).setdefault((row.holder, row.slot), []).append(row)
    order = {name: i for i, name in enumerate(SLOTS)}
    out = []
    for (user_id, person), slots in grouped.items():
        built = [_slot(person, holder, slot, _statements(slot_rows)) for (holder, slot), slot_rows in slots.items()]
        built.sort(key=lambda s: (s.holder != SELF, s.holder, order.get(s.slot, len(order))))
        out.append(Profile(person, built, user_id))
    out.sort(key=lambda p: -len(p.slots))
    return out


def profile(ctx: BankContext, person: str | None = None, scope: ScopeFilter | None = None) -> list[Profile]:
    """The profiles of everyone who stated something about themselves (or only ``person``'s; only
    from memories in ``scope``: a user's own, with the shared ones unless it says not), the person with
    the most slots first."""
    return _profiles(ctx.store.slots.all(ctx.bank.id, person=person, scope=scope))


def _resolve(profiles: list[Profile], entity: str | None) -> tuple[Profile, str] | None:
    """Whose slot ``entity`` asks for: a person by name, a relative of the main person ("sister",
    "언니"), or a relative by the name the main person gave them; None: the main person."""
    if not profiles:
        return None
    main = profiles[0]
    if entity is None or not entity.strip():
        return main, SELF
    wanted = entity.strip().lower()
    for candidate in profiles:
        if candidate.person.lower() == wanted:
            return candidate, SELF
    relation = RELATIONS.get(wanted, wanted if wanted in RELATIONS.values() else None)
    if relation is not None:
        return main, relation
    family = main.get("family")
    for statement in family.history if family else []:
        if statement.value.lower() == wanted and statement.relation:
            return main, statement.relation
    return None


def check_slot(slot: object) -> None:
    if slot not in SLOTS:
        raise InputError(f"slot is not a profile slot: use one of {', '.join(SLOTS)}")


def lookup(ctx: BankContext, slot: str, entity: str | None = None, profiles: list[Profile] | None = None,
           scope: ScopeFilter | None = None) -> Slot | None:
    """The main person's ``slot`` — or ``entity``'s: a person's name, a relative ("sister", "엄마") or
    a relative's name — with its current value and history; None when nobody stated it. A relative's
    ``name`` (or ``family``) is the family slot's member of that relation."""
    resolved = _resolve(profile(ctx, scope=scope) if profiles is None else profiles, entity)
    if resolved is None:
        return None
    person, holder = resolved
    if slot in ("name", "family") and holder != SELF:
        family = person.get("family")
        if family is None:
            return None
        named = [s for s in family.history if s.relation == holder]
        return _slot(person.person, holder, "name", named) if named else None
    return person.get(slot, holder)


def _number(memory: str) -> int:
    number = fact_number(memory)
    assert number is not None, memory  # slot statements are built from fact ids
    return number


def _named_in(query: str, profiles: list[Profile]) -> str | None:
    """A person of the bank, or a relative by the name they were given, that ``query`` names."""
    lowered = query.lower()
    names = [p.person for p in profiles[1:]]  # the main person is who asks: "내" / "my"
    family = profiles[0].get("family") if profiles else None
    names += [s.value for s in family.history] if family else []
    for name in sorted(set(names), key=len, reverse=True):
        if len(name) >= 2 and name.lower() in lowered:
            return name
    return None


def _asked_profiles(ctx: BankContext, query: str, asked: SlotQuestion, scope: ScopeFilter | None) -> list[Profile]:
    """The profiles :func:`profile` gives, in its order, holding what a question about one slot can
    reach: the main person's ``asked.slot`` and ``family`` (which names the relatives), and the asked
    slot of anyone the question names — read without building every slot of everyone on each recall."""
    people = ctx.store.slots.people(ctx.bank.id, scope=scope)
    if not people:
        return []
    lowered, relation = query.lower(), (asked.relation or "").lower()
    main = people[0][1]
    reached = {main} | {p for _, p in people[1:] if p.lower() in lowered or p.lower() == relation}
    rows = [r for person in sorted(reached)
            for name in dict.fromkeys((asked.slot, "family") if person == main else (asked.slot,))
            for r in ctx.store.slots.all(ctx.bank.id, person=person, slot=name, scope=scope)]
    built = {(p.user_id, p.person): p for p in _profiles(rows)}
    return [built.get((user_id, person)) or Profile(person, [], user_id) for user_id, person in people]


def profile_ranking(ctx: BankContext, query: str, asked: SlotQuestion | None = None,
                    scope: ScopeFilter | None = None) -> list[tuple[int, float]]:
    """The recall channel: for a question about a profile slot ("내 생일 언제야?", "Where did I work
    before?"; ``asked``, read from ``query`` when not given), the facts stating its current value — or
    its earlier ones when the question asks about the past — best first; nothing for any other question."""
    asked = asked if asked is not None else slot_question(query)
    if asked is None:
        return []
    profiles = _asked_profiles(ctx, query, asked, scope)  # a user-filtered recall: only that user's statements
    if not profiles:
        return []
    entity = _named_in(query, profiles) or asked.relation
    found = lookup(ctx, asked.slot, entity, profiles)
    if found is None:
        return []
    if asked.previous:
        ids = [s.memory_id for s in found.previous()]
    else:
        ids = list(reversed(found.memory_ids))  # the latest statement first
    return [(_number(m), 1.0 / (1 + i)) for i, m in enumerate(dict.fromkeys(ids))]
