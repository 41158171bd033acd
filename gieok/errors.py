"""Typed errors for gieok, one hierarchy, every class in this module.

::

    GieokError
    ├── ConfigError                   unknown setting, bad value, missing provider
    │   ├── UnknownProviderError      a provider name nobody registered
    │   ├── LLMConfigError            (also an LLMError, below)
    │   └── LLMAuthError              (also an LLMError, below)
    ├── InputError                    bad input from the caller, nothing stored (also a ValueError)
    │   ├── InvalidMessageError       a message without text, with a bad timestamp, ...
    │   ├── SensitiveIdError          an id or bank name that holds a secret or identifier (refused, not redacted)
    │   ├── InvalidTimeError          a time/date string that cannot be read
    │   ├── ScopeError                a bad user_id / agent_id / session_id / tags / scopes weight
    │   │   └── ScopeConflictError    a retain into a source (or message id) that belongs to another scope
    │   │       └── SessionUserError  a session read or added to by a user other than the one it was opened with
    │   ├── BankExistsError           clone, rename or import into a bank name that is taken
    │   └── FileFormatError           a file the CLI cannot read as messages or text
    │       ├── UnreadableLineError   one line of a chat export (gieok import) that cannot be read
    │       ├── BankFileError         a line of a bank export (gieok bank import) that is not the format
    │       └── DocumentError         a file ingest cannot turn into a document (gieok.documents)
    │           ├── UnsupportedFormatError  not PDF, Markdown, HTML, DOCX or plain text
    │           ├── FormatMismatchError     the extension or media_type says one format, the bytes another
    │           ├── EmptyDocumentError      no text at all (an empty file, a PDF of blank pages)
    │           ├── CorruptDocumentError    truncated or damaged: the parser cannot read it
    │           ├── EncryptedDocumentError  password-protected: remove the password first
    │           ├── ScannedPageError        a PDF page that is a picture, with no text layer: needs OCR
    │           └── DocumentTooLargeError   over max_document_bytes, or a DOCX unpacking past its limit
    ├── NotFoundError                 (also a LookupError)
    │   ├── BankNotFoundError
    │   ├── MemoryNotFoundError
    │   ├── SourceNotFoundError
    │   ├── EntityNotFoundError       forget(entity=...) names nobody
    │   ├── HeldNotFoundError         no quarantined statement has this id
    │   └── OperationNotFoundError    no background job with this operation id
    ├── OperationStateError           cancel or retry of an operation in a state that does not allow it
    ├── ReembedRunningError           a bank already has a reembed to another embedder queued or running
    ├── AuthError                     the server refused the request's API key
    │   ├── KeyRequiredError          no key, or a key nobody issued (HTTP 401)
    │   └── PermissionDeniedError     the key's role may not do this (HTTP 403)
    ├── BlockedContentError           redaction policy "block" refused an item
    ├── EmbedderMismatchError         a bank's vectors were made by another embedder
    ├── SpendLimitError               a bank's LLM spend ceiling is reached (background LLM work stops)
    ├── LLMError                      an LLM call failed; raised as is for a reply in an unknown shape
    │   ├── LLMConfigError            no API key where one is needed, bad base_url or option
    │   ├── LLMAuthError              the server refused the key, HTTP 401/403
    │   ├── LLMRequestError           the server refused this request (any other 4xx)
    │   ├── LLMRateLimitError         HTTP 429, still, after every retry
    │   ├── LLMUnavailableError       no answer, timeouts or 5xx, still, after every retry
    │   └── LLMOutputError            the reply is not the JSON object asked for
    ├── ExtractionError               the LLM's extraction was unusable, even split or re-asked
    ├── RerankerError                 the reranker answered, but not with usable scores
    │   └── RerankerUnavailableError  the reranker did not answer after every retry
    ├── InternalError                 a bug: an adapter's last resort for an exception no other class covers
    └── StoreError                    the database cannot do what gieok needs
        ├── MissingExtensionError     FTS5 or sqlite-vec is unavailable
        ├── StoreBusyError            another writer held the write lock too long: retry
        └── ClaimLostError            a worker's claim on a job is gone: its work was rolled back

Every class is importable from :mod:`gieok`; the modules that raise them import them from here (the
old homes, ``gieok.providers.llms`` and friends, still re-export them). LLMRateLimitError and
LLMUnavailableError share a private base, ``_TransientLLMError``, which ``LLM.complete`` retries;
it is not part of the API. A test walks the package and fails on an exception class defined anywhere
else, and another checks this tree against the classes.

Every message says how to fix the problem.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "AuthError",
    "BankExistsError",
    "BankFileError",
    "BankNotFoundError",
    "BlockedContentError",
    "ClaimLostError",
    "ConfigError",
    "CorruptDocumentError",
    "DocumentError",
    "DocumentTooLargeError",
    "EmbedderMismatchError",
    "EmptyDocumentError",
    "EncryptedDocumentError",
    "EntityNotFoundError",
    "ExtractionError",
    "FileFormatError",
    "FormatMismatchError",
    "GieokError",
    "HeldNotFoundError",
    "InputError",
    "InternalError",
    "InvalidMessageError",
    "SensitiveIdError",
    "InvalidTimeError",
    "KeyRequiredError",
    "LLMAuthError",
    "LLMConfigError",
    "LLMError",
    "LLMOutputError",
    "LLMRateLimitError",
    "LLMRequestError",
    "LLMUnavailableError",
    "MemoryNotFoundError",
    "MissingExtensionError",
    "NotFoundError",
    "OperationNotFoundError",
    "OperationStateError",
    "PermissionDeniedError",
    "ReembedRunningError",
    "RerankerError",
    "RerankerUnavailableError",
    "ScannedPageError",
    "ScopeConflictError",
    "ScopeError",
    "SessionUserError",
    "SourceNotFoundError",
    "SpendLimitError",
    "StoreBusyError",
    "StoreError",
    "UnknownProviderError",
    "UnreadableLineError",
    "UnsupportedFormatError",
]


class GieokError(Exception):
    """Base class of every error gieok raises on purpose."""


class ConfigError(GieokError):
    pass


class UnknownProviderError(ConfigError):
    def __init__(self, kind: str, name: str, available: list[str]):
        self.kind, self.name, self.available = kind, name, available
        names = ", ".join(sorted(available)) or "(none)"
        super().__init__(f"unknown {kind} {name!r}: registered {kind}s are {names}")


class InputError(GieokError, ValueError):
    pass


class InvalidMessageError(InputError):
    pass


class SensitiveIdError(InputError):
    """An id (message, document, conversation) or a bank name in which redaction finds a secret or a
    personal identifier. Ids are stored and printed as given and must stay stable (a re-retain finds
    its message by id), so they are refused rather than rewritten. The message names the field and
    the types, never the value."""

    def __init__(self, field: str, types: list[str]):
        self.field = field
        self.types = sorted(set(types))
        super().__init__(
            f"{field} looks like it contains {', '.join(self.types)}: ids and bank names are stored and shown "
            "verbatim and must stay stable, so they cannot be redacted; use an opaque id (e.g. 'm-1', "
            "'doc-2024-q3', 'alice') and put personal data in the text, where it is redacted"
        )


class InvalidTimeError(InputError):
    pass


class ScopeError(InputError):
    """A scope given to retain or recall that cannot be stored or matched: an empty or over-long
    ``user_id`` / ``agent_id`` / ``session_id``, a tag that is not a short string, an unknown key or
    a non-positive weight in ``scopes``."""


class ScopeConflictError(ScopeError):
    """A retain that would add to a source (a conversation or document id) or a message id that
    belongs to another scope: a source has one scope, so one user's messages never join another's."""


class SessionUserError(ScopeConflictError):
    """A session read or written by a user other than the one it was opened with, or without a user
    where it has one (or with one where it has none). Nothing is read or written. The message never
    names the session's user: it says to open the session with its own user, or to use another
    session id."""


class FileFormatError(InputError):
    pass


class UnreadableLineError(FileFormatError):
    """One line (or message) of a chat export that cannot be read: a time stamp naming no real date,
    a message without a speaker. The importers report it with its line number."""


class BankFileError(FileFormatError):
    """A line of a bank export (:meth:`gieok.Memory.import_bank`) that is not the documented format
    (docs/guide/portability.md); ``line`` is its number, from 1. Nothing of the file was stored."""

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}")


class BankExistsError(InputError):
    """A bank of that name already exists (clone, rename, or an import of another file into a bank
    that holds memories): pick another name."""


# --- documents (raised by gieok.documents; nothing of the document is stored) ----------------------


class DocumentError(FileFormatError):
    """A file :meth:`gieok.Memory.ingest` cannot turn into a document. ``name`` is the file's name."""

    def __init__(self, name: str, message: str) -> None:
        self.name = name
        super().__init__(f"{name}: {message}")


class UnsupportedFormatError(DocumentError):
    pass


class FormatMismatchError(DocumentError):
    pass


class EmptyDocumentError(DocumentError):
    pass


class CorruptDocumentError(DocumentError):
    pass


class EncryptedDocumentError(DocumentError):
    pass


class ScannedPageError(DocumentError):
    """PDF pages that are pictures with no text layer; ``pages`` are their numbers (1-based)."""

    def __init__(self, name: str, pages: Sequence[int]) -> None:
        self.pages = list(pages)
        shown = ", ".join(str(p) for p in self.pages[:10]) + (" ..." if len(self.pages) > 10 else "")
        many = len(self.pages) > 1
        super().__init__(name, f"page{'s' if many else ''} {shown} {'are' if many else 'is'} "
                               "a scanned image with no text layer: run OCR on the PDF first (e.g. `ocrmypdf "
                               "--language kor+eng in.pdf out.pdf`) and ingest the result; gieok does not do OCR")


class DocumentTooLargeError(DocumentError):
    pass


class NotFoundError(GieokError, LookupError):
    pass


class BankNotFoundError(NotFoundError):
    def __init__(self, bank: str):
        self.bank = bank
        super().__init__("no bank has the name given as bank: retain something into it first, or list banks "
                         "with `gieok banks`")


class MemoryNotFoundError(NotFoundError):
    def __init__(self, memory_id: str):
        self.memory_id = memory_id
        super().__init__("no memory has the id given as memory_id: ids come from recall results "
                         "(`gieok recall ... --json`)")


class HeldNotFoundError(NotFoundError):
    def __init__(self) -> None:
        super().__init__("no quarantined statement has the id given: list them with Memory.quarantined(bank) "
                         "(`gieok quarantine BANK`); ids look like 'q-12'")


class SourceNotFoundError(NotFoundError):
    def __init__(self, source_id: str):
        self.source_id = source_id
        super().__init__("no source has the id given as source_id: list a bank's sources with `gieok sources BANK`")


class EntityNotFoundError(NotFoundError):
    def __init__(self, name: str):
        self.name = name
        super().__init__("no entity in this bank has the name given as entity: names come from "
                         "`gieok recall --explain` or retained text")


class OperationNotFoundError(NotFoundError):
    def __init__(self, operation_id: str):
        self.operation_id = operation_id
        super().__init__("no operation has the id given as operation_id: operation ids (op-12) come from an async "
                         "retain's 202 reply or `gieok jobs`")


class OperationStateError(GieokError):
    """Cancel of an operation that already ended, or retry of one that has not failed (HTTP 409)."""

    def __init__(self, operation_id: str, status: str, action: str):
        self.operation_id, self.status, self.action = operation_id, status, action
        allowed = "queued or running" if action == "cancel" else "failed or cancelled"
        super().__init__(f"operation {operation_id} is {status}: only {allowed} operations can be {action}led"
                         if action == "cancel" else
                         f"operation {operation_id} is {status}: only {allowed} operations can be retried "
                         "(see `gieok jobs`)")


class ReembedRunningError(GieokError):
    """A reembed of a bank asked while another, to another embedder, is queued or running (HTTP 409).
    One move at a time: asking for the same embedder again returns the running operation instead."""

    def __init__(self, bank: str, operation_id: str, embedder: str):
        self.bank, self.operation_id, self.embedder = bank, operation_id, embedder
        super().__init__(f"bank {bank!r} is being re-embedded into {embedder!r} already ({operation_id}): wait for it "
                         f"(`gieok jobs`), or cancel it (`gieok jobs --cancel {operation_id}`) and ask again")


class AuthError(GieokError):
    """The server refused the request's API key (HTTP adapters map it to 401 / 403)."""


class KeyRequiredError(AuthError):
    def __init__(self, reason: str = "missing"):
        self.reason = reason
        super().__init__(f"API key {reason}: send `Authorization: Bearer <key>` with a key from `gieok keys create`")


class PermissionDeniedError(AuthError):
    def __init__(self, role: str, need: str):
        self.role, self.need = role, need
        super().__init__(f"this key's role is {role!r} and this call needs {need!r}: "
                         f"create a key with `gieok keys create --role {need}`")


class BlockedContentError(GieokError):
    """A redaction policy set to "block" refused the item; nothing of it was stored."""

    def __init__(self, types: list[str]):
        self.types = sorted(set(types))
        super().__init__(
            "retain refused: the item contains " + ", ".join(self.types)
            + " and the redaction policy for these types is 'block'; remove them or set the policy to 'redact'"
        )


class EmbedderMismatchError(GieokError):
    def __init__(self, bank: str, stored: str, requested: str):
        self.bank, self.stored, self.requested = bank, stored, requested
        super().__init__(
            f"bank {bank!r} holds vectors from embedder {stored!r}, not {requested!r}: "
            f"open it with embedder={stored!r}, or re-embed the bank into the new model: "
            f"Memory.reembed({bank!r}, {requested!r}) or `gieok reembed {bank} --embedder {requested}`"
        )


class SpendLimitError(GieokError):
    retryable = False  # a background job hitting the ceiling fails at once instead of retrying

    def __init__(self, bank: str, spent: float, limit: float):
        self.bank, self.spent, self.limit = bank, spent, limit
        super().__init__(
            f"bank {bank!r} has spent ${spent:.4f} on LLM calls, its ceiling is ${limit:.4f}: background LLM work "
            f"stopped; raise it with Memory.configure_llm({bank!r}, spend_limit_usd=...) "
            f"or `gieok llm {bank} --spend-limit`"
        )


# --- LLMs (raised by gieok.providers.llms and the HTTP clients) --------------------------------------


class LLMError(GieokError):
    """An LLM call failed; the subclasses say how. Raised as is for a reply in an unknown shape."""


class LLMConfigError(LLMError, ConfigError):
    """The provider cannot be used as configured: a missing API key, a bad base_url or option."""


class LLMAuthError(LLMError, ConfigError):
    """The server refused the API key (HTTP 401/403). Never retried: the message says what to set."""


class LLMRequestError(LLMError):
    """The server refused this request (a 4xx other than 401/403/429). ``detail`` is its explanation."""

    def __init__(self, message: str, *, status: int, detail: str = "") -> None:
        super().__init__(message)
        self.status, self.detail = status, detail


class _TransientLLMError(LLMError):
    # The attempt may succeed later: LLM.complete retries these, then raises one naming every attempt.
    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class LLMRateLimitError(_TransientLLMError):
    """HTTP 429 on every attempt. ``retry_after`` is the server's last Retry-After, in seconds, if any."""


class LLMUnavailableError(_TransientLLMError):
    """No usable answer on any attempt: connection refused, timeouts, HTTP 5xx."""


class LLMOutputError(LLMError):
    """The reply is not the JSON object asked for. ``raw_text`` holds it; the message never quotes it."""

    def __init__(self, message: str, *, raw_text: str = "") -> None:
        super().__init__(message)
        self.raw_text = raw_text


class ExtractionError(GieokError):
    """The LLM gave no usable facts for a chunk, even after splitting or re-asking it.

    ``item_ids`` names the chunk's message ids (empty for document text). Retain falls back to
    deterministic extraction for that source.
    """

    def __init__(self, message: str, *, item_ids: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.item_ids = list(item_ids)


# --- rerankers (raised by gieok.providers.rerankers) ------------------------------------------------


class RerankerError(GieokError):
    """The reranker answered, but not with usable scores (bad request, malformed reply)."""


class RerankerUnavailableError(RerankerError):
    """The reranker did not answer after every retry (timeouts, 5xx, connection refused).

    ``retry_after`` is the server's last Retry-After, in seconds, if it sent one.
    """

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class InternalError(GieokError):
    """An exception no other class covers reached an adapter (a bug in gieok). The HTTP and MCP
    servers answer it without internals and log the original, whose traceback is chained here."""

    def __init__(self) -> None:
        super().__init__("the server failed unexpectedly; its log has the details (please report it with "
                         "the log's traceback)")


# --- the store ---------------------------------------------------------------------------------------


class StoreError(GieokError):
    pass


class MissingExtensionError(StoreError):
    pass


class ClaimLostError(StoreError):
    """A worker's claim on a job ended while it worked (its lease ran out and another worker took
    the job, or the job was cancelled): what it was about to write was rolled back, exactly once
    is kept by the other claim. Raise the lease (``job_lease_seconds``) if jobs outlive it."""

    def __init__(self, job_id: int):
        self.job_id = job_id
        super().__init__(f"job {job_id} is no longer this worker's (cancelled, or its lease ran out and another "
                         "worker claimed it): nothing was written; raise job_lease_seconds if jobs run that long")


class StoreBusyError(StoreError):
    """Another writer held the database's write lock too long (or kept changing what a retain was
    about to write). Nothing of this call was written: retry it."""
