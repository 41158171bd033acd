"""Named, ordered schema migrations for the SQLite store.

Each migration is a function applied inside one transaction together with its bookkeeping row in
``schema_migrations``. Append new ones; never edit an applied one.

Per-bank tables are created by the store, not here: ``fts_bank_<id>`` (FTS5 over keyword terms, so
BM25 statistics are the bank's own) and ``vec_<dim>`` (sqlite-vec, partitioned by bank).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

__all__ = ["MIGRATIONS", "migrate"]


def _run_script(conn: Any, script: str) -> None:
    # not executescript(): it commits any open transaction first, which would split a migration
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)


def m0001_core(conn: Any) -> None:
    _run_script(
        conn,
        """
        CREATE TABLE banks (
            id          INTEGER PRIMARY KEY,
            name        TEXT NOT NULL UNIQUE,
            embedder    TEXT NOT NULL,
            dim         INTEGER NOT NULL,
            config      TEXT NOT NULL DEFAULT '{}',
            created_at  REAL NOT NULL
        );
        CREATE TABLE sources (
            id          INTEGER PRIMARY KEY,
            bank_id     INTEGER NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
            external_id TEXT NOT NULL,
            kind        TEXT NOT NULL CHECK (kind IN ('conversation', 'document')),
            content     TEXT,
            metadata    TEXT NOT NULL DEFAULT '{}',
            created_at  REAL NOT NULL,
            updated_at  REAL NOT NULL,
            UNIQUE (bank_id, external_id)
        );
        CREATE TABLE messages (
            id          INTEGER PRIMARY KEY,
            bank_id     INTEGER NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
            source_id   INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
            external_id TEXT NOT NULL,
            position    INTEGER NOT NULL,
            speaker     TEXT,
            text        TEXT NOT NULL,
            timestamp   TEXT,
            UNIQUE (bank_id, external_id)
        );
        CREATE INDEX messages_source ON messages(source_id, position);
        CREATE TABLE chunks (
            id          INTEGER PRIMARY KEY,
            bank_id     INTEGER NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
            source_id   INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
            position    INTEGER NOT NULL,
            sha256      TEXT NOT NULL,
            text        TEXT NOT NULL,
            message_ids TEXT NOT NULL DEFAULT '[]'
        );
        CREATE INDEX chunks_source ON chunks(source_id, position);
        CREATE TABLE facts (
            id             INTEGER PRIMARY KEY,
            bank_id        INTEGER NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
            source_id      INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
            chunk_id       INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
            text           TEXT NOT NULL,
            kind           TEXT NOT NULL DEFAULT 'world' CHECK (kind IN ('world', 'experience')),
            speaker        TEXT,
            message_ids    TEXT NOT NULL DEFAULT '[]',
            occurred_start REAL,
            occurred_end   REAL,
            mentioned_at   REAL,
            utc_offset     INTEGER,
            valid_from     REAL,
            valid_to       REAL,
            importance     REAL NOT NULL DEFAULT 0.5,
            pinned         INTEGER NOT NULL DEFAULT 0,
            decay_class    TEXT NOT NULL DEFAULT 'stable',
            expires_at     REAL,
            embed_hash     TEXT NOT NULL,
            tokens         INTEGER NOT NULL,
            created_at     REAL NOT NULL
        );
        CREATE INDEX facts_bank_time ON facts(bank_id, mentioned_at);
        CREATE INDEX facts_chunk ON facts(chunk_id);
        CREATE INDEX facts_source ON facts(source_id);
        """
    )


def m0002_defense(conn: Any) -> None:
    import secrets

    _run_script(
        conn,
        """
        CREATE TABLE meta (
            key   TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        CREATE TABLE audit_log (
            id          INTEGER PRIMARY KEY,
            bank        TEXT NOT NULL,
            at          REAL NOT NULL,
            operation   TEXT NOT NULL,
            source_id   TEXT,
            item_id     TEXT,
            type        TEXT NOT NULL,
            start       INTEGER,
            end         INTEGER,
            length      INTEGER,
            fingerprint TEXT,
            action      TEXT NOT NULL,
            count       INTEGER NOT NULL DEFAULT 1
        );
        CREATE INDEX audit_bank ON audit_log(bank, at);
        """,
    )
    # Keyed fingerprints in the audit log must not be brute-forceable with a public key: each
    # database gets its own random key.
    conn.execute("INSERT INTO meta (key, value) VALUES ('fingerprint_key', ?)", (secrets.token_hex(32),))


def m0003_graph(conn: Any) -> None:
    _run_script(
        conn,
        """
        CREATE TABLE entities (
            id             INTEGER PRIMARY KEY,
            bank_id        INTEGER NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
            canonical_name TEXT NOT NULL,
            kind           TEXT NOT NULL DEFAULT 'unknown',
            aliases        TEXT NOT NULL DEFAULT '[]',
            titles         TEXT NOT NULL DEFAULT '[]',
            cooccurring    TEXT NOT NULL DEFAULT '{}',
            last_seen      REAL
        );
        CREATE TABLE entity_keys (
            bank_id   INTEGER NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
            key       TEXT NOT NULL,
            entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
            PRIMARY KEY (bank_id, key, entity_id)
        );
        CREATE INDEX entity_keys_entity ON entity_keys(entity_id);
        CREATE TABLE mentions (
            fact_id   INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
            entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
            surface   TEXT NOT NULL,
            PRIMARY KEY (fact_id, entity_id)
        );
        CREATE INDEX mentions_entity ON mentions(entity_id);
        CREATE TABLE context_degrees (
            bank_id INTEGER NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
            key     TEXT NOT NULL,
            degree  INTEGER NOT NULL,
            PRIMARY KEY (bank_id, key)
        );
        CREATE TABLE links (
            bank_id   INTEGER NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
            from_fact INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
            to_fact   INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
            type      TEXT NOT NULL CHECK (type IN ('temporal', 'semantic', 'caused_by', 'enables', 'prevents')),
            weight    REAL NOT NULL,
            PRIMARY KEY (from_fact, to_fact, type)
        );
        CREATE INDEX links_to ON links(to_fact);
        CREATE INDEX facts_bank_occurred ON facts(bank_id, occurred_start);
        """,
    )


MIGRATIONS: list[tuple[str, Callable[[Any], None]]] = [
    ("0001_core", m0001_core),
    ("0002_defense", m0002_defense),
    ("0003_graph", m0003_graph),
]


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
