"""``store.search`` on PostgreSQL: keyword (Okapi BM25) and vector (pgvector cosine) indexes.

**BM25, the same as SQLite's FTS5 ``bm25()``.** The engine hands the store pre-computed terms
(Korean lemmas, English stems) and context terms. They are split into tokens the way FTS5's
``unicode61`` tokenizer splits them (runs of letters and digits, lower-cased), and stored per fact
in ``fact_terms (fact_id, bank_id, field, term, tf, positions)``; ``keyword_docs`` holds each
fact's length in tokens (both fields) and ``keyword_stats`` each bank's document count and total
length (kept by trigger). One SQL query then computes, per bank, exactly what FTS5 computes::

    score(D) = Σ_phrases idf(p) · f(p,D) · (k1 + 1) / (f(p,D) + k1 · (1 − b + b · |D| / avgdl))
    idf(p)   = ln((N − n(p) + 0.5) / (n(p) + 0.5)), or 1e-6 where that is ≤ 0
    f(p,D)   = tf in the terms field + context_weight · tf in the context field
    k1 = 1.2, b = 0.75, N and avgdl over the bank's facts

With ``context_weight <= 0`` only the terms field is searched (and counts for n(p)), as in the
SQLite store. A query term that the tokenizer splits ("3.5" → "3", "5") is a phrase: its tokens
must be adjacent, which the stored positions decide. Scores are positive, higher is better; ties
are broken by fact id. Past ``keyword_max_postings`` postings a query is planned as in
:mod:`gieok.store._bounded_bm25` (the same plan as SQLite's): a phrase's newest postings are read
first, on the ``fact_terms (bank_id, term, fact_id)`` index, and how many facts hold a token is one
row of ``term_docs (bank_id, term, in_terms, in_any)``, kept by statement triggers on ``fact_terms``
— so a query reads at most its cap of postings whatever the bank's size.

**Vectors.** ``fact_vectors`` holds one pgvector ``vector`` per fact with its dimension (and
``fact_context_vectors`` a reply's second vector, with the message it answers); similarity =
1 − cosine distance. A bank below ``ann_min_vectors`` facts (``keyword_stats.docs``, one row) is
searched exactly: ``ORDER BY embedding <=> query`` within the bank, which no index serves. A larger
bank walks an HNSW index: one partial expression index per dimension and table
(``fact_vectors_hnsw_384 ON fact_vectors USING hnsw ((embedding::vector(384)) vector_cosine_ops)
WHERE dim = 384``, made with the first bank of that dimension; a plain ``vector`` column has no
dimension an index could take), reached by ordering on the same expression, with
``SET LOCAL hnsw.ef_search`` (the ``hnsw_ef_search`` setting) and pgvector's iterative scan
(0.8+, ``hnsw.iterative_scan = relaxed_order``): the index is shared by every bank of the dimension,
so the walk goes on past other banks' rows until the bank has its k (at most
``hnsw.max_scan_tuples``, 20,000 by default). Relaxed order is re-sorted here.

Both kinds of table are shared by every bank and hang off facts and banks by ``ON DELETE CASCADE``,
so of the index hooks the shared areas call (see :class:`gieok.store._search.SQLSearch`) only
``_index_fact`` has work to do. The SQL here is PostgreSQL's alone and keeps psycopg's ``%s`` and
``%(name)s`` placeholders. The SQLite store's counterpart is :mod:`gieok.store._sqlite_search`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gieok.records import ScopeFilter
from gieok.store._bounded_bm25 import BM25_B, BM25_K1, bounded_bm25
from gieok.store._dialect import COPY_FROM, check_view
from gieok.store._pg_connect import ints, vector_array, vector_literal
from gieok.store._scopes import named_placeholders, sources_in_scope
from gieok.store._search import IndexedFact, SQLSearch

__all__ = ["PostgresSearch", "create_hnsw_indexes", "tokens"]


_VECTOR_TABLES = {"fact": "fact_vectors", "context": "fact_context_vectors"}


def create_hnsw_indexes(conn: Any, dim: int) -> None:
    """The HNSW index of one dimension on both vector tables (see the module docstring)."""
    for table in _VECTOR_TABLES.values():
        conn.execute(f"CREATE INDEX IF NOT EXISTS {table}_hnsw_{int(dim)} ON {table} USING hnsw "
                     f"((embedding::vector({int(dim)})) vector_cosine_ops) WHERE dim = {int(dim)}")


def _vector_table(view: str) -> str:
    return _VECTOR_TABLES[check_view(view)]


_TOKEN = re.compile(r"[^\W_]+")


def tokens(text: str) -> list[str]:
    """Split like FTS5's unicode61 tokenizer (remove_diacritics 0): letters and digits, lower-cased."""
    return _TOKEN.findall(text.lower())


def _postings(words: Sequence[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for position, token in enumerate(tokens(" ".join(words))):
        out.setdefault(token, []).append(position)
    return out


def _keyword_rows(terms: Sequence[str],
                  context_terms: Sequence[str]) -> tuple[int, list[tuple[str, str, int, list[int]]]]:
    """A fact's length in tokens (both fields) and its ``fact_terms`` rows: (field, term, tf, positions)."""
    rows = [(field, term, len(positions), positions)
            for field, words in (("terms", terms), ("context", context_terms))
            for term, positions in _postings(words).items()]
    return sum(tf for _, _, tf, _ in rows), rows


def _phrases(terms: Sequence[str]) -> list[list[str]]:
    # each distinct query term is one phrase (FTS5 quotes each and ORs them); empty ones match nothing
    return [p for p in (tokens(t) for t in dict.fromkeys(t for t in terms if t)) if p]


class _PgKeywordIndex:
    """The primitives of bounded BM25 (:class:`gieok.store._bounded_bm25.KeywordIndex`) over ``fact_terms``.

    ``score`` reads every posting of its first group's phrases (and of the facts from ``min_id`` on);
    the other groups' postings only of the facts the first group found. Where it reads every posting
    of a phrase, the phrase's n(p) is counted from them; elsewhere it is one row of ``term_docs``
    (kept by trigger, migration ``0018_term_docs``) — a phrase of several tokens is counted."""

    def __init__(self, conn: Any, bank_id: int, phrases: list[list[str]], context_weight: float,
                 scope: ScopeFilter | None) -> None:
        self.conn, self.bank_id, self.phrases, self.context_weight = conn, bank_id, phrases, context_weight
        self.scope = scope

    def _params(self) -> dict[str, Any]:
        return {"bank": self.bank_id, "cw": self.context_weight, "k1": BM25_K1, "b": BM25_B}

    def _hits(self, phrase: int, params: dict[str, Any], restrict: str = "") -> str:
        """SQL for the phrase's (phrase, fact, field, tf) occurrences in the searched fields; ``restrict``
        is a condition on ``fact_id`` (the occurrence's alias is ``t0``)."""
        tokens_ = self.phrases[phrase]
        key = f"p{phrase}"
        params[f"{key}_id"], params[f"{key}_0"] = phrase, tokens_[0]
        fields = "" if self.context_weight > 0 else " AND t0.field = 'terms'"
        if len(tokens_) == 1:
            return (f"SELECT %({key}_id)s::integer, t0.fact_id, t0.field, t0.tf FROM fact_terms t0 "
                    f"WHERE t0.bank_id = %(bank)s AND t0.term = %({key}_0)s{fields}{restrict}")
        # a multi-token phrase: its tokens at consecutive positions
        joins, conditions = [], []
        for k, token in enumerate(tokens_[1:], start=1):
            params[f"{key}_{k}"] = token
            joins.append(f"JOIN fact_terms t{k} ON t{k}.fact_id = t0.fact_id AND t{k}.field = t0.field "
                         f"AND t{k}.term = %({key}_{k})s")
            conditions.append(f"(s.pos + {k}) = ANY(t{k}.positions)")
        return (f"SELECT %({key}_id)s::integer, t0.fact_id, t0.field, count(*)::integer FROM fact_terms t0 "
                f"CROSS JOIN LATERAL unnest(t0.positions) AS s(pos) {' '.join(joins)} "
                f"WHERE t0.bank_id = %(bank)s AND t0.term = %({key}_0)s{fields}{restrict} "
                f"AND {' AND '.join(conditions)} GROUP BY t0.fact_id, t0.field")

    def _facts(self, phrase: int, params: dict[str, Any]) -> str:
        return f"SELECT DISTINCT h.fact_id FROM ({self._hits(phrase, params)}) AS h(phrase, fact_id, field, tf)"

    def _counted(self, phrase: int, params: dict[str, Any]) -> str:
        """SQL for n(p): a single-token phrase's from ``term_docs`` (one row, kept by trigger), a longer
        phrase's by counting its facts."""
        if len(self.phrases[phrase]) > 1:
            return f"SELECT count(*) FROM ({self._facts(phrase, params)}) AS f"
        key = f"p{phrase}_0"
        params[key] = self.phrases[phrase][0]
        column = "in_any" if self.context_weight > 0 else "in_terms"
        return (f"SELECT COALESCE((SELECT {column} FROM term_docs WHERE bank_id = %(bank)s "
                f"AND term = %({key})s), 0)")

    def count(self, phrase: int, at_most: int) -> int:
        params = self._params()
        params["at_most"] = int(at_most)
        if len(self.phrases[phrase]) == 1:
            return min(int(self.conn.execute(self._counted(phrase, params), params).fetchone()[0]), int(at_most))
        sql = f"SELECT count(*) FROM ({self._facts(phrase, params)} LIMIT %(at_most)s) AS found"
        return int(self.conn.execute(sql, params).fetchone()[0])

    def newest(self, phrase: int, nth: int) -> int | None:
        params = self._params()
        params["skip"] = int(nth) - 1
        row = self.conn.execute(f"{self._facts(phrase, params)} ORDER BY h.fact_id DESC OFFSET %(skip)s LIMIT 1",
                                params).fetchone()
        return None if row is None else int(row[0])

    def score(self, groups: Sequence[Sequence[int]], min_id: int | None, limit: int) -> list[tuple[int, float]]:
        params = self._params()
        params["limit"] = int(limit)
        since = ""
        if min_id is not None:
            params["min_id"], since = int(min_id), " AND t0.fact_id >= %(min_id)s"
        first = " UNION ALL ".join(self._hits(p, params, since) for p in groups[0])
        rest = [p for group in groups[1:] for p in group]
        found = f"seed AS MATERIALIZED ({first})"
        hits = "SELECT * FROM seed"
        if rest:
            within = " AND t0.fact_id IN (SELECT DISTINCT fact_id FROM seed)"
            hits += " UNION ALL " + " UNION ALL ".join(self._hits(p, params, within) for p in rest)
        if min_id is None and not rest:  # every posting read: n(p) from them
            df = "SELECT phrase, count(*) AS n FROM matched GROUP BY phrase"
        else:
            df = " UNION ALL ".join(f"SELECT {p}, ({self._counted(p, params)})" for group in groups for p in group)
        having = " AND ".join(f"bool_or(m.phrase = ANY(%(group_{k})s::integer[]))" for k in range(len(groups)))
        for k, group in enumerate(groups):
            params[f"group_{k}"] = list(group)
        in_scope = ""
        condition, scope_params = sources_in_scope(self.scope, self.bank_id, "f.source_id")
        if condition:
            in_scope = named_placeholders(
                f" WHERE m.fact_id IN (SELECT f.id FROM facts f WHERE f.bank_id = %(bank)s{condition})",
                scope_params, params)
        query = f"""
            WITH {found},
            hits(phrase, fact_id, field, tf) AS ({hits}),
            matched AS (
                SELECT phrase, fact_id,
                       sum(CASE WHEN field = 'terms' THEN tf ELSE tf * %(cw)s END)::float8 AS freq
                FROM hits GROUP BY phrase, fact_id),
            corpus AS (
                SELECT docs::float8 AS n, tokens::float8 / GREATEST(docs, 1) AS avgdl
                FROM keyword_stats WHERE bank_id = %(bank)s),
            df(phrase, n) AS ({df}),
            idf AS (
                SELECT phrase, CASE WHEN x <= 0 THEN 1e-6 ELSE x END AS idf FROM (
                    SELECT df.phrase, ln((c.n - df.n + 0.5) / (df.n + 0.5)) AS x
                    FROM df CROSS JOIN corpus c) AS raw)
            SELECT m.fact_id,
                   sum(i.idf * m.freq * (%(k1)s + 1)
                       / (m.freq + %(k1)s * (1 - %(b)s + %(b)s * d.length / NULLIF(c.avgdl, 0)))) AS score
            FROM matched m JOIN idf i USING (phrase) JOIN keyword_docs d ON d.fact_id = m.fact_id
            CROSS JOIN corpus c{in_scope}
            GROUP BY m.fact_id HAVING {having} ORDER BY score DESC, m.fact_id LIMIT %(limit)s
            """
        with self.conn.transaction():  # SET LOCAL lasts until it ends (a savepoint inside a write)
            # a few thousand postings read by index: starting parallel workers cost more than they
            # saved (measured at 100k facts: 26 -> 22 ms)
            self.conn.execute("SET LOCAL max_parallel_workers_per_gather = 0")
            rows = self.conn.execute(query, params).fetchall()
        return [(int(r[0]), float(r[1])) for r in rows]

    def docs(self) -> int:
        row = self.conn.execute("SELECT docs FROM keyword_stats WHERE bank_id = %s", (self.bank_id,)).fetchone()
        return int(row[0]) if row else 0


class PostgresSearch(SQLSearch):
    """BM25 in SQL and pgvector: the index hooks, index maintenance and both search channels."""

    def _create_bank_indexes(self, conn: Any, bank_id: int, dim: int) -> None:
        create_hnsw_indexes(conn, dim)

    def _drop_bank_indexes(self, conn: Any, bank_id: int, dim: int) -> None:
        pass

    def _drop_fact_indexes(self, conn: Any, bank_id: int, dim: int, fact_ids: Sequence[int]) -> None:
        pass

    def _facts_indexed(self, conn: Any, bank_id: int, dim: int, count: int) -> None:
        pass  # PostgreSQL keeps the HNSW index in step itself

    def train_index(self, bank_id: int, dim: int) -> int:
        """Nothing to train: the HNSW index grows with every insert. Returns 0."""
        self._require_write()
        return 0

    def suspend_index(self, bank_id: int, dim: int) -> bool:
        """In a write, before many vectors are loaded into ``bank_id``: drop the dimension's HNSW
        indexes, so the load does not grow them row by row (100k vectors: 18 minutes that way) and
        :meth:`build_index` builds them once over the loaded rows. Only where no other bank holds a
        vector: dropping an index locks its table until the write ends, which would stop every other
        bank's searches. Returns whether it dropped them; searches meanwhile are exact."""
        conn = self._require_write()
        if conn.execute("SELECT 1 FROM fact_vectors WHERE bank_id <> %s LIMIT 1", (bank_id,)).fetchone():
            return False
        for table in _VECTOR_TABLES.values():
            conn.execute(f"DROP INDEX IF EXISTS {table}_hnsw_{int(dim)}")
        return True

    def _index_missing(self, dim: int) -> bool:
        # one catalog read: every retain asks (store.search.build_index after its write)
        names = [f"{t}_hnsw_{int(dim)}" for t in _VECTOR_TABLES.values()]
        return bool(self._conn().execute("SELECT bool_or(to_regclass(n) IS NULL) FROM unnest(%s::text[]) AS n",
                                         (names,)).fetchone()[0])

    def index_due(self, bank_id: int) -> bool:
        """Only after :meth:`suspend_index` (or a load cut off before its build): otherwise PostgreSQL
        keeps the HNSW index in step with every insert."""
        row = self._conn().execute("SELECT dim FROM banks WHERE id = %s", (bank_id,)).fetchone()
        return row is not None and self._index_missing(int(row[0]))

    def build_index(self, bank_id: int, dim: int, *, batch: int = 0,
                    progress: Callable[[int, int], None] | None = None) -> int:
        """Outside a write: build the dimension's HNSW indexes when they are missing (see
        :meth:`suspend_index`), in one write (the server's ``maintenance_work_mem`` decides how much of
        the graph is built in memory: about 1.5 KB per 384-d vector; less makes the build slower, not
        wrong). Returns the number of vectors indexed; 0 when the indexes were there."""
        if not self._index_missing(dim):
            return 0
        with self._store.write():
            conn = self._require_write()
            create_hnsw_indexes(conn, dim)
            return sum(int(conn.execute(f"SELECT count(*) FROM {t} WHERE dim = %s", (int(dim),)).fetchone()[0])
                       for t in _VECTOR_TABLES.values())

    def _index_fact(self, conn: Any, bank_id: int, dim: int, fact_id: int, terms: Sequence[str],
                    context_terms: Sequence[str], vector: Any, context_vector: Any | None) -> None:
        self._index_keywords(conn, bank_id, fact_id, terms, context_terms)
        self._index_vector(conn, bank_id, dim, fact_id, vector, "fact")
        if context_vector is not None:
            self._index_vector(conn, bank_id, dim, fact_id, context_vector, "context")

    def _index_facts(self, conn: Any, bank_id: int, dim: int, rows: Sequence[IndexedFact]) -> None:
        """Many facts at once: their keyword rows and vectors go by ``COPY``, one stream per table."""
        if len(rows) < COPY_FROM:
            super()._index_facts(conn, bank_id, dim, rows)
            return
        docs: list[tuple[int, int, int]] = []
        terms_rows: list[tuple[int, int, str, str, int, list[int]]] = []
        for fact_id, terms, context_terms, _, _ in rows:
            length, postings = _keyword_rows(terms, context_terms)
            docs.append((fact_id, bank_id, length))
            terms_rows += [(fact_id, bank_id, *posting) for posting in postings]
        copy = self._dialect.copy_rows
        copy(conn, "keyword_docs", ("fact_id", "bank_id", "length"), docs)
        copy(conn, "fact_terms", ("fact_id", "bank_id", "field", "term", "tf", "positions"), terms_rows)
        for view, at in (("fact", 3), ("context", 4)):
            copy(conn, _vector_table(view), ("fact_id", "bank_id", "dim", "embedding"),
                 ((row[0], bank_id, int(dim), vector_literal(row[at])) for row in rows if row[at] is not None))

    def _index_keywords(self, conn: Any, bank_id: int, fact_id: int, terms: Sequence[str],
                        context_terms: Sequence[str]) -> None:
        length, rows = _keyword_rows(terms, context_terms)
        conn.execute("INSERT INTO keyword_docs (fact_id, bank_id, length) VALUES (%s, %s, %s)",
                     (fact_id, bank_id, length))
        if rows:
            fields, words, tfs, places = (list(x) for x in zip(*rows))
            positions = ["{" + ",".join(map(str, p)) + "}" for p in places]
            conn.execute(
                "INSERT INTO fact_terms (fact_id, bank_id, field, term, tf, positions) "
                "SELECT %s, %s, f, t, n, p::integer[] FROM unnest(%s::text[], %s::text[], %s::integer[], %s::text[]) "
                "AS x(f, t, n, p)", (fact_id, bank_id, fields, words, tfs, positions))

    def _index_vector(self, conn: Any, bank_id: int, dim: int, fact_id: int, vector: Any, view: str) -> None:
        conn.execute(f"INSERT INTO {_vector_table(view)} (fact_id, bank_id, dim, embedding) "
                     "VALUES (%s, %s, %s, %s::vector)", (fact_id, bank_id, int(dim), vector_literal(vector)))

    def indexed_terms(self, bank_id: int, fact_ids: Sequence[int]) -> dict[int, tuple[list[str], list[str]]]:
        """Each fact's keyword words as indexed: ``(terms, context terms)``, in their positions' order."""
        placed: dict[int, dict[str, list[tuple[int, str]]]] = {}
        for fact_id, field, term, positions in self._conn().execute(
                "SELECT fact_id, field, term, positions FROM fact_terms WHERE bank_id = %s AND fact_id = ANY(%s)",
                (bank_id, ints(fact_ids))):
            fields = placed.setdefault(int(fact_id), {"terms": [], "context": []})
            fields[field] += [(int(p), term) for p in positions]
        for fact_id, in self._conn().execute(
                "SELECT fact_id FROM keyword_docs WHERE bank_id = %s AND fact_id = ANY(%s)", (bank_id, ints(fact_ids))):
            placed.setdefault(int(fact_id), {"terms": [], "context": []})
        return {i: ([t for _, t in sorted(f["terms"])], [t for _, t in sorted(f["context"])])
                for i, f in placed.items()}

    def clear_context(self, bank_id: int, dim: int, fact_id: int) -> None:
        """The message a reply answered is gone: drop its context terms and its context vector."""
        conn = self._require_write()
        conn.execute("DELETE FROM fact_terms WHERE fact_id = %s AND field = 'context'", (fact_id,))
        # a fact's length counts both fields (the keyword_stats trigger follows the update)
        conn.execute("UPDATE keyword_docs SET length = (SELECT COALESCE(sum(tf), 0) FROM fact_terms "
                     "WHERE fact_id = %s) WHERE fact_id = %s", (fact_id, fact_id))
        conn.execute("DELETE FROM fact_context_vectors WHERE fact_id = %s", (fact_id,))
        # and the context vector a running reembed staged for it
        conn.execute("UPDATE reembed_facts SET context_embedding = NULL WHERE bank_id = %s AND fact_id = %s",
                     (bank_id, fact_id))

    def _swap_fact_vectors(self, conn: Any, bank_id: int, old_dim: int, dim: int) -> dict[str, int]:
        """Delete the bank's vectors, insert the staged ones as vectors of ``dim`` (pgvector to
        pgvector, in SQL); the dimension's HNSW index is made if it is new and grows with the inserts."""
        create_hnsw_indexes(conn, dim)
        counts = {}
        for table, column, key in (("fact_vectors", "embedding", "facts"),
                                   ("fact_context_vectors", "context_embedding", "context_vectors")):
            conn.execute(f"DELETE FROM {table} WHERE bank_id = %s", (bank_id,))
            counts[key] = int(conn.execute(
                f"INSERT INTO {table} (fact_id, bank_id, dim, embedding) SELECT fact_id, bank_id, %s, {column} "
                f"FROM reembed_facts WHERE bank_id = %s AND {column} IS NOT NULL", (int(dim), bank_id)).rowcount)
        return counts

    def compact(self, bank_id: int) -> None:
        """Nothing to merge: deleted keyword rows are gone from every query at once. Their dead
        tuples stay in the table files until VACUUM, which :meth:`vacuum` runs (FULL) for the proof;
        a REINDEX here would lock out every reader of the table for no gain."""
        self._require_write()

    def keyword(self, bank_id: int, terms: Sequence[str], limit: int,
                context_weight: float = 0.0, scope: ScopeFilter | None = None) -> list[tuple[int, float]]:
        """Okapi BM25 over the bank's facts (FTS5's formula and constants), best first, positive, ties by
        fact id. Under a ``scope`` filter only facts in scope are scored; the statistics (N, n(p), avgdl)
        stay the bank's, as FTS5's do. A query whose phrases a large bank holds often reads a bounded
        share of their postings (:mod:`gieok.store._bounded_bm25`, the ``keyword_max_postings`` setting)."""
        phrases = _phrases(terms)
        if not phrases:
            return []
        # each statement is consistent in itself (a score's statistics come from its own statement);
        # the plan's choices between them need no common snapshot
        index = _PgKeywordIndex(self._conn(), bank_id, phrases, float(context_weight), scope)
        cap = 0 if self._options.exact else self._options.keyword_postings
        return bounded_bm25(index, len(phrases), int(limit), cap)

    def vector(self, bank_id: int, dim: int, vector: np.ndarray, limit: int,
               view: str = "fact", scope: ScopeFilter | None = None) -> list[tuple[int, float]]:
        """Cosine KNN within the bank (and ``scope``; HNSW for a large bank, see the module docstring);
        returns (fact id, cosine similarity), best first."""
        conn, table, options = self._conn(), _vector_table(view), self._options
        condition, scope_params = sources_in_scope(scope, bank_id, "f.source_id")
        in_scope = f" AND fact_id IN (SELECT f.id FROM facts f WHERE f.bank_id = %s{condition})" if condition else ""
        params = (vector_literal(vector), bank_id, int(dim), *([bank_id, *scope_params] if condition else []),
                  int(limit))
        size = conn.execute("SELECT docs FROM keyword_stats WHERE bank_id = %s", (bank_id,)).fetchone()
        if options.exact or size is None or int(size[0]) < options.min_vectors:
            rows = conn.execute(
                f"SELECT fact_id, embedding <=> %s::vector AS distance FROM {table} "
                f"WHERE bank_id = %s AND dim = %s{in_scope} ORDER BY distance, fact_id LIMIT %s", params).fetchall()
        else:
            typed = f"vector({int(dim)})"
            with conn.transaction():  # SET LOCAL lasts until it ends (a savepoint inside a write)
                conn.execute(f"SET LOCAL hnsw.ef_search = {max(int(options.ef_search), int(limit))}")
                # relaxed iterative scans keep reading the graph until the bank (and scope) filter
                # leaves ``limit`` rows
                conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
                # the dimension is written into the query, not bound: the partial index's
                # ``WHERE dim = N`` must be provable from it in a prepared statement's generic plan
                # too, or the planner scans every vector (measured: 55k facts, 40 ms instead of a few)
                rows = conn.execute(
                    f"SELECT fact_id, embedding::{typed} <=> %s::{typed} AS distance FROM {table} "
                    f"WHERE bank_id = %s AND dim = {int(dim)}{in_scope} ORDER BY distance LIMIT %s",
                    (params[0], params[1], *params[3:])).fetchall()
            rows = sorted(rows, key=lambda r: (float(r[1]), int(r[0])))
        return [(int(r[0]), 1.0 - float(r[1])) for r in rows]

    def sample(self, bank_id: int, dim: int, limit: int) -> np.ndarray:
        rows = self._conn().execute(
            "SELECT embedding::real[] FROM fact_vectors WHERE bank_id = %s AND dim = %s ORDER BY fact_id LIMIT %s",
            (bank_id, int(dim), int(limit)),
        ).fetchall()
        if not rows:
            return np.zeros((0, dim), dtype=np.float32)
        return np.stack([vector_array(r[0]) for r in rows])

    def vectors_of(self, dim: int, fact_ids: Sequence[int], view: str = "fact") -> dict[int, np.ndarray]:
        if not fact_ids:
            return {}
        rows = self._conn().execute(
            f"SELECT fact_id, embedding::real[] FROM {_vector_table(view)} WHERE fact_id = ANY(%s::bigint[]) "
            "AND dim = %s",
            (ints(fact_ids), int(dim)),
        ).fetchall()
        return {int(r[0]): vector_array(r[1]) for r in rows}
