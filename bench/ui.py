"""Web UI page-load times on a bank of N facts (default 10,000), built with the hash embedder.

    python bench/ui.py [--facts 10000] [--db PATH]

Each page is fetched through the in-process ASGI app (TestClient) five times after one warm-up;
the median and the worst are printed, with the server's own Server-Timing. The target is ≤ 300 ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _hash_embedder import hash_embedder  # noqa: E402
from _synthetic import SyntheticText  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from gieok import Memory  # noqa: E402
from gieok.server.app import create_app  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--db", default=None)
    args = parser.parse_args()
    db = args.db or str(Path(tempfile.mkdtemp()) / "ui.db")
    mem = Memory(db, embedder=hash_embedder("hash-ui"))
    text = SyntheticText(seed=7)
    started = time.perf_counter()
    made, batch = mem.browse.overview("bench").facts if any(b.name == "bench" for b in mem.banks()) else 0, 0
    while made < args.facts:
        messages = [{"id": f"m{batch}-{i}", "speaker": "user" if i % 2 else "agent", "text": text.sentence(),
                     "timestamp": f"2026-{1 + batch % 12:02d}-{1 + i % 28:02d}T09:00:00+09:00"} for i in range(500)]
        made += mem.retain("bench", messages, document_id=f"chat-{batch}").facts_added
        batch += 1
        print(f"\r{made} facts, {time.perf_counter() - started:.0f} s", end="", flush=True)
    print()
    fact = mem.recall("bench", text.sentence(), limit=1).memories[0].id
    source = mem.sources("bench")[0].id
    entity = mem.entities("bench")[0].name
    pages = ["/ui/", "/ui/b/bench", f"/ui/b/bench/s/{source}", f"/ui/b/bench/f/{fact}", "/ui/b/bench/entities",
             f"/ui/b/bench/e/{entity}", "/ui/b/bench/recall?q=where+did+we+go&max_tokens=500",
             "/ui/b/bench/reflect?q=where+did+we+go", "/ui/b/bench/jobs", "/ui/b/bench/erase"]
    with TestClient(create_app(mem, mcp=False, worker=False)) as http:
        print(f"{'page':60} {'median ms':>10} {'worst ms':>10}")
        for page in pages:
            http.get(page)
            times = []
            for _ in range(5):
                t0 = time.perf_counter()
                assert http.get(page).status_code == 200, page
                times.append((time.perf_counter() - t0) * 1000)
            print(f"{page[:60]:60} {statistics.median(times):10.0f} {max(times):10.0f}")
    mem.close()


if __name__ == "__main__":
    main()
