"""The public library API: ``Memory`` (sync) and ``AsyncMemory`` (async twin).

``Memory`` owns one store (a SQLite file), one embedder for new banks and the settings. Adapters
(CLI, HTTP, MCP) only call these methods.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from dataclasses import replace
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime, timezone
from typing import Any

from gieok.defense import RedactionPolicy
from gieok.engine import defense as _defense
from gieok.engine import forget as _forget
from gieok.engine import jobs as _jobs
from gieok.engine import consolidate as _consolidate  # noqa: F401  (registers the consolidate job)
from gieok.engine import maintenance as _maintenance  # noqa: F401  (registers the decay and purge jobs)
from gieok.engine import reflect as _reflect
from gieok.engine.llm_calls import MeteredLLM, spend_limit
from gieok.engine.observations import observation_memory
from gieok.ids import fact_number, observation_number
from gieok.engine import recall as _recall
from gieok.engine import retain as _retain
from gieok.engine._time import from_epoch, to_datetime
from gieok.errors import (
    BankNotFoundError,
    ConfigError,
    EmbedderMismatchError,
    InputError,
    MemoryNotFoundError,
    NotFoundError,
    SourceNotFoundError,
)
from gieok.lifecycle import DECAY_CLASSES
from gieok.providers import create as create_provider
from gieok.providers.embedders import Embedder
from gieok.providers.llms import LLM
from gieok.providers.rerankers import Reranker
from gieok.records import BankInfo, Message, Recall, RecalledMemory, RetainResult, SourceInfo
from gieok.settings import resolve_settings
from gieok.store.protocol import BankRow, Store
from gieok.store.sqlite import SQLiteStore

__all__ = ["Memory", "AsyncMemory"]

TimeLike = str | datetime | date
Progress = Callable[[int], None] | None


class Memory:
    """Long-term memory on one SQLite file.

    >>> with Memory("memories.db") as mem:                        # doctest: +SKIP
    ...     mem.retain("alice", messages=[{"id": "m1", "speaker": "alice", "text": "나 땅콩 알레르기 있어"}])
    ...     mem.recall("alice", "Can I eat peanut cookies?").memories[0].text
    """

    def __init__(self, path: str = "gieok.db", *, embedder: str | Embedder | None = None,
                 redaction: RedactionPolicy | Mapping[str, str] | None = None,
                 reranker: Reranker | None = None, llm: LLM | None = None, store: Store | None = None,
                 **settings: Any) -> None:
        self.settings = resolve_settings(settings)
        self.llm = llm
        self._llms: dict[tuple[str, ...], LLM] = {}
        self._used: list[tuple[int, float]] = []  # recalled facts whose decay clock restarts
        self._used_lock = threading.Lock()
        self._default_redaction = RedactionPolicy.coerce(redaction).to_mapping()
        self.reranker = reranker if reranker is not None else _configured_reranker(self.settings)
        self._embedder_spec = embedder if embedder is not None else self.settings.embedder
        self._embedders: dict[str, Embedder] = {}
        self._embedders_lock = threading.Lock()
        if isinstance(self._embedder_spec, Embedder):
            self._embedders[self._embedder_spec.model_id] = self._embedder_spec
        self.store: Store = store if store is not None else SQLiteStore(path)
        self.path = self.store.path
        key = self.store.get_meta("fingerprint_key")
        self._fingerprint_key = bytes.fromhex(key) if key else None

    # -- lifecycle ---------------------------------------------------------------------------
    def close(self) -> None:
        try:
            self._flush_used(wait=True)
        finally:
            self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- helpers -----------------------------------------------------------------------------
    @property
    def embedder_id(self) -> str:
        spec = self._embedder_spec
        return spec.model_id if isinstance(spec, Embedder) else str(spec)

    def _embedder(self, model_id: str) -> Embedder:
        with self._embedders_lock:
            if model_id not in self._embedders:
                self._embedders[model_id] = create_provider("embedder", model_id)
            return self._embedders[model_id]

    def _bank(self, name: str) -> BankRow:
        _check_bank_name(name)
        bank = self.store.get_bank(name)
        if bank is None:
            raise BankNotFoundError(name)
        if bank.embedder != self.embedder_id:
            raise EmbedderMismatchError(name, bank.embedder, self.embedder_id)
        return bank

    def _bank_for_write(self, name: str) -> BankRow:
        _check_bank_name(name)
        bank = self.store.get_bank(name)
        if bank is None:
            embedder = self._embedder(self.embedder_id)
            with self.store.write():
                bank = self.store.get_bank(name) or self.store.create_bank(name, embedder.model_id, embedder.dim)
        if bank.embedder != self.embedder_id:
            raise EmbedderMismatchError(name, bank.embedder, self.embedder_id)
        return bank

    # -- redaction policy --------------------------------------------------------------------
    def redaction_policy(self, bank: str) -> RedactionPolicy:
        """The policy retain applies to ``bank``: its own if set, else this Memory's default."""
        row = self.store.get_bank(bank)
        mapping = (self.store.bank_config(row.id).get("redaction") if row else None) or self._default_redaction
        return RedactionPolicy.from_mapping(mapping, fingerprint_key=self._fingerprint_key)

    def set_redaction_policy(self, bank: str, policy: RedactionPolicy | Mapping[str, str] | None) -> RedactionPolicy:
        """Store a per-bank policy, e.g. ``{"email": "allow", "kr_rrn": "block"}``; None resets it."""
        mapping = RedactionPolicy.coerce(policy).to_mapping() if policy is not None else None
        row = self._bank_for_write(bank)
        with self.store.write():
            config = self.store.bank_config(row.id)
            if mapping is None:
                config.pop("redaction", None)
            else:
                config["redaction"] = mapping
            self.store.set_bank_config(row.id, config)
        return self.redaction_policy(bank)

    def audit_log(self, bank: str, limit: int = 1000) -> list[dict[str, Any]]:
        """Audit entries of ``bank``, newest first: types, positions, fingerprints; never values."""
        _check_bank_name(bank)
        return self.store.audit_log(bank, limit)

    def _audit(self, bank: str, operation: str, source_id: str, redacted: _defense.Redacted) -> None:
        entries = [{"bank": bank, "operation": operation, "source_id": source_id, **e} for e in redacted.audit]
        if entries:
            with self.store.write():
                self.store.add_audit(entries)

    # -- retain ------------------------------------------------------------------------------
    def retain(self, bank: str, messages: Sequence[Mapping[str, Any] | Message] | None = None, *,
               text: str | None = None, document_id: str | None = None, timestamp: TimeLike | None = None,
               metadata: Mapping[str, Any] | None = None, progress: Progress = None,
               on_total: Callable[[int], None] | None = None, decay_class: str | None = None,
               importance: float | None = None, pinned: bool | None = None, ttl: float | None = None,
               expires_at: TimeLike | None = None) -> RetainResult:
        """Store a conversation (``messages``) or a document (``text``) verbatim and extract facts.

        ``document_id`` names the source; re-retaining the same id re-processes only what changed.
        ``progress(n)`` is called as facts are embedded, after ``on_total(total)``. Each fact gets a
        decay class and importance from its wording ("기억해 줘", allergies, plans, moods...);
        ``decay_class`` (pinned / stable / transient), ``importance`` and ``pinned`` override it for
        every fact of the call; ``ttl`` (seconds) or ``expires_at`` make the facts expire.
        """
        if (messages is None) == (text is None):
            raise InputError("retain needs exactly one of messages=[...] or text='...'")
        options = _fact_options(decay_class, importance, pinned, ttl, expires_at)
        if document_id is not None and (not isinstance(document_id, str) or not document_id.strip()):
            raise InputError("document_id must be a non-empty string")
        if messages is not None:
            normalized = _retain.normalize_messages(messages)
            if timestamp is not None:
                default_ts = to_datetime(timestamp, "timestamp").isoformat()
                normalized = [m if m.timestamp else Message(m.id, m.speaker, m.text, default_ts) for m in normalized]
            source_id = document_id or f"conversation-{normalized[0].id}"
            _check_bank_name(bank)
            redacted = _defense.redact_messages(normalized, self.redaction_policy(bank))
            self._refuse_if_blocked(bank, source_id, redacted)
            row = self._bank_for_write(bank)
            result = _retain.retain_messages(self.store, row, self._embedder(row.embedder), self.settings,
                                             redacted.messages, source_id, progress, on_total, options,
                                             llm=self._extraction_llm(row))
            self._audit(bank, "retain", source_id, redacted)
            self._after_retain(row, result)
            return replace(result, redactions=redacted.count)
        assert text is not None
        if not isinstance(text, str) or not text.strip():
            raise InputError("text is empty: give the document's text")
        ts = to_datetime(timestamp, "timestamp").isoformat() if timestamp is not None else None
        doc_id = document_id or "doc-" + _retain._sha(text)[:16]
        _check_bank_name(bank)
        redacted = _defense.redact_document(text, doc_id, metadata or {}, self.redaction_policy(bank))
        self._refuse_if_blocked(bank, doc_id, redacted)
        row = self._bank_for_write(bank)
        assert redacted.text is not None
        result = _retain.retain_document(self.store, row, self._embedder(row.embedder), self.settings,
                                         redacted.text, doc_id, ts, redacted.metadata, progress, on_total, options,
                                         llm=self._extraction_llm(row))
        self._audit(bank, "retain", doc_id, redacted)
        self._after_retain(row, result)
        return replace(result, redactions=redacted.count)

    def _after_retain(self, row: BankRow, result: RetainResult) -> None:
        if result.facts_added:
            with self.store.write():
                self.store.enqueue_job(row.id, "consolidate")

    def _refuse_if_blocked(self, bank: str, source_id: str, redacted: _defense.Redacted) -> None:
        try:
            _defense.check_blocked(redacted)
        except Exception:
            # the refusal is audited (types, positions, fingerprints), the content is not stored
            self._audit(bank, "retain-refused", source_id, redacted)
            raise

    # -- recall ------------------------------------------------------------------------------
    def recall(self, bank: str, query: str, *, max_tokens: int | None = None, limit: int | None = None,
               now: TimeLike | None = None, explain: bool = False, as_of: TimeLike | None = None) -> Recall:
        """The memories ``query`` needs, best first; at most ``max_tokens`` tokens / ``limit`` items.

        ``now`` anchors relative times in the query ("지난주", "last Friday"); ``explain=True`` adds,
        per memory, each channel's rank and score, the fused score and the multipliers. Only current
        versions are returned; ``as_of`` answers as the bank stood then (facts said later are
        invisible, versions superseded by then are hidden)."""
        if not isinstance(query, str) or not query.strip():
            raise InputError("query is empty: ask something")
        if max_tokens is not None and max_tokens <= 0:
            raise InputError("max_tokens must be positive")
        if limit is not None and limit <= 0:
            raise InputError("limit must be positive")
        row = self._bank(bank)
        when = to_datetime(now, "now") if now is not None else datetime.now(timezone.utc)
        then = to_datetime(as_of, "as_of") if as_of is not None else None
        result = _recall.recall(self.store, row, self._embedder(row.embedder), self.settings, query,
                                now=when, max_tokens=max_tokens, limit=limit, explain=explain,
                                reranker=self.reranker, as_of=then)
        if self.settings.refresh_on_recall and then is None and result.memories:
            with self._used_lock:
                self._used += [(i, when.timestamp()) for i in (fact_number(m.id) for m in result.memories)
                               if i is not None]
            self._flush_used(wait=False)
        return result

    def _flush_used(self, *, wait: bool) -> None:
        """Write the pending "recalled" marks. A recall never waits for a retain's write: if the write
        path is busy, the marks wait for the next recall or maintenance pass."""
        if not self._used:
            return
        if wait:
            with self.store.write():
                self._write_used()
            return
        with self.store.try_write() as free:
            if free:
                self._write_used()

    def _write_used(self) -> None:
        with self._used_lock:
            pending, self._used = self._used, []
        by_time: dict[float, list[int]] = {}
        for fact_id, at in pending:
            by_time.setdefault(at, []).append(fact_id)
        for at, ids in by_time.items():
            self.store.touch_recalled(ids, at)

    # -- inspection --------------------------------------------------------------------------
    def banks(self) -> list[BankInfo]:
        return self.store.list_banks()

    def sources(self, bank: str) -> list[SourceInfo]:
        row = self._bank(bank)
        return self.store.list_sources(row.id, row.name)

    def source(self, bank: str, source_id: str) -> SourceInfo:
        row = self._bank(bank)
        found = self.store.get_source(row.id, row.name, source_id)
        if found is None:
            raise SourceNotFoundError(source_id)
        return found

    def get(self, bank: str, memory_id: str) -> RecalledMemory:
        row = self._bank(bank)
        obs_id = observation_number(memory_id)
        if obs_id is not None:
            found = observation_memory(self.store, row, obs_id, 0.0, {})
            if found is None:
                raise MemoryNotFoundError(memory_id)
            return found
        fact_id = fact_number(memory_id)
        facts = self.store.get_facts(row.id, [fact_id]) if fact_id is not None else []
        if not facts:
            raise MemoryNotFoundError(memory_id)
        return _recall.fact_to_memory(facts[0], 0.0, {})

    def history(self, bank: str, memory_id: str) -> list[RecalledMemory]:
        """Every version of the statement ``memory_id`` belongs to, oldest first; each carries
        ``valid_from`` / ``valid_to`` and which version replaced it."""
        row = self._bank(bank)
        fact_id = fact_number(memory_id)
        if fact_id is None or not self.store.get_facts(row.id, [fact_id]):
            raise MemoryNotFoundError(memory_id)
        chain = self.store.get_facts(row.id, self.store.version_chain(fact_id))
        versions = [_recall.fact_to_memory(f, 0.0, {}) for f in chain]
        _recall.add_versions(self.store, versions)
        return versions

    # -- forgetting --------------------------------------------------------------------------
    def forget(self, bank: str, *, source_id: str | None = None, memory_id: str | None = None,
               entity: str | None = None, before: TimeLike | None = None, verify: bool = False) -> _forget.ForgetResult:
        """Erase for real: facts, index rows, vectors, links, mentions, observations, queued jobs and the
        verbatim evidence they came from. ``source_id`` is a ``document_id``/conversation id or a message
        id given on retain. ``verify=True`` also proves it (see :meth:`verify_erased`)."""
        row = self._bank(bank)
        before_ts = to_datetime(before, "before") if before is not None else None
        for name, value in (("source_id", source_id), ("memory_id", memory_id), ("entity", entity)):
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise InputError(f"{name} must be a non-empty string")
        result = _forget.forget(self.store, row, source_id=source_id,
                                memory_id=memory_id, entity=entity,
                                before=before_ts.timestamp() if before_ts else None,
                                before_iso=before_ts.isoformat() if before_ts else None,
                                fingerprint_key=self._fingerprint_key)
        if verify:
            result.proof = _forget.verify_erased(self.store, result._probes) if result._probes else \
                _forget.ErasureProof(clean=True, checked=[])
        return result

    def verify_erased(self, texts: Sequence[str] | str, *, deep: bool = True) -> _forget.ErasureProof:
        """Prove that ``texts`` are nowhere in the database: no table, no FTS index or shadow table, no
        vector table and (``deep``: after a checkpoint and VACUUM) not in the file's bytes."""
        return _forget.verify_erased(self.store, [texts] if isinstance(texts, str) else list(texts), deep=deep)

    # -- background work ---------------------------------------------------------------------
    def _services(self) -> dict[str, Any]:
        return {"llm_for": self._llm_for, "spend_limit": self._spend_limit,
                "recall_for": lambda row: (lambda q: self.recall(row.name, q, limit=10))}

    # -- LLM ---------------------------------------------------------------------------------
    def _llm_for(self, row: BankRow) -> LLM | None:
        """The bank's LLM: its own configuration, else the Memory's ``llm=``, else the global settings."""
        config = self.store.bank_config(row.id).get("llm") or {}
        if config.get("enabled") is False:
            return None
        provider = config.get("provider") or (None if self.llm is not None else self.settings.llm)
        if not provider:
            return self.llm
        model = config.get("model") or self.settings.llm_model
        base_url = config.get("base_url") or self.settings.llm_base_url
        key_env = config.get("api_key_env") or self.settings.llm_api_key_env
        if not model:
            raise ConfigError(f"LLM provider {provider!r} needs a model: set GIEOK_LLM_MODEL=... or "
                              f"Memory.configure_llm(bank, model=...)")
        cache_key = (provider, model, base_url, key_env)
        if cache_key not in self._llms:
            options: dict[str, Any] = {"model": model}
            if base_url:
                options["base_url"] = base_url
            if key_env:
                options["api_key_env"] = key_env
            self._llms[cache_key] = create_provider("llm", provider, **options)
        return self._llms[cache_key]

    def _extraction_llm(self, row: BankRow) -> MeteredLLM | None:
        llm = self._llm_for(row) if self.settings.llm_extraction else None
        return MeteredLLM(self.store, row, llm, self._spend_limit(row)) if llm is not None else None

    def _spend_limit(self, row: BankRow) -> float:
        return spend_limit(self.store, row, self.settings.llm_spend_limit_usd)

    def configure_llm(self, bank: str, *, provider: str | None = None, model: str | None = None,
                      base_url: str | None = None, api_key_env: str | None = None,
                      spend_limit_usd: float | None = None, enabled: bool | None = None) -> dict[str, Any]:
        """Per-bank LLM configuration (overrides the global one). Keys are read from the environment
        variable named by ``api_key_env``, never stored. ``enabled=False`` keeps this bank offline."""
        if spend_limit_usd is not None and spend_limit_usd < 0:
            raise InputError("spend_limit_usd must be 0 (no ceiling) or more")
        row = self._bank_for_write(bank)
        with self.store.write():
            config = self.store.bank_config(row.id)
            llm_config = dict(config.get("llm") or {})
            for key, value in (("provider", provider), ("model", model), ("base_url", base_url),
                               ("api_key_env", api_key_env), ("spend_limit_usd", spend_limit_usd),
                               ("enabled", enabled)):
                if value is not None:
                    llm_config[key] = value
            config["llm"] = llm_config
            self.store.set_bank_config(row.id, config)
        self._llm_for(row)  # fail now, not in a background job, if the provider cannot be built
        return llm_config

    def llm_usage(self, bank: str) -> dict[str, Any]:
        """LLM calls, tokens and estimated cost of ``bank``, per day and operation, with its ceiling."""
        row = self._bank(bank)
        rows = self.store.llm_usage(row.id)
        return {"bank": bank, "spent_usd": self.store.llm_spend(row.id), "spend_limit_usd": self._spend_limit(row),
                "rows": rows}

    # -- reflect and mental models -----------------------------------------------------------
    def reflect(self, bank: str, question: str, *, now: TimeLike | None = None) -> _reflect.Reflection:
        """Answer ``question`` only from memory: mental models, then observations, then raw facts.
        Every quote is verified against the memory it cites; without enough evidence the answer is an
        honest "not in memory" in the question's language. Works offline (extractive) and with an LLM."""
        if not isinstance(question, str) or not question.strip():
            raise InputError("question is empty: ask something")
        row = self._bank(bank)
        recall_fn = lambda q: self.recall(bank, q, limit=10, now=now)  # noqa: E731
        return _reflect.reflect(self.store, row, question, recall_fn, llm=self._llm_for(row),
                                spend_limit=self._spend_limit(row), stats=lambda q: self._similarity_stats(row, q))

    def _similarity_stats(self, row: BankRow, text: str) -> tuple[float, float]:
        """Mean and spread of ``text``'s cosine to a sample of the bank's memories: what "unusually
        similar" means for this bank and embedder (absolute cosines do not transfer between models)."""
        import numpy as np

        sample = self.store.vectors_sample(row.id, row.dim, 256)
        if len(sample) < 20:
            return 0.0, 0.0
        sims = sample @ np.asarray(self._embedder(row.embedder).embed_query(text), dtype=np.float32)
        return float(sims.mean()), float(sims.std())

    def add_mental_model(self, bank: str, name: str, question: str, *, refresh: bool = True) -> dict[str, Any]:
        """A standing question ("이 사용자의 음식 선호는?") whose answer reflect writes and background
        jobs refresh after consolidation; reading it is a lookup."""
        if not name.strip() or not question.strip():
            raise InputError("a mental model needs a name and a question")
        row = self._bank(bank)
        with self.store.write():
            self.store.save_mental_model(row.id, name.strip(), question.strip())
            self.store.enqueue_job(row.id, "refresh_models")
        if refresh:
            self.run_jobs(bank=bank)
        return self.mental_model(bank, name)

    def mental_model(self, bank: str, name: str) -> dict[str, Any]:
        row = self._bank(bank)
        for model in self.store.mental_models(row.id):
            if model.name == name.strip():
                return _mental_model_dict(model)
        raise NotFoundError(f"no mental model {name!r} in bank {bank!r}: add it with add_mental_model / `gieok models add`")

    def mental_models(self, bank: str) -> list[dict[str, Any]]:
        return [_mental_model_dict(m) for m in self.store.mental_models(self._bank(bank).id)]

    def delete_mental_model(self, bank: str, name: str) -> None:
        row = self._bank(bank)
        with self.store.write():
            if not self.store.delete_mental_model(row.id, name):
                raise NotFoundError(f"no mental model {name!r} in bank {bank!r}")

    def observations(self, bank: str) -> list[RecalledMemory]:
        """Every consolidated observation of ``bank`` with the facts that support it."""
        row = self._bank(bank)
        out = [observation_memory(self.store, row, o.id, 0.0, {}) for o in self.store.observations_of_bank(row.id)]
        return [o for o in out if o is not None]

    def maintain(self, bank: str | None = None, *, now: TimeLike | None = None) -> list[dict[str, Any]]:
        """Queue the maintenance jobs (decay, TTL purge) for ``bank`` (or every bank) and run every
        pending job; returns one report per job. Run it from cron or a worker, not per request."""
        rows = [self._bank(bank)] if bank is not None else self.store.bank_rows()
        at = to_datetime(now, "now").timestamp() if now is not None else None
        with self.store.write():
            for row in rows:
                self.store.enqueue_job(row.id, "purge", run_after=at)
                self.store.enqueue_job(row.id, "decay", run_after=at)
        return self.run_jobs(bank=bank, now=now)

    def run_jobs(self, *, bank: str | None = None, limit: int | None = None,
                 now: TimeLike | None = None) -> list[dict[str, Any]]:
        """Run queued background jobs (consolidation, decay, purge, mental-model refresh)."""
        bank_id = self._bank(bank).id if bank is not None else None
        at = to_datetime(now, "now").timestamp() if now is not None else None
        self._flush_used(wait=True)
        return _jobs.run_pending(self.store, self.store.bank_by_id, lambda row: self._embedder(row.embedder),
                                 self.settings, self._services(), limit=limit, bank_id=bank_id, now=at)

    def jobs(self, bank: str | None = None, *, status: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        """The job queue, newest first: kind, status, attempts, last error."""
        bank_id = self._bank(bank).id if bank is not None else None
        names = {b.id: b.name for b in self.store.bank_rows()}
        return [_jobs.job_to_dict(j, names.get(j.bank_id)) for j in self.store.list_jobs(bank_id, status, limit)]

    def delete_bank(self, bank: str) -> dict[str, int]:
        """Delete a bank and everything in it; returns how many rows of each kind went."""
        _check_bank_name(bank)
        row = self.store.get_bank(bank)
        if row is None:
            raise BankNotFoundError(bank)
        with self.store.write():
            return self.store.delete_bank(row.id)


def _configured_reranker(settings: Any) -> Reranker | None:
    name = settings.reranker
    if not name:
        return None
    options: dict[str, Any] = {}
    if name == "http":
        if not settings.reranker_url:
            raise ConfigError("reranker 'http' needs reranker_url (GIEOK_RERANKER_URL), e.g. http://localhost:8080")
        options = {"base_url": settings.reranker_url, "model": settings.reranker_model or None}
    elif name == "onnx":
        if not settings.reranker_model_dir:
            raise ConfigError("reranker 'onnx' needs reranker_model_dir (GIEOK_RERANKER_MODEL_DIR)")
        options = {"model_dir": settings.reranker_model_dir}
    reranker: Reranker = create_provider("reranker", name, **options)
    return reranker


def _mental_model_dict(model: Any) -> dict[str, Any]:
    refreshed = from_epoch(model.refreshed_at)
    return {"name": model.name, "question": model.question, "answer": model.answer, "based_on": model.based_on,
            "refreshed_at": refreshed.isoformat() if refreshed else None}


def _fact_options(decay_class: str | None, importance: float | None, pinned: bool | None, ttl: float | None,
                 expires_at: TimeLike | None) -> _retain.FactOptions:
    if decay_class is not None and decay_class not in DECAY_CLASSES:
        raise InputError(f"decay_class {decay_class!r} is unknown: use one of {', '.join(DECAY_CLASSES)}")
    if importance is not None and not 0.0 <= float(importance) <= 1.0:
        raise InputError("importance must be between 0 and 1")
    if ttl is not None and expires_at is not None:
        raise InputError("give ttl= (seconds from now) or expires_at=, not both")
    if ttl is not None and (not isinstance(ttl, (int, float)) or ttl <= 0):
        raise InputError("ttl must be a positive number of seconds, e.g. ttl=86400 for a day")
    expiry = None
    if ttl is not None:
        expiry = datetime.now(timezone.utc).timestamp() + float(ttl)
    elif expires_at is not None:
        expiry = to_datetime(expires_at, "expires_at").timestamp()
    return _retain.FactOptions(decay_class, None if importance is None else float(importance), pinned, expiry)


def _check_bank_name(name: str) -> None:
    if not isinstance(name, str) or not name.strip():
        raise InputError("bank must be a non-empty string, e.g. 'alice'")


class AsyncMemory:
    """The async twin of :class:`Memory`: every public method of Memory, as a coroutine run in a worker
    thread (SQLite and the embedders are blocking). The methods are generated from Memory's, so the two
    cannot drift apart."""

    def __init__(self, path: str = "gieok.db", **kwargs: Any) -> None:
        self._sync = Memory(path, **kwargs)
        self.path = self._sync.path

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def _async_twin(name: str) -> Callable[..., Any]:
    sync = getattr(Memory, name)

    @functools.wraps(sync)
    async def method(self: AsyncMemory, *args: Any, **kwargs: Any) -> Any:
        return await asyncio.to_thread(getattr(self._sync, name), *args, **kwargs)

    return method


for _name, _value in list(vars(Memory).items()):
    if not _name.startswith("_") and callable(_value):
        setattr(AsyncMemory, _name, _async_twin(_name))
