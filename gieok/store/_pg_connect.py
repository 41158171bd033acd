"""Open PostgreSQL connections with psycopg 3, or fail saying what is missing.

psycopg is an optional dependency (``pip install 'gieok[postgres]'``): it is imported when a
connection is opened, not when ``gieok.store`` is imported, so the embedded SQLite store never
needs it. Every connection is opened in autocommit mode; the store issues ``BEGIN``/``COMMIT``
itself on its single write connection.

The store's queries are shared with the SQLite store and written with SQLite's ``?`` placeholders
(see :mod:`gieok.store._dialect`); :class:`PgConnection` is the thin wrapper that lets psycopg run
them, turning each ``?`` outside a quoted string into ``%s``. SQL written for PostgreSQL alone may
keep psycopg's own ``%s`` and ``%(name)s``: they pass through untouched.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from gieok.errors import MissingExtensionError, StoreError

__all__ = ["PgConnection", "connect", "display_dsn", "ints", "pg_placeholders", "vector_array", "vector_literal"]

# a quoted string or identifier (skipped whole, so a "?" inside one stays), or a placeholder
_QUOTED_OR_MARK = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|\?")


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError as exc:
        raise MissingExtensionError(
            "the PostgreSQL store needs psycopg 3: `pip install 'gieok[postgres]'` (or `pip install 'psycopg[binary]'`)"
        ) from exc
    return psycopg


def connect(dsn: str) -> Any:
    """An autocommit connection; the server must be reachable and speak UTF-8."""
    psycopg = _psycopg()
    try:
        conn = psycopg.connect(dsn, autocommit=True)
    except psycopg.OperationalError as exc:
        raise StoreError(f"cannot connect to PostgreSQL at {display_dsn(dsn)}: {str(exc).strip()}") from exc
    encoding = conn.execute("SHOW server_encoding").fetchone()[0]
    if encoding.upper() not in ("UTF8", "UTF-8"):
        conn.close()
        raise StoreError(f"the PostgreSQL database at {display_dsn(dsn)} uses {encoding}; gieok needs a UTF8 database "
                         "(CREATE DATABASE ... ENCODING 'UTF8')")
    return conn


def display_dsn(dsn: str) -> str:
    """The DSN without its password: what ``store.path`` shows in results and errors."""
    try:
        import psycopg
        from psycopg.conninfo import conninfo_to_dict, make_conninfo
    except ImportError:
        return "postgresql://?"
    try:
        params = conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:  # not parseable: show nothing that could be a secret
        return "postgresql://?"
    params.pop("password", None)
    return make_conninfo("", **{k: v for k, v in params.items() if v is not None})


def vector_literal(vector: Any) -> str:
    """pgvector's text form of a float32 vector. ``repr`` of each float32 value (as a double) reads
    back to exactly the same float32, so nothing is lost on the way in."""
    values = np.asarray(vector, dtype=np.float32).ravel().tolist()
    return "[" + ",".join(repr(v) for v in values) + "]"


def vector_array(values: Sequence[float]) -> np.ndarray:
    return np.asarray(values, dtype=np.float32)


def ints(values: Sequence[Any]) -> list[int]:
    """Plain ints for array parameters (numpy integers are not adapted by psycopg)."""
    return [int(v) for v in values]


@lru_cache(maxsize=1024)
def pg_placeholders(query: str) -> str:
    """``query`` with each ``?`` placeholder (outside quotes) spelled ``%s``, as psycopg wants it."""
    if "?" not in query:
        return query
    return _QUOTED_OR_MARK.sub(lambda m: "%s" if m.group() == "?" else m.group(), query)


class PgConnection:
    """A psycopg connection that also takes ``?`` placeholders; everything else is psycopg's own.

    Queries without parameters and composed ``psycopg.sql`` objects are passed on as they are."""

    __slots__ = ("raw",)

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def execute(self, query: Any, params: Any = None) -> Any:
        if params is not None and isinstance(query, str):
            query = pg_placeholders(query)
        return self.raw.execute(query, params)

    def executemany(self, query: str, rows: Iterable[Sequence[Any]]) -> Any:
        """Like sqlite3's: one statement, run once per row (psycopg pipelines them)."""
        cursor = self.raw.cursor()
        cursor.executemany(pg_placeholders(query), list(rows))
        return cursor

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)
