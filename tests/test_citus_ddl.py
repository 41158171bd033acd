"""Can the PostgreSQL schema be distributed by bank (Citus, co-located on ``bank_id``)? That needs
every bank-owned table to carry ``bank_id`` in its primary key and in every foreign key to another
bank-owned table. This test reads the migrated schema's catalog and REPORTS the tables that do not
yet: it pins today's list, so it fails when a table is fixed (shrink the list) or when a new table
breaks the rule (fix the table). It does not claim the schema is ready: as pinned below, it is not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pg_server import pg_dsn_factory  # noqa: F401  (fixture)

from gieok.store import PostgresStore

# Tables that are not bank data (reference tables on Citus: replicated, not distributed).
NOT_BANK_OWNED = {"banks", "api_keys", "meta", "schema_migrations", "audit_log"}

# Today's state (0007): what stands between this schema and distribution by bank_id. Each entry:
# table -> what is missing. Shrink it as tables are rebuilt with (bank_id, id) keys.
NOT_CO_LOCATABLE = {
    "chunks": "primary key (id) lacks bank_id; foreign key to sources lacks bank_id",
    "entities": "primary key (id) lacks bank_id",
    "facts": "primary key (id) lacks bank_id; foreign key to chunks lacks bank_id; foreign key to facts lacks "
             "bank_id; foreign key to sources lacks bank_id",
    "jobs": "primary key (id) lacks bank_id",
    "links": "primary key (from_fact, to_fact, type) lacks bank_id; foreign key to facts lacks bank_id",
    "mental_models": "primary key (id) lacks bank_id",
    "mentions": "no bank_id column; primary key (fact_id, entity_id) lacks bank_id; foreign key to entities lacks "
                "bank_id; foreign key to facts lacks bank_id",
    "messages": "primary key (id) lacks bank_id; foreign key to sources lacks bank_id",
    "observation_facts": "no bank_id column; primary key (observation_id, fact_id) lacks bank_id; foreign key to "
                         "facts lacks bank_id; foreign key to observations lacks bank_id",
    "observations": "primary key (id) lacks bank_id; foreign key to entities lacks bank_id",
    "sources": "primary key (id) lacks bank_id",
    "source_tags": "foreign key to sources lacks bank_id",
    "entity_keys": "foreign key to entities lacks bank_id",
    "fact_context_vectors": "primary key (fact_id) lacks bank_id; foreign key to facts lacks bank_id",
    "fact_terms": "primary key (fact_id, field, term) lacks bank_id; foreign key to facts lacks bank_id",
    "fact_vectors": "primary key (fact_id) lacks bank_id; foreign key to facts lacks bank_id",
    "profile_slots": "foreign key to facts lacks bank_id",
    # 0013: staged vectors hang off their fact / observation so an erasure takes them; facts and
    # observations are keyed by id alone, so these foreign keys cannot carry bank_id until they are
    "reembed_facts": "foreign key to facts lacks bank_id",
    "reembed_observations": "foreign key to observations lacks bank_id",
    "keyword_docs": "primary key (fact_id) lacks bank_id; foreign key to facts lacks bank_id",
    # 0017: a held statement hangs off its source and chunk, keyed by id alone, so an erasure takes it
    "quarantine": "primary key (id) lacks bank_id; foreign key to chunks lacks bank_id; foreign key to sources "
                  "lacks bank_id",
}


Catalog = tuple[dict[str, list[str]], dict[str, list[str]], list[tuple[str, str, list[str]]]]


def _catalog(store: PostgresStore) -> Catalog:
    conn = store._conn()  # noqa: SLF001  (reading the catalog is below the protocol on purpose)
    columns: dict[str, list[str]] = {}
    for table, column in conn.execute(
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() "
            "ORDER BY table_name, ordinal_position"):
        columns.setdefault(str(table), []).append(str(column))
    keys: dict[str, list[str]] = {}
    foreign: list[tuple[str, str, list[str]]] = []
    for table, kind, target, cols in conn.execute(
            "SELECT c.conrelid::regclass::text, c.contype, c.confrelid::regclass::text, "
            "ARRAY(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(n, i) "
            "JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i)::text[] "
            "FROM pg_constraint c JOIN pg_namespace s ON s.oid = c.connamespace "
            "WHERE s.nspname = current_schema() AND c.contype IN ('p', 'f')"):
        if kind == "p":
            keys[str(table)] = list(cols)
        else:
            foreign.append((str(table), str(target), list(cols)))
    return columns, keys, foreign


def _report(columns: dict[str, list[str]], keys: dict[str, list[str]],
            foreign: list[tuple[str, str, list[str]]]) -> dict[str, str]:
    owned = {t for t in columns if t not in NOT_BANK_OWNED}
    report: dict[str, list[str]] = {}
    for table in sorted(owned):
        problems = report.setdefault(table, [])
        if "bank_id" not in columns[table]:
            problems.append("no bank_id column")
        pk = keys.get(table)
        if pk is None:
            problems.append("no primary key")
        elif "bank_id" not in pk:
            problems.append(f"primary key ({', '.join(pk)}) lacks bank_id")
        for target in sorted({t for s, t, cols in foreign if s == table and t in owned and "bank_id" not in cols}):
            problems.append(f"foreign key to {target} lacks bank_id")
    return {t: "; ".join(p) for t, p in report.items() if p}


def test_which_bank_tables_cannot_yet_be_distributed_by_bank(pg_dsn_factory: Callable[[], str]) -> None:  # noqa: F811
    store = PostgresStore(pg_dsn_factory())
    try:
        columns, keys, foreign = _catalog(store)
    finally:
        store.close()
    assert {"facts", "sources", "jobs", "banks"} <= set(columns)  # the catalog was read
    report = _report(columns, keys, foreign)
    assert report == NOT_CO_LOCATABLE
    conforming = sorted(set(columns) - NOT_BANK_OWNED - set(report))
    assert conforming == sorted(set(columns) - NOT_BANK_OWNED - set(NOT_CO_LOCATABLE))


def test_the_report_finds_what_breaks_the_rule() -> None:
    """The checker itself, on a made-up catalog: a table keyed by (bank_id, id) passes, one keyed by
    id alone, one without bank_id and a foreign key without bank_id are each reported."""
    columns: dict[str, Any] = {"banks": ["id"], "good": ["bank_id", "id"], "bad": ["id", "bank_id", "good_id"],
                               "loose": ["x"]}
    keys = {"banks": ["id"], "good": ["bank_id", "id"], "bad": ["id"], "loose": ["x"]}
    foreign = [("good", "banks", ["bank_id"]), ("bad", "good", ["good_id"])]
    assert _report(columns, keys, foreign) == {
        "bad": "primary key (id) lacks bank_id; foreign key to good lacks bank_id",
        "loose": "no bank_id column; primary key (x) lacks bank_id",
    }
