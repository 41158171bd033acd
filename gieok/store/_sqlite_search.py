"""``store.search`` on SQLite: keyword (FTS5 BM25) and vector (sqlite-vec cosine) indexes.

Each bank gets its own FTS5 table (``fts_bank_<id>``, rowid = fact id) so BM25's document
frequencies and average length are that bank's, not the whole file's. Vectors live in ``vec_<dim>``
tables partitioned by bank, rowid = fact id, cosine distance; a reply's second vector (with the message
it answers) lives in ``vecctx_<dim>``, the same way. A bank of at least ``ann_min_vectors`` facts
has its vectors in ``ivf_<dim>`` / ``ivfctx_<dim>`` instead, partitioned by bank and k-means cluster,
with its centroids in ``vector_index`` (see :mod:`gieok.store._ivf`): each vector is in exactly one
table, in the file, and goes when its fact goes. These tables are not reached by
foreign keys, so the hooks of :class:`gieok.store._search.SQLSearch` keep them in step with the
facts: the shared areas call them when a bank is created or deleted and when facts come or go.

sqlite-vec answers ``rowid IN (...)`` and a partition filter outside a KNN by scanning the whole
table, so vectors are read and deleted one rowid at a time (a point lookup each).

The PostgreSQL store's counterpart is :mod:`gieok.store._pg_search`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from gieok._nearest import nearest_rows
from gieok.records import ScopeFilter
from gieok.store import _ivf
from gieok.store._bounded_bm25 import bounded_bm25
from gieok.store._connect import sqlite_module
from gieok.store._dialect import VECTOR_VIEWS, check_view
from gieok.store._scopes import sources_in_scope
from gieok.store._search import SQLSearch

__all__ = ["SQLiteSearch", "IVF_CHUNK", "fts_table", "vec_table", "ivf_table", "create_vector_tables"]


IVF_CHUNK = 128  # vectors per sqlite-vec chunk of a clustered table: a cluster's last chunk is not 1024 slots


_MOVE_BATCH = 32_768  # facts a training inside one write moves at a time


_BUILD_BATCH = 16_384  # facts a training in steps moves per write (a few seconds of the lock at most)


_TRAINING_CACHE_KIB = 262_144  # the writer's page cache while a training rewrites the vectors


_MAX_PROBES = 256  # more clusters than this in one search: one KNN over the bank (SQLite allows 500 UNION terms)


def fts_table(bank_id: int) -> str:
    return f"fts_bank_{int(bank_id)}"


def vec_table(dim: int, view: str = "fact") -> str:
    """The vector table of a dimension: ``fact`` (each fact's own vector) or ``context`` (replies)."""
    return f"vec_{int(dim)}" if check_view(view) == "fact" else f"vecctx_{int(dim)}"


def ivf_table(dim: int, view: str = "fact") -> str:
    """The clustered vector table of a dimension (banks with an IVF index)."""
    return f"ivf_{int(dim)}" if check_view(view) == "fact" else f"ivfctx_{int(dim)}"


def create_vector_tables(conn: Any, dim: int) -> None:
    for view in VECTOR_VIEWS:
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {vec_table(dim, view)} USING vec0("
                     f"bank_id integer partition key, embedding float[{int(dim)}] distance_metric=cosine)")
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {ivf_table(dim, view)} USING vec0("
                     f"bank_id integer partition key, cluster integer partition key, "
                     f"embedding float[{int(dim)}] distance_metric=cosine, chunk_size={IVF_CHUNK})")
        # sqlite-vec finds a partition's chunks by scanning its chunks table, which it does not
        # index: with a million vectors (8,000 chunks) that was 5 ms per cluster read, 0.7 ms with this
        for table, partitions in ((vec_table(dim, view), "partition00"),
                                  (ivf_table(dim, view), "partition00, partition01")):
            conn.execute(f"CREATE INDEX IF NOT EXISTS {table}_chunks_partition ON {table}_chunks({partitions})")


def _fts_query(terms: Sequence[str]) -> str:
    # every term quoted (FTS5 syntax characters in user text must not become operators), OR-ed
    unique = dict.fromkeys(t for t in terms if t)
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in unique)


class _FtsIndex:
    """The primitives of bounded BM25 (:class:`gieok.store._bounded_bm25.KeywordIndex`) over a bank's FTS5 table."""

    def __init__(self, conn: Any, bank_id: int, phrases: list[str], context_weight: float,
                 in_scope: tuple[str, list[Any]]) -> None:
        self.conn, self.table, self.phrases = conn, fts_table(bank_id), phrases
        self.context_weight, self.in_scope = context_weight, in_scope

    def _match(self, groups: Sequence[Sequence[int]]) -> str:
        query = " AND ".join("(" + _fts_query([self.phrases[p] for p in group]) + ")" for group in groups)
        return query if self.context_weight > 0 else "terms : (" + query + ")"

    def count(self, phrase: int, at_most: int) -> int:
        return int(self.conn.execute(f"SELECT count(*) FROM (SELECT rowid FROM {self.table} WHERE {self.table} "
                                     "MATCH ? LIMIT ?)", (self._match([[phrase]]), int(at_most))).fetchone()[0])

    def newest(self, phrase: int, nth: int) -> int | None:
        row = self.conn.execute(f"SELECT rowid FROM {self.table} WHERE {self.table} MATCH ? ORDER BY rowid DESC "
                                "LIMIT 1 OFFSET ?", (self._match([[phrase]]), int(nth) - 1)).fetchone()
        return None if row is None else int(row[0])

    def score(self, groups: Sequence[Sequence[int]], min_id: int | None, limit: int) -> list[tuple[int, float]]:
        condition, params = self.in_scope
        if min_id is not None:
            condition, params = condition + " AND rowid >= ?", [*params, int(min_id)]
        rows = self.conn.execute(
            f"SELECT rowid, bm25({self.table}, 1.0, ?) AS s FROM {self.table} WHERE {self.table} MATCH ?{condition} "
            "ORDER BY s, rowid LIMIT ?", (self.context_weight, self._match(groups), *params, int(limit))).fetchall()
        return [(int(r[0]), -float(r[1])) for r in rows]

    def docs(self) -> int:
        # FTS5's averages record (id 1 of its %_data table): a varint row count, then each column's tokens
        row = self.conn.execute(f"SELECT block FROM {self.table}_data WHERE id = 1").fetchone()
        return _varint(bytes(row[0])) if row else 0


def _varint(data: bytes) -> int:
    """SQLite's varint (big-endian, 7 bits a byte while the high bit is set; a ninth byte gives 8)."""
    value = 0
    for i, byte in enumerate(data[:9]):
        if i == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value
    return value


def _facts_in_scope(scope: ScopeFilter | None, bank_id: int) -> tuple[str, list[Any]]:
    """``" AND rowid IN (the bank's facts in scope)"``: sqlite-vec and FTS5 apply it before their
    ``k`` / ``LIMIT``, so a filtered search still returns its limit of facts in scope."""
    condition, params = sources_in_scope(scope, bank_id, "f.source_id")
    if not condition:
        return "", []
    return f" AND rowid IN (SELECT f.id FROM facts f WHERE f.bank_id = ?{condition})", [int(bank_id), *params]


def _blob(vector: Any) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def _bank_knn(conn: Any, table: str, bank_id: int, vector: Any, limit: int,
              in_scope: tuple[str, list[Any]] = ("", [])) -> list[Any]:
    """Exact KNN over the bank's partition(s) of a vector table (and ``in_scope``: see _facts_in_scope)."""
    condition, params = in_scope
    return list(conn.execute(f"SELECT rowid, distance FROM {table} WHERE embedding MATCH ? AND k = ? AND bank_id = ?"
                             f"{condition} ORDER BY distance",
                             (_blob(vector), int(limit), bank_id, *params)).fetchall())


# queries from which vector_many reads the bank once instead of one KNN per query (a KNN reads the whole
# partition of an exactly searched bank: measured at 11k facts, a KNN 6-8 ms, the read and scoring 40-70 ms)
_SCAN_FROM = 16


def _partition_vectors(conn: Any, table: str, bank_id: int, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """The ids and vectors of one bank's partition of a sqlite-vec table, sorted by id. Read from its
    chunk tables (a chunk: up to 1,024 vectors in one blob, their rowids, a bit per live slot) —
    a few large blobs instead of a row per vector through the virtual table (11k vectors: ~40 ms
    instead of ~100-140 ms on a busy machine). A chunk that does not have that shape (another sqlite-vec layout) is
    read through the virtual table instead."""
    ids: list[np.ndarray] = []
    vectors: list[np.ndarray] = []
    try:
        chunks = conn.execute(f"SELECT c.size, c.validity, c.rowids, v.vectors FROM {table}_chunks c "
                              f"JOIN {table}_vector_chunks00 v ON v.rowid = c.chunk_id WHERE c.partition00 = ?",
                              (bank_id,)).fetchall()
    except sqlite_module().OperationalError:
        chunks = None
    for size, validity, rowids, blob in chunks or ():
        size = int(size)
        if len(validity) * 8 < size or len(rowids) < size * 8 or len(blob) < size * dim * 4:
            chunks = None
            break
        live = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")[:size].astype(bool)
        ids.append(np.frombuffer(rowids, dtype=np.int64, count=size)[live])
        vectors.append(np.frombuffer(blob, dtype=np.float32, count=size * dim).reshape(size, dim)[live])
    if chunks is None:
        rows = conn.execute(f"SELECT rowid, embedding FROM {table} WHERE bank_id = ?", (bank_id,)).fetchall()
        ids = [np.fromiter((int(r[0]) for r in rows), dtype=np.int64, count=len(rows))]
        vectors = [np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), dim)]
    if not ids:
        return np.zeros(0, dtype=np.int64), np.zeros((0, dim), dtype=np.float32)
    all_ids, matrix = np.concatenate(ids), np.concatenate(vectors)
    order = np.argsort(all_ids, kind="stable")
    return all_ids[order], matrix[order]


class SQLiteSearch(SQLSearch):
    """FTS5 and sqlite-vec tables: the index hooks, index maintenance and both search channels."""

    def _create_bank_indexes(self, conn: Any, bank_id: int, dim: int) -> None:
        conn.execute(f"CREATE VIRTUAL TABLE {fts_table(bank_id)} USING fts5(terms, context, "
                     "tokenize='unicode61 remove_diacritics 0')")
        try:  # a deleted row's entries leave the index at once (SQLite 3.42+; see compact_indexes)
            conn.execute(f"INSERT INTO {fts_table(bank_id)} ({fts_table(bank_id)}, rank) VALUES ('secure-delete', 1)")
        except sqlite_module().OperationalError:  # older SQLite: compact_indexes rebuilds after each erasure
            pass
        create_vector_tables(conn, dim)

    def _drop_bank_indexes(self, conn: Any, bank_id: int, dim: int) -> None:
        for view in VECTOR_VIEWS:
            for table in (vec_table(dim, view), ivf_table(dim, view)):
                conn.execute(f"DELETE FROM {table} WHERE bank_id = ?", (bank_id,))
        conn.execute(f"DROP TABLE IF EXISTS {fts_table(bank_id)}")  # vector_index goes by cascade

    def _index_fact(self, conn: Any, bank_id: int, dim: int, fact_id: int, terms: Sequence[str],
                    context_terms: Sequence[str], vector: Any, context_vector: Any | None) -> None:
        conn.execute(f"INSERT INTO {fts_table(bank_id)} (rowid, terms, context) VALUES (?, ?, ?)",
                     (fact_id, " ".join(terms), " ".join(context_terms)))
        current, building = self._generations(conn, bank_id, dim)
        centroids = building or current  # while a training is under way new facts join its clusters
        for view, value in (("fact", vector), ("context", context_vector)):
            if value is not None:
                self._insert_vector(conn, bank_id, dim, view, centroids, fact_id, value)

    def _facts_indexed(self, conn: Any, bank_id: int, dim: int, count: int) -> None:
        """Count what came. Whether the bank's clusters are due (``store.search.index_due``) is read
        after the write; ``store.search.build_index`` trains them then, in steps of their own."""
        conn.execute("INSERT INTO vector_index (bank_id, added) VALUES (?, ?) ON CONFLICT (bank_id) "
                     "DO UPDATE SET added = added + excluded.added", (bank_id, int(count)))

    def _drop_fact_indexes(self, conn: Any, bank_id: int, dim: int, fact_ids: Sequence[int]) -> None:
        for ids_in, part in self._dialect.in_parts(fact_ids):
            conn.execute(f"DELETE FROM {fts_table(bank_id)} WHERE rowid {ids_in}", part)
        rows = [(int(i),) for i in dict.fromkeys(fact_ids)]
        for view in VECTOR_VIEWS:
            for table in (vec_table(dim, view), ivf_table(dim, view)):
                conn.executemany(f"DELETE FROM {table} WHERE rowid = ?", rows)

    def _insert_vector(self, conn: Any, bank_id: int, dim: int, view: str, centroids: _ivf.Centroids | None,
                       fact_id: int, vector: Any) -> None:
        if centroids is None:
            conn.execute(f"INSERT INTO {vec_table(dim, view)} (rowid, bank_id, embedding) VALUES (?, ?, ?)",
                         (fact_id, bank_id, _blob(vector)))
        else:
            conn.execute(f"INSERT INTO {ivf_table(dim, view)} (rowid, bank_id, cluster, embedding) "
                         "VALUES (?, ?, ?, ?)", (fact_id, bank_id, centroids.assign(vector)[0], _blob(vector)))

    def _generations(self, conn: Any, bank_id: int, dim: int) -> tuple[_ivf.Centroids | None, _ivf.Centroids | None]:
        """The bank's current clusters (None: not trained, scanned exactly) and those of a training
        under way (None: none). Centroids are read again only when a training made a new generation."""
        row = conn.execute("SELECT generation, centroids IS NOT NULL, next_generation FROM vector_index "
                           "WHERE bank_id = ?", (bank_id,)).fetchone()
        if row is None:
            return None, None
        current = self._cached_centroids(conn, bank_id, dim, int(row[0]), "centroids") if row[1] else None
        building = self._cached_centroids(conn, bank_id, dim, int(row[2]), "next_centroids") if row[2] else None
        return current, building

    def _centroids(self, conn: Any, bank_id: int, dim: int) -> _ivf.Centroids | None:
        return self._generations(conn, bank_id, dim)[0]

    def _cached_centroids(self, conn: Any, bank_id: int, dim: int, generation: int, column: str) -> _ivf.Centroids:
        cache: dict[tuple[int, str], _ivf.Centroids] = self.__dict__.setdefault("_centroid_cache", {})
        cached = cache.get((bank_id, column))
        if cached is None or cached.generation != generation:
            (blob,) = conn.execute(f"SELECT {column} FROM vector_index WHERE bank_id = ?", (bank_id,)).fetchone()
            cached = _ivf.Centroids(generation, np.frombuffer(blob, dtype=np.float32).reshape(-1, int(dim)))
            cache[(bank_id, column)] = cached
        return cached

    def index_due(self, bank_id: int) -> bool:
        """Whether the bank's clusters should be (re)trained, or a training is under way: it reached
        ``min_vectors`` untrained, or grew :data:`~gieok.store._ivf.RETRAIN_GROWTH`-fold since."""
        row = self._conn().execute("SELECT added, trained_on, next_generation FROM vector_index WHERE bank_id = ?",
                                   (bank_id,)).fetchone()
        if row is None:
            return False
        added, trained_on, building = (int(x) for x in row)
        return bool(building) or (trained_on == 0 and added >= self._options.min_vectors) or \
            (trained_on > 0 and trained_on + added >= _ivf.RETRAIN_GROWTH * trained_on)

    def suspend_index(self, bank_id: int, dim: int) -> bool:
        """Nothing to suspend: the clusters are trained after a write anyway (:meth:`build_index`),
        and below ``ann_min_vectors`` a bank has none."""
        self._require_write()
        return False

    def build_index(self, bank_id: int, dim: int, *, batch: int = _BUILD_BATCH,
                    progress: Callable[[int, int], None] | None = None) -> int:
        """Outside a write: (re)train the bank's clusters when due, in steps that each take the write
        lock briefly, so other writers wait for one step, not for the whole training. k-means runs on
        a sample without the lock; then the new generation is recorded (new facts join its clusters
        from then on), the existing vectors move to it ``batch`` facts per write, in fact-id order
        (``progress(moved, total)`` after each), and a last write makes it current. Searches in the
        meantime read both layouts. A build interrupted (the process killed) is resumed by the next
        call, from the last step written; two processes building at once share the steps. Returns
        the number of clusters it made current (0: nothing was due)."""
        if not self.index_due(bank_id):
            return 0
        if not self._building(self._conn(), bank_id):
            centroids = self._train(bank_id, dim)
            if centroids is None:
                return 0
            with self._store.write():
                self._start_training(self._require_write(), bank_id, centroids, replace=False)
        while True:
            with self._store.write():
                conn = self._require_write()
                done = self._move_step(conn, bank_id, dim, batch)
                moved, total = self._build_progress(conn, bank_id)
            if done:
                break
            if progress is not None:
                progress(moved, total)
        with self._store.write():
            return self._promote(self._require_write(), bank_id)

    def train_index(self, bank_id: int, dim: int) -> int:
        """(Re)train the bank's clusters now, inside the caller's write, and move every vector to
        them (a training under way is replaced). Returns the number of clusters."""
        conn = self._require_write()
        centroids = self._train(bank_id, dim)
        if centroids is None:
            return 0
        self._start_training(conn, bank_id, centroids, replace=True)
        while not self._move_step(conn, bank_id, dim, _MOVE_BATCH):
            pass
        return self._promote(conn, bank_id)

    def _train(self, bank_id: int, dim: int) -> np.ndarray | None:
        """k-means centroids over a sample of the bank's vectors (None: too few to train)."""
        fact_ids = list(self._store.facts.ids(bank_id))
        clusters = _ivf.cluster_count(len(fact_ids))
        rng = np.random.default_rng(bank_id)
        picked = rng.choice(len(fact_ids), min(len(fact_ids), clusters * _ivf.SAMPLE_PER_CLUSTER), replace=False)
        sample = list(self.vectors_of(dim, [fact_ids[int(i)] for i in picked]).values())
        if len(sample) < _ivf.MIN_MEMBERS:
            return None
        return _ivf.train(np.stack(sample), clusters, seed=int(len(fact_ids)))

    @staticmethod
    def _building(conn: Any, bank_id: int) -> bool:
        row = conn.execute("SELECT next_generation FROM vector_index WHERE bank_id = ?", (bank_id,)).fetchone()
        return bool(row and row[0])

    @staticmethod
    def _start_training(conn: Any, bank_id: int, centroids: np.ndarray, *, replace: bool) -> None:
        """Record a new generation as the one being built, over every fact stored so far (a
        training another process started first is kept, unless ``replace``)."""
        if not replace and SQLiteSearch._building(conn, bank_id):
            return
        generation = int(conn.execute(
            "INSERT INTO meta (key, value) VALUES ('ivf_generation', '1') ON CONFLICT (key) "
            "DO UPDATE SET value = CAST(value AS INTEGER) + 1 RETURNING value").fetchone()[0])
        upto = int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM facts WHERE bank_id = ?", (bank_id,)).fetchone()[0])
        conn.execute("INSERT INTO vector_index (bank_id) VALUES (?) ON CONFLICT (bank_id) DO NOTHING", (bank_id,))
        conn.execute("UPDATE vector_index SET next_generation = ?, next_centroids = ?, next_upto = ?, next_cursor = 0 "
                     "WHERE bank_id = ?",
                     (generation, np.asarray(centroids, dtype=np.float32).tobytes(), upto, bank_id))

    def _move_step(self, conn: Any, bank_id: int, dim: int, batch: int) -> bool:
        """Move the next ``batch`` facts' vectors (both views) to the generation being built;
        True when none is left to move."""
        row = conn.execute("SELECT next_generation, next_upto, next_cursor FROM vector_index WHERE bank_id = ?",
                           (bank_id,)).fetchone()
        if row is None or not row[0]:
            return True
        _generation, upto, cursor = (int(x) for x in row)
        ids = [int(r[0]) for r in conn.execute(
            "SELECT id FROM facts WHERE bank_id = ? AND id > ? AND id <= ? ORDER BY id LIMIT ?",
            (bank_id, cursor, upto, int(batch)))]
        if not ids:
            return True
        current, building = self._generations(conn, bank_id, dim)
        assert building is not None
        cache = conn.execute("PRAGMA cache_size").fetchone()[0]
        conn.execute(f"PRAGMA cache_size = {-_TRAINING_CACHE_KIB}")  # the chunks being filled stay in memory
        try:
            for view in VECTOR_VIEWS:
                source = vec_table(dim, view) if current is None else ivf_table(dim, view)
                found = self._read_vectors(conn, source, ids)
                if not found:
                    continue
                # the moves cluster by cluster: each partition's chunks fill in turn instead of each
                # insert landing in another one (100k facts, 632 clusters, under load: 124 s moved in
                # fact order, 37 s so, with the larger cache)
                moves = sorted(zip(building.assign(np.stack(list(found.values()))), found))
                for start in range(0, len(moves), 1000):
                    self._move(conn, bank_id, source, ivf_table(dim, view), moves[start:start + 1000])
        finally:
            conn.execute(f"PRAGMA cache_size = {int(cache)}")
        conn.execute("UPDATE vector_index SET next_cursor = ? WHERE bank_id = ?", (ids[-1], bank_id))
        return False

    @staticmethod
    def _build_progress(conn: Any, bank_id: int) -> tuple[int, int]:
        """(facts moved, facts to move) of the training under way."""
        row = conn.execute("SELECT next_upto, next_cursor FROM vector_index WHERE bank_id = ?", (bank_id,)).fetchone()
        if row is None:
            return 0, 0
        upto, cursor = int(row[0]), int(row[1])

        def count(low: int, high: int) -> int:
            return int(conn.execute("SELECT COUNT(*) FROM facts WHERE bank_id = ? AND id > ? AND id <= ?",
                                    (bank_id, low, high)).fetchone()[0])

        moved = count(0, min(cursor, upto))
        return moved, moved + count(cursor, upto)

    def _promote(self, conn: Any, bank_id: int) -> int:
        """Make the generation being built current once every vector moved; returns its number of
        clusters (0 while vectors are left to move or when nothing was being built)."""
        row = conn.execute("SELECT next_generation, next_centroids, next_upto, next_cursor FROM vector_index "
                           "WHERE bank_id = ?", (bank_id,)).fetchone()
        if row is None or not row[0]:
            return 0
        generation, blob, upto, cursor = int(row[0]), row[1], int(row[2]), int(row[3])
        if conn.execute("SELECT 1 FROM facts WHERE bank_id = ? AND id > ? AND id <= ? LIMIT 1",
                        (bank_id, cursor, upto)).fetchone():
            return 0
        count = int(conn.execute("SELECT COUNT(*) FROM facts WHERE bank_id = ?", (bank_id,)).fetchone()[0])
        conn.execute("UPDATE vector_index SET added = 0, trained_on = ?, generation = ?, centroids = ?, "
                     "next_generation = 0, next_centroids = NULL, next_upto = 0, next_cursor = 0 WHERE bank_id = ?",
                     (count, generation, blob, bank_id))
        return len(np.frombuffer(blob, dtype=np.float32)) // self._bank_dim(conn, bank_id)

    def _move(self, conn: Any, bank_id: int, source: str, target: str, moves: Sequence[tuple[int, int]]) -> None:
        """Move vectors to their (cluster, fact id) in ``target``."""
        batch = self._read_vectors(conn, source, [i for _, i in moves])
        conn.executemany(f"DELETE FROM {source} WHERE rowid = ?", [(i,) for i in batch])
        conn.executemany(f"INSERT INTO {target} (rowid, bank_id, cluster, embedding) VALUES (?, ?, ?, ?)",
                         [(i, bank_id, c, _blob(batch[i])) for c, i in moves if i in batch])

    @staticmethod
    def _read_vectors(conn: Any, table: str, fact_ids: Sequence[int]) -> dict[int, np.ndarray]:
        out: dict[int, np.ndarray] = {}
        for fact_id in fact_ids:
            row = conn.execute(f"SELECT embedding FROM {table} WHERE rowid = ?", (int(fact_id),)).fetchone()
            if row is not None:
                out[int(fact_id)] = np.frombuffer(row[0], dtype=np.float32)
        return out

    def _swap_fact_vectors(self, conn: Any, bank_id: int, old_dim: int, dim: int) -> dict[str, int]:
        """Delete the bank's vectors of ``old_dim`` (exact and clustered tables), insert the staged
        ones into ``vec_<dim>`` / ``vecctx_<dim>``, and reset the bank's clusters (a training under way
        included): a bank of at least ``min_vectors`` facts is then due, and ``store.search.build_index``
        trains it after the swap's write, in steps."""
        for view in VECTOR_VIEWS:
            for table in (vec_table(old_dim, view), ivf_table(old_dim, view)):
                conn.execute(f"DELETE FROM {table} WHERE bank_id = ?", (bank_id,))
        create_vector_tables(conn, dim)
        counts = {}
        for view, column, key in (("fact", "embedding", "facts"), ("context", "context_embedding", "context_vectors")):
            counts[key] = int(conn.execute(
                f"INSERT INTO {vec_table(dim, view)} (rowid, bank_id, embedding) SELECT fact_id, bank_id, {column} "
                f"FROM reembed_facts WHERE bank_id = ? AND {column} IS NOT NULL", (bank_id,)).rowcount)
        conn.execute("INSERT INTO vector_index (bank_id, added, trained_on, centroids) VALUES (?, ?, 0, NULL) "
                     "ON CONFLICT (bank_id) DO UPDATE SET added = excluded.added, trained_on = 0, centroids = NULL, "
                     "next_generation = 0, next_centroids = NULL, next_upto = 0, next_cursor = 0",
                     (bank_id, counts["facts"]))
        return counts

    def indexed_terms(self, bank_id: int, fact_ids: Sequence[int]) -> dict[int, tuple[list[str], list[str]]]:
        """Each fact's keyword words as indexed: ``(terms, context terms)``, split like the tokenizer."""
        from gieok.store._pg_search import tokens

        out: dict[int, tuple[list[str], list[str]]] = {}
        for ids_in, part in self._dialect.in_parts(fact_ids):
            for fact_id, terms, context in self._conn().execute(
                    f"SELECT rowid, terms, context FROM {fts_table(bank_id)} WHERE rowid {ids_in}", part):
                out[int(fact_id)] = (tokens(terms or ""), tokens(context or ""))
        return out

    def clear_context(self, bank_id: int, dim: int, fact_id: int) -> None:
        """The message a reply answered is gone: drop its context terms and its context vector."""
        conn = self._require_write()
        conn.execute(f"UPDATE {fts_table(bank_id)} SET context = '' WHERE rowid = ?", (fact_id,))
        dim = self._bank_dim(conn, bank_id)  # the bank's now (a reembed may have swapped it)
        for table in (vec_table(dim, "context"), ivf_table(dim, "context")):
            conn.execute(f"DELETE FROM {table} WHERE rowid = ?", (fact_id,))
        # and the context vector a running reembed staged for it
        conn.execute("UPDATE reembed_facts SET context_embedding = NULL WHERE bank_id = ? AND fact_id = ?",
                     (bank_id, fact_id))

    def compact(self, bank_id: int) -> None:
        """Make deleted terms leave the bank's FTS index, not just get masked. FTS5 records a delete
        as a tombstone beside the entry it hides, and merging segments drops the pair only when the
        result is the oldest segment — a bank whose deletes were merged into one segment keeps both,
        and ``optimize`` then has nothing to merge. ``secure-delete`` (SQLite 3.42+, kept in the
        table's config) removes an entry when its row goes, and one ``rebuild`` clears what earlier
        deletes left; without secure-delete, each erasure rebuilds."""
        table = fts_table(bank_id)
        conn = self._require_write()
        secure = conn.execute(f"SELECT v FROM {table}_config WHERE k = 'secure-delete'").fetchone()
        if secure is None or not int(secure[0]):
            try:
                conn.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('secure-delete', 1)")
            except sqlite_module().OperationalError:  # before SQLite 3.42: no secure-delete, every erasure rebuilds
                conn.execute(f"INSERT INTO {table} ({table}) VALUES ('rebuild')")
                return
            conn.execute(f"INSERT INTO {table} ({table}) VALUES ('rebuild')")  # what earlier deletes left
        conn.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")

    def keyword(self, bank_id: int, terms: Sequence[str], limit: int,
                context_weight: float = 0.0, scope: ScopeFilter | None = None) -> list[tuple[int, float]]:
        """Okapi BM25 (FTS5 ``bm25()``), best first; scores returned positive (higher = better), ties
        by fact id. A query whose phrases a large bank holds often reads a bounded share of their
        postings (:mod:`gieok.store._bounded_bm25`, the ``keyword_max_postings`` setting).

        The ``context`` column (terms of the message a fact answers) counts ``context_weight`` times
        as much as the fact's own terms; at 0 it is not searched at all. BM25's statistics stay the
        bank's under a ``scope`` filter (as in the PostgreSQL store)."""
        phrases = list(dict.fromkeys(t for t in terms if t))
        if not phrases:
            return []
        index = _FtsIndex(self._conn(), bank_id, phrases, float(context_weight), _facts_in_scope(scope, bank_id))
        cap = 0 if self._options.exact else self._options.keyword_postings
        with self._snapshot(index.conn):  # every statement of the plan reads one moment of the bank
            return bounded_bm25(index, len(phrases), int(limit), cap)

    def vector(self, bank_id: int, dim: int, vector: np.ndarray, limit: int,
               view: str = "fact", scope: ScopeFilter | None = None) -> list[tuple[int, float]]:
        """Cosine KNN within the bank (and ``scope``); returns (fact id, cosine similarity), best first. A
        bank with clusters is searched in the ``probes`` clusters nearest the query (exact with ``exact``);
        while a training moves its vectors, both layouts are searched and the hits merged."""
        in_scope = _facts_in_scope(scope, bank_id)
        conn = self._conn()
        with self._snapshot(conn):  # the clusters and the vectors of one moment (a training step may commit)
            centroids, building = self._generations(conn, bank_id, dim)
            if centroids is None:
                rows = _bank_knn(conn, vec_table(dim, view), bank_id, vector, limit, in_scope)
            else:
                rows = self._probe(conn, bank_id, dim, view, centroids, vector, limit, in_scope)
            if building is not None:
                best: dict[int, float] = {}
                for fact_id, distance in [*rows, *self._probe(conn, bank_id, dim, view, building, vector, limit,
                                                              in_scope)]:
                    best[int(fact_id)] = min(float(distance), best.get(int(fact_id), float(distance)))
                rows = sorted(best.items(), key=lambda item: (item[1], item[0]))[:limit]
        return [(int(r[0]), 1.0 - float(r[1])) for r in rows]

    def vector_many(self, bank_id: int, dim: int, vectors: np.ndarray, limit: int,
                    scope: ScopeFilter | None = None) -> list[list[tuple[int, float]]]:
        """Each row's nearest facts, as :meth:`vector` returns them. A bank searched exactly (no
        clusters) is read once and scored for every row together when there are at least
        ``_SCAN_FROM`` rows: one sqlite-vec KNN reads the bank's whole partition anyway, so retain's
        hundred new facts of a call cost one read instead of a hundred. Cosine in float32 as
        sqlite-vec computes it (to ~1e-6); ties by id."""
        queries = np.asarray(vectors, dtype=np.float32).reshape(-1, int(dim))
        if len(queries) < _SCAN_FROM:
            return super().vector_many(bank_id, dim, queries, limit, scope)
        conn = self._conn()
        with self._snapshot(conn):
            centroids, building = self._generations(conn, bank_id, dim)
            if centroids is not None or building is not None:
                return super().vector_many(bank_id, dim, queries, limit, scope)
            ids, matrix = _partition_vectors(conn, vec_table(dim), bank_id, int(dim))
            condition, params = sources_in_scope(scope, bank_id, "f.source_id")
            if condition:
                allowed = [r[0] for r in conn.execute(f"SELECT f.id FROM facts f WHERE f.bank_id = ?{condition}",
                                                      (bank_id, *params))]
                keep = np.isin(ids, np.asarray(allowed, dtype=np.int64))
                ids, matrix = ids[keep], matrix[keep]
        return nearest_rows(ids, matrix, queries, int(limit))

    def _probe(self, conn: Any, bank_id: int, dim: int, view: str, centroids: _ivf.Centroids, vector: np.ndarray,
               limit: int, in_scope: tuple[str, list[Any]] = ("", [])) -> list[Any]:
        """KNN in the clusters nearest the query. sqlite-vec reads one partition per KNN (``cluster IN
        (...)`` is answered with nothing), so one KNN per cluster, merged in one statement
        (materialized: SQLite would push the outer ORDER BY into each KNN, which sqlite-vec refuses).
        Fewer than ``limit`` found means the bank holds fewer (the channels rely on it), so then the
        probes double until every cluster was read. ``in_scope`` filters each KNN before its ``k``."""
        probes, blob = (_MAX_PROBES if self._options.exact else self._options.probes), _blob(vector)
        condition, scope_params = in_scope
        while True:
            if probes >= min(len(centroids.vectors), _MAX_PROBES):  # so many clusters: read the whole bank
                return _bank_knn(conn, ivf_table(dim, view), bank_id, vector, limit, in_scope)
            clusters = centroids.nearest(vector, probes)
            knn = " UNION ALL ".join(
                f"SELECT rowid AS id, distance AS d FROM {ivf_table(dim, view)} WHERE embedding MATCH ? "
                f"AND k = ? AND bank_id = ? AND cluster = {int(cluster)}{condition}" for cluster in clusters)
            params: list[Any] = []
            for _ in clusters:
                params += [blob, int(limit), bank_id, *scope_params]
            rows: list[Any] = conn.execute(
                f"WITH hits AS MATERIALIZED ({knn}) SELECT id, d FROM hits ORDER BY d, id LIMIT ?",
                [*params, int(limit)]).fetchall()
            if len(rows) >= limit:
                return rows
            probes *= 2

    def sample(self, bank_id: int, dim: int, limit: int) -> np.ndarray:
        rows: list[Any] = []
        for table in (vec_table(dim), ivf_table(dim)):
            rows += self._conn().execute(f"SELECT embedding FROM {table} WHERE bank_id = ? LIMIT ?",
                                         (bank_id, limit - len(rows))).fetchall()
            if len(rows) >= limit:
                break
        if not rows:
            return np.zeros((0, dim), dtype=np.float32)
        return np.stack([np.frombuffer(r[0], dtype=np.float32) for r in rows])

    def vectors_of(self, dim: int, fact_ids: Sequence[int], view: str = "fact") -> dict[int, np.ndarray]:
        conn = self._conn()
        wanted = list(dict.fromkeys(int(i) for i in fact_ids))
        with self._snapshot(conn):
            out = self._read_vectors(conn, vec_table(dim, view), wanted)
            out.update(self._read_vectors(conn, ivf_table(dim, view), [i for i in wanted if i not in out]))
        return out

    @contextmanager
    def _snapshot(self, conn: Any) -> Iterator[None]:
        """One read transaction around several statements; nothing to do inside a write (it is one)
        or on ``:memory:``, whose readers use the writer's connection (and no writer runs beside them)."""
        if conn.in_transaction or self._store._readers_share_writer:
            yield
            return
        conn.execute("BEGIN")
        try:
            yield
        finally:
            conn.execute("COMMIT")
