"""Storage: the protocol the engine uses and its SQLite implementation."""

from gieok.store.protocol import Store
from gieok.store.sqlite import SQLiteStore

__all__ = ["Store", "SQLiteStore"]
