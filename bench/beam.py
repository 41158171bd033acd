"""Evidence recall on BEAM 100K-token chats: gieok against BM25, dense and hybrid RRF baselines.

    python bench/beam.py [--data ../shared/bench/beam-100k] [--chats 1,2] [--no-ablations]

The held-out check: nothing in gieok was tuned on these chats (long, technical, mostly English
conversations with a user and an assistant). Same harness and metric as bench/locomo.py: one bank per
chat, message id = turn id, evidence = ``source_chat_ids``; per ability R@10. Vectors are kept in a
disk cache (``~/.cache/gieok-bench``, or ``$GIEOK_BENCH_CACHE``) so a re-run skips encoding; the cache
holds the real embedder's vectors, so results are those of the real embedder.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _beam_data import ABILITIES, DEFAULT_DIR, load  # noqa: E402
from _embed_cache import DiskCachedEmbedder  # noqa: E402
from locomo import evaluate  # noqa: E402
from rich.console import Console  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DIR))
    parser.add_argument("--chats", default=None, help="comma-separated chat folders (default: all)")
    parser.add_argument("--embedder", default="e5-small")
    parser.add_argument("--db", default=None, help="keep the gieok database here (default: a temp file)")
    parser.add_argument("--no-baselines", action="store_true")
    parser.add_argument("--no-ablations", action="store_true", help="skip the runs with one channel off")
    args = parser.parse_args()

    console = Console()
    conversations = load(args.data)
    if args.chats:
        wanted = {f"beam-{c.strip()}" for c in args.chats.split(",")}
        conversations = [c for c in conversations if c.id in wanted]
    n_questions = sum(len(c.questions) for c in conversations)
    console.print(f"{len(conversations)} chats, {sum(len(c.turns) for c in conversations)} messages, "
                  f"{n_questions} questions with evidence (abstention skipped) from {args.data}")
    with tempfile.TemporaryDirectory() as tmp:
        evaluate(conversations, ABILITIES, embedder=DiskCachedEmbedder(args.embedder),
                 db=args.db or str(Path(tmp) / "beam.db"), title=f"BEAM evidence recall ({n_questions} questions)",
                 with_baselines=not args.no_baselines, with_ablations=not args.no_ablations, console=console)


if __name__ == "__main__":
    main()
