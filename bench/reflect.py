"""Reflect offline: does it answer what memory holds, ground the answer in the evidence, and refuse
what memory does not hold?

On LoCoMo-format data (default: the public LoCoMo slice in ../shared/bench), each conversation is
retained into its own bank and every question is asked with ``Memory.reflect`` (no LLM: the
answer quotes the sentence of a memory the bank's decision model says answers, or refuses). Reported
per category:

* **answered** — share of questions given an answer rather than "not in memory";
* **grounded** — share of questions answered with at least one quoted memory from an evidence turn;
* **wrong** — share answered with no quote from an evidence turn (right = grounded; refused =
  1 − answered);
* **grounded / answered** — of the answered questions, the share so grounded (how often an answer
  rests on the turns the question is about);
* **gold in answer** — share whose answer text contains the reference answer (normalised; only for
  short reference answers, ≤ 4 words, where a string match means something);
* for adversarial questions (category 5: a false premise, e.g. the other speaker's event; LoCoMo's
  inline ones, and ``--adversarial FILE`` for a set written apart, like the Korean one),
  **refused** — share answered "not in memory" (higher is better), and **fooled** = 1 − refused.

``--consolidate`` runs the bank's background jobs after retain, so reflect also sees the
observations consolidation wrote (compare with and without it). Only what was measured is printed.
Use ``--db`` to keep the retained banks between runs,
``--samples conv-26,conv-30`` to run only some conversations (the split tuned on vs the one held
out), ``--dump FILE`` to write every question's answer as JSON lines for inspection.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
import unicodedata
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _embed_cache import DiskCachedEmbedder  # noqa: E402
from _locomo_data import CATEGORIES, load  # noqa: E402

from gieok import Memory  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "bench" / "locomo-public.json"
ADVERSARIAL = 5


def _words(text: str) -> list[str]:
    return re.sub(r"[^\w\s]", " ", unicodedata.normalize("NFKC", str(text)).lower()).split()


def _gold_hit(answer: str, gold: str) -> bool | None:
    gold_words = _words(gold)
    if not gold_words or len(gold_words) > 4:
        return None
    return " ".join(gold_words) in " ".join(_words(answer))


def _adversarial(*paths: str) -> dict[str, list[dict]]:
    """Each sample's false-premise questions: LoCoMo's inline category 5, and those of extra files in the
    same shape (``[{"sample_id", "qa": [...]}]``, e.g. bench/data/korean_adversarial.json)."""
    out: dict[str, list[dict]] = defaultdict(list)
    for path in paths:
        for s in json.loads(Path(path).read_text(encoding="utf-8")):
            out[s["sample_id"]].extend(q for q in s["qa"] if int(q.get("category", 0)) == ADVERSARIAL)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--embedder", default="e5-small")
    parser.add_argument("--db", default=None, help="keep the gieok database here (default: a temp file)")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    parser.add_argument("--samples", default=None, help="comma-separated sample ids to run (default: all)")
    parser.add_argument("--adversarial", default=None,
                        help="a file of extra false-premise questions for the same samples (category 5)")
    parser.add_argument("--dump", default=None, help="write each question's result here as JSON lines")
    parser.add_argument("--consolidate", action="store_true",
                        help="run the background jobs (consolidation into observations) before asking")
    args = parser.parse_args()

    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    console = Console(stderr=args.json)
    conversations = load(args.data)
    if args.samples:
        wanted = set(args.samples.split(","))
        conversations = [c for c in conversations if c.id in wanted]
    dump = open(args.dump, "w", encoding="utf-8") if args.dump else None  # noqa: SIM115
    adversarial = _adversarial(args.data, *([args.adversarial] if args.adversarial else []))
    tmp = tempfile.TemporaryDirectory()
    db = args.db or str(Path(tmp.name) / "reflect.db")
    stats: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    started = time.perf_counter()
    consolidation = 0.0  # seconds in the bank's background jobs (--consolidate)
    embedder = DiskCachedEmbedder(args.embedder)
    with Memory(db, embedder=embedder, refresh_on_recall=False) as mem, Progress(console=console) as progress:
        for conv in conversations:
            task = progress.add_task(f"retain {conv.id}", total=None)
            mem.retain(conv.id, messages=[{"id": t.id, "speaker": t.speaker, "text": t.text, "timestamp": t.timestamp}
                                          for t in conv.turns], document_id=conv.id,
                       on_total=lambda n, task=task: progress.update(task, total=n),
                       progress=lambda n, task=task: progress.advance(task, n))
            if args.consolidate:
                began = time.perf_counter()
                mem.run_jobs(conv.id)
                consolidation += time.perf_counter() - began
            gold = {q["question"]: q.get("answer") for s in json.loads(Path(args.data).read_text(encoding="utf-8"))
                    if s["sample_id"] == conv.id for q in s["qa"]}
            extra = adversarial.get(conv.id, [])
            qtask = progress.add_task(f"reflect {conv.id}", total=len(conv.questions) + len(extra))
            for q in conv.questions:
                result = mem.reflect(conv.id, q.question, now=conv.now)
                quoted = {s for b in result.based_on for s in _sources(mem, conv.id, b["id"])}
                grounded = result.supported and bool(quoted & set(q.evidence))
                for bucket in ("all", CATEGORIES[q.category]):
                    stats[bucket]["answered"].append(float(result.supported))
                    stats[bucket]["grounded"].append(float(grounded))
                    stats[bucket]["wrong"].append(float(result.supported and not grounded))
                    if result.supported:
                        stats[bucket]["grounded / answered"].append(float(grounded))
                    hit = _gold_hit(result.answer if result.supported else "", gold.get(q.question, ""))
                    if hit is not None:  # only questions with a short reference answer count
                        stats[bucket]["gold in answer"].append(float(hit))
                if dump:
                    dump.write(json.dumps({"sample": conv.id, "category": CATEGORIES[q.category],
                                           "question": q.question, "gold": gold.get(q.question),
                                           "evidence": sorted(q.evidence), "answered": result.supported,
                                           "grounded": grounded, "answer": result.answer,
                                           "quoted_sources": sorted(quoted)}, ensure_ascii=False) + "\n")
                progress.advance(qtask)
            for q in extra:
                result = mem.reflect(conv.id, q["question"], now=conv.now)
                stats["adversarial"]["refused"].append(float(not result.supported))
                if dump:
                    dump.write(json.dumps({"sample": conv.id, "category": "adversarial", "question": q["question"],
                                           "gold": q.get("adversarial_answer"), "answered": result.supported,
                                           "answer": result.answer}, ensure_ascii=False) + "\n")
                progress.advance(qtask)
    elapsed = time.perf_counter() - started
    if args.consolidate:  # the machine may be shared: the load says how much the wall time means
        averages = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        console.print(f"consolidation jobs: {consolidation:.1f} s wall "
                      f"(load average {averages}, {os.cpu_count()} cores)")
    if dump:
        dump.close()

    def mean(values: list[float]) -> str:
        return f"{sum(values) / len(values):.3f}" if values else "-"

    rows = {bucket: {k: (mean(v), len(v)) for k, v in metrics.items()} for bucket, metrics in stats.items()}
    if args.json:
        print(json.dumps({"data": args.data, "embedder": args.embedder, "seconds": round(elapsed, 1), "rows": rows},
                         ensure_ascii=False, indent=2))
        return
    after = " after consolidation" if args.consolidate else ""
    table = Table(title=f"Reflect offline ({args.embedder}) on {Path(args.data).name}{after}")
    for column in ("questions", "n", "answered", "grounded", "wrong", "grounded / answered", "gold in answer (n)",
                   "refused"):
        table.add_column(column, justify="left" if column == "questions" else "right")
    for bucket in ("all", *CATEGORIES.values(), "adversarial"):
        if bucket not in rows:
            continue
        r = rows[bucket]
        n = r.get("answered", r.get("refused", ("-", 0)))[1]
        gold_cell = f"{r['gold in answer'][0]} ({r['gold in answer'][1]})" if "gold in answer" in r else "-"
        table.add_row(bucket, str(n), r.get("answered", ("-", 0))[0], r.get("grounded", ("-", 0))[0],
                      r.get("wrong", ("-", 0))[0], r.get("grounded / answered", ("-", 0))[0], gold_cell,
                      r.get("refused", ("-", 0))[0])
    console.print(table)
    console.print(f"{elapsed:.0f} s in all (retain included unless --db held the banks already)")


_SOURCE_CACHE: dict[tuple[str, str], list[str]] = {}


def _sources(mem: Memory, bank: str, memory_id: str) -> list[str]:
    key = (bank, memory_id)
    if key not in _SOURCE_CACHE:
        try:
            _SOURCE_CACHE[key] = mem.get(bank, memory_id).source_ids
        except Exception:  # a memory erased meanwhile has no sources to credit
            _SOURCE_CACHE[key] = []
    return _SOURCE_CACHE[key]


if __name__ == "__main__":
    main()
