"""Typed errors for gieok, one hierarchy.

::

    GieokError
    ├── ConfigError                 unknown setting, bad value, missing provider
    │   └── UnknownProviderError    a provider name nobody registered
    ├── InputError                  bad input from the caller (nothing stored)
    │   ├── InvalidMessageError     a message without text, with a bad timestamp, ...
    │   ├── InvalidTimeError        a time/date string that cannot be read
    │   └── FileFormatError         a file the CLI cannot read as messages or text
    ├── NotFoundError
    │   ├── BankNotFoundError
    │   ├── MemoryNotFoundError
    │   ├── SourceNotFoundError
    │   └── EntityNotFoundError     (gieok.engine.forget) forget(entity=...) names nobody
    ├── BlockedContentError         redaction policy "block" refused an item
    ├── EmbedderMismatchError       a bank's vectors were made by another embedder
    ├── SpendLimitError             a bank's LLM spend ceiling is reached (background LLM work stops)
    ├── LLMError                    (gieok.providers.llms) rate limit, unavailable, bad output
    │   (LLMAuthError and LLMConfigError are also ConfigErrors)
    ├── ExtractionError             (gieok.extract) the LLM's extraction was unusable twice
    └── StoreError                  the database cannot do what gieok needs
        └── MissingExtensionError   FTS5 or sqlite-vec is unavailable

Every message says how to fix the problem.
"""

from __future__ import annotations

__all__ = [
    "GieokError",
    "ConfigError",
    "UnknownProviderError",
    "InputError",
    "InvalidMessageError",
    "InvalidTimeError",
    "FileFormatError",
    "NotFoundError",
    "BankNotFoundError",
    "MemoryNotFoundError",
    "SourceNotFoundError",
    "BlockedContentError",
    "EmbedderMismatchError",
    "SpendLimitError",
    "StoreError",
    "MissingExtensionError",
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


class InvalidTimeError(InputError):
    pass


class FileFormatError(InputError):
    pass


class NotFoundError(GieokError, LookupError):
    pass


class BankNotFoundError(NotFoundError):
    def __init__(self, bank: str):
        self.bank = bank
        super().__init__(f"no bank named {bank!r}: retain something into it first, or list banks with `gieok banks`")


class MemoryNotFoundError(NotFoundError):
    def __init__(self, memory_id: str):
        self.memory_id = memory_id
        super().__init__(f"no memory with id {memory_id!r}: ids come from recall results (`gieok recall ... --json`)")


class SourceNotFoundError(NotFoundError):
    def __init__(self, source_id: str):
        self.source_id = source_id
        super().__init__(f"no source {source_id!r}: list a bank's sources with `gieok sources BANK`")


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
            f"open it with embedder={stored!r}, or re-embed the bank into the new model"
        )


class SpendLimitError(GieokError):
    retryable = False  # a background job hitting the ceiling fails at once instead of retrying

    def __init__(self, bank: str, spent: float, limit: float):
        self.bank, self.spent, self.limit = bank, spent, limit
        super().__init__(
            f"bank {bank!r} has spent ${spent:.4f} on LLM calls, its ceiling is ${limit:.4f}: background LLM work "
            f"stopped; raise it with Memory.configure_llm({bank!r}, spend_limit_usd=...) or `gieok llm {bank} --spend-limit`"
        )


class StoreError(GieokError):
    pass


class MissingExtensionError(StoreError):
    pass
