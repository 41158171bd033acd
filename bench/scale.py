"""Scale of one bank: recall latency and vector-search quality on banks of 1k, 10k, 100k and 1M facts.

Vectors are **synthetic** (256 dimensions, a mixture of 2,000 random cluster centres plus noise,
unit length): the index is what is measured, not an embedding model. Every other fact is a reply
with a second (context) vector near its own, as a conversation has. Facts are written through the
store's bulk path (``store.facts.add`` in batches of 5,000, so a SQLite bank trains its clusters at
``ann_min_vectors`` and retrains them as it grows, inside those writes), not one ``retain`` per
fact (on PostgreSQL each batch goes by ``COPY``, and the HNSW index is suspended for the load and
built once after it, its time printed: ``store.search.suspend_index`` / ``build_index``, as an import
into an empty database does); texts are short Korean/English lines so the keyword channel has real rows. Built banks are
cached under ``/tmp/gieok-scale`` (one SQLite file per size; one PostgreSQL data folder), so a
rerun only measures.

Printed per store and size: the full engine recall (``Memory.recall``, the bench's hash embedder
turning the query text into a 256-dimension vector) p50/p95 with the approximate index and with
the exact scan; the floor, one exact KNN (k=10); the approximate KNN (k=10) p50; and R@10 of the
approximate KNN against the exact one, over queries that are noisy copies of stored vectors; and
the keyword channel alone (the synthetic texts repeat 20 words, so a query term matches a tenth of
the bank), bounded (``keyword_max_postings``) and with every posting scored, and the share of the
exact top 100's BM25 score mass the bounded top 100 holds (the texts tie by the thousand, so which
facts is arbitrary; how good they are is not). The machine's load (``uptime``) is printed with
each row: the machine is shared.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _hash_embedder import hash_embedder  # noqa: E402

from gieok import Memory  # noqa: E402
from gieok.records import NewFact  # noqa: E402
from gieok.settings import resolve_settings  # noqa: E402
from gieok.store import PostgresStore, SQLiteStore  # noqa: E402
from gieok.store.protocol import VectorOptions  # noqa: E402
from gieok.text.terms import keyword_terms  # noqa: E402

DIM = 256
CENTRES = 2000
BATCH = 5000
CACHE = Path(os.environ.get("GIEOK_SCALE_CACHE", "/tmp/gieok-scale"))
EMBEDDER = "scale-hash"
MAINTENANCE_MEMORY = "3GB"
WORDS_KO = ["민지", "부산", "제주도", "회의", "여행", "프로젝트", "커피", "서울", "마감", "보고서"]
WORDS_EN = ["meeting", "travel", "coffee", "deadline", "report", "hike", "budget", "Busan", "Seoul", "launch"]
QUERIES = ["민지는 부산에서 뭐 했어?", "When is the report deadline?", "제주도 여행 계획", "coffee with Minji"]


def _vectors(rng: np.random.Generator, centres: np.ndarray, n: int) -> np.ndarray:
    v = centres[rng.integers(len(centres), size=n)] + 0.35 * rng.standard_normal((n, DIM)).astype(np.float32)
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def _text(i: int) -> str:
    return (f"{WORDS_KO[i % 10]} {WORDS_KO[(i // 10) % 10]} {WORDS_EN[(i // 100) % 10]} "
            f"{WORDS_EN[(i // 7) % 10]} 기록 {i}")


Batch = tuple[list[NewFact], np.ndarray, list[np.ndarray | None] | None]  # facts, vectors, context vectors


def load(store: Any, bank_name: str, embedder: str, dim: int, batches: Iterable[Batch],
         source: tuple[str, str] = ("synthetic", "conversation")) -> tuple[float, int] | None:
    """Write ``batches`` of facts into a new bank of an empty store, as a bulk load does: the store's
    vector index suspended for the load where it gains by it (PostgreSQL's HNSW) and built once after
    it, else kept in step after each batch, as retain does (SQLite's clusters). Returns the seconds
    of the build after the load and the vectors it indexed (None: the store built its index during
    the load)."""
    with store.write():
        bank = store.banks.create(bank_name, embedder, dim)
        source_id = store.sources.upsert(bank.id, source[0], source[1], None, {})
        chunk = store.sources.add_chunk(bank.id, source_id, 0, "sha", source[0], [])
        suspended = store.search.suspend_index(bank.id, dim)
    for facts, vectors, contexts in batches:
        with store.write():
            store.facts.add(bank.id, source_id, chunk, facts, vectors, contexts)
        if not suspended:
            store.search.build_index(bank.id, dim)  # as retain does after its write: the clusters, when due
    if not suspended:
        return None
    started = time.perf_counter()
    indexed = store.search.build_index(bank.id, dim)
    return time.perf_counter() - started, indexed


def fill(store: Any, size: int, settings: dict[str, Any]) -> float:
    """Write the bank ``scale`` of ``size`` facts into an empty store (:func:`load`); returns the
    seconds spent building the vector index after the load (PostgreSQL, whose HNSW index is
    suspended for the load and built once after it; SQLite trains its clusters inside the load, as
    retain does: 0)."""
    store.vector_options = VectorOptions.from_settings(resolve_settings(settings))
    rng = np.random.default_rng(size)
    centres = np.random.default_rng(0).standard_normal((CENTRES, DIM)).astype(np.float32)

    def batches() -> Iterator[Batch]:
        for start in range(0, size, BATCH):
            n = min(BATCH, size - start)
            facts = [NewFact(_text(i), _text(i), tuple(keyword_terms(_text(i)))) for i in range(start, start + n)]
            vectors = _vectors(rng, centres, n)
            replies = vectors + 0.1 * rng.standard_normal(vectors.shape).astype(np.float32) / np.sqrt(DIM)
            yield facts, vectors, [replies[j] if j % 2 else None for j in range(n)]
            if start and start % 100_000 == 0:
                print(f"    {start:,} facts", flush=True)

    built = load(store, "scale", EMBEDDER, DIM, batches())
    if built is None:
        return 0.0
    took, indexed = built
    print(f"    HNSW index over {indexed:,} vectors built after the load in {took:.0f} s", flush=True)
    return took


def sqlite_bank(size: int, settings: dict[str, Any]) -> Callable[[], Any]:
    CACHE.mkdir(parents=True, exist_ok=True)
    # "-replies": banks with context vectors (older caches had none); trained at ann_min_vectors
    path = CACHE / f"bank-{size}-replies-{settings['ann_min_vectors']}.db"
    if not path.exists():
        partial = path.with_suffix(".building")
        partial.unlink(missing_ok=True)
        started = time.perf_counter()
        store = SQLiteStore(str(partial))
        try:
            fill(store, size, settings)
        finally:
            store.close()
        partial.rename(path)
        print(f"  built {size:,} facts in {time.perf_counter() - started:.0f} s -> {path}", flush=True)
    return lambda: SQLiteStore(str(path))


@contextmanager
def postgres_server(folder: str = "pgdata") -> Iterator[str]:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver
    server = pgserver.get_server(CACHE / folder, cleanup_mode="stop")
    try:
        import psycopg

        with psycopg.connect(server.get_uri(), autocommit=True) as conn:
            # the HNSW build after a bulk load keeps its graph in memory: ~1.3 KB a 256-d vector
            conn.execute(f"ALTER SYSTEM SET maintenance_work_mem = '{MAINTENANCE_MEMORY}'")
            conn.execute("SELECT pg_reload_conf()")
        yield server.get_uri()
    finally:
        server.cleanup()


def postgres_bank(uri: str, size: int, settings: dict[str, Any]) -> Callable[[], Any]:
    import psycopg

    database = f"scale_{size}"
    with psycopg.connect(uri, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (database,)).fetchone()
        if not exists:
            conn.execute(f"CREATE DATABASE building_{database} ENCODING 'UTF8' TEMPLATE template0")
    dsn = psycopg.conninfo.make_conninfo(uri, dbname=database)
    if not exists:
        started = time.perf_counter()
        store = PostgresStore(psycopg.conninfo.make_conninfo(uri, dbname=f"building_{database}"))
        try:
            index_seconds = fill(store, size, settings)
            store._conn().execute("VACUUM ANALYZE")
        finally:
            store.close()
        with psycopg.connect(uri, autocommit=True) as conn:
            conn.execute(f"ALTER DATABASE building_{database} RENAME TO {database}")
        print(f"  built {size:,} facts in {time.perf_counter() - started:.0f} s (COPY in batches of {BATCH:,}, "
              f"then the HNSW index: {index_seconds:.0f} s of it) -> {database}", flush=True)
    return lambda: PostgresStore(dsn)


def _ms(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1000, ordered[int(0.95 * (len(ordered) - 1))] * 1000


def _timed(call: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    out = call(*args)
    return out, time.perf_counter() - started


def measure(open_store: Callable[[], Any], queries: int, settings: dict[str, Any]) -> dict[str, float]:
    rng = np.random.default_rng(99)
    store = open_store()
    try:
        ann = store.vector_options = VectorOptions.from_settings(resolve_settings(settings))
        bank = store.banks.get("scale")
        stored = store.search.sample(bank.id, DIM, 5000)
        probes = stored[rng.integers(len(stored), size=queries)]
        probes = probes + 0.2 * rng.standard_normal(probes.shape).astype(np.float32) / np.sqrt(DIM)
        exact_t: list[float] = []
        ann_t: list[float] = []
        hits = 0
        for q in probes:
            store.vector_options = dataclasses.replace(ann, exact=True)
            exact, took = _timed(store.search.vector, bank.id, DIM, q, 10)
            exact_t.append(took)
            store.vector_options = ann
            got, took = _timed(store.search.vector, bank.id, DIM, q, 10)
            ann_t.append(took)
            hits += len({i for i, _ in got} & {i for i, _ in exact})
        # the keyword channel alone (BM25 over the bank's FTS5 table / SQL): the other big part of a
        # recall; bounded (keyword_max_postings) against every posting scored, and the share of the
        # exact top 100's BM25 mass the bounded top 100 holds (ties make overlap meaningless here)
        keyword_t: dict[bool, list[float]] = {False: [], True: []}
        mass = {False: 0.0, True: 0.0}
        for i in range(queries):
            for exact_scan in (False, True):
                store.vector_options = dataclasses.replace(ann, exact=exact_scan)
                found, took = _timed(store.search.keyword, bank.id, keyword_terms(QUERIES[i % len(QUERIES)]), 100,
                                     0.3)
                keyword_t[exact_scan].append(took)
                mass[exact_scan] += sum(score for _, score in found)
        store.vector_options = ann
    finally:
        store.close()
    out = {"floor_p50": _ms(exact_t)[0], "ann_p50": _ms(ann_t)[0], "r10": hits / (10 * queries),
           "keyword_p50": _ms(keyword_t[False])[0], "keyword_exact_p50": _ms(keyword_t[True])[0],
           "keyword_mass": mass[False] / mass[True] if mass[True] else 1.0}
    for label, exact_scan in (("", False), ("exact_", True)):
        recall_t: list[float] = []
        store = open_store()
        try:
            with Memory(store=store, embedder=hash_embedder(EMBEDDER), **settings) as mem:
                if exact_scan:
                    store.vector_options = dataclasses.replace(store.vector_options, exact=True)
                mem.recall("scale", QUERIES[0])  # warm: caches, first page-ins
                for i in range(queries):
                    _, took = _timed(mem.recall, "scale", QUERIES[i % len(QUERIES)] + f" {i}")
                    recall_t.append(took)
        finally:
            store.close()
        out[f"{label}recall_p50"], out[f"{label}recall_p95"] = _ms(recall_t)
    return out


def _load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip().split("load average:")[-1].strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--sizes", default="1000,10000,100000,1000000")
    parser.add_argument("--pg-sizes", default="1000,10000,100000,1000000", help="sizes measured on PostgreSQL")
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--probes", type=int, default=None, help="ivf_probes (default: the setting's)")
    parser.add_argument("--ef-search", type=int, default=None, help="hnsw_ef_search (default: the setting's)")
    parser.add_argument("--min-vectors", type=int, default=None,
                        help="ann_min_vectors when a bank is built and searched (default: the setting's)")
    args = parser.parse_args()
    settings: dict[str, Any] = {}
    if args.probes is not None:
        settings["ivf_probes"] = args.probes
    if args.ef_search is not None:
        settings["hnsw_ef_search"] = args.ef_search
    if args.min_vectors is not None:
        settings["ann_min_vectors"] = args.min_vectors
    resolved = resolve_settings(settings)
    settings = {"ann_min_vectors": resolved.ann_min_vectors, "ivf_probes": resolved.ivf_probes,
                "hnsw_ef_search": resolved.hnsw_ef_search}
    print(f"scale: synthetic clustered {DIM}-d vectors (every other fact a reply with a context vector), "
          f"{os.cpu_count()} cores, {args.queries} queries; settings {settings}")
    print("| store | facts | recall p50 | recall p95 | recall p50, exact scan | floor: exact KNN p50 | "
          "approximate KNN p50 | R@10 approximate vs exact | keyword channel p50 (every posting) | "
          "keyword BM25 mass vs exact | load (1/5/15 min) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")

    def row(name: str, size: int, r: dict[str, float]) -> None:
        print(f"| {name} | {size:,} | {r['recall_p50']:.1f} ms | {r['recall_p95']:.1f} ms | "
              f"{r['exact_recall_p50']:.1f} ms | {r['floor_p50']:.1f} ms | {r['ann_p50']:.1f} ms | "
              f"{r['r10']:.3f} | {r['keyword_p50']:.1f} ms ({r['keyword_exact_p50']:.1f} ms) | "
              f"{r['keyword_mass']:.3f} | {_load()} |", flush=True)

    if args.store in ("sqlite", "both"):
        for size in (int(s) for s in args.sizes.split(",")):
            row("SQLite", size, measure(sqlite_bank(size, settings), args.queries, settings))
    if args.store in ("postgres", "both"):
        with postgres_server() as uri:
            for size in (int(s) for s in args.pg_sizes.split(",")):
                row("PostgreSQL", size, measure(postgres_bank(uri, size, settings), args.queries, settings))


if __name__ == "__main__":
    main()
