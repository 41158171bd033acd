"""Storage: the protocols the engine uses, their SQLite implementation and their PostgreSQL implementation.

``PostgresStore`` needs psycopg 3 (``pip install 'gieok[postgres]'``) only when one is opened.
"""

from gieok.store.postgres import PostgresStore
from gieok.store.protocol import Store
from gieok.store.sqlite import SQLiteStore

__all__ = ["PostgresStore", "SQLiteStore", "Store"]
