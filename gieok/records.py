"""Plain data records shared by the engine, the store and the public API."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

__all__ = [
    "Message",
    "BankInfo",
    "SourceInfo",
    "NewFact",
    "FactRow",
    "ChannelHit",
    "RecalledMemory",
    "ImportResult",
    "Recall",
    "RetainResult",
    "IngestResult",
    "EntityInfo",
    "Operation",
    "SlotRow",
    "Scope",
    "ScopeFilter",
    "UNSCOPED",
    "BankImport",
]


@dataclass(frozen=True)
class Message:
    """One message of a conversation, as the caller gave it (after redaction)."""

    id: str
    speaker: str
    text: str
    timestamp: str | None = None


@dataclass(frozen=True)
class Scope:
    """Whose a memory is, inside its bank: the user and agent it was retained for, the conversation
    session it came from and its tags. Given to retain, stored with the source (a conversation or a
    document) and inherited by every fact and chunk derived from it. None (or no tags) leaves an
    axis open: a memory without a ``user_id`` is *shared* (documents, the agent's own knowledge)."""

    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    tags: tuple[str, ...] = ()


UNSCOPED = Scope()  # a memory no one owns (shared), and the default of every scope argument


@dataclass(frozen=True)
class ScopeFilter:
    """The hard filter of a recall (engine → store): only memories of ``user_id`` (and shared ones,
    without a user, when ``include_shared``), of ``agent_id``, of ``session_id`` and carrying every
    tag in ``tags``. None on an axis filters nothing on it. The stores apply it in SQL inside every
    channel's query; :meth:`admits` is the same rule in Python, recall's last guard."""

    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    tags: tuple[str, ...] = ()
    include_shared: bool = True

    @property
    def empty(self) -> bool:
        return self.user_id is None and self.agent_id is None and self.session_id is None and not self.tags

    def admits(self, scope: Scope) -> bool:
        if self.user_id is not None and scope.user_id != self.user_id and \
                not (self.include_shared and scope.user_id is None):
            return False
        if self.agent_id is not None and scope.agent_id != self.agent_id:
            return False
        if self.session_id is not None and scope.session_id != self.session_id:
            return False
        return set(self.tags) <= set(scope.tags)


@dataclass(frozen=True)
class BankInfo:
    name: str
    embedder: str
    dim: int
    created_at: datetime
    sources: int = 0
    facts: int = 0


@dataclass(frozen=True)
class SourceInfo:
    id: str
    bank: str
    kind: str
    created_at: datetime
    updated_at: datetime
    messages: list[Message] = field(default_factory=list)
    text: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    scope: Scope = UNSCOPED


@dataclass
class NewFact:
    """A fact ready to be written (engine → store)."""

    text: str
    embed_text: str
    terms: tuple[str, ...]
    context_embed_text: str | None = None  # a reply with the message it answers: its second vector
    context_terms: tuple[str, ...] = ()
    kind: str = "world"
    speaker: str | None = None
    message_ids: list[str] = field(default_factory=list)
    occurred_start: float | None = None
    occurred_end: float | None = None
    mentioned_at: float | None = None
    utc_offset: int | None = None
    importance: float = 0.5
    pinned: bool = False
    decay_class: str = "stable"
    expires_at: float | None = None
    tokens: int = 0
    trust: str = "user"  # how much its source is believed (gieok.engine.retain.doubt.TRUST_LEVELS)
    replies_to: str | None = None  # a short reply: the other party's message it answers ("생일이 언제세요?")


@dataclass(frozen=True)
class FactRow:
    """A stored fact (store → engine)."""

    id: int
    bank_id: int
    source_id: int
    source_external_id: str
    chunk_id: int
    text: str
    kind: str
    speaker: str | None
    message_ids: list[str]
    occurred_start: float | None
    occurred_end: float | None
    mentioned_at: float | None
    utc_offset: int | None
    valid_from: float | None
    valid_to: float | None
    importance: float
    pinned: bool
    decay_class: str
    expires_at: float | None
    tokens: int
    superseded_by: int | None = None
    strength: float = 1.0
    archived_at: float | None = None
    created_at: float = 0.0
    recall_count: int = 0
    scope: Scope = UNSCOPED  # its source's
    metadata: dict[str, Any] = field(default_factory=dict)  # its source's, as given on retain
    trust: str | None = None  # None: written before trust was kept (gieok.engine.retain.doubt.trust_of)


@dataclass(frozen=True)
class ChannelHit:
    """Where one channel ranked a memory (rank 1 = best) and its raw score."""

    rank: int
    score: float


@dataclass
class RecalledMemory:
    id: str
    text: str
    score: float
    kind: str
    type: str
    source_id: str
    source_ids: list[str]
    speaker: str | None
    occurred_start: datetime | None
    occurred_end: datetime | None
    mentioned_at: datetime | None
    channels: dict[str, ChannelHit]
    tokens: int
    explanation: dict[str, Any] | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    supersedes: list[str] = field(default_factory=list)
    superseded_by: str | None = None
    decay_class: str = "stable"
    pinned: bool = False
    strength: float = 1.0
    based_on: list[str] = field(default_factory=list)  # an observation's supporting memories
    # where a document's memory lies: {"page": 3} (PDF) / {"section": ["환불 정책", "예외"]}, with
    # "start"/"end" (its chunk's span in the extracted text); None for conversations
    location: dict[str, Any] | None = None
    # whose it is (its source's scope; an observation's when all its facts share it) and the
    # metadata given on retain
    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    # how much its source is believed: "user" (the user's own words), "assistant", "document", "web" or
    # "tool"; anything below "user" is said in reflect's answer (gieok.engine.retain.doubt)
    trust: str = "user"

    @property
    def occurred_at(self) -> datetime | None:
        return self.occurred_start or self.mentioned_at

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for key in ("occurred_start", "occurred_end", "mentioned_at", "valid_from", "valid_to"):
            value = getattr(self, key)
            d[key] = value.isoformat() if value else None
        return d


@dataclass
class Recall:
    query: str
    bank: str
    memories: list[RecalledMemory]
    total_tokens: int
    max_tokens: int | None
    now: datetime
    time_range: tuple[datetime, datetime] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "bank": self.bank,
            "now": self.now.isoformat(),
            "time_range": [t.isoformat() for t in self.time_range] if self.time_range else None,
            "max_tokens": self.max_tokens,
            "total_tokens": self.total_tokens,
            "memories": [m.to_dict() for m in self.memories],
        }


@dataclass(frozen=True)
class RetainResult:
    """What one retain wrote. ``facts_removed``: a changed message's old facts (deleted with its old
    text) or, for a new version of a document, the facts of the chunks it left out (closed, kept as
    the document's history)."""

    bank: str
    source_id: str
    facts_added: int
    facts_removed: int
    chunks_total: int
    chunks_skipped: int
    redactions: int = 0
    quarantined: int = 0  # statements held back as instructions from a lower-trust source (Memory.quarantined)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class IngestResult:
    """One file ingested as a document: what was retained, and what the file was."""

    bank: str
    source_id: str
    name: str  # the file's name (or "<bytes>")
    media_type: str
    pages: int | None  # PDF pages; None for formats without pages
    chars: int  # characters of extracted text
    facts_added: int
    facts_removed: int
    chunks_total: int
    chunks_skipped: int
    redactions: int = 0
    quarantined: int = 0  # statements held back as instructions from a lower-trust source (Memory.quarantined)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ImportResult:
    """A chat export imported: one source per conversation. ``bad_lines`` are the lines (or, for
    ``conversations.json``, conversations) that could not be read — with ``skip_bad`` they were left
    out, otherwise nothing was imported; ``skipped`` are lines meant to be left out (date lines,
    join notices, photo placeholders, system prompts)."""

    bank: str
    format: str
    name: str
    conversations: int
    messages: int
    facts_added: int
    source_ids: list[str]
    skipped: int = 0
    bad_lines: list[str] = field(default_factory=list)
    redactions: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class EntityInfo:
    """A person, place or thing the bank knows, with the names it goes by and how many facts name it."""

    name: str
    kind: str
    aliases: list[str]
    facts: int
    last_seen: datetime | None = None


@dataclass(frozen=True)
class Operation:
    """A background job: a retain queued to run in the background (``submit_retain``; HTTP
    ``"async": true``), or a consolidation, decay, purge or mental-model refresh. ``status`` is
    queued (pending), running, done, failed or cancelled; ``error`` is the last error, kept while it
    is retried; ``result`` is a retain's RetainResult once done; ``report`` any other job's own
    report: a reembed's progress while it runs (``staged`` of ``total`` facts) and, once done, what it
    moved (``facts``, ``context_vectors``, ``observations``, ``embedder``, ``dim``, ``seconds``)."""

    id: str
    bank: str
    kind: str
    status: str  # queued, running, done, failed, cancelled
    created_at: datetime
    updated_at: datetime
    attempts: int = 0
    result: RetainResult | None = None
    error: str | None = None
    run_after: datetime | None = None  # when it is (or was) due: a retry's backoff moves it
    started_at: datetime | None = None
    finished_at: datetime | None = None
    report: dict[str, Any] | None = None


@dataclass(frozen=True)
class SlotRow:
    """One profile-slot statement as stored (engine ↔ store): a value a person stated, and its fact."""

    fact_id: int
    person: str  # who said it: the message's speaker
    holder: str  # "self" (the person) or the relative it is about ("sister")
    slot: str
    value: str
    relation: str | None  # for the "family" slot: which relative
    negated: bool  # the statement denies or ends the value
    said_at: float
    user_id: str | None = None  # whose memory it is (its source's user): two users' "user" are two people


@dataclass(frozen=True)
class BankImport:
    """A bank file imported (:meth:`gieok.Memory.import_bank`) or a bank cloned: the bank it went into,
    how many records of each type (docs/guide/portability.md), how many facts and observations were
    embedded again (the file had no vectors of this memory's embedder), and whether this exact file
    had been imported into the bank before (then nothing was written: ``unchanged``)."""

    bank: str
    counts: dict[str, int]
    sha256: str
    reembedded: int = 0
    unchanged: bool = False
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
