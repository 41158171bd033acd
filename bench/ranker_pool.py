"""Recall's candidate pools with their features and labels: the learned ranker's training and test data.

    python bench/ranker_pool.py [--sets locomo,korean,train_a,train_b,blind,beam] [--rebuild]

Each conversation of each set (bench/_ranker_data.py) is retained once into its own bank, kept in
``~/.cache/gieok-bench/ranker/<set>.db`` (``$GIEOK_BENCH_CACHE``) so a re-run only recomputes the
pools. For every question the channels gather their pool as recall does (real e5-small, vectors from
the disk cache) and each candidate gets its feature row (gieok/engine/recall/rank_model.py) and the
evidence turns its sources cover. Written to ``<set>.pool.npz`` beside the database: ``x`` (rows ×
features), ``question`` (each row's question index), ``order`` (the row's place in the pool by plain
RRF, ``fusion=rrf``: the pools never depend on the model they train) and ``covers`` / ``questions``
(JSON: per row the evidence indices it covers; per question its conversation, category, language and
evidence count). Deterministic.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from datetime import datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _embed_cache import CACHE_DIR, DiskCachedEmbedder  # noqa: E402
from _ranker_data import SETS, category_of, load_set  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.progress import Progress  # noqa: E402

from gieok import Memory  # noqa: E402
from gieok.engine._time import to_datetime  # noqa: E402
from gieok.engine.recall.fusion import fuse_channels  # noqa: E402
from gieok.engine.recall.gather import gather  # noqa: E402
from gieok.engine.recall.rank_model import PoolQuery, feature_matrix  # noqa: E402
from gieok.engine.recall.score import pool_item, score_candidates, scoring_for  # noqa: E402
from gieok.engine.scopes import UNFILTERED  # noqa: E402
from gieok.text.korean import has_hangul  # noqa: E402

OUT = CACHE_DIR / "ranker"


def pool_of(mem: Memory, bank: str, question: str, now: datetime) -> tuple[np.ndarray, list[list[str]]]:
    """The question's candidate pool: feature rows (in the code's ranking order) and each row's sources."""
    ctx = mem.engine.bank(bank)
    gathered = gather(ctx, question, now, UNFILTERED)
    fused = fuse_channels(gathered)
    scored = score_candidates(ctx, question, gathered, fused, now=now, as_of=None, scope=UNFILTERED, explain=False)
    scoring = scoring_for(ctx, question, gathered, now, None, UNFILTERED)
    items = [pool_item(c, now.timestamp(), c.multipliers.get("scope", 1.0)) for c in scored]
    query = PoolQuery(question, gathered.time_range is not None, scoring.history)
    sources = [list(c.features.fact.message_ids) or [c.features.fact.source_external_id] if c.features is not None
               else list(c.memory.source_ids) if c.memory is not None else [] for c in scored]
    return feature_matrix(items, query), sources


def _messages_by_bank(db: Path) -> dict[str, int]:
    """How many messages each bank of ``db`` holds (a bank short of its conversation was cut off)."""
    if not db.exists():
        return {}
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return dict(conn.execute("SELECT b.name, count(m.id) FROM banks b LEFT JOIN messages m ON m.bank_id = b.id "
                                 "GROUP BY b.name"))


def build(name: str, console: Console, rebuild: bool, only: set[str] | None = None, part: str = "") -> Path:
    conversations = [c for c in load_set(name) if only is None or c.id in only]
    OUT.mkdir(parents=True, exist_ok=True)
    stem = f"{name}-{part}" if part else name
    db = OUT / f"{stem}.db"
    if rebuild and db.exists():
        db.unlink()
    embedder = DiskCachedEmbedder("e5-small")
    rows: list[np.ndarray] = []
    question_of: list[int] = []
    order: list[int] = []
    covers: list[list[int]] = []
    questions: list[dict[str, object]] = []
    with (Memory(str(db), embedder=embedder, refresh_on_recall=False, fusion="rrf") as mem,
          Progress(console=console) as progress):
        have = _messages_by_bank(db)
        task = progress.add_task(f"{name}: retain", total=len(conversations))
        for conv in conversations:
            if conv.id in have and have[conv.id] != len(conv.turns):  # a retain stopped half-way
                mem.banks.delete(conv.id)
                del have[conv.id]
            if conv.id not in have:
                mem.retain(conv.id, messages=[{"id": t.id, "speaker": t.speaker, "text": t.text,
                                               "timestamp": t.timestamp} for t in conv.turns], document_id=conv.id)
            progress.advance(task)
        n = sum(len(c.questions) for c in conversations)
        task = progress.add_task(f"{name}: pools", total=n)
        for conv in conversations:
            now = to_datetime(conv.now, "now")
            for q in conv.questions:
                x, sources = pool_of(mem, conv.id, q.question, now)
                index = {e: i for i, e in enumerate(q.evidence)}
                qi = len(questions)
                questions.append({"conversation": conv.id, "category": category_of(q), "evidence": len(q.evidence),
                                  "korean": has_hangul(q.question), "question": q.question})
                rows.append(x)
                question_of.extend([qi] * len(x))
                order.extend(range(len(x)))
                covers.extend(sorted({index[s] for s in src if s in index}) for src in sources)
                progress.advance(task)
    path = OUT / f"{stem}.pool.npz"
    if not part and only is None:  # the whole set, built at once: pools built in parts are now stale
        for stale in OUT.glob(f"{name}-*.pool.npz"):
            stale.unlink()
    np.savez_compressed(path, x=np.vstack(rows) if rows else np.zeros((0, 0)), question=np.array(question_of),
                        order=np.array(order), covers=json.dumps(covers), questions=json.dumps(questions))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--rebuild", action="store_true", help="retain the conversations again")
    parser.add_argument("--only", default=None, help="comma list of conversation ids (with --part)")
    parser.add_argument("--part", default="", help="write <set>-<part>.db / .pool.npz: a set built in parts")
    args = parser.parse_args()
    console = Console()
    only = {c.strip() for c in args.only.split(",")} if args.only else None
    for name in [s.strip() for s in args.sets.split(",") if s.strip()]:
        start = time.perf_counter()
        path = build(name, console, args.rebuild, only, args.part)
        console.print(f"{name}: {path} in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
