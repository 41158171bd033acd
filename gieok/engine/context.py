"""What every engine call needs besides its own arguments, resolved once per bank.

:class:`Engine` owns the store, the settings and the providers of one open memory (the embedders
by model id, the LLM per bank configuration, the reranker, the default redaction policy, the
recall marks waiting to be written). ``Memory`` holds one and every adapter goes through ``Memory``,
so whatever reaches gieok from outside Python runs exactly what the library runs.

:class:`BankContext` is one bank's view of it — store, bank row, that bank's embedder, settings and
(looked up on first use) its LLM and reranker. Engine functions take a context instead of four
positional arguments; background jobs get a :class:`JobContext`, the same context plus the job's
clock and payload, so a job reaches recall or the bank's LLM the way a caller does.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from gieok.defense import RedactionPolicy
from gieok.engine._validate import check_encodable
from gieok.engine.admin.audit_key import KeySource, resolve_fingerprint_key
from gieok.engine.llm_calls import MeteredLLM, spend_limit
from gieok.errors import BankNotFoundError, ClaimLostError, ConfigError, EmbedderMismatchError, InputError
from gieok.limits import limit
from gieok.providers import create as create_provider
from gieok.providers.decisions import DecisionModel, LLMDecisions
from gieok.providers.embedders import Embedder
from gieok.providers.llms import LLM
from gieok.providers.rerankers import Reranker
from gieok.settings import Settings
from gieok.store.protocol import BankRow, Store, VectorOptions

__all__ = ["Engine", "BankContext", "JobContext", "RecallMarks", "check_bank_name", "reranker_from_settings"]


MAX_BANK_NAME_CHARS = limit("bank_name_chars")  # a name to tell banks apart (gieok.limits)


def check_bank_name(name: object) -> str:
    if not isinstance(name, str) or not name.strip():
        raise InputError("bank must be a non-empty string, e.g. 'alice'")
    if len(name) > MAX_BANK_NAME_CHARS:
        raise InputError(f"bank is {len(name)} characters long: a bank name has at most {MAX_BANK_NAME_CHARS}; "
                         "use a short id such as 'alice' or 'team-7' and keep descriptions elsewhere")
    return check_encodable(name, "bank")


def reranker_from_settings(settings: Settings) -> Reranker | None:
    """The reranker the settings name (``reranker``, with its url / model / model_dir), or None."""
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


class RecallMarks:
    """Recalled facts whose decay clock restarts, buffered: a recall never waits for a retain's write.
    When the write path is busy the marks wait for the next recall or job run."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._pending: list[tuple[int, float]] = []
        self._lock = threading.Lock()

    def add(self, fact_ids: list[int], at: float) -> None:
        with self._lock:
            self._pending += [(i, at) for i in fact_ids]

    def flush(self, *, wait: bool) -> None:
        if not self._pending:
            return
        if wait:
            with self._store.write():
                self._write()
            return
        with self._store.try_write() as free:
            if free:
                self._write()

    def _write(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, []
        by_time: dict[float, list[int]] = {}
        for fact_id, at in pending:
            by_time.setdefault(at, []).append(fact_id)
        for at, ids in by_time.items():
            self._store.versions.touch_recalled(ids, at)


class Engine:
    """One open memory: its store, settings and providers. Thread-safe; build contexts from it."""

    def __init__(self, store: Store, settings: Settings, *, embedder: str | Embedder | None = None,
                 llm: LLM | None = None, reranker: Reranker | None = None,
                 redaction: RedactionPolicy | Mapping[str, str] | None = None,
                 fingerprint_key: KeySource | None = None) -> None:
        self.store = store
        self.settings = settings
        store.vector_options = VectorOptions.from_settings(settings)
        self.llm = llm
        self.reranker = reranker if reranker is not None else reranker_from_settings(settings)
        self.default_redaction = RedactionPolicy.coerce(redaction).to_mapping()
        self.marks = RecallMarks(store)
        spec = embedder if embedder is not None else settings.embedder
        self.embedder_id = spec.model_id if isinstance(spec, Embedder) else str(spec)
        self._embedders: dict[str, Embedder] = {spec.model_id: spec} if isinstance(spec, Embedder) else {}
        self._llms: dict[tuple[str, ...], LLM] = {}
        self._decisions: dict[str, DecisionModel] = {}
        self._lock = threading.Lock()
        # kept outside the database (moved out of a legacy meta row here): see gieok.engine.admin.audit_key
        self.fingerprint_key = resolve_fingerprint_key(store, settings, fingerprint_key)

    # -- providers ---------------------------------------------------------------------------
    def embedder(self, model_id: str | None = None) -> Embedder:
        """The embedder ``model_id`` (default: the one new banks get), built once."""
        model_id = model_id or self.embedder_id
        with self._lock:
            if model_id not in self._embedders:
                self._embedders[model_id] = create_provider("embedder", model_id)
            return self._embedders[model_id]

    def decisions_for(self, bank: BankRow | None, config: Mapping[str, Any] | None = None) -> DecisionModel:
        """The decision model of ``bank`` (None: a bank not yet written, which has only the settings);
        ``config`` is the bank's configuration when the caller has read it already."""
        if bank is not None and config is None:
            config = self.store.banks.config(bank.id)
        name = (config.get("decision_model") if config is not None else None) or self.settings.decision_model
        if name == "llm":
            llm = self.llm_for(bank, config) if bank is not None else self.llm
            if llm is None:
                return self._decision_provider("learned")
            return LLMDecisions(MeteredLLM(self.store, bank, llm, spend_limit(
                self.store, bank, self.settings.llm_spend_limit_usd, config)) if bank is not None else llm)
        return self._decision_provider(name)

    def _decision_provider(self, name: str) -> DecisionModel:
        with self._lock:
            if name not in self._decisions:
                self._decisions[name] = create_provider("decision", name)
            return self._decisions[name]

    def llm_for(self, bank: BankRow, bank_config: Mapping[str, Any] | None = None) -> LLM | None:
        """The bank's LLM: its own configuration, else the Memory's ``llm=``, else the global settings
        (``store.banks.config``: the bank's configuration when the caller has read it already)."""
        config = (bank_config if bank_config is not None else self.store.banks.config(bank.id)).get("llm") or {}
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
        cache_key = (provider, model, base_url or "", key_env or "")
        with self._lock:
            if cache_key not in self._llms:
                options: dict[str, Any] = {"model": model}
                if base_url:
                    options["base_url"] = base_url
                if key_env:
                    options["api_key_env"] = key_env
                self._llms[cache_key] = create_provider("llm", provider, **options)
            return self._llms[cache_key]

    # -- banks -------------------------------------------------------------------------------
    def shared_secret(self, name: str) -> bytes:
        """A random 32-byte secret drawn once per database and kept in it, so every process serving the
        same database (``gieok serve`` behind a load balancer, its workers) signs with the same one:
        the UI's CSRF tokens. Not a key to data: whoever reads the database reads the data already."""
        key = f"secret:{name}"
        value = self.store.meta.get(key)
        if value is None:
            with self.store.write():
                value = self.store.meta.claim(key, secrets.token_hex(32))
        return bytes.fromhex(value)

    def find_bank(self, name: str) -> BankRow | None:
        """The bank row, checked against this memory's embedder; None when there is no such bank."""
        row = self.store.banks.get(check_bank_name(name))
        if row is not None and row.embedder != self.embedder_id:
            raise EmbedderMismatchError(name, row.embedder, self.embedder_id)
        return row

    def bank(self, name: str) -> BankContext:
        """The context of an existing bank; BankNotFoundError otherwise."""
        row = self.find_bank(name)
        if row is None:
            raise BankNotFoundError(name)
        return self.context(row)

    def bank_for_write(self, name: str) -> BankContext:
        """The context of ``name``, created (empty) if it does not exist yet."""
        row = self.find_bank(name)
        if row is None:
            # a bank name is stored and listed verbatim: one holding an e-mail or a key is refused (the
            # detectors load here, not when a Memory opens: see gieok.defense)
            from gieok.engine.retain.redact import check_id

            check_id(name, "the bank name", self.policy_from(None))
            with self.store.write():
                return self.created_bank(name)
        return self.context(row)

    def created_bank(self, name: str) -> BankContext:
        """Inside a write transaction: the context of ``name``, created (empty) unless another writer
        created it first — then checked against this memory's embedder like :meth:`find_bank`."""
        self.store.lock_bank(name)  # two processes creating one bank: the second finds the first's
        row = self.store.banks.get(name)
        if row is None:
            embedder = self.embedder()
            return self.context(self.store.banks.create(name, embedder.model_id, embedder.dim))
        if row.embedder != self.embedder_id:
            raise EmbedderMismatchError(name, row.embedder, self.embedder_id)
        return self.context(row)

    def context(self, bank: BankRow) -> BankContext:
        return BankContext(self.store, bank, self.embedder(bank.embedder), self.settings, self)

    def redaction_policy(self, name: str) -> RedactionPolicy:
        """The policy retain applies to bank ``name``: its own if set, else this memory's default."""
        row = self.store.banks.get(check_bank_name(name))
        return self.policy_from(self.store.banks.config(row.id) if row else None)

    def policy_from(self, bank_config: Mapping[str, Any] | None) -> RedactionPolicy:
        """The redaction policy of a bank's configuration (None: a bank not yet written): its own, else
        this memory's default."""
        mapping = (bank_config.get("redaction") if bank_config else None) or self.default_redaction
        return RedactionPolicy.from_mapping(mapping, fingerprint_key=self.fingerprint_key)


@dataclass
class BankContext:
    """One bank as an engine call sees it. The LLM and the reranker are looked up on first use
    (a bank without an LLM never builds one)."""

    store: Store
    bank: BankRow
    embedder: Embedder
    settings: Settings
    engine: Engine = field(repr=False)

    @cached_property
    def config(self) -> dict[str, Any]:
        """The bank's own configuration (its LLM, decision model, redaction policy), read once: a
        context lives for one call, and every step of the call sees the same configuration."""
        return self.store.banks.config(self.bank.id)

    @cached_property
    def llm(self) -> LLM | None:
        return self.engine.llm_for(self.bank, self.config)

    @property
    def reranker(self) -> Reranker | None:
        return self.engine.reranker

    @property
    def spend_limit(self) -> float:
        return spend_limit(self.store, self.bank, self.settings.llm_spend_limit_usd, self.config)

    def redaction_policy(self) -> RedactionPolicy:
        """The policy retain applies to this bank: its own if set, else the memory's default."""
        return self.engine.policy_from(self.config)

    def decisions(self) -> DecisionModel:
        """The bank's decision model (gieok.providers.decisions): its own choice, else the setting
        ``decision_model``; ``llm`` is the bank's LLM, metered — the learned heads where it has none."""
        return self._decisions

    @cached_property
    def _decisions(self) -> DecisionModel:
        return self.engine.decisions_for(self.bank, self.config)

    def extraction_llm(self) -> MeteredLLM | None:
        """The bank's LLM, metered, when LLM extraction is on; None to extract offline."""
        llm = self.llm if self.settings.llm_extraction else None
        return MeteredLLM(self.store, self.bank, llm, self.spend_limit) if llm is not None else None


@dataclass
class JobContext(BankContext):
    """A bank's context inside a background job: the job's clock (epoch seconds) and payload, and
    the claim it runs under. A handler whose effects are one write transaction (retain) calls
    :meth:`commit` inside it, so the job is marked done in the very transaction that writes its
    effects: a worker killed after that commit leaves nothing to redo, and a claim that was lost
    meanwhile (lease ran out, cancelled) rolls the effects back instead of writing them twice."""

    now: float = 0.0
    payload: dict[str, Any] = field(default_factory=dict)
    job_id: int | None = None
    claim: str | None = None  # the claim's token (None: run outside the queue, nothing to mark)
    committed: bool = False
    # a caller running the job itself follows it: (done, total) as a long job (reembed) goes
    progress: Callable[[int, int], None] | None = field(default=None, repr=False)

    def commit(self, result: dict[str, Any] | None) -> None:
        """Inside the handler's write transaction: mark the job done with ``result``; ClaimLostError
        (which rolls the transaction back) when this claim no longer holds the job."""
        if self.job_id is None or self.claim is None:
            return
        if not self.store.jobs.finish(self.job_id, result=result, claimed_by=self.claim):
            raise ClaimLostError(self.job_id)
        self.committed = True
