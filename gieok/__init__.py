"""gieok (기억): long-term memory for AI agents — offline, one SQLite file, Korean and English.

>>> from gieok import Memory
"""

from gieok._threads import configure_threads

configure_threads()  # before numpy, OpenBLAS and the e5 engine load: see gieok/_threads.py

from gieok.defense import RedactionPolicy, redact
from gieok.engine.forget.run import ErasureProof, ForgetResult
from gieok.engine.reflect.run import Reflection
from gieok.engine.reflect.shaping import Directive, Disposition
from gieok.engine.retain.doubt import HeldStatement
from gieok.errors import (
    AuthError,
    BankNotFoundError,
    BlockedContentError,
    ClaimLostError,
    ConfigError,
    CorruptDocumentError,
    DocumentError,
    DocumentTooLargeError,
    EmbedderMismatchError,
    EmptyDocumentError,
    EncryptedDocumentError,
    EntityNotFoundError,
    ExtractionError,
    FileFormatError,
    FormatMismatchError,
    GieokError,
    HeldNotFoundError,
    InputError,
    InternalError,
    InvalidMessageError,
    InvalidTimeError,
    KeyRequiredError,
    LLMAuthError,
    LLMConfigError,
    LLMError,
    LLMOutputError,
    LLMRateLimitError,
    LLMRequestError,
    LLMUnavailableError,
    MemoryNotFoundError,
    MissingExtensionError,
    NotFoundError,
    OperationNotFoundError,
    OperationStateError,
    PermissionDeniedError,
    ReembedRunningError,
    RerankerError,
    RerankerUnavailableError,
    ScannedPageError,
    ScopeConflictError,
    ScopeError,
    SensitiveIdError,
    SessionUserError,
    SourceNotFoundError,
    SpendLimitError,
    StoreBusyError,
    StoreError,
    UnknownProviderError,
    UnreadableLineError,
    UnsupportedFormatError,
)
from gieok.memory import AsyncMemory, Memory
from gieok.records import (
    BankInfo,
    ChannelHit,
    EntityInfo,
    ImportResult,
    IngestResult,
    Message,
    Operation,
    Recall,
    RecalledMemory,
    RetainResult,
    Scope,
    SourceInfo,
)
from gieok.temporal import TimeMention, find_time_expressions, parse_time_range

__version__ = "0.1.0"

__all__ = [
    "AsyncClient",
    "AsyncMemory",
    "AuthError",
    "BankInfo",
    "BankNotFoundError",
    "BlockedContentError",
    "ChannelHit",
    "Client",
    "ConfigError",
    "CorruptDocumentError",
    "DocumentError",
    "DocumentTooLargeError",
    "EmbedderMismatchError",
    "EmptyDocumentError",
    "EncryptedDocumentError",
    "EntityInfo",
    "EntityNotFoundError",
    "ErasureProof",
    "ExtractionError",
    "FileFormatError",
    "ForgetResult",
    "FormatMismatchError",
    "GieokError",
    "ImportResult",
    "IngestResult",
    "InputError",
    "InternalError",
    "InvalidMessageError",
    "InvalidTimeError",
    "KeyRequiredError",
    "LLMAuthError",
    "LLMConfigError",
    "LLMError",
    "LLMOutputError",
    "LLMRateLimitError",
    "LLMRequestError",
    "LLMUnavailableError",
    "Memory",
    "MemoryNotFoundError",
    "Message",
    "MissingExtensionError",
    "NotFoundError",
    "Operation",
    "OperationNotFoundError",
    "OperationStateError",
    "PermissionDeniedError",
    "Recall",
    "RecalledMemory",
    "RedactionPolicy",
    "ReembedRunningError",
    "Reflection",
    "Directive",
    "Disposition",
    "RerankerError",
    "RerankerUnavailableError",
    "RetainResult",
    "Scope",
    "ScannedPageError",
    "ScopeConflictError",
    "ScopeError",
    "SensitiveIdError",
    "SessionUserError",
    "HeldNotFoundError",
    "HeldStatement",
    "SourceInfo",
    "SourceNotFoundError",
    "SpendLimitError",
    "StoreBusyError",
    "ClaimLostError",
    "StoreError",
    "TimeMention",
    "UnknownProviderError",
    "UnreadableLineError",
    "UnsupportedFormatError",
    "__version__",
    "find_time_expressions",
    "parse_time_range",
    "redact",
]


def __getattr__(name: str) -> object:
    # Client and AsyncClient need httpx and pydantic (the ``server`` extra): imported on first use
    if name in ("Client", "AsyncClient"):
        from gieok import client

        return getattr(client, name)
    raise AttributeError(f"module 'gieok' has no attribute {name!r}")
