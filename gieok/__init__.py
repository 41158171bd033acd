"""gieok (기억): long-term memory for AI agents — offline, one SQLite file, Korean and English.

>>> from gieok import Memory
"""

from gieok.errors import (
    BankNotFoundError,
    BlockedContentError,
    ConfigError,
    EmbedderMismatchError,
    FileFormatError,
    GieokError,
    InputError,
    InvalidMessageError,
    InvalidTimeError,
    MemoryNotFoundError,
    MissingExtensionError,
    NotFoundError,
    SourceNotFoundError,
    SpendLimitError,
    StoreError,
    UnknownProviderError,
)
from gieok.engine.forget import EntityNotFoundError, ErasureProof, ForgetResult
from gieok.engine.reflect import Reflection
from gieok.defense import RedactionPolicy, redact
from gieok.memory import AsyncMemory, Memory
from gieok.records import BankInfo, ChannelHit, Message, Recall, RecalledMemory, RetainResult, SourceInfo
from gieok.temporal import TimeMention, find_time_expressions, parse_time_range

__version__ = "0.1.0"

__all__ = [
    "AsyncMemory",
    "BankInfo",
    "BankNotFoundError",
    "BlockedContentError",
    "ChannelHit",
    "ConfigError",
    "EmbedderMismatchError",
    "EntityNotFoundError",
    "ErasureProof",
    "FileFormatError",
    "ForgetResult",
    "GieokError",
    "InputError",
    "InvalidMessageError",
    "InvalidTimeError",
    "Memory",
    "MemoryNotFoundError",
    "Message",
    "MissingExtensionError",
    "NotFoundError",
    "Recall",
    "RecalledMemory",
    "RedactionPolicy",
    "Reflection",
    "RetainResult",
    "SourceInfo",
    "SourceNotFoundError",
    "SpendLimitError",
    "StoreError",
    "TimeMention",
    "UnknownProviderError",
    "__version__",
    "find_time_expressions",
    "parse_time_range",
    "redact",
]
