"""Long messages: retain time and write-lock time against size, while another process retains small ones.

    python bench/big_retain.py [--sizes 0.1,0.2,0.4,0.8] [--embedder hash|e5-small]

For each size (MB of UTF-8), one message of synthetic chat sentences (bench/_synthetic.py, half
Korean, half English) is retained into a fresh bank of one SQLite file. The time the retain holds
the store's write lock is measured by wrapping the store's ``write()``; meanwhile a second process
retains a one-line message into another bank of the same file every 0.5 s and records how long each
took and whether any failed. Reported per size: retain seconds, seconds per MB (flat = linear),
lock held, and the other process's slowest small retain and failures.

The default embedder is the hashing one of bench/_hash_embedder.py, so what is measured is gieok's
own pipeline (splitting, extraction, mention extraction and resolution, supersede, writing);
``--embedder e5-small`` adds the bundled model's embedding time.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("GIEOK_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))


def _embedder(name: str) -> str:
    if name == "hash":
        from _hash_embedder import hash_embedder

        return hash_embedder("hash-big-retain")
    return name


def _text(megabytes: float, seed: int) -> str:
    from _synthetic import SyntheticText

    gen = SyntheticText(seed=seed)
    parts: list[str] = []
    size = 0
    while size < megabytes * 1e6:
        sentence = gen.sentence()
        parts.append(sentence)
        size += len(sentence.encode()) + 1
    return " ".join(parts)


def _small_retains(path: str, embedder: str, ready: Any, stop: Any, results: Any) -> None:
    """The other process: a one-line retain every 0.5 s until told to stop (after one not counted,
    which loads the models)."""
    from gieok import Memory

    with Memory(path, embedder=_embedder(embedder)) as mem:
        mem.retain("small", [{"role": "user", "content": "warm-up 준비", "id": "warm"}])
        ready.set()
        i = 0
        while not stop.is_set():
            started = time.perf_counter()
            try:
                line = f"note {i}: 오늘 회의는 {i % 12 + 1}시야"
                mem.retain("small", [{"role": "user", "content": line, "id": f"s{i}"}])
                results.put(("ok", time.perf_counter() - started))
            except Exception as exc:  # noqa: BLE001 - the bench reports every failure's type
                results.put(("failed", f"{type(exc).__name__}: {exc}"))
            i += 1
            time.sleep(0.5)


class _LockClock:
    """Wraps a store's ``write()`` to add up how long it is held."""

    def __init__(self, store: Any) -> None:
        self.held = 0.0
        original = store.write

        @contextlib.contextmanager
        def timed() -> Iterator[None]:
            started = time.perf_counter()
            with original():
                yield
            self.held += time.perf_counter() - started

        store.write = timed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="0.1,0.2,0.4,0.8", help="message sizes in MB, comma-separated")
    parser.add_argument("--embedder", default="hash", help="hash (default) or a registered embedder, e.g. e5-small")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    from rich.console import Console
    from rich.table import Table

    from gieok import Memory

    console = Console()
    sizes = [float(s) for s in args.sizes.split(",")]
    embedder = _embedder(args.embedder)
    table = Table(title=f"one long message per size, embedder {args.embedder}; a second process retains "
                        "a small message every 0.5 s into the same file")
    for column in ("MB", "facts", "retain s", "s per MB", "write lock held s", "small retains",
                   "slowest small s", "small failed"):
        table.add_column(column, justify="right")
    with tempfile.TemporaryDirectory() as tmp:
        for n, megabytes in enumerate(sizes):
            path = str(Path(tmp) / f"big{n}.db")
            text = _text(megabytes, args.seed + n)
            with Memory(path, embedder=embedder) as mem:
                mem.retain("big", [{"role": "user", "content": "warm-up: 안녕, I live in Seoul.", "id": "w"}])
                mem.retain("small", [{"role": "user", "content": "warm-up", "id": "w"}])
                clock = _LockClock(mem.engine.store)
                ctx = multiprocessing.get_context("spawn")
                ready, stop, results = ctx.Event(), ctx.Event(), ctx.Queue()
                other = ctx.Process(target=_small_retains, args=(path, args.embedder, ready, stop, results))
                other.start()
                ready.wait(timeout=300)
                started = time.perf_counter()
                with console.status(f"retaining {megabytes} MB …"):
                    result = mem.retain("big", [{"role": "user", "content": text, "id": "big"}])
                took = time.perf_counter() - started
                stop.set()
                other.join(timeout=120)
                outcomes = []
                while not results.empty():
                    outcomes.append(results.get())
            waits = [v for status, v in outcomes if status == "ok"]
            failures = [v for status, v in outcomes if status == "failed"]
            actual = len(text.encode()) / 1e6
            table.add_row(f"{actual:.2f}", str(result.facts_added), f"{took:.1f}", f"{took / actual:.0f}",
                          f"{clock.held:.1f}", str(len(outcomes)), f"{max(waits):.2f}" if waits else "-",
                          str(len(failures)))
            for failure in failures[:3]:
                console.print(f"[red]small retain failed:[/red] {failure}")
    console.print(table)
    console.print(f"cores: {os.cpu_count()}, GIEOK_THREADS={os.environ.get('GIEOK_THREADS')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
