"""What both stores are built of: the write path, and one object per area of the tables.

A store is its connections (:class:`~gieok.store._write_path.WritePath`) plus its areas, each an
object holding the store (:class:`~gieok.store._area.Area`): ``store.banks``, ``store.sources``,
``store.facts`` … (the protocols are in :mod:`gieok.store.protocol`). Every area but two is
written once for both databases; the two whose SQL really differs — ``search`` (the keyword and
vector indexes) and ``erasure`` (the proof that erased text is gone) — are each store's own
subclass, named by the store's ``_search_area`` and ``_erasure_area``.
"""

from __future__ import annotations

from gieok.store._area import Area
from gieok.store._audit import SQLAudit
from gieok.store._banks import SQLBanks
from gieok.store._erasure import SQLErasure
from gieok.store._facts import SQLFacts
from gieok.store._graph import SQLGraph
from gieok.store._held import SQLHeld
from gieok.store._jobs import SQLJobs
from gieok.store._keys import SQLKeys
from gieok.store._llm import SQLLLMUsage
from gieok.store._meta import SQLMeta
from gieok.store._models import SQLMentalModels
from gieok.store._observations import SQLObservations
from gieok.store._portable import SQLPortable
from gieok.store._reembed import SQLReembed
from gieok.store._search import SQLSearch
from gieok.store._sessions import SQLSessions
from gieok.store._slots import SQLSlots
from gieok.store._sources import SQLSources
from gieok.store._versions import SQLVersions
from gieok.store._write_path import WritePath
from gieok.store.protocol import VectorOptions

__all__ = ["StoreBase"]


class StoreBase(WritePath):
    """A store's connections and areas; a store calls :meth:`_open_areas` in its constructor."""

    path: str
    file_backed: bool
    ephemeral: bool
    vector_options = VectorOptions()  # the engine sets its own from its settings
    _search_area: type[SQLSearch]
    _erasure_area: type[SQLErasure]

    @classmethod
    def area_classes(cls) -> dict[str, type[Area]]:
        """Each area attribute of this store and the class that serves it."""
        return {"banks": SQLBanks, "meta": SQLMeta, "audit": SQLAudit, "sources": SQLSources, "facts": SQLFacts,
                "search": cls._search_area, "graph": SQLGraph, "versions": SQLVersions, "erasure": cls._erasure_area,
                "observations": SQLObservations, "jobs": SQLJobs, "models": SQLMentalModels, "llm": SQLLLMUsage,
                "slots": SQLSlots, "sessions": SQLSessions, "held": SQLHeld, "reembed": SQLReembed, "keys": SQLKeys,
                "portable": SQLPortable}

    def _open_areas(self) -> None:
        self.banks = SQLBanks(self)
        self.meta = SQLMeta(self)
        self.audit = SQLAudit(self)
        self.sources = SQLSources(self)
        self.facts = SQLFacts(self)
        self.search: SQLSearch = self._search_area(self)
        self.graph = SQLGraph(self)
        self.versions = SQLVersions(self)
        self.erasure: SQLErasure = self._erasure_area(self)
        self.observations = SQLObservations(self)
        self.jobs = SQLJobs(self)
        self.models = SQLMentalModels(self)
        self.llm = SQLLLMUsage(self)
        self.slots = SQLSlots(self)
        self.sessions = SQLSessions(self)
        self.held = SQLHeld(self)
        self.reembed = SQLReembed(self)
        self.keys = SQLKeys(self)
        self.portable = SQLPortable(self)
