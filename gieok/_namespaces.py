"""The verbs of :class:`gieok.Memory` grouped by what they act on: ``mem.keys``, ``mem.jobs``,
``mem.banks``, ``mem.browse`` and ``mem.models``.

Part of the facade (with :mod:`gieok.memory`): each method checks its arguments at the edge
(:mod:`gieok.engine._edge`, as Memory's own methods do), calls one engine function and returns a
record of :mod:`gieok.records`. Adapters (the server, CLI, workers, integrations) reach the engine
only through these and Memory's methods, never ``memory.engine`` — ``tools/check_layers.py`` keeps it
so. Each namespace has an async twin (``AsyncKeys`` …) on :class:`gieok.AsyncMemory`, made the same
way as AsyncMemory itself, so the pair cannot drift.
"""

from __future__ import annotations

import builtins
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from gieok._lazy import lazy_module
from gieok._twin import add_async_twins, in_thread
from gieok.engine._edge import check_every_method
from gieok.engine._time import TimeLike, optional_epoch
from gieok.engine._validate import check_int64, check_optional_text, check_text
from gieok.records import (
    ApiKey,
    BankInfo,
    BankOverview,
    ClaimedJob,
    Connections,
    DeletedBank,
    EntityView,
    Job,
    JobReport,
    MentalModel,
    MergeSuggestion,
    Operation,
    Principal,
    RecalledMemory,
)

# the engine's modules, imported when a verb first calls them (see gieok.memory and gieok._lazy)
if TYPE_CHECKING:
    from gieok.engine import context as _context
    from gieok.engine.admin import banks as _banks
    from gieok.engine.admin import browse as _browse
    from gieok.engine.admin import keys as _keys
    from gieok.engine.context import Engine
    from gieok.engine.jobs import queue as _jobs
    from gieok.engine.reflect import mental_models as _models
else:
    _context = lazy_module("gieok.engine.context")
    _banks = lazy_module("gieok.engine.admin.banks")
    _browse = lazy_module("gieok.engine.admin.browse")
    _keys = lazy_module("gieok.engine.admin.keys")
    _jobs = lazy_module("gieok.engine.jobs.queue")
    _models = lazy_module("gieok.engine.reflect.mental_models")

__all__ = ["Keys", "Jobs", "Banks", "Browse", "Models", "AsyncKeys", "AsyncJobs", "AsyncBanks", "AsyncBrowse",
           "AsyncModels"]


class _Namespace:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def __repr__(self) -> str:
        return f"<gieok {type(self).__name__.lower()} of {self._engine.store.path!r}>"


class Keys(_Namespace):
    """API keys (``mem.keys``): who may reach which banks through the server adapters. A key is shown
    once, when created; only its digest is kept (see :mod:`gieok.engine.admin.keys`)."""

    def create(self, *, role: str, banks: Sequence[str] = (), name: str | None = None) -> tuple[ApiKey, str]:
        """A new key of ``role`` (read / write / admin) for ``banks`` (an admin key reaches every bank):
        its record and the key itself, which is never shown again."""
        return _keys.create_key(self._engine, role=role, banks=list(banks), name=check_optional_text(name, "name"))

    def list(self) -> list[ApiKey]:
        """Every key, revoked ones included (never the key itself)."""
        return _keys.list_keys(self._engine)

    def revoke(self, key_id: int) -> ApiKey:
        """Revoke key ``key_id`` (NotFoundError when there is none); returns it, revoked."""
        return _keys.revoke_key(self._engine, key_id)

    def count(self) -> int:
        """How many keys are in force (0: a server needs none unless told to require them)."""
        return _keys.key_count(self._engine)

    def authenticate(self, key: str | None) -> Principal:
        """The caller a presented key stands for; a missing, unknown or revoked key raises KeyRequiredError."""
        return _keys.authenticate(self._engine, key)

    def shared_secret(self, name: str) -> bytes:
        """A random 32-byte secret drawn once per database and kept in it, so every process serving the
        same database signs with the same one (the web UI's CSRF tokens)."""
        return self._engine.shared_secret(check_text(name, "name"))


class Jobs(_Namespace):
    """The durable job queue (``mem.jobs``): list it, run it here, follow, cancel or retry one job,
    and — for a worker process — claim, run and release jobs one at a time (see :mod:`gieok.engine.jobs.queue`).
    ``mem.jobs(...)`` is ``mem.jobs.list(...)``."""

    def __call__(self, bank: str | None = None, *, status: str | None = None, limit: int = 100) -> list[Job]:
        return self.list(bank, status=status, limit=limit)

    def list(self, bank: str | None = None, *, status: str | None = None, limit: int = 100) -> list[Job]:
        """The job queue of ``bank`` (or every bank), newest first: kind, status, attempts, last error."""
        bank_id = self._engine.bank(bank).bank.id if bank is not None else None
        return _jobs.list_jobs(self._engine, bank_id, check_optional_text(status, "status"),
                               check_int64(limit, "limit", low=1))

    def run(self, bank: str | None = None, *, limit: int | None = None,
            now: TimeLike | None = None) -> builtins.list[JobReport]:
        """Run queued jobs (consolidation, decay, purge, mental-model refresh, submitted retains) in this
        thread: all that are due, or ``limit``; one report per job run."""
        bank_id = self._engine.bank(bank).bank.id if bank is not None else None
        reports = _jobs.run_pending(self._engine, limit=limit, bank_id=bank_id, now=optional_epoch(now, "now"))
        return [JobReport(**report) for report in reports]

    def maintain(self, bank: str | None = None, *, now: TimeLike | None = None) -> builtins.list[JobReport]:
        """Queue the maintenance jobs (decay, TTL purge) for ``bank`` (or every bank), train any vector
        index that is due, and run every pending job; one report per job."""
        rows = [self._engine.bank(bank).bank] if bank is not None else self._engine.store.banks.rows()
        _jobs.build_due_indexes(self._engine, rows)
        _jobs.queue_maintenance(self._engine, rows, optional_epoch(now, "now"))
        return self.run(bank, now=now)

    def get(self, operation_id: str) -> Operation:
        """One job as an operation (``op-12``): queued / running / done / failed / cancelled."""
        return _jobs.operation(self._engine, check_text(operation_id, "operation_id"))

    def cancel(self, operation_id: str) -> Operation:
        """Cancel a queued or running job. A running retain writes nothing (its worker's commit finds
        its claim gone and rolls back); OperationStateError once it has ended."""
        return _jobs.cancel(self._engine, operation_id)

    def retry(self, operation_id: str) -> Operation:
        """Queue a failed or cancelled job again, due now, with its attempts reset."""
        return _jobs.retry(self._engine, operation_id)

    # -- for worker processes: one claimed job at a time --------------------------------------
    def claim(self, *, banks: Collection[str] | None = None, after: ClaimedJob | None = None) -> ClaimedJob | None:
        """Claim the next due job — of ``banks`` only, when given; banks take turns after the bank of
        ``after`` (the last job this worker ran) — or None. Keep its lease alive with a
        :meth:`heartbeat` and end it with :meth:`run_claimed` or :meth:`release`."""
        bank_ids = None
        if banks is not None:
            wanted = set(banks)
            bank_ids = [b.id for b in self._engine.store.banks.rows() if b.name in wanted]
            if not bank_ids:
                return None
        claimed = _jobs.claim_next(self._engine, banks=bank_ids, after_bank=after.bank_id if after else None)
        if claimed is None:
            return None
        job, token = claimed
        return ClaimedJob(job.id, job.bank_id, job.kind, token, job)

    def run_claimed(self, claimed: ClaimedJob) -> JobReport:
        """Run a claimed job and record its end under its claim (status done, retry, failed, or lost
        when the claim ended while it ran)."""
        return JobReport(**_jobs.run_claimed(self._engine, claimed.job, claimed.token))

    def release(self, claimed: Collection[ClaimedJob]) -> builtins.list[int]:
        """Give claimed jobs back (queued again at once, the attempt not counted); a released job's late
        commit is refused by its claim. Returns the ids of the jobs that were still held."""
        return _jobs.release(self._engine, [(c.id, c.token) for c in claimed])

    def heartbeat(self) -> _jobs.Heartbeat:
        """A heartbeat that renews the leases of the claims added to it (``add(job_id, token)`` /
        ``remove(job_id)``) until it is closed (``__exit__``)."""
        return _jobs.Heartbeat(self._engine)

    def warm_up(self) -> None:
        """Load what the first job would load (the engine's modules, the embedder, the Korean morpheme
        analyser), so a worker's first claim is not spent loading models: :meth:`gieok.Memory.warm_up`."""
        _jobs.warm_up(self._engine)


class Banks(_Namespace):
    """The banks of this memory (``mem.banks``); ``mem.banks()`` is ``mem.banks.list()``."""

    def __call__(self) -> list[BankInfo]:
        return self.list()

    def list(self) -> list[BankInfo]:
        """Every bank, by name, with its embedder and how many sources and facts it holds."""
        return self._engine.store.banks.all()

    def names(self) -> builtins.list[str]:
        """Every bank's name, by name (cheaper than :meth:`list`: no counts)."""
        return [row.name for row in self._engine.store.banks.rows()]

    def check_name(self, bank: str) -> str:
        """``bank`` if it can name a bank (a non-empty string within the length limit); InputError otherwise."""
        return _context.check_bank_name(bank)

    def create(self, bank: str) -> BankInfo:
        """Create an empty bank (retain creates one too); an existing bank is returned as it is."""
        name = self._engine.bank_for_write(_context.check_bank_name(bank)).bank.name
        return next(b for b in self.list() if b.name == name)

    def delete(self, bank: str) -> DeletedBank:
        """Delete a bank and everything in it; returns how many rows of each kind went."""
        return _banks.delete_bank(self._engine, _context.check_bank_name(bank))


class Browse(_Namespace):
    """Looking around a bank (``mem.browse``), as the web UI does: its overview, the facts a source
    produced, a fact's connections, an entity's neighbourhood, entities that may be one."""

    def overview(self, bank: str, *, now: TimeLike | None = None) -> BankOverview:
        """A bank at a glance: counts of sources, facts, observations and entities; about how many
        bytes it holds; superseded, expired, archived and pinned facts; facts per week (by the day
        they were said) and decay class; the last activity and the jobs queued, running and failed."""
        return _browse.overview(self._engine.bank(bank), optional_epoch(now, "now"))

    def source_facts(self, bank: str, source_id: str) -> dict[str, list[RecalledMemory]]:
        """The facts a source produced, keyed by the id of the message each came from (a document's
        facts under ``""``)."""
        return _browse.source_facts(self._engine.bank(bank), check_text(source_id, "source_id"))

    def connections(self, bank: str, memory_id: str) -> Connections:
        """A fact's entities and its links to other facts (type, weight and the other fact's text)."""
        return _browse.connections(self._engine.bank(bank), check_text(memory_id, "memory_id"))

    def entity(self, bank: str, name: str, *, limit: int = 200) -> EntityView:
        """One entity by name or alias: its record, its latest ``limit`` facts and its neighbourhood
        (the entities named in the same facts, with how many facts they share)."""
        return _browse.entity(self._engine.bank(bank), check_text(name, "name"),
                              limit=check_int64(limit, "limit", low=1))

    def merge_suggestions(self, bank: str, *, limit: int = 20) -> list[MergeSuggestion]:
        """Pairs of entities that may be one (민지 / 김민지, Caroline / Caroline Smith) that retain kept
        apart because it was not sure: their names, kinds, fact counts, similarity and why."""
        return _browse.merge_suggestions(self._engine.bank(bank), check_int64(limit, "limit", low=1))


class Models(_Namespace):
    """Mental models (``mem.models``): standing questions ("이 사용자의 음식 선호는?") whose answers
    reflect writes and background jobs refresh after consolidation; reading one is a lookup."""

    def add(self, bank: str, name: str, question: str, *, refresh: bool = True) -> MentalModel:
        """Store the standing question; ``refresh`` answers it now (runs the bank's pending jobs)."""
        _models.add_mental_model(self._engine.bank(bank), check_text(name, "name"), check_text(question, "question"))
        if refresh:
            _jobs.run_pending(self._engine, bank_id=self._engine.bank(bank).bank.id)
        return self.get(bank, name)

    def get(self, bank: str, name: str) -> MentalModel:
        return _models.mental_model(self._engine.bank(bank), check_text(name, "name"))

    def list(self, bank: str) -> list[MentalModel]:
        return _models.mental_models(self._engine.bank(bank))

    def delete(self, bank: str, name: str) -> None:
        _models.delete_mental_model(self._engine.bank(bank), check_text(name, "name"))


class _AsyncNamespace:
    """An async namespace: every public method of its sync one as a coroutine run in a worker thread."""

    def __init__(self, sync: Any) -> None:
        self._sync = sync

    def __repr__(self) -> str:
        return f"<async {self._sync!r}>"


class AsyncKeys(_AsyncNamespace):
    pass


class AsyncJobs(_AsyncNamespace):
    async def __call__(self, bank: str | None = None, *, status: str | None = None, limit: int = 100) -> list[Job]:
        return await in_thread(self._sync.list, bank, status=status, limit=limit)


class AsyncBanks(_AsyncNamespace):
    async def __call__(self) -> list[BankInfo]:
        return await in_thread(self._sync.list)


class AsyncBrowse(_AsyncNamespace):
    pass


class AsyncModels(_AsyncNamespace):
    pass


# sync namespace -> its async twin (AsyncMemory builds one of each over its Memory's)
TWINS: dict[type[_Namespace], type[_AsyncNamespace]] = {
    Keys: AsyncKeys, Jobs: AsyncJobs, Banks: AsyncBanks, Browse: AsyncBrowse, Models: AsyncModels,
}
for _sync_cls, _async_cls in TWINS.items():
    check_every_method(_sync_cls)
    add_async_twins(_sync_cls, _async_cls)
