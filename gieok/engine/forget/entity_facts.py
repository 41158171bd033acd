"""Which facts name an entity, for ``forget(entity=...)``: by its mentions, and by any of its names in the text.

The entity graph links a fact to an entity only where the extractor found a mention; a
sentence-initial "Pennyworthia-Smythe raised the rent again." is no mention, yet it names her. So
an entity is erased by its names, read in every fact of the bank: its own names (the name given,
the canonical name and aliases of every entity the resolver would link that name to, and the
surfaces its mentions were written as) and the parts the resolver links to a person — each word of
an English full name (Caroline, Pennyworthia-Smythe), a Korean given name (민지) and surname with a
title the entity was called (김 팀장님). A part another entity of the bank also answers to (a second
Caroline, another 김 팀장) is left out: it names that one as much, and its facts stay unless their
mentions link them to this one. Parts of places, organisations and things are not used (the
"York" of New York names nothing by itself).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gieok.entities import SURNAME_KEY_PREFIX, candidate_keys, name_similarity
from gieok.entities._similarity import SAME_WORDS
from gieok.store.protocol import BankRow, Store

__all__ = ["EntityNames", "entity_names", "facts_naming"]

_PAGE = 500
_PERSONLIKE = ("person", "unknown")


@dataclass
class EntityNames:
    """The entities a name given to ``forget`` denotes, and every spelling that names them."""

    entity_ids: list[int] = field(default_factory=list)
    names: list[str] = field(default_factory=list)  # full names and distinctive parts, for the proof too
    patterns: list[re.Pattern[str]] = field(default_factory=list)

    def named_in(self, text: str) -> bool:
        return any(p.search(text) for p in self.patterns)


def _pattern(name: str, *, exact_case: bool = False) -> re.Pattern[str]:
    """``name`` as a word: no letter may touch it on the left; on the right only a Latin name needs
    a boundary (Korean particles attach: 민지가, 김민지는). Spaces inside may be any or none. A part
    of a Latin name keeps its capital (``exact_case``): "Rose" names her, "a rose" does not."""
    body = r"\s*".join(re.escape(part) for part in name.split())
    right = r"(?![^\W_])" if re.search(r"[A-Za-z0-9]$", name) else ""
    return re.compile(rf"(?<![^\W_]){body}{right}", 0 if exact_case else re.IGNORECASE)


def _denoted(store: Store, bank: BankRow, entity: str) -> list[Any]:
    """The entities sharing a lookup key with ``entity`` whose names it can denote (Caroline
    Pennyworthia-Smythe denotes "Caroline" and herself, not Caroline Brightwater)."""
    rows = store.graph.entities_by_keys(bank.id, candidate_keys(entity))
    return [r for r in rows if name_similarity(entity, [r.canonical_name, *r.aliases],
                                               candidate_titles=r.titles) is not None]


def _parts(row: Any, name: str) -> list[str]:
    """The parts of ``name`` the resolver links to ``row`` alone: words, a given name, surname + title."""
    if row.kind not in _PERSONLIKE:
        return []
    parts: list[str] = []
    for key in candidate_keys(name)[1:]:
        if key.startswith(SURNAME_KEY_PREFIX):
            surname = key.removeprefix(SURNAME_KEY_PREFIX)
            parts += [f"{surname} {title}" for title in row.titles]
        elif len(key) >= 2 and not key.isdigit():
            spelled = re.search(re.escape(key), name, re.IGNORECASE)
            word = spelled.group(0) if spelled else key
            if word[:1].isupper() or not word[:1].isascii():  # a lower-case word of a name names nobody
                parts.append(word)
    return parts


@dataclass(frozen=True)
class _Unknown:
    """The entity a name denotes when the graph holds none (any more): a person, titles unknown."""

    kind: str = "unknown"
    titles: tuple[str, ...] = ()


def _namesakes(store: Store, bank: BankRow, part: str, ours: set[int]) -> bool:
    """Whether another entity of the bank answers to ``part`` too."""
    words = part.split()
    if len(words) == 2:  # surname + title: another entity of that surname called so
        others = store.graph.entities_by_keys(bank.id, [SURNAME_KEY_PREFIX + words[0]])
        return any(e.id not in ours and words[1] in e.titles for e in others)
    return any(e.id not in ours for e in store.graph.entities_by_keys(bank.id, candidate_keys(part)[:1]))


def entity_names(store: Store, bank: BankRow, entity: str) -> EntityNames:
    """The entities ``entity`` denotes in ``bank`` and every name and distinctive part they go by."""
    rows = _denoted(store, bank, entity)
    ours = {r.id for r in rows}
    known = [n for r in rows for n in (r.canonical_name, *r.aliases)]
    mentioned = store.erasure.fact_ids(bank.id, entity_ids=sorted(ours)) if ours else []
    known += [surface for _fact, entity_id, surface in store.graph.mentions(mentioned) if entity_id in ours]
    # a name as specific as the one given is hers alone; a shorter one ("Caroline") is a part
    full = [entity.strip(), *(n for n in known if (name_similarity(n, [entity]) or 0.0) >= SAME_WORDS)]
    parts = [n for n in known if n not in full]
    parts += [p for r in rows for n in dict.fromkeys([entity, r.canonical_name, *r.aliases]) for p in _parts(r, n)]
    if not rows:  # no entity (yet, or any more): the words of the name given still name the person
        parts = _parts(_Unknown(), entity)
    parts = [p for p in dict.fromkeys(parts) if p not in full and not _namesakes(store, bank, p, ours)]
    full = [n for n in dict.fromkeys(full) if n.strip()]
    return EntityNames(sorted(ours), [*full, *parts],
                       [*map(_pattern, full), *(_pattern(p, exact_case=p.isascii()) for p in parts)])


def facts_naming(store: Store, bank: BankRow, named: EntityNames) -> list[int]:
    """Every fact of the bank linked to the entities or naming them in its text."""
    ids = set(store.erasure.fact_ids(bank.id, entity_ids=named.entity_ids)) if named.entity_ids else set()
    page: list[int] = []
    for fact_id in store.facts.ids(bank.id):
        page.append(fact_id)
        if len(page) >= _PAGE:
            ids |= _naming(store, bank, named, page)
            page = []
    return sorted(ids | _naming(store, bank, named, page))


def _naming(store: Store, bank: BankRow, named: EntityNames, fact_ids: Sequence[int]) -> set[int]:
    return {f.id for f in store.facts.get(bank.id, fact_ids) if named.named_in(f.text)} if fact_ids else set()
