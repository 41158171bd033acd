"""Evidence recall on LoCoMo-format data: gieok against BM25, dense and hybrid RRF baselines.

    python bench/locomo.py [--data ../shared/bench/locomo-public.json] [--embedder e5-small]

One bank per conversation (turn ``dia_id`` = message id, session date = timestamp); the question's
"now" is the last session's date. Baselines index the same turns ("speaker: text") in the same run,
with gieok's own keyword terms and embedder, so only the retrieval method differs.
Metric: evidence recall@5/10/20 (fraction of a question's evidence turns covered by the sources of
the top-k memories), nDCG@10; categories 1-4, micro-averaged.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _embed_cache import DiskCachedEmbedder  # noqa: E402
from _locomo_data import CATEGORIES, Conversation, Question, load, ndcg_at, recall_at  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.progress import Progress  # noqa: E402
from rich.table import Table  # noqa: E402

from gieok import Memory  # noqa: E402
from gieok.engine.recall.fusion import rrf_fuse  # noqa: E402
from gieok.providers import create  # noqa: E402
from gieok.providers.embedders import Embedder  # noqa: E402
from gieok.text.terms import keyword_terms  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "locomo-public.json"
KS = (5, 10, 20)
Ranker = Callable[[str], list[list[str]]]


class BM25:
    """Okapi BM25 (k1=1.2, b=0.75) over gieok's keyword terms: the keyword baseline."""

    def __init__(self, docs: Sequence[Sequence[str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.tf = [Counter(d) for d in docs]
        self.len = np.array([len(d) for d in docs], dtype=float)
        self.avg = float(self.len.mean()) if len(docs) else 0.0
        df: Counter[str] = Counter()
        for d in self.tf:
            df.update(d.keys())
        n = len(docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def scores(self, query: Sequence[str]) -> np.ndarray:
        out = np.zeros(len(self.tf))
        for term in set(query):
            idf = self.idf.get(term)
            if idf is None:
                continue
            for i, tf in enumerate(self.tf):
                f = tf.get(term)
                if f:
                    out[i] += idf * f * (self.k1 + 1) / (f + self.k1 * (1 - self.b + self.b * self.len[i] / self.avg))
        return out


def baselines(conv: Conversation, embedder_name: str | Embedder) -> dict[str, Ranker]:
    ids = [t.id for t in conv.turns]
    texts = [f"{t.speaker}: {t.text}" for t in conv.turns]
    bm25 = BM25([keyword_terms(t) for t in texts])
    embedder = create("embedder", embedder_name) if isinstance(embedder_name, str) else embedder_name
    matrix = embedder.embed(texts, "document")

    def bm25_rank(q: str) -> list[tuple[int, float]]:
        s = bm25.scores(keyword_terms(q))
        order = [i for i in np.argsort(-s)[:100] if s[i] > 0]
        return [(int(i), float(s[i])) for i in order]

    def dense_rank(q: str) -> list[tuple[int, float]]:
        s = matrix @ embedder.embed_query(q)
        return [(int(i), float(s[i])) for i in np.argsort(-s)[:100]]

    def as_sources(ranked: list[tuple[int, float]]) -> list[list[str]]:
        return [[ids[i]] for i, _ in ranked]

    return {
        "BM25": lambda q: as_sources(bm25_rank(q)),
        "dense": lambda q: as_sources(dense_rank(q)),
        "hybrid RRF": lambda q: [[ids[i]] for i, _, _ in rrf_fuse({"k": bm25_rank(q), "d": dense_rank(q)}, k=60)],
        # the same fusion at gieok's own k, so neither side gets a k the other lacks
        "hybrid RRF k=20": lambda q: [[ids[i]] for i, _, _ in rrf_fuse({"k": bm25_rank(q), "d": dense_rank(q)}, k=20)],
    }


ABLATIONS = {
    "gieok − semantic": "keyword,graph,temporal",
    "gieok − keyword": "semantic,graph,temporal",
    "gieok − graph": "semantic,keyword,temporal",
    "gieok − temporal": "semantic,keyword,graph",
}


def gieok_ranker(mem: Memory, bank: str, now: str) -> Ranker:
    def rank(q: str) -> list[list[str]]:
        return [m.source_ids for m in mem.recall(bank, q, limit=max(KS), now=now).memories]

    return rank


def bucket_of(q: Question) -> str:
    return CATEGORIES[q.category] if isinstance(q.category, int) else q.category


def evaluate(conversations: list[Conversation], buckets: Sequence[str], *, embedder: str | Embedder,
             db: str, title: str, with_baselines: bool = True, with_ablations: bool = True,
             console: Console | None = None) -> dict[str, dict[str, list[float]]]:
    """Retain each conversation into its own bank, rank every question with gieok, its ablations and the
    baselines, print the table (and a markdown copy) and return the per-question scores by system."""
    console = console or Console()
    name = embedder if isinstance(embedder, str) else embedder.model_id
    results: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    timings: dict[str, float] = defaultdict(float)
    with Memory(db, embedder=embedder) as mem, Progress(console=console) as progress:
        ablated = {} if not with_ablations else {
            label: Memory(db, embedder=embedder, channels=channels) for label, channels in ABLATIONS.items()
        }
        for conv in conversations:
            task = progress.add_task(f"retain {conv.id}", total=None)
            start = time.perf_counter()
            mem.retain(conv.id, messages=[{"id": t.id, "speaker": t.speaker, "text": t.text, "timestamp": t.timestamp}
                                          for t in conv.turns],
                       document_id=conv.id, on_total=lambda n, task=task: progress.update(task, total=n),
                       progress=lambda n, task=task: progress.advance(task, n))
            timings["gieok retain"] += time.perf_counter() - start
            rankers: dict[str, Ranker] = {"gieok": gieok_ranker(mem, conv.id, conv.now)}
            rankers.update({label: gieok_ranker(m, conv.id, conv.now) for label, m in ablated.items()})
            if with_baselines:
                start = time.perf_counter()
                rankers.update(baselines(conv, embedder))
                timings["baseline index"] += time.perf_counter() - start
            qtask = progress.add_task(f"questions {conv.id}", total=len(conv.questions) * len(rankers))
            for label, rank in rankers.items():
                start = time.perf_counter()
                for q in conv.questions:
                    ranked = rank(q.question)
                    for bucket in ("all", bucket_of(q)):
                        for k in KS:
                            results[label][f"{bucket} R@{k}"].append(recall_at(ranked, q.evidence, k))
                        results[label][f"{bucket} nDCG@10"].append(ndcg_at(ranked, q.evidence, 10))
                    progress.advance(qtask)
                timings[f"{label} queries"] += time.perf_counter() - start
        for m in ablated.values():
            m.close()

    def mean(label: str, key: str) -> str:
        values = results[label].get(key, [])
        return f"{sum(values) / len(values):.3f}" if values else "-"

    table = Table(title=f"{title} (embedder {name})")
    for col in ("system", "R@5", "R@10", "R@20", "nDCG@10", *[f"{c} R@10" for c in buckets]):
        table.add_column(col, justify="right" if col != "system" else "left")
    for label in results:
        table.add_row(label, *[mean(label, f"all R@{k}") for k in KS], mean(label, "all nDCG@10"),
                      *[mean(label, f"{c} R@10") for c in buckets])
    console.print(table)
    console.print("markdown:")
    print("| system | R@5 | R@10 | R@20 | nDCG@10 | " + " | ".join(f"{c} R@10" for c in buckets) + " |")
    print("|---|" + "---:|" * (4 + len(buckets)))
    for label in results:
        cells = [mean(label, f"all R@{k}") for k in KS] + [mean(label, "all nDCG@10")]
        cells += [mean(label, f"{c} R@10") for c in buckets]
        print(f"| {label} | " + " | ".join(cells) + " |")
    for what, seconds in timings.items():
        console.print(f"{what}: {seconds:.1f} s")
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--embedder", default="e5-small")
    parser.add_argument("--db", default=None, help="keep the gieok database here (default: a temp file)")
    parser.add_argument("--limit-conversations", type=int, default=None)
    parser.add_argument("--no-baselines", action="store_true")
    parser.add_argument("--no-ablations", action="store_true", help="skip the runs with one channel off")
    args = parser.parse_args()

    console = Console()
    conversations = load(args.data)[: args.limit_conversations]
    n_questions = sum(len(c.questions) for c in conversations)
    console.print(f"{len(conversations)} conversations, {sum(len(c.turns) for c in conversations)} turns, "
                  f"{n_questions} questions (categories 1-4) from {args.data}")
    with tempfile.TemporaryDirectory() as tmp:
        evaluate(conversations, list(CATEGORIES.values()), embedder=DiskCachedEmbedder(args.embedder),
                 db=args.db or str(Path(tmp) / "locomo.db"),
                 title=f"LoCoMo evidence recall ({n_questions} questions)",
                 with_baselines=not args.no_baselines, with_ablations=not args.no_ablations, console=console)


if __name__ == "__main__":
    main()
