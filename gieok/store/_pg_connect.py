"""Open PostgreSQL connections with psycopg 3, or fail saying what is missing.

psycopg is an optional dependency (``pip install 'gieok[postgres]'``): it is imported when a
connection is opened, not when ``gieok.store`` is imported, so the embedded SQLite store never
needs it. Every connection is opened in autocommit mode; the store issues ``BEGIN``/``COMMIT``
itself on its single write connection.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gieok.errors import MissingExtensionError, StoreError

__all__ = ["connect", "display_dsn", "ints", "vector_array", "vector_literal"]


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
