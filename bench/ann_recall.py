"""Approximate vector search against exact on **real e5-small vectors**, on both stores.

    python bench/ann_recall.py [--facts 55000] [--queries 500] [--store sqlite|postgres|both]

``bench/scale.py`` measures the indexes on synthetic clustered vectors, where both find everything
(R@10 1.000); real sentence embeddings are far less clustered. This bench takes the real e5-small
vectors the benchmark cache holds (``~/.cache/gieok-bench/e5-small.sqlite``: every text the LoCoMo,
Korean, BEAM and ranker benches embedded, documents and queries), writes ``--facts`` of them into one
bank (``store.facts.add`` in batches of 5,000; SQLite trains its clusters at ``ann_min_vectors`` as
retain does, PostgreSQL builds its HNSW index after the load), and searches with ``--queries`` held-out
vectors of the same cache: R@10 and R@100 of the approximate result against the exact one (the same
store with ``exact=True``), and the p50 of each. Default settings (``ivf_probes`` 32, ``hnsw_ef_search``
100, ``ann_min_vectors`` 20,000); the machine's load is printed with each row.
"""

from __future__ import annotations

import argparse
import dataclasses
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _embed_cache import CACHE_DIR  # noqa: E402
from scale import _load, load, postgres_server  # noqa: E402

from gieok.records import NewFact  # noqa: E402
from gieok.settings import resolve_settings  # noqa: E402
from gieok.store import PostgresStore, SQLiteStore  # noqa: E402
from gieok.store.protocol import VectorOptions  # noqa: E402

DIM = 384
BATCH = 5000


def real_vectors(count: int) -> np.ndarray:
    """``count`` distinct real e5-small vectors from the bench cache, in a fixed order (by key)."""
    path = CACHE_DIR / "e5-small.sqlite"
    if not path.exists():
        raise SystemExit(f"no embedding cache at {path}: run a benchmark that embeds (make bench-locomo) first")
    with sqlite3.connect(path) as db:
        blobs = [b for (b,) in db.execute("SELECT vec FROM v ORDER BY k LIMIT ?", (count,))]
    vectors = np.stack([np.frombuffer(b, dtype=np.float32) for b in blobs if len(b) == 4 * DIM])
    if len(vectors) < count:
        raise SystemExit(f"the cache holds {len(vectors):,} vectors of {DIM} dimensions; ask for fewer")
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def fill(store: Any, vectors: np.ndarray) -> float | None:
    """The bank ``real`` of one fact per vector (:func:`scale.load`); returns the seconds the index build
    after the load took (None: the store trains its index during the load, as SQLite does)."""
    store.vector_options = VectorOptions.from_settings(resolve_settings({}))
    batches = (([NewFact(f"v{i}", f"v{i}", (f"v{i}",)) for i in range(start, start + len(part))], part, None)
               for start in range(0, len(vectors), BATCH) for part in (vectors[start:start + BATCH],))
    built = load(store, "real", "e5-small", DIM, batches, source=("cache", "document"))
    return None if built is None else built[0]


def measure(store: Any, queries: np.ndarray) -> dict[str, float]:
    bank = store.banks.get("real")
    approximate = store.vector_options
    exact = dataclasses.replace(approximate, exact=True)
    hits = {10: 0, 100: 0}
    took: dict[bool, list[float]] = {False: [], True: []}
    for q in queries:
        found = {}
        for is_exact, options in ((True, exact), (False, approximate)):
            store.vector_options = options
            started = time.perf_counter()
            found[is_exact] = [i for i, _ in store.search.vector(bank.id, DIM, q, 100)]
            took[is_exact].append(time.perf_counter() - started)
        for k in hits:
            hits[k] += len(set(found[True][:k]) & set(found[False][:k]))
    store.vector_options = approximate
    return {"r10": hits[10] / (10 * len(queries)), "r100": hits[100] / (100 * len(queries)),
            "ann_p50": statistics.median(took[False]) * 1000, "exact_p50": statistics.median(took[True]) * 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=55_000)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--store", choices=["sqlite", "postgres", "both"], default="both")
    args = parser.parse_args()
    vectors = real_vectors(args.facts + args.queries)
    rng = np.random.default_rng(0)
    order = rng.permutation(len(vectors))
    bank, queries = vectors[order[: args.facts]], vectors[order[args.facts:]]
    print(f"ann_recall: {args.facts:,} real e5-small vectors in one bank, {args.queries} held-out vectors as queries")
    print("| store | facts | index build after the load | R@10 approximate vs exact | R@100 | approximate KNN p50 | "
          "exact KNN p50 | load (1/5/15 min) |")
    print("|---|---|---|---|---|---|---|---|")

    def row(name: str, store: Any) -> None:
        try:
            built = fill(store, bank)
            r = measure(store, queries)
        finally:
            store.close()
        after = f"{built:.1f} s" if built is not None else "none (clusters trained during the load, as by retain)"
        print(f"| {name} | {args.facts:,} | {after} | {r['r10']:.3f} | {r['r100']:.3f} | {r['ann_p50']:.1f} ms | "
              f"{r['exact_p50']:.1f} ms | {_load()} |", flush=True)

    if args.store in ("sqlite", "both"):
        with tempfile.TemporaryDirectory() as tmp:
            row("SQLite (IVF, 32 probes)", SQLiteStore(str(Path(tmp) / "real.db")))
    if args.store in ("postgres", "both"):
        with postgres_server("pgdata-ann") as uri:  # a server of its own: scale.py's may be running
            import psycopg

            with psycopg.connect(uri, autocommit=True) as conn:
                conn.execute("DROP DATABASE IF EXISTS ann_recall")
                conn.execute("CREATE DATABASE ann_recall ENCODING 'UTF8' TEMPLATE template0")
            dsn = psycopg.conninfo.make_conninfo(uri, dbname="ann_recall")
            row("PostgreSQL (HNSW, ef_search 100)", PostgresStore(dsn))


if __name__ == "__main__":
    main()
