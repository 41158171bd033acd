"""gieok (기억): long-term memory for AI agents — offline, one SQLite file, Korean and English.

>>> from gieok import Memory

The package imports little: the errors, and the thread settings that must come before numpy. Every
other public name (``Memory``, the records, ``redact``, the time parsers, ``Client``) is imported on
first use (module ``__getattr__``, :data:`_LAZY`), so a command that only lists banks or prints its
help does not pay for the engine's components (their regular expressions, numpy, the stores): see
docs/benchmarks/coldstart.md. Type checkers see the eager imports under ``TYPE_CHECKING``.
"""

from typing import TYPE_CHECKING

from gieok._threads import configure_threads

configure_threads()  # before numpy, OpenBLAS and the e5 engine load: see gieok/_threads.py

from gieok.errors import (
    AuthError,
    BankExistsError,
    BankFileError,
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

if TYPE_CHECKING:
    from gieok.client import AsyncClient, Client
    from gieok.defense import RedactionPolicy, redact
    from gieok.memory import AsyncMemory, Memory
    from gieok.records import (
        ApiKey,
        BankImport,
        BankInfo,
        ChannelHit,
        Directive,
        Disposition,
        EntityInfo,
        ErasureProof,
        ForgetResult,
        HeldStatement,
        ImportResult,
        IngestResult,
        Message,
        Operation,
        Principal,
        Profile,
        Recall,
        RecalledMemory,
        Reflection,
        RetainResult,
        Scope,
        Slot,
        SourceInfo,
    )
    from gieok.temporal import TimeMention, find_time_expressions, parse_time_range

# public name -> the module it is imported from on first use
_LAZY: dict[str, str] = {
    "Client": "gieok.client",  # httpx and pydantic: the ``server`` extra
    "AsyncClient": "gieok.client",
    "RedactionPolicy": "gieok.defense",
    "redact": "gieok.defense",
    "Memory": "gieok.memory",
    "AsyncMemory": "gieok.memory",
    **dict.fromkeys([
        "ApiKey", "BankImport", "BankInfo", "ChannelHit", "Directive", "Disposition", "EntityInfo",
        "ErasureProof", "ForgetResult", "HeldStatement", "ImportResult", "IngestResult", "Message",
        "Operation", "Principal", "Profile", "Recall", "RecalledMemory", "Reflection", "RetainResult",
        "Scope", "Slot", "SourceInfo",
    ], "gieok.records"),
    "TimeMention": "gieok.temporal",
    "find_time_expressions": "gieok.temporal",
    "parse_time_range": "gieok.temporal",
}

__version__ = "0.1.0"

__all__ = [
    "ApiKey",
    "Principal",
    "Profile",
    "Slot",
    "Directive",
    "Disposition",
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
    "BankImport",
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
    "BankFileError",
    "BankExistsError",
    "UnsupportedFormatError",
    "__version__",
    "find_time_expressions",
    "parse_time_range",
    "redact",
]


def __getattr__(name: str) -> object:
    """A public name of :data:`_LAZY`, imported now and kept in the package (the next use is a plain lookup)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'gieok' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
