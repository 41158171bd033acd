"""The public library API: ``Memory`` (sync) and ``AsyncMemory`` (its async twin).

A facade: each method documents the call and hands it to the engine (gieok.engine), which owns the
store, the settings and the providers (:class:`gieok.engine.context.Engine`), and returns a record of
:mod:`gieok.records`. Verbs that act on one thing are grouped as namespaces (:mod:`gieok._namespaces`):
``mem.keys``, ``mem.jobs``, ``mem.banks``, ``mem.browse`` and ``mem.models``. Adapters (the server,
CLI, MCP, web UI, workers, integrations) call these and nothing below them: ``tools/check_layers.py``
(``make lint``) fails on an adapter that imports the engine or the store.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any

from gieok._lazy import lazy_module
from gieok._namespaces import (
    AsyncBanks,
    AsyncBrowse,
    AsyncJobs,
    AsyncKeys,
    AsyncModels,
    Banks,
    Browse,
    Jobs,
    Keys,
    Models,
)
from gieok._twin import add_async_twins, in_thread
from gieok.defense.policy import RedactionPolicy
from gieok.engine._edge import check_every_method
from gieok.engine._time import TimeLike
from gieok.engine._validate import check_int64, check_optional_text, check_text
from gieok.engine.admin.audit_key import KeySource
from gieok.engine.scopes import check_scope, recall_scope
from gieok.errors import ConfigError
from gieok.providers.embedders import Embedder
from gieok.providers.llms import LLM
from gieok.providers.rerankers import Reranker
from gieok.records import (
    AuditEntry,
    BankImport,
    BankInfo,
    Directive,
    Disposition,
    EntityInfo,
    ErasureProof,
    ForgetResult,
    GateDecision,
    HeldStatement,
    ImportResult,
    IngestResult,
    JobReport,
    LlmConfig,
    LlmUsage,
    Message,
    Operation,
    Profile,
    Recall,
    RecalledMemory,
    Reflection,
    RetainResult,
    ScopeFilter,
    Slot,
    SourceInfo,
)
from gieok.settings import Settings, resolve_settings
from gieok.store.protocol import Store

# The engine's modules are imported when a method first calls them (gieok._lazy): opening a Memory to
# list its banks does not load retain, recall and their components. Type checkers and the layer check
# read the imports written here. (What the signatures name is imported above, so that
# typing.get_type_hints reads them; opening a Memory needs those modules anyway.)
if TYPE_CHECKING:
    from gieok.engine import context as _context
    from gieok.engine import slots as _profile
    from gieok.engine import warm as _warm
    from gieok.engine import working_memory as _session
    from gieok.engine.admin import banks as _banks
    from gieok.engine.admin import browse as _browse
    from gieok.engine.admin import portable as _portable
    from gieok.engine.admin import quarantine as _held
    from gieok.engine.forget import run as _forget
    from gieok.engine.jobs import queue as _jobs
    from gieok.engine.jobs import reembed as _reembed
    from gieok.engine.recall import run as _recall
    from gieok.engine.reflect import run as _reflect
    from gieok.engine.reflect import shaping as _shaping
    from gieok.engine.retain import run as _retain
    from gieok.engine.sources import chats as _imports
    from gieok.engine.sources import documents as _ingest
    from gieok.extract import recall_gate as _gate
    from gieok.importers import FORMATS as CHAT_FORMATS  # import_chat's formats, for adapters
else:
    _profile = lazy_module("gieok.engine.slots")
    _session = lazy_module("gieok.engine.working_memory")
    _banks = lazy_module("gieok.engine.admin.banks")
    _browse = lazy_module("gieok.engine.admin.browse")
    _portable = lazy_module("gieok.engine.admin.portable")
    _held = lazy_module("gieok.engine.admin.quarantine")
    _context = lazy_module("gieok.engine.context")
    _forget = lazy_module("gieok.engine.forget.run")
    _jobs = lazy_module("gieok.engine.jobs.queue")
    _reembed = lazy_module("gieok.engine.jobs.reembed")
    _recall = lazy_module("gieok.engine.recall.run")
    _reflect = lazy_module("gieok.engine.reflect.run")
    _shaping = lazy_module("gieok.engine.reflect.shaping")
    _retain = lazy_module("gieok.engine.retain.run")
    _imports = lazy_module("gieok.engine.sources.chats")
    _ingest = lazy_module("gieok.engine.sources.documents")
    _gate = lazy_module("gieok.extract.recall_gate")
    _warm = lazy_module("gieok.engine.warm")

__all__ = ["Memory", "AsyncMemory", "should_recall", "CHAT_FORMATS"]


def __getattr__(name: str) -> object:
    # CHAT_FORMATS (import_chat's formats, for adapters) is the importers' table, read when asked for
    if name == "CHAT_FORMATS":
        from gieok.importers import FORMATS

        return FORMATS
    raise AttributeError(f"module 'gieok.memory' has no attribute {name!r}")

Progress = Callable[[int], None] | None


class Memory:
    """Long-term memory on one SQLite file (or any store, e.g. ``store=PostgresStore(dsn)``).

    >>> with Memory("memories.db") as mem:                        # doctest: +SKIP
    ...     mem.retain("alice", messages=[{"id": "m1", "speaker": "alice", "text": "나 땅콩 알레르기 있어"}])
    ...     mem.recall("alice", "Can I eat peanut cookies?").memories[0].text
    """

    keys: Keys
    """API keys: ``create`` / ``list`` / ``revoke`` / ``count`` / ``authenticate`` (:class:`gieok._namespaces.Keys`)."""
    jobs: Jobs
    """The job queue: ``mem.jobs()`` lists it; ``run`` / ``maintain`` / ``get`` / ``cancel`` / ``retry``, and
    ``claim`` / ``run_claimed`` / ``release`` for a worker (:class:`gieok._namespaces.Jobs`)."""
    banks: Banks
    """The banks: ``mem.banks()`` lists them; ``create`` / ``delete`` / ``names`` (:class:`gieok._namespaces.Banks`)."""
    browse: Browse
    """A bank at a glance: ``overview`` / ``source_facts`` / ``connections`` / ``entity`` /
    ``merge_suggestions`` (:class:`gieok._namespaces.Browse`)."""
    models: Models
    """Mental models: ``add`` / ``get`` / ``list`` / ``delete`` (:class:`gieok._namespaces.Models`)."""

    def __init__(self, path: str = "gieok.db", *, embedder: str | Embedder | None = None,
                 redaction: RedactionPolicy | Mapping[str, str] | None = None,
                 reranker: Reranker | None = None, llm: LLM | None = None, store: Store | None = None,
                 fingerprint_key: KeySource | None = None, database: str | None = None, **settings: Any) -> None:
        resolved = resolve_settings(settings)
        if database is not None and store is not None:
            raise ConfigError("give store= or database=, not both")
        opened = store if store is not None else _open_store(path, database)
        try:
            self.engine = _context.Engine(opened, resolved, embedder=embedder, llm=llm, reranker=reranker,
                                 redaction=redaction, fingerprint_key=fingerprint_key)
        except BaseException:
            if store is None:  # a store the caller passed is the caller's to close
                opened.close()
            raise
        self.path = self.engine.store.path
        self.keys, self.jobs, self.banks = Keys(self.engine), Jobs(self.engine), Banks(self.engine)
        self.browse, self.models = Browse(self.engine), Models(self.engine)

    @property
    def store(self) -> Store:
        return self.engine.store

    @property
    def settings(self) -> Settings:
        return self.engine.settings

    @property
    def store_kind(self) -> str:
        """Which store this memory runs on: ``"SQLiteStore"``, ``"PostgresStore"`` or a plugin's class name."""
        return type(self.engine.store).__name__

    @property
    def file_backed(self) -> bool:
        """Whether the memory lives in one local file (:attr:`path`), as SQLite's does."""
        return bool(self.engine.store.file_backed)

    def close(self) -> None:
        try:
            self.engine.marks.flush(wait=True)
        finally:
            self.engine.store.close()

    def __enter__(self) -> Memory:
        return self

    def warm_up(self) -> None:
        """Load now what the first retain or recall of this process would load: the engine's modules,
        this Memory's embedder and Kiwi, the Korean morpheme analyser (about two seconds on a small
        machine, most of it Kiwi). ``gieok serve`` runs it in the background while ``/ready`` answers
        503, and ``gieok worker`` before its first claim; a library user may call it in a thread at
        start-up. Each load happens once per process; nothing is stored."""
        _warm.warm_up(self.engine)

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- retain and recall -------------------------------------------------------------------
    def retain(self, bank: str, messages: Sequence[Mapping[str, Any] | Message] | None = None, *,
               text: str | None = None, document_id: str | None = None, timestamp: TimeLike | None = None,
               metadata: Mapping[str, Any] | None = None, progress: Progress = None,
               on_total: Callable[[int], None] | None = None, decay_class: str | None = None,
               importance: float | None = None, pinned: bool | None = None, ttl: float | None = None,
               expires_at: TimeLike | None = None, user_id: str | None = None, agent_id: str | None = None,
               session_id: str | None = None, tags: Sequence[str] | None = None,
               trust: str | None = None) -> RetainResult:
        """Store a conversation (``messages``) or a document (``text``) verbatim and extract facts, in one
        transaction (after redaction; a "block" finding refuses the call and stores nothing).

        ``document_id`` names the source; re-retaining the same id re-processes only what changed.
        ``progress(n)`` is called as facts are embedded, after ``on_total(total)``. Each fact gets a
        decay class and importance from its wording ("기억해 줘", allergies, plans, moods...);
        ``decay_class`` (pinned / stable / transient), ``importance`` and ``pinned`` override it for
        every fact of the call; ``ttl`` (seconds) or ``expires_at`` make the facts expire.

        ``user_id``, ``agent_id``, ``session_id`` and ``tags`` (short strings) are the source's scope:
        every fact of it inherits them, and recall can filter by them; without ``user_id`` the memory
        is shared (see :mod:`gieok.engine.scopes`). A source keeps the scope it was created with
        (ScopeConflictError otherwise). ``metadata`` (a JSON object, redacted like the text) is kept
        with the source and comes back on every memory recalled from it and in :meth:`get`.

        ``trust`` says how much the source is believed: ``"user"`` (the user's own words), ``"assistant"``,
        ``"document"``, ``"web"`` or ``"tool"``; left out, a message goes by its speaker and a document
        is a document. A statement below the user's own words that reads as an instruction to the
        assistant is held back (:meth:`quarantined`), and a less trusted statement never replaces a
        more trusted one (see :mod:`gieok.engine.retain.doubt`)."""
        options = _retain.fact_options(decay_class, importance, pinned, ttl, expires_at)
        return _retain.retain(self.engine, bank, messages, text=text, document_id=document_id, timestamp=timestamp,
                              metadata=metadata, progress=progress, on_total=on_total, options=options,
                              scope=check_scope(user_id, agent_id, session_id, tags), trust=trust)

    def ingest(self, bank: str, path_or_bytes: _ingest.Source, *, document_id: str | None = None,
               media_type: str | None = None, timestamp: TimeLike | None = None,
               metadata: Mapping[str, Any] | None = None, progress: Callable[[int, int], None] | None = None,
               decay_class: str | None = None, importance: float | None = None,
               pinned: bool | None = None, user_id: str | None = None, agent_id: str | None = None,
               session_id: str | None = None, tags: Sequence[str] | None = None,
               trust: str | None = None) -> IngestResult:
        """Retain a file — PDF (its text layer), Markdown, HTML (main content), DOCX or plain text — as a
        document whose chunks keep their location: the PDF page, the heading path (``환불 정책 › 예외``)
        and the span in the extracted text; recalled memories carry it as ``location``.

        ``path_or_bytes`` is a path or the file's bytes (for bytes, ``media_type`` or the extension of
        ``document_id`` names the format; PDF and DOCX are also told by their first bytes; without
        either, text is plain text). ``document_id`` defaults to the file's name; re-ingesting it
        re-processes only changed chunks and removes the facts of chunks that are gone.
        ``progress(done, total)`` follows pages.
        A file gieok cannot read raises a :class:`gieok.errors.DocumentError` subclass that says how to
        fix it, and nothing is stored. Documents do not decay unless ``decay_class`` says so.
        ``user_id`` / ``agent_id`` / ``session_id`` / ``tags`` scope it as in :meth:`retain` (a
        document without ``user_id`` is shared); ``trust`` as in :meth:`retain` (default ``"document"``)."""
        options = _retain.fact_options(decay_class, importance, pinned)
        return _ingest.ingest(self.engine, bank, path_or_bytes, document_id=document_id, media_type=media_type,
                              timestamp=timestamp, metadata=metadata, progress=progress, options=options,
                              scope=check_scope(user_id, agent_id, session_id, tags), trust=trust)

    def import_chat(self, bank: str, path_or_bytes: _ingest.Source, format: str, *, name: str | None = None,
                    skip_bad: bool = False, timezone: str = "Asia/Seoul",
                    progress: Callable[[int, int], None] | None = None,
                    decay_class: str | None = None, importance: float | None = None,
                    pinned: bool | None = None, user_id: str | None = None, agent_id: str | None = None,
                    tags: Sequence[str] | None = None) -> ImportResult:
        """Import a chat export — ``format`` ``"kakaotalk"`` (the app's exported .txt, Korean or English),
        ``"chatgpt"`` (``conversations.json`` of ChatGPT's data export) or ``"jsonl"`` (OpenAI-format
        messages) — keeping speakers and times, one source per conversation.

        A line that cannot be read stops the import before anything is stored, with an error naming
        the lines; ``skip_bad=True`` imports the rest and lists them in ``bad_lines``. Message ids are
        stable, so importing the same or a longer export again adds only what is new. ``timezone`` is
        the zone of a KakaoTalk export's times (they carry none). ``name`` (default: the file's name,
        ``upload`` for bytes) names a KakaoTalk or JSONL conversation: give the same one to re-import
        it. ``progress(done, total)`` follows conversations. ``user_id`` / ``agent_id`` / ``tags`` scope
        every conversation as in :meth:`retain`."""
        options = _retain.fact_options(decay_class, importance, pinned)
        return _imports.import_chat(self.engine, bank, path_or_bytes, format, name=name, skip_bad=skip_bad,
                                    timezone=timezone, options=options, progress=progress,
                                    scope=check_scope(user_id, agent_id, None, tags))

    def submit_retain(self, bank: str, messages: Sequence[Mapping[str, Any] | Message] | None = None, *,
                      text: str | None = None, document_id: str | None = None, timestamp: TimeLike | None = None,
                      metadata: Mapping[str, Any] | None = None, decay_class: str | None = None,
                      importance: float | None = None, pinned: bool | None = None, ttl: float | None = None,
                      expires_at: TimeLike | None = None, user_id: str | None = None, agent_id: str | None = None,
                      session_id: str | None = None, tags: Sequence[str] | None = None,
                      trust: str | None = None) -> Operation:
        """:meth:`retain` in the background: validated and redacted now (bad input or a "block" finding
        raises here), planned and written by the next :meth:`run_jobs` / server worker. Poll
        :meth:`operation` with the returned id."""
        options = _retain.fact_options(decay_class, importance, pinned, ttl, expires_at)
        job = _retain.submit(self.engine, bank, messages, text=text, document_id=document_id, timestamp=timestamp,
                             metadata=metadata, options=options, scope=check_scope(user_id, agent_id, session_id, tags),
                             trust=trust)
        return self.operation(f"op-{job}")

    def operation(self, operation_id: str) -> Operation:
        """A background job (a submitted retain, or any job ``jobs()`` lists as ``op-N``): ``queued``
        (pending) / ``running`` / ``done`` (a retain with its RetainResult) / ``failed`` (with its last
        error) / ``cancelled``, with its attempts and times. The same as ``mem.jobs.get``; cancel or
        retry one with ``mem.jobs.cancel`` / ``mem.jobs.retry``."""
        return self.jobs.get(operation_id)

    def reembed(self, bank: str, embedder: str, *, wait: bool = False,
                progress: Callable[[int, int], None] | None = None) -> Operation:
        """Move ``bank`` to another embedder: every vector it owns (each fact's, a reply's second one,
        every observation's) is embedded again with ``embedder``, from the same texts retain embeds.
        Runs as a background ``reembed`` job (:meth:`run_jobs`, the server's worker, ``gieok worker``);
        ``wait=True`` runs it here and returns once it has run (``progress(done, total)`` follows it).

        Until it is done the bank keeps its old embedder and vectors and serves recall with them; the
        new vectors are staged in batches (a job stopped midway resumes there), and at the end, in
        one transaction, replace the old ones. From then on the bank opens with ``embedder`` only
        (``Memory(..., embedder=...)``; EmbedderMismatchError otherwise). Refused at once: an unknown
        embedder (UnknownProviderError), the bank's own (InputError), a move while another to another
        embedder is queued or running (ReembedRunningError; the same move asked again returns its
        operation). This Memory may be open with either embedder. See :mod:`gieok.engine.jobs.reembed`."""
        job = _reembed.submit(self.engine, bank, embedder)
        if wait:
            _jobs.wait_for(self.engine, job, progress=progress)
        return self.operation(f"op-{job}")

    def recall(self, bank: str, query: str, *, max_tokens: int | None = None, limit: int | None = None,
               now: TimeLike | None = None, explain: bool = False, as_of: TimeLike | None = None,
               user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
               tags: Sequence[str] | None = None, include_shared: bool = True,
               scopes: Mapping[str, float] | None = None) -> Recall:
        """The memories ``query`` needs, best first; at most ``max_tokens`` tokens / ``limit`` items.

        ``now`` anchors relative times in the query ("지난주", "last Friday"); ``explain=True`` adds,
        per memory, each channel's rank and score, the fused score and the multipliers. A replaced
        version is ranked below its replacement; ``as_of`` answers as the bank stood then (facts said
        later are invisible, versions superseded by then are hidden).

        ``user_id`` / ``agent_id`` / ``session_id`` / ``tags`` filter, in every channel: only that
        user's memories (and the shared ones, retained without a user, unless
        ``include_shared=False``), of that agent, of that session, carrying every tag.
        ``scopes={"user": 1.0, "session": 1.2, "agent": 0.5}`` re-weighs instead: a dimension named
        there (but ``user``, always a filter) no longer filters, and a memory matching the id given
        for it has its score multiplied by the weight (the product over the dimensions it matches;
        ``user`` weighs the user's own memories against shared ones). See :mod:`gieok.engine.scopes`."""
        scope = recall_scope(user_id, agent_id, session_id, tags, include_shared, scopes)
        return _recall.recall(self.engine.bank(bank), query, max_tokens=max_tokens, limit=limit, now=now,
                              explain=explain, as_of=as_of, scope=scope)

    def reflect(self, bank: str, question: str, *, now: TimeLike | None = None, user_id: str | None = None,
                agent_id: str | None = None, session_id: str | None = None, tags: Sequence[str] | None = None,
                include_shared: bool = True, scopes: Mapping[str, float] | None = None) -> Reflection:
        """Answer ``question`` only from memory: mental models, then observations, then raw facts.
        Every quote is verified against the memory it cites; without enough evidence the answer is an
        honest "not in memory" in the question's language. Works offline (extractive) and with an LLM.
        The scope arguments are :meth:`recall`'s, for every recall it makes; a mental model answers
        under a scope filter only if every memory its answer rests on is in scope."""
        scope = recall_scope(user_id, agent_id, session_id, tags, include_shared, scopes)
        return _reflect.reflect(self.engine.bank(bank), question, now=now, scope=scope)

    def session(self, bank: str, session_id: str, *, max_tokens: int = 3000,
                keep_recent: int = 6, user_id: str | None = None) -> _session.Session:
        """Working memory for one conversation: recent turns verbatim, older ones folded into a summary
        once they pass ``max_tokens`` (``keep_recent`` turns always stay verbatim). Stored in this
        database (a new ``Memory`` on the same file resumes it); every turn is also retained as a message
        of the source ``session:<session_id>``, which ``forget(source_id=...)`` erases with the session.
        The turns are retained with ``session_id`` as their session and ``user_id`` (if given) as their
        user; the context then recalls only that user's memories and the shared ones."""
        return _session.Session(self.engine, bank, _str(session_id, "session_id"), max_tokens=max_tokens,
                                keep_recent=keep_recent, user_id=user_id)

    def should_recall(self, text: str, *, explain: bool = False) -> bool | GateDecision:
        """False only when ``text`` is clearly small talk ("고마워!", "ㅋㅋㅋ", "ok thanks"); a missed recall
        costs more than an extra one. ``explain=True`` returns the decision with its reason."""
        return should_recall(text, explain=explain)

    def profile(self, bank: str, person: str | None = None, *, user_id: str | None = None) -> list[Profile]:
        """What people stated about themselves and their family, as typed slots (name, nickname,
        birthday, allergy, diet, health, job, employer, city, family, preference), each with its
        current value(s), the memories that state them and every statement in order; the person with
        the most slots first, or only ``person``'s; with ``user_id`` only from that user's memories."""
        return _profile.profile(self.engine.bank(bank), _text(person, "person"), _recall_filter(user_id))

    def lookup(self, bank: str, slot: str, entity: str | None = None, *,
               user_id: str | None = None) -> Slot | None:
        """One profile slot ("birthday", "allergy", "job", …) of the bank's main person, or of
        ``entity``: another person by name, a relative ("sister", "엄마") or a relative by name — its
        current value, the memories that state it and its history; None when it was never stated.
        With ``user_id``, only what that user said counts."""
        _profile.check_slot(slot)
        return _profile.lookup(self.engine.bank(bank), slot, _text(entity, "entity"), scope=_recall_filter(user_id))

    # -- inspection --------------------------------------------------------------------------
    def sources(self, bank: str) -> list[SourceInfo]:
        ctx = self.engine.bank(bank)
        return ctx.store.sources.all(ctx.bank.id, ctx.bank.name)

    def entities(self, bank: str) -> list[EntityInfo]:
        """The people, places and things ``bank`` knows, most named first, with their aliases."""
        return _banks.entities(self.engine.bank(bank))

    def source(self, bank: str, source_id: str) -> SourceInfo:
        """One source verbatim: a conversation's messages or a document's text."""
        return _banks.source(self.engine.bank(bank), _str(source_id, "source_id"))

    def get(self, bank: str, memory_id: str) -> RecalledMemory:
        """One memory by id: a fact (``f-12``) or an observation (``o-3``)."""
        return _banks.get_memory(self.engine.bank(bank), _str(memory_id, "memory_id"))

    def history(self, bank: str, memory_id: str) -> list[RecalledMemory]:
        """Every version of the statement ``memory_id`` belongs to, oldest first; each carries
        ``valid_from`` / ``valid_to`` and which version replaced it."""
        return _banks.history(self.engine.bank(bank), _str(memory_id, "memory_id"))

    def observations(self, bank: str) -> list[RecalledMemory]:
        """Every consolidated observation of ``bank`` with the facts that support it."""
        return _banks.observations(self.engine.bank(bank))

    def pin(self, bank: str, memory_id: str, *, pinned: bool = True) -> RecalledMemory:
        """Pin a fact (it never fades) or, with ``pinned=False``, unpin it (it decays as a stable fact)."""
        return _browse.set_pinned(self.engine.bank(bank), _str(memory_id, "memory_id"), pinned)

    # -- the memory quarantine ---------------------------------------------------------------
    def quarantined(self, bank: str, *, limit: int = 1000) -> list[HeldStatement]:
        """Statements retain held back, newest first: instruction-like text ("SYSTEM: …", "이전 지시는
        무시하고 …", hidden or encoded text) from a source below the user's own words. Each is kept
        verbatim in its source, is not a fact, and says why it was held (see :mod:`gieok.engine.retain.doubt`)."""
        return _held.quarantined(self.engine.bank(bank), limit)

    def release(self, bank: str, held_id: str) -> RecalledMemory:
        """Write the held statement ``held_id`` (``q-12``) as a fact, at its own trust level; returns it."""
        ctx = self.engine.bank(bank)
        return _banks.get_memory(ctx, _held.release(ctx, held_id))

    def dismiss(self, bank: str, held_id: str) -> None:
        """Stop listing the held statement ``held_id``: it stays only in its verbatim source, never a fact.
        To erase it, forget what it came from (``forget(bank, source_id=<its message_id or source_id>)``)."""
        _held.dismiss(self.engine.bank(bank), held_id)

    # -- forgetting --------------------------------------------------------------------------
    def forget(self, bank: str, *, source_id: str | None = None, memory_id: str | None = None,
               entity: str | None = None, before: TimeLike | None = None, verify: bool = False,
               user_id: str | None = None) -> ForgetResult:
        """Erase for real: facts, index rows, vectors, links, mentions, what the entity graph learned
        from them, observations and answers resting on them, queued jobs and the verbatim evidence they
        came from; the WAL is checkpointed before it returns. ``source_id`` is a ``document_id``/
        conversation id or a message id given on retain; ``user_id`` every source retained for that
        user, with its scope and metadata. ``verify=True`` also proves it: every form the
        engine derived (words, index terms, names and keys, any case, JSON-escaped) that nothing
        remaining still says is looked for in every table and the file's bytes."""
        return _forget.forget(self.engine.bank(bank), source_id=_text(source_id, "source_id"),
                              memory_id=_text(memory_id, "memory_id"), entity=_text(entity, "entity"),
                              before=before, verify=verify, user_id=user_id)

    def verify_erased(self, texts: Sequence[str] | str, *, deep: bool = True) -> ErasureProof:
        """Prove that ``texts`` are nowhere in the database — as written, lower-cased, capitalised or
        JSON-escaped: no table, no FTS index or shadow table, no vector table and (``deep``: after a
        checkpoint and VACUUM) not in the file's bytes."""
        return _forget.verify_erased(self.engine.store, [texts] if isinstance(texts, str) else texts, deep=deep)

    # -- configuration -----------------------------------------------------------------------
    def redaction_policy(self, bank: str) -> RedactionPolicy:
        """The policy retain applies to ``bank``: its own if set, else this Memory's default."""
        return self.engine.redaction_policy(bank)

    def set_redaction_policy(self, bank: str, policy: RedactionPolicy | Mapping[str, str] | None) -> RedactionPolicy:
        """Store a per-bank policy, e.g. ``{"email": "allow", "kr_rrn": "block"}``; None resets it."""
        return _banks.set_redaction_policy(self.engine, bank, policy)

    def audit_log(self, bank: str, limit: int = 1000) -> list[AuditEntry]:
        """Audit entries of ``bank``, newest first: types, positions, fingerprints; never values."""
        return _banks.audit_log(self.engine, _context.check_bank_name(bank), check_int64(limit, "limit", low=1))

    def configure_llm(self, bank: str, *, provider: str | None = None, model: str | None = None,
                      base_url: str | None = None, api_key_env: str | None = None,
                      spend_limit_usd: float | None = None, enabled: bool | None = None) -> LlmConfig:
        """Per-bank LLM configuration (overrides the global one). Keys are read from the environment
        variable named by ``api_key_env``, never stored. ``enabled=False`` keeps this bank offline."""
        return _banks.configure_llm(self.engine, bank, provider=provider, model=model, base_url=base_url,
                                    api_key_env=api_key_env, spend_limit_usd=spend_limit_usd, enabled=enabled)

    def configure_decisions(self, bank: str, model: str | None) -> str:
        """Which decision model answers ``bank``'s judgments (instruction-like text held back, …):
        ``"learned"`` (the heads shipped in the package, offline), ``"llm"`` (the bank's LLM, metered)
        or a plugin; None returns the bank to the setting ``decision_model``. Returns the one in use."""
        return _banks.configure_decisions(self.engine, bank, model)

    # -- shaping reflect ---------------------------------------------------------------------
    def set_disposition(self, bank: str, disposition: Disposition | Mapping[str, Any] | None = None, *,
                        skepticism: int | None = None, literalism: int | None = None, empathy: int | None = None,
                        name: str | None = None, background: str | None = None) -> Disposition:
        """Who answers ``bank``'s reflect: three dials from 1 to 5 (3 neutral) — ``skepticism``,
        ``literalism``, ``empathy`` — a ``name`` and a ``background``, given as a :class:`Disposition`,
        a mapping or keywords (keywords override the mapping's fields; what neither gives is neutral).
        ``set_disposition(bank)`` returns the bank to neutral. See :mod:`gieok.engine.reflect.shaping`."""
        return _shaping.set_disposition(self.engine, bank, Disposition.changed(
            disposition, skepticism=skepticism, literalism=literalism, empathy=empathy, name=name,
            background=background))

    def disposition(self, bank: str) -> Disposition:
        """``bank``'s disposition (neutral unless one was set)."""
        return _shaping.shaping(self.engine.bank(bank)).disposition

    def set_directives(self, bank: str, directives: Sequence[str | Mapping[str, Any] | Directive] | None
                       ) -> list[Directive]:
        """Replace ``bank``'s directives, hard rules reflect keeps whatever the disposition, in order:
        text ("Never give medical dosages", "답변은 존댓말로") or mappings (``{"forbid": "medical
        dosages", "words": ["mg"]}``, ``{"language": "ko"}``, ``{"register": "polite"}``,
        ``{"rule": "..."}``). Returns each as read — ``enforced`` says whether code checks it (a
        forbidden topic refuses before any LLM call; a language or register is verified on the
        answer) or only an LLM's prompt carries it. None or [] clears them."""
        return _shaping.set_directives(self.engine, bank, directives)

    def directives(self, bank: str) -> list[Directive]:
        """``bank``'s directives, in order, as read."""
        return list(_shaping.shaping(self.engine.bank(bank)).directives)

    def llm_usage(self, bank: str) -> LlmUsage:
        """LLM calls, tokens and estimated cost of ``bank``, per day and operation, with its ceiling."""
        return _banks.llm_usage(self.engine.bank(bank))

    # -- moving banks (docs/guide/portability.md) --------------------------------------------
    def export_bank(self, bank: str, dest: str | os.PathLike[str] | IO[Any], *, with_vectors: bool = False) -> int:
        """Write ``bank`` to ``dest`` (a path or a file object) as a gieok bank file (JSON Lines, streamed);
        ``with_vectors`` adds the vectors with their embedder id. Returns the lines written."""
        return _portable.export_bank(self.engine, bank, dest, with_vectors=with_vectors)

    def iter_export(self, bank: str, *, with_vectors: bool = False) -> Iterator[str]:
        """The lines of ``bank``'s file (what :meth:`export_bank` writes), read a page of rows at a time."""
        return _portable.export_lines(self.engine, bank, with_vectors=with_vectors)

    def import_bank(self, src: str | os.PathLike[str] | bytes | IO[Any], bank: str | None = None, *,
                    progress: Callable[[int, int], None] | None = None) -> BankImport:
        """Import a bank file into ``bank`` (default: the name it was exported under). Validated before
        anything is written; importing the same file again changes nothing."""
        return _portable.import_bank(self.engine, src, bank, progress=progress)

    def clone_bank(self, bank: str, new: str) -> BankImport:
        """Copy ``bank`` to a new bank ``new``, independent of it from then on."""
        return _portable.clone_bank(self.engine, bank, new)

    def rename_bank(self, bank: str, new: str) -> BankInfo:
        """Rename ``bank`` to ``new`` (refused when ``new`` exists); returns the bank under its new name."""
        name = _portable.rename_bank(self.engine, bank, new)
        return next(b for b in self.banks() if b.name == name)

    # -- background work ---------------------------------------------------------------------
    def maintain(self, bank: str | None = None, *, now: TimeLike | None = None) -> list[JobReport]:
        """Queue the maintenance jobs (decay, TTL purge) for ``bank`` (or every bank) and run every
        pending job; returns one report per job. Run it from cron or a worker, not per request.
        The same as ``mem.jobs.maintain``."""
        return self.jobs.maintain(bank, now=now)

    def run_jobs(self, bank: str | None = None, *, limit: int | None = None,
                 now: TimeLike | None = None) -> list[JobReport]:
        """Run queued background jobs (consolidation, decay, purge, mental-model refresh) in this
        thread. The same as ``mem.jobs.run``."""
        return self.jobs.run(bank, limit=limit, now=now)


class AsyncSession:
    """The async twin of :class:`gieok.engine.working_memory.Session` (what ``await AsyncMemory.session(...)``
    gives): ``add``, ``render``, ``context``, ``show``, ``turns``, ``refold`` as coroutines run in a
    worker thread, and ``summary()`` for the ``summary`` property."""

    def __init__(self, session: _session.Session) -> None:
        _twin_sessions()
        self._sync = session
        self.bank, self.session_id, self.source_id = session.bank, session.session_id, session.source_id

    async def summary(self) -> str:
        return await in_thread(lambda: self._sync.summary)


@functools.cache
def _twin_sessions() -> None:
    """AsyncSession's coroutines, made when the first one is (the session module is the engine's
    retain and recall: importing it here would load them with the package)."""
    add_async_twins(_session.Session, AsyncSession)


class AsyncMemory:
    """The async twin of :class:`Memory`: every public method of Memory, as a coroutine run in a worker
    thread (SQLite and the embedders are blocking)."""

    def __init__(self, path: str = "gieok.db", **kwargs: Any) -> None:
        self._sync = Memory(path, **kwargs)
        self.path = self._sync.path
        self.keys, self.jobs = AsyncKeys(self._sync.keys), AsyncJobs(self._sync.jobs)
        self.banks, self.browse = AsyncBanks(self._sync.banks), AsyncBrowse(self._sync.browse)
        self.models = AsyncModels(self._sync.models)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await in_thread(self._sync.close)

    async def session(self, bank: str, session_id: str, *, max_tokens: int = 3000,
                      keep_recent: int = 6, user_id: str | None = None) -> AsyncSession:
        """:meth:`Memory.session`, whose methods are coroutines too (a session's calls embed and write)."""
        return AsyncSession(self._sync.session(bank, session_id, max_tokens=max_tokens, keep_recent=keep_recent,
                                               user_id=user_id))


# Every public method of Memory checks its arguments at the edge (gieok.limits) and gets its coroutine
# twin; tests/test_api.py checks the pair against a written list of the public API, so a method added to
# one side only fails there.
check_every_method(Memory)
add_async_twins(Memory, AsyncMemory)


# every string argument is a str (never stringified) that can be stored (no lone surrogate, no NUL)
_str, _text = check_text, check_optional_text


def should_recall(text: str, *, explain: bool = False) -> bool | GateDecision:
    """:meth:`Memory.should_recall` without a Memory (no database is read): the recall gate itself."""
    decision = _gate.recall_gate(text)
    return decision if explain else decision.recall


def _open_store(path: str, database: str | None) -> Store:
    """The SQLite file at ``path``, or with ``database`` (a ``postgresql://`` DSN) a PostgreSQL store."""
    if database is None:
        from gieok.store.sqlite import SQLiteStore

        return SQLiteStore(path)
    from gieok.store.postgres import PostgresStore  # psycopg is needed only here

    return PostgresStore(database)


def _recall_filter(user_id: str | None) -> ScopeFilter | None:
    """A user's own memories only (no shared ones: a profile is what that user said), or no filter."""
    return None if user_id is None else recall_scope(user_id=user_id, include_shared=False).filter
