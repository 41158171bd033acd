"""Held-out evidence recall: leave one conversation out, tune recall's weights on the others.

    python bench/folds.py [--data ../shared/bench/locomo-public.json] [--db PATH]

Each conversation is retained once into its own bank. For every setting in a small grid of recall-time
weights (RRF k, graph weight, Korean keyword weight) every question is ranked; then for
each conversation the setting with the best mean R@10 on the *other* conversations is chosen and that
conversation's questions are scored with it. The held-out mean (each question scored by a setting
chosen without it) is printed next to the in-sample mean of the defaults and of the best setting on all
questions, so the gap between tuning and reporting on the same data is visible.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _embed_cache import DiskCachedEmbedder  # noqa: E402
from _locomo_data import load, recall_at  # noqa: E402
from locomo import DEFAULT_DATA, bucket_of  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.progress import Progress  # noqa: E402

from gieok import Memory  # noqa: E402

GRID = {"rrf_k": [20, 60], "graph_weight": [0.1, 0.3, 0.5], "korean_keyword_weight": [0.5, 1.0],
        "other_speaker_weight": [1.0, 0.9, 0.8]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--embedder", default="e5-small")
    parser.add_argument("--db", default=None, help="keep the gieok database here (default: a temp file)")
    args = parser.parse_args()
    console = Console()
    conversations = load(args.data)
    embedder = DiskCachedEmbedder(args.embedder)
    grid = [dict(zip(GRID, values)) for values in itertools.product(*GRID.values())]
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or str(Path(tmp) / "folds.db")
        with Memory(db, embedder=embedder) as mem, Progress(console=console) as progress:
            task = progress.add_task("retain", total=len(conversations))
            for conv in conversations:
                mem.retain(conv.id, messages=[{"id": t.id, "speaker": t.speaker, "text": t.text,
                                               "timestamp": t.timestamp} for t in conv.turns], document_id=conv.id)
                progress.advance(task)
        # scores[setting index][conversation id] = per-question R@10
        scores: list[dict[str, list[float]]] = []
        n_questions = sum(len(c.questions) for c in conversations)
        with Progress(console=console) as progress:
            task = progress.add_task("grid", total=len(grid) * n_questions)
            for setting in [{}, *grid]:
                by_conv: dict[str, list[float]] = defaultdict(list)
                with Memory(db, embedder=embedder, refresh_on_recall=False, **setting) as mem:
                    for conv in conversations:
                        for q in conv.questions:
                            found = mem.recall(conv.id, q.question, limit=10, now=conv.now).memories
                            ranked = [m.source_ids for m in found]
                            by_conv[conv.id].append(recall_at(ranked, q.evidence, 10))
                            if setting:
                                progress.advance(task)
                scores.append(by_conv)
    defaults, tuned = scores[0], scores[1:]

    def mean_over(by_conv: dict[str, list[float]], ids: list[str]) -> float:
        values = [v for i in ids for v in by_conv[i]]
        return sum(values) / len(values) if values else 0.0

    ids = [c.id for c in conversations]
    held: dict[str, list[float]] = defaultdict(list)
    console.print(f"{len(conversations)} conversations, {n_questions} questions, grid of {len(grid)} settings "
                  f"over {', '.join(GRID)}")
    for conv in conversations:
        others = [i for i in ids if i != conv.id]
        best = max(range(len(grid)), key=lambda s: mean_over(tuned[s], others))
        console.print(f"held out {conv.id}: chose {grid[best]} (R@10 {mean_over(tuned[best], others):.3f} on the "
                      f"others) -> {mean_over(tuned[best], [conv.id]):.3f} on it "
                      f"(defaults {mean_over(defaults, [conv.id]):.3f})")
        for q, value in zip(conv.questions, tuned[best][conv.id]):
            held["all"].append(value)
            held[bucket_of(q)].append(value)
    best_all = max(range(len(grid)), key=lambda s: mean_over(tuned[s], ids))
    rows: dict[str, Any] = {
        "defaults, in-sample": {"all": mean_over(defaults, ids)},
        f"best of grid on all, in-sample {grid[best_all]}": {"all": mean_over(tuned[best_all], ids)},
        "leave-one-conversation-out, held-out": {k: sum(v) / len(v) for k, v in held.items()},
    }
    for name, values in rows.items():
        console.print(f"{name}: R@10 {values['all']:.3f}" + "".join(
            f"  {k} {v:.3f}" for k, v in values.items() if k != "all"))


if __name__ == "__main__":
    main()
