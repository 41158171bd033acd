"""Plain data records shared by the engine, the store and the public API.

Everything :class:`gieok.Memory` returns is one of these (or a list of them): adapters read them, and
the HTTP API answers with them — either the record itself (FastAPI encodes a dataclass) or, where
the route is typed as a JSON object, its ``to_dict()``, which gives exactly the object the route has
always answered with (nested records are left to the JSON encoder). :class:`gieok.Client` parses the
same JSON back into the same records. A record holds data and, at most, small rules about itself
(:meth:`Principal.require`, :meth:`Slot.previous`); the engine's logic stays in the engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from gieok.errors import BankNotFoundError, InputError, PermissionDeniedError

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
    "KEY_ROLES",
    "SESSION_ROLES",
    "ApiKey",
    "Principal",
    "OPEN_ACCESS",
    "ErasureProof",
    "ForgetResult",
    "Reflection",
    "SlotStatement",
    "Slot",
    "Profile",
    "HeldStatement",
    "SECTION_SEPARATOR",
    "format_location",
    "citation",
    "memory_lines",
    "BankOverview",
    "JobCounts",
    "WeekCounts",
    "Link",
    "Connections",
    "Neighbour",
    "EntityEdge",
    "EntityView",
    "MergeSuggestion",
    "AuditEntry",
    "LlmUsageRow",
    "LlmUsage",
    "LlmConfig",
    "MentalModel",
    "Job",
    "JobReport",
    "ClaimedJob",
    "DeletedBank",
    "GateDecision",
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


# -- who may call: API keys and the caller a key stands for ------------------------------------
KEY_ROLES = ("read", "write", "admin")  # an API key's roles, weakest first
SESSION_ROLES = ("user", "assistant", "system", "tool")  # who may speak a session's turn


@dataclass(frozen=True)
class ApiKey:
    """A key as ``gieok keys list`` shows it: never the key itself."""

    id: int
    prefix: str
    role: str
    banks: list[str]
    created_at: datetime
    name: str | None = None
    last_used_at: datetime | None = None
    revoked_at: datetime | None = None


@dataclass(frozen=True)
class Principal:
    """Who is calling: the role and banks of the key the request carried (:data:`OPEN_ACCESS`: no keys
    needed)."""

    role: str
    banks: frozenset[str] = field(default_factory=frozenset)
    key_id: int | None = None

    def sees(self, bank: str) -> bool:
        return self.role == "admin" or bank in self.banks

    def require(self, bank: str | None, need: str) -> None:
        """Raise unless this caller may do a ``need`` (read / write / admin) call on ``bank``. A bank the
        key does not name is reported as not found, exactly like a bank that does not exist."""
        if bank is not None and not self.sees(bank):
            raise BankNotFoundError(bank)
        if KEY_ROLES.index(self.role) < KEY_ROLES.index(need):
            raise PermissionDeniedError(self.role, need)


OPEN_ACCESS = Principal("admin")  # the caller while no key is in force: every bank, every call


# -- forgetting --------------------------------------------------------------------------------
@dataclass
class ErasureProof:
    """Where erased text was still found (table and column, or the file); empty means clean.

    Each finding names the probed form by its index (``text``) and kind (``form``: text, word, term,
    name or key), never by its text; ``probed`` is how many forms were looked for."""

    clean: bool
    checked: list[str]
    found: list[dict[str, Any]] = field(default_factory=list)
    vacuumed: bool = False
    probed: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"clean": self.clean, "checked": self.checked, "found": self.found, "vacuumed": self.vacuumed,
                "probed": self.probed}


@dataclass
class ForgetResult:
    bank: str
    selector: dict[str, str]
    erased: dict[str, int]
    memory_ids: list[str]
    contexts_cleared: int = 0  # replies to an erased message that lost it as context
    proof: ErasureProof | None = None
    checkpointed: bool = True  # the write-ahead log was copied into the file and truncated

    def to_dict(self) -> dict[str, Any]:
        return {"bank": self.bank, "selector": self.selector, "erased": self.erased, "memory_ids": self.memory_ids,
                "contexts_cleared": self.contexts_cleared, "proof": self.proof.to_dict() if self.proof else None,
                "checkpointed": self.checkpointed}


# -- reflect -----------------------------------------------------------------------------------
@dataclass
class Reflection:
    question: str
    answer: str
    supported: bool
    language: str
    source: str  # mental_model | observations | facts | none
    # each cited memory: id, type, text, quotes, and where it came from: source_id, source_ids (the
    # messages or document it rests on), speaker, mentioned_at, occurred_start, occurred_end (ISO 8601)
    based_on: list[dict[str, Any]] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    dropped_quotes: list[str] = field(default_factory=list)
    llm: str | None = None
    # how it was answered: offline (extractive), llm, offline_fallback (an LLM is configured but did not
    # answer: mode_reason says why) or lookup (a mental model's stored answer)
    mode: str = "offline"
    mode_reason: str | None = None
    # why an unsupported answer refused: nothing_found (no memory came back), insufficient
    # (memories came back, none says what was asked) or directive (a bank's directive forbade the
    # answer; steps name it); None when the answer is supported
    refusal: str | None = None
    # the bank's disposition the answer was given (None: neutral) and its directives, in order
    # (see gieok.engine.reflect.shaping)
    disposition: dict[str, Any] | None = None
    directives: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# -- shaping reflect: a bank's disposition and directives (gieok.engine.reflect.shaping) -----------
DIALS = ("skepticism", "literalism", "empathy")
DIRECTIVE_KINDS = ("forbid", "language", "register", "rule")
MAX_NAME_CHARS = 100
MAX_BACKGROUND_CHARS = 2000


@dataclass(frozen=True)
class Disposition:
    """Who answers a bank's reflect: three dials from 1 to 5 (3 is neutral), a name and a background."""

    skepticism: int = 3
    literalism: int = 3
    empathy: int = 3
    name: str = ""
    background: str = ""

    def __post_init__(self) -> None:
        for dial in DIALS:
            value = getattr(self, dial)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 5:
                raise InputError(f"{dial} must be a whole number from 1 to 5 (3 is neutral), not {value!r}")
        for key, most in (("name", MAX_NAME_CHARS), ("background", MAX_BACKGROUND_CHARS)):
            value = getattr(self, key)
            if not isinstance(value, str):
                raise InputError(f"the disposition's {key} must be text, not {type(value).__name__}")
            if len(value) > most:
                raise InputError(f"the disposition's {key} is {len(value)} characters: keep it to {most}")

    @classmethod
    def coerce(cls, value: Disposition | Mapping[str, Any] | None) -> Disposition:
        if value is None:
            return cls()
        if isinstance(value, Disposition):
            return value
        if not isinstance(value, Mapping):
            raise InputError(f"a disposition is a mapping of {', '.join(DIALS)}, name and background, "
                             f"not {type(value).__name__}")
        unknown = sorted(set(value) - {*DIALS, "name", "background"})
        if unknown:
            raise InputError(f"unknown disposition field(s) {', '.join(map(str, unknown))}: use "
                             f"{', '.join(DIALS)}, name and background")
        fields: dict[str, Any] = {k: ("" if v is None and k in ("name", "background") else v) for k, v in value.items()}
        return cls(**fields)

    @classmethod
    def changed(cls, base: Disposition | Mapping[str, Any] | None, **changes: Any) -> Disposition:
        """``base`` (None: neutral) with every change that is not None put in its place."""
        fields = cls.coerce(base).to_dict()
        fields.update({k: v for k, v in changes.items() if v is not None})
        return cls.coerce(fields)

    @property
    def neutral(self) -> bool:
        return self == Disposition()

    @property
    def literal(self) -> bool:
        """Only memories that share the question's words answer (no paraphrase gate)."""
        return self.literalism >= 4

    def veto(self, bar: float) -> float:
        """The answerability bar a quote must clear under this skepticism (3 keeps ``bar``)."""
        if self.skepticism >= 3:
            return min(0.95, bar + 0.15 * (self.skepticism - 3))
        return bar * (1.0 - 0.35 * (3 - self.skepticism))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Directive:
    """One hard rule of a bank's reflect, as written (``text``) and as read: ``kind`` is forbid (a
    ``topic`` and trigger ``words``), language (``ko``/``en``), register (``polite``/``plain``) or rule."""

    text: str
    kind: str
    topic: str = ""
    words: tuple[str, ...] = ()
    language: str = ""
    register: str = ""

    @property
    def enforced(self) -> bool:
        """Checked in code (``rule`` directives only reach an LLM's prompt)."""
        return self.kind != "rule"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text, "kind": self.kind, "enforced": self.enforced}
        if self.kind == "forbid":
            out.update(topic=self.topic, words=list(self.words))
        elif self.kind == "language":
            out["language"] = self.language
        elif self.kind == "register":
            out["register"] = self.register
        return out

    def to_input(self) -> dict[str, Any]:
        """The mapping a bank reads back into this directive (as a client sends it)."""
        body = {"forbid": self.topic, "language": self.language, "register": self.register}.get(self.kind, self.text)
        out: dict[str, Any] = {self.kind: body, "text": self.text}
        if self.words:
            out["words"] = list(self.words)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Directive:
        """A directive as :meth:`to_dict` (or the HTTP API) gives it."""
        return cls(str(data["text"]), str(data["kind"]), data.get("topic") or "", tuple(data.get("words") or ()),
                   data.get("language") or "", data.get("register") or "")


SECTION_SEPARATOR = " › "


def format_location(location: Mapping[str, Any] | None) -> str:
    """``{"page": 3}`` → ``p. 3``; ``{"section": ["환불 정책", "예외"]}`` → ``§ 환불 정책 › 예외``; empty → ``""``."""
    if not location:
        return ""
    parts = []
    if location.get("page") is not None:
        parts.append(f"p. {location['page']}")
    section = location.get("section") or []
    if section:
        parts.append("§ " + SECTION_SEPARATOR.join(str(s) for s in section))
    return ", ".join(parts)


def citation(memory: RecalledMemory) -> str | None:
    """How an answer cites a document's memory: ``policy.pdf, p. 3`` / ``refund.md, § 환불 정책 › 예외``."""
    if memory.location is None:
        return None  # not an ingested document's
    where = format_location(memory.location)
    return f"{memory.source_id}, {where}" if where else memory.source_id


def memory_lines(memories: list[RecalledMemory]) -> str:
    """Recalled memories as a model reads them: one line each, ``[id] (date or document place,
    speaker, replaced by) text``."""
    if not memories:
        return "(nothing found)"
    return "\n".join(f"[{m.id}] ({citation(m) or (m.mentioned_at.date() if m.mentioned_at else '?')}"
                     f"{', ' + m.speaker if m.speaker else ''}"
                     f"{', replaced by ' + m.superseded_by if m.superseded_by else ''}) {m.text}" for m in memories)


# -- profile slots -----------------------------------------------------------------------------
@dataclass
class SlotStatement:
    """One statement of a slot's value, as said."""

    value: str
    memory_id: str
    said_at: datetime
    negated: bool = False
    relation: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["said_at"] = self.said_at.isoformat()
        return out


@dataclass
class Slot:
    """A slot of one person (``holder`` "self", or the relative it is about): its current values, the
    memories that state them, and every statement in the order said."""

    person: str
    holder: str
    slot: str
    values: list[str]
    memory_ids: list[str]
    history: list[SlotStatement] = field(default_factory=list)

    @property
    def value(self) -> str | None:
        """The current value (the first of several for a multi-valued slot); None when empty."""
        return self.values[0] if self.values else None

    def previous(self) -> list[SlotStatement]:
        """The values this slot held before its current ones, latest first."""
        current = set(self.values)
        seen: set[str] = set()
        out = []
        for statement in reversed(self.history):
            if statement.negated or statement.value in current or statement.value in seen:
                continue
            seen.add(statement.value)
            out.append(statement)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"person": self.person, "holder": self.holder, "slot": self.slot, "value": self.value,
                "values": list(self.values), "memory_ids": list(self.memory_ids),
                "history": [s.to_dict() for s in self.history]}


@dataclass
class Profile:
    """Everything one person stated about themselves and their family. Two users' memories are two
    people, even when both speak as "user" (``user_id``: whose memories these are; None for shared ones)."""

    person: str
    slots: list[Slot]
    user_id: str | None = None

    def get(self, slot: str, holder: str = "self") -> Slot | None:
        return next((s for s in self.slots if s.slot == slot and s.holder == holder), None)

    def to_dict(self) -> dict[str, Any]:
        return {"person": self.person, "user_id": self.user_id, "slots": [s.to_dict() for s in self.slots]}


# -- the memory quarantine ---------------------------------------------------------------------
@dataclass(frozen=True)
class HeldStatement:
    """A statement the quarantine holds: kept verbatim in its source, not a fact."""

    id: str  # "q-<n>"
    source_id: str
    message_id: str | None
    speaker: str | None
    text: str
    trust: str
    reason: str
    probability: float
    held_at: datetime

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "source_id": self.source_id, "message_id": self.message_id, "speaker": self.speaker,
                "text": self.text, "trust": self.trust, "reason": self.reason,
                "probability": round(self.probability, 4), "held_at": self.held_at.isoformat()}


# -- browsing a bank (Memory.browse) -----------------------------------------------------------
@dataclass(frozen=True)
class JobCounts:
    queued: int
    running: int
    failed: int


@dataclass(frozen=True)
class WeekCounts:
    """The facts said in one week (``week``: its Monday, ISO date, or "undated"), per decay class."""

    week: str
    classes: dict[str, int]


@dataclass(frozen=True)
class BankOverview:
    """A bank at a glance (:meth:`Memory.browse.overview`). ``bytes``: about how much it holds (its
    text and one vector per fact); ``archived``: faded facts; ``last_activity``: ISO 8601 or None."""

    bank: str
    embedder: str
    sources: int
    facts: int
    observations: int
    entities: int
    superseded: int
    expired: int
    archived: int
    pinned: int
    bytes: int
    last_activity: str | None
    jobs: JobCounts
    weeks: list[WeekCounts]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Link:
    """A link from one fact to another: its type, weight and the other fact's text."""

    id: str
    type: str
    weight: float
    text: str


@dataclass(frozen=True)
class Connections:
    """A fact's entities (their names) and its links to other facts."""

    id: str
    entities: list[str]
    links: list[Link]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Neighbour:
    """An entity named in the same facts as another, and in how many."""

    name: str
    weight: int


@dataclass(frozen=True)
class EntityEdge:
    """Two neighbours named together, and in how many facts."""

    a: str
    b: str
    weight: int


@dataclass(frozen=True)
class EntityView:
    """One entity with its latest facts and its neighbourhood (:meth:`Memory.browse.entity`)."""

    entity: EntityInfo
    facts: list[RecalledMemory]
    neighbours: list[Neighbour]
    edges: list[EntityEdge]

    def to_dict(self) -> dict[str, Any]:
        return {"entity": self.entity, "facts": list(self.facts),
                "neighbours": [asdict(n) for n in self.neighbours], "edges": [asdict(e) for e in self.edges]}


@dataclass(frozen=True)
class MergeSuggestion:
    """Two entities that may be one: their names, kinds and fact counts (in that order), how similar
    the names are and why."""

    entities: list[str]
    kinds: list[str]
    facts: list[int]
    similarity: float
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# -- configuration and metering ----------------------------------------------------------------
@dataclass(frozen=True)
class AuditEntry:
    """One redaction finding (or action) as the audit log keeps it: never the value itself."""

    at: str  # ISO 8601
    operation: str
    source_id: str | None
    item_id: str | None
    type: str
    start: int | None
    end: int | None
    length: int | None
    fingerprint: str | None
    action: str
    count: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class LlmUsageRow:
    """One day's LLM use of one operation on one provider and model."""

    day: str
    operation: str
    provider: str
    model: str
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float


@dataclass(frozen=True)
class LlmUsage:
    """Which LLM a bank uses (none: ``offline``), what it spent and its ceiling, and its use per day."""

    bank: str
    provider: str | None
    model: str | None
    offline: bool
    spent_usd: float
    spend_limit_usd: float | None
    rows: list[LlmUsageRow]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class LlmConfig:
    """A bank's own LLM configuration (what it sets; the rest comes from the global settings)."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    spend_limit_usd: float | None = None
    enabled: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass(frozen=True)
class MentalModel:
    """A standing question, its stored answer (None until first refreshed), the memories it rests
    on and when it was last refreshed (ISO 8601)."""

    name: str
    question: str
    answer: str | None
    based_on: list[str]
    refreshed_at: str | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# -- the job queue (Memory.jobs) ---------------------------------------------------------------
@dataclass(frozen=True)
class Job:
    """A row of the job queue as ``gieok jobs`` lists it (times ISO 8601). ``facts``: the facts it names,
    or once done the facts it processed; ``result``: its report once done."""

    id: int
    operation_id: str
    bank: str | None
    kind: str
    status: str
    attempts: int
    facts: int
    result: dict[str, Any] | None
    run_after: str | None
    last_error: str | None
    created_at: str | None
    started_at: str | None
    finished_at: str | None
    updated_at: str | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class JobReport:
    """What running one job came to: ``status`` done, retry, failed or lost (its claim ended while it
    ran); ``result`` its own report once run, ``error`` the error it raised."""

    id: int
    kind: str
    bank: str | None
    status: str
    result: dict[str, Any] | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "kind": self.kind, "bank": self.bank, "status": self.status}
        if self.result is not None:
            out["result"] = self.result
        if self.error is not None:
            out["error"] = self.error
        return out


@dataclass(frozen=True)
class ClaimedJob:
    """A job a worker claimed (:meth:`Memory.jobs.claim`): run it with :meth:`Memory.jobs.run_claimed`,
    or give it back with :meth:`Memory.jobs.release`. ``token`` names the claim; ``job`` is the queue's
    own row (opaque to the caller)."""

    id: int
    bank_id: int
    kind: str
    token: str
    job: Any = field(repr=False, compare=False)


@dataclass(frozen=True)
class DeletedBank:
    """How many rows of each kind went with a deleted bank."""

    facts: int
    chunks: int
    messages: int
    sources: int

    def to_dict(self) -> dict[str, int]:
        return {"facts": self.facts, "chunks": self.chunks, "messages": self.messages, "sources": self.sources}


@dataclass(frozen=True)
class GateDecision:
    """Whether a turn needs long-term memory (:meth:`Memory.should_recall` with ``explain=True``), and why."""

    recall: bool
    reason: str

    def __bool__(self) -> bool:
        return self.recall
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
