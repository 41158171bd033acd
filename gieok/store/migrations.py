"""Named, ordered schema migrations for the SQLite store.

Each migration is a function applied inside one transaction together with its bookkeeping row in
``schema_migrations``. Append new ones; never edit an applied one. The tables are the PostgreSQL
store's too: their DDL is written once in :mod:`gieok.store._schema` and rendered here with
SQLite's types (:data:`TYPES`).

Per-bank tables are created by the store, not here: ``fts_bank_<id>`` (FTS5 over keyword terms, so
BM25 statistics are the bank's own) and ``vec_<dim>`` / ``ivf_<dim>`` (sqlite-vec, partitioned by
bank, and for a large bank by cluster too); see :mod:`gieok.store._sqlite_search`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from gieok.store import _schema
from gieok.store._sqlite_search import create_vector_tables

__all__ = ["MIGRATIONS", "TYPES", "migrate"]

TYPES = {"ID": "INTEGER PRIMARY KEY", "BIGINT": "INTEGER", "REAL": "REAL", "JSON": "TEXT", "JSONB": "TEXT",
         "BOOL": "INTEGER", "FALSE": "0", "BLOB": "BLOB", "VECTOR": "BLOB"}


def _run_script(conn: Any, template: str) -> None:
    # statement by statement, not executescript(): that commits any open transaction first, which
    # would split a migration
    for statement in _schema.render(template, TYPES):
        conn.execute(statement)


def m0001_core(conn: Any) -> None:
    _run_script(conn, _schema.CORE)


def m0002_defense(conn: Any) -> None:
    _run_script(conn, _schema.DEFENSE)


def m0003_graph(conn: Any) -> None:
    _run_script(conn, _schema.GRAPH)


def m0004_lifecycle(conn: Any) -> None:
    """Versions, decay, background jobs, observations, mental models and LLM metering."""
    _run_script(conn, _schema.LIFECYCLE)


def m0005_context_vectors(conn: Any) -> None:
    """A second vector per reply (``vecctx_<dim>``). Facts retained before keep the vector they have."""
    for (dim,) in conn.execute("SELECT DISTINCT dim FROM banks").fetchall():
        create_vector_tables(conn, int(dim))


def m0006_keys(conn: Any) -> None:
    """The server's API keys, and a finished job's result."""
    _run_script(conn, _schema.KEYS)


def m0007_workers(conn: Any) -> None:
    """Job leases, start and end times, the cancelled state and the indexes the workers' fair claim uses.
    SQLite cannot change a CHECK in place: the jobs table is rebuilt with the wider one (nothing
    references it), then the columns and indexes both stores add are added."""
    statuses = ", ".join(f"'{s}'" for s in _schema.JOB_STATUSES)
    conn.execute(f"""
        CREATE TABLE jobs_0007 (
            id          INTEGER PRIMARY KEY,
            bank_id     INTEGER NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
            kind        TEXT NOT NULL,
            payload     TEXT NOT NULL DEFAULT '{{}}',
            status      TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ({statuses})),
            attempts    INTEGER NOT NULL DEFAULT 0,
            run_after   REAL NOT NULL,
            claimed_at  REAL,
            claimed_by  TEXT,
            last_error  TEXT,
            created_at  REAL NOT NULL,
            updated_at  REAL NOT NULL,
            result      TEXT
        )""")
    conn.execute("INSERT INTO jobs_0007 SELECT id, bank_id, kind, payload, status, attempts, run_after, claimed_at, "
                 "claimed_by, last_error, created_at, updated_at, result FROM jobs")
    conn.execute("DROP TABLE jobs")
    conn.execute("ALTER TABLE jobs_0007 RENAME TO jobs")
    conn.execute("CREATE INDEX jobs_queue ON jobs(status, run_after)")
    _run_script(conn, _schema.WORKERS)


def m0008_documents(conn: Any) -> None:
    """An ingested document's chunk keeps its page / heading path and its span in the extracted text."""
    _run_script(conn, _schema.CHUNK_LOCATIONS)


def m0009_sessions(conn: Any) -> None:
    """Working memory: a session's raw turns and its summary slot."""
    _run_script(conn, _schema.SESSIONS)


def m0010_scopes(conn: Any) -> None:
    """Whose a source is (user, agent, session) and its tags, indexed for recall's scope filter."""
    _run_script(conn, _schema.SCOPES)


def m0011_ann(conn: Any) -> None:
    """The approximate vector index (see :mod:`gieok.store._ivf`): each bank's vector count since its
    last training and its k-means centroids, and the clustered ``ivf_<dim>`` tables. A bank already
    past ``ann_min_vectors`` is trained by its next retain."""
    conn.execute("""
        CREATE TABLE vector_index (
            bank_id     INTEGER PRIMARY KEY REFERENCES banks(id) ON DELETE CASCADE,
            added       INTEGER NOT NULL DEFAULT 0,
            trained_on  INTEGER NOT NULL DEFAULT 0,
            generation  INTEGER NOT NULL DEFAULT 0,
            centroids   BLOB
        )""")
    conn.execute("INSERT INTO vector_index (bank_id, added) SELECT bank_id, COUNT(*) FROM facts GROUP BY bank_id")
    for (dim,) in conn.execute("SELECT DISTINCT dim FROM banks").fetchall():
        create_vector_tables(conn, int(dim))


def m0012_profile(conn: Any) -> None:
    """Profile slots: typed facts about a person (name, birthday, allergy, job, city, ...)."""
    _run_script(conn, _schema.PROFILE)


def m0013_reembed(conn: Any) -> None:
    """Re-embedding a bank: its target embedder and the vectors staged until the swap."""
    _run_script(conn, _schema.REEMBED)


def m0014_ivf_steps(conn: Any) -> None:
    """A (re)training of a bank's clusters in steps, each its own short write: the generation being
    built, its centroids, the last fact id it must move and how far the moving got."""
    for column in ("next_generation INTEGER NOT NULL DEFAULT 0", "next_centroids BLOB",
                   "next_upto INTEGER NOT NULL DEFAULT 0", "next_cursor INTEGER NOT NULL DEFAULT 0"):
        conn.execute(f"ALTER TABLE vector_index ADD COLUMN {column}")


def m0015_newest_postings(conn: Any) -> None:
    """Nothing: FTS5 reads a term's postings newest first by itself; PostgreSQL's keyword index gains
    the fact id (the migration keeps both stores' lists the same)."""


def m0016_session_users(conn: Any) -> None:
    """Every session turn names the user its session was opened with (see ``_schema.SESSION_USERS``)."""
    _run_script(conn, _schema.SESSION_USERS)


def m0017_quarantine(conn: Any) -> None:
    """Each fact's trust level and the statements retain held back (see ``_schema.QUARANTINE``)."""
    _run_script(conn, _schema.QUARANTINE)


def m0018_term_docs(conn: Any) -> None:
    """Nothing: FTS5 counts a term's facts itself; PostgreSQL gains a table of them (the migration
    keeps both stores' lists the same)."""


def m0019_facts_by_bank(conn: Any) -> None:
    """A bank's facts by id: its greatest id in one index read (retain's watermark, see
    ``store.facts.last_id``)."""
    conn.execute("CREATE INDEX IF NOT EXISTS facts_bank_id ON facts(bank_id, id)")


MIGRATIONS: list[tuple[str, Callable[[Any], None]]] = _schema.ordered(m0001_core, m0002_defense, m0003_graph,
                                                                       m0004_lifecycle, m0005_context_vectors,
                                                                       m0006_keys, m0007_workers, m0008_documents,
                                                                       m0009_sessions, m0010_scopes, m0011_ann,
                                                                       m0012_profile, m0013_reembed, m0014_ivf_steps,
                                                                       m0015_newest_postings,
                                                                       m0016_session_users, m0017_quarantine,
                                                                       m0018_term_docs, m0019_facts_by_bank)


def migrate(conn: Any) -> list[str]:
    """Apply the pending migrations in order; return the names applied."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)"
    )
    done = {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}
    applied = []
    for name, func in MIGRATIONS:
        if name in done:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            # re-check under the write lock: another process may have migrated meanwhile
            if conn.execute("SELECT 1 FROM schema_migrations WHERE name = ?", (name,)).fetchone():
                conn.execute("ROLLBACK")
                continue
            func(conn)
            conn.execute("INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)", (name, time.time()))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        applied.append(name)
    return applied
