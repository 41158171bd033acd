"""Recall under a competing CPU load: p50/p95 idle, then with every core kept busy by other processes.

    python bench/load.py [--messages 300] [--queries 60] [--busy N] [--threads T]

A bank of ``--messages`` synthetic chat messages (bench/_synthetic.py, half Korean, half English) is
retained with the real default embedder (e5-small); then ``--queries`` distinct synthetic questions
are recalled (after warm-up queries) twice, first on an idle machine, then while ``--busy``
processes (default: one per core this process may use) spin in a tight loop — the situation of a
small shared server. Reported: p50 / p95 of each and the ratio loaded ÷ idle (target ≤ 2 at p50).
"other CPUs" says how busy the rest of the machine was during the *idle* phase (a clean run has ~0).

The thread pools are gieok's defaults (gieok/_threads.py: OMP_NUM_THREADS = usable cores, at most 4,
idle OpenMP threads sleeping); ``--threads`` sets GIEOK_THREADS for the run, and
``--default-omp`` leaves OpenMP's own defaults (spinning threads) to show what they cost.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path


def _spin() -> None:
    while True:
        pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=300)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--busy", type=int, default=None, help="spinning processes (default: usable cores)")
    parser.add_argument("--threads", type=int, default=None, help="GIEOK_THREADS for this run")
    parser.add_argument("--default-omp", action="store_true", help="OpenMP's own defaults (no PASSIVE wait policy)")
    args = parser.parse_args()
    if args.threads is not None:
        os.environ["GIEOK_THREADS"] = str(args.threads)
    if args.default_omp:
        os.environ["OMP_WAIT_POLICY"] = "ACTIVE"
        os.environ.setdefault("OMP_NUM_THREADS", str(os.cpu_count() or 1))

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from _synthetic import SyntheticText
    from perf import OtherCPU, clear_term_caches, pct

    from gieok import Memory
    from gieok._threads import available_cores, effective_threads

    synth = SyntheticText(seed=7)
    chat = [m.as_dict() for m in synth.conversation(args.messages, prefix="l",
                                                     start=datetime(2026, 1, 5, tzinfo=timezone.utc))]
    questions = synth.distinct_questions(3 * args.queries + 5)  # each phase its own: no cache hits
    busy = args.busy if args.busy is not None else available_cores()
    print(f"e5 threads {effective_threads()} (OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}, "
          f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY')}), usable cores {available_cores()}, "
          f"busy processes {busy}")
    with tempfile.TemporaryDirectory() as tmp, Memory(str(Path(tmp) / "load.db")) as mem:
        started = time.perf_counter()
        for i in range(0, len(chat), 50):
            mem.retain("load", messages=chat[i:i + 50], document_id="chat")
        print(f"retained {len(chat)} messages in {time.perf_counter() - started:.1f} s")
        for q in questions[:5]:
            mem.recall("load", q, limit=10)

        def timed(phase: int) -> list[float]:
            clear_term_caches()
            out = []
            for q in questions[5 + phase * args.queries:5 + (phase + 1) * args.queries]:
                t = time.perf_counter()
                mem.recall("load", q, limit=10)
                out.append((time.perf_counter() - t) * 1000)
            return out

        other = OtherCPU()
        idle = timed(0)
        other.stop()
        spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(busy)]
        for p in spinners:
            p.start()
        try:
            time.sleep(0.5)
            loaded = timed(1)
        finally:
            for p in spinners:
                p.terminate()
        time.sleep(0.5)
        idle += timed(2)  # idle again after: drift (caches, frequency) shows as a gap between the two
    print()
    print("| phase | p50 ms | p95 ms |")
    print("|---|---:|---:|")
    print(f"| idle, before and after (other CPUs {other.value:.2f}) | {pct(idle, 50):.1f} | {pct(idle, 95):.1f} |")
    print(f"| {busy} busy processes | {pct(loaded, 50):.1f} | {pct(loaded, 95):.1f} |")
    ratio = pct(loaded, 50) / pct(idle, 50)
    print(f"| ratio loaded ÷ idle | {ratio:.2f} | {pct(loaded, 95) / pct(idle, 95):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
