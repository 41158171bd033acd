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


def m0004_lifecycle(conn: Any) -> None:
    """Versions, decay, background jobs, observations, mental models and LLM metering."""
    _run_script(
        conn,
        """
        ALTER TABLE facts ADD COLUMN superseded_by INTEGER REFERENCES facts(id) ON DELETE SET NULL;
        ALTER TABLE facts ADD COLUMN supersede_reason TEXT;
        ALTER TABLE facts ADD COLUMN strength REAL NOT NULL DEFAULT 1.0;
        ALTER TABLE facts ADD COLUMN recall_count INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE facts ADD COLUMN last_recalled_at REAL;
        ALTER TABLE facts ADD COLUMN archived_at REAL;
        ALTER TABLE facts ADD COLUMN consolidated_at REAL;
        ALTER TABLE facts ADD COLUMN consolidation_failed INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX facts_superseded_by ON facts(superseded_by);
        CREATE INDEX facts_expires ON facts(expires_at) WHERE expires_at IS NOT NULL;
        CREATE INDEX facts_unconsolidated ON facts(bank_id, mentioned_at) WHERE consolidated_at IS NULL;
        CREATE TABLE jobs (
            id          INTEGER PRIMARY KEY,
            bank_id     INTEGER NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
            kind        TEXT NOT NULL,
            payload     TEXT NOT NULL DEFAULT '{}',
            status      TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
            attempts    INTEGER NOT NULL DEFAULT 0,
            run_after   REAL NOT NULL,
            claimed_at  REAL,
            claimed_by  TEXT,
            last_error  TEXT,
            created_at  REAL NOT NULL,
            updated_at  REAL NOT NULL
        );
        CREATE INDEX jobs_queue ON jobs(status, run_after);
        CREATE TABLE observations (
            id          INTEGER PRIMARY KEY,
            bank_id     INTEGER NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
            entity_id   INTEGER REFERENCES entities(id) ON DELETE SET NULL,
            topic       TEXT NOT NULL,
            text        TEXT NOT NULL,
            embedding   BLOB,
            terms       TEXT NOT NULL DEFAULT '',
            tokens      INTEGER NOT NULL DEFAULT 0,
            history     TEXT NOT NULL DEFAULT '[]',
            believed_at REAL,
            created_at  REAL NOT NULL,
            updated_at  REAL NOT NULL
        );
        CREATE INDEX observations_bank ON observations(bank_id, topic);
        CREATE TABLE observation_facts (
            observation_id INTEGER NOT NULL REFERENCES observations(id) ON DELETE CASCADE,
            fact_id        INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
            PRIMARY KEY (observation_id, fact_id)
        );
        CREATE INDEX observation_facts_fact ON observation_facts(fact_id);
        CREATE TABLE mental_models (
            id           INTEGER PRIMARY KEY,
            bank_id      INTEGER NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
            name         TEXT NOT NULL,
            question     TEXT NOT NULL,
            answer       TEXT,
            based_on     TEXT NOT NULL DEFAULT '[]',
            refreshed_at REAL,
            created_at   REAL NOT NULL,
            UNIQUE (bank_id, name)
        );
        CREATE TABLE llm_usage (
            bank_id       INTEGER NOT NULL REFERENCES banks(id) ON DELETE CASCADE,
            day           TEXT NOT NULL,
            operation     TEXT NOT NULL,
            provider      TEXT NOT NULL,
            model         TEXT NOT NULL,
            calls         INTEGER NOT NULL DEFAULT 0,
            input_tokens  INTEGER NOT NULL DEFAULT 0,
            output_tokens INTEGER NOT NULL DEFAULT 0,
            cost_usd      REAL NOT NULL DEFAULT 0,
            PRIMARY KEY (bank_id, day, operation, provider, model)
        )
        """,
    )


MIGRATIONS: list[tuple[str, Callable[[Any], None]]] = [
    ("0001_core", m0001_core),
    ("0002_defense", m0002_defense),
    ("0003_graph", m0003_graph),
    ("0004_lifecycle", m0004_lifecycle),
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
