"""Open SQLite with FTS5 and sqlite-vec, or fail saying what is missing.

The pyenv Pythons common on servers cannot load extensions, so ``pysqlite3`` (a wheel with its own
SQLite) comes first; the standard ``sqlite3`` is used only when it can load extensions.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from gieok.errors import MissingExtensionError

__all__ = ["BUSY_TIMEOUT_S", "sqlite_module", "open_connection"]

BUSY_TIMEOUT_S = 30.0  # how long a writer waits for another process's write lock before StoreBusyError


def sqlite_module() -> ModuleType:
    try:
        return importlib.import_module("pysqlite3.dbapi2")
    except ImportError:
        import sqlite3

        if not hasattr(sqlite3.Connection, "enable_load_extension"):
            raise MissingExtensionError(
                f"this Python's sqlite3 (SQLite {sqlite3.sqlite_version}) cannot load extensions and "
                "pysqlite3 is not installed: `pip install pysqlite3-binary`"
            ) from None
        return sqlite3


def open_connection(path: str, *, check_same_thread: bool = False) -> Any:
    mod = sqlite_module()
    conn = mod.connect(path, isolation_level=None, check_same_thread=check_same_thread, timeout=BUSY_TIMEOUT_S)
    try:
        import sqlite_vec

        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
    except Exception as exc:
        conn.close()
        raise MissingExtensionError(
            f"cannot load the sqlite-vec extension into SQLite {mod.sqlite_version}: {exc}; "
            "install it with `pip install sqlite-vec`"
        ) from exc
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.gieok_fts5_probe USING fts5(x)")
        conn.execute("DROP TABLE temp.gieok_fts5_probe")
    except Exception as exc:
        conn.close()
        raise MissingExtensionError(
            f"SQLite {mod.sqlite_version} was built without FTS5; install `pysqlite3-binary`"
        ) from exc
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
    # freed pages are zeroed, so erased text does not linger in the file (see engine.forget)
    conn.execute("PRAGMA secure_delete = ON")
    return conn
