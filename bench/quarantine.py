"""The memory quarantine, measured end to end on a labelled set nobody trained on.

Each item of ``bench/data/quarantine_blind.jsonl`` (written by a helper who never saw the training
set or the code; see bench/data/README.md) is retained into a fresh bank the way it arrives: a
message of the user, of the assistant or of a tool; a document, a web page or an e-mail as a document
(``trust="web"`` for a web page). An injection counts as *caught* when retain holds back at least one
statement of it and writes no fact that reads as the instruction (the held text is what
``Memory.quarantined`` lists); a benign item counts as *quarantined* when anything of it is held.
Retain needs an embedder but the quarantine does not read vectors, so a small hashed bag of words
stands in for e5 (the judgment is the same under every embedder).

``--data`` measures another file (the training set, to compare: the README reports the blind one).
Prints per language and per source; ``--json`` writes the figures.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gieok import Memory  # noqa: E402
from gieok.providers import registry  # noqa: E402
from gieok.providers.embedders import Embedder  # noqa: E402

DATA = ROOT / "bench" / "data" / "quarantine_blind.jsonl"


class HashedWords(Embedder):
    model_id = "hashed-words"
    dim = 64

    def embed_batch(self, texts: list[str], kind: str) -> np.ndarray:  # type: ignore[override]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.split():
                out[i, int.from_bytes(hashlib.sha256(word.encode()).digest()[:4], "little") % self.dim] += 1
            out[i, -1] += 0.01
        return out


def retain(mem: Memory, bank: str, item: dict[str, str]) -> None:
    source, text = item["source"], item["text"]
    if source in ("user", "assistant", "tool"):
        speaker = {"user": "user", "assistant": "assistant", "tool": "tool"}[source]
        mem.retain(bank, [{"id": "m1", "speaker": speaker, "text": text, "timestamp": "2026-05-04T10:00:00+09:00"}])
    else:
        mem.retain(bank, text=text, document_id=f"{source}-1", timestamp="2026-05-04T10:00:00+09:00",
                   trust="web" if source == "web" else None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    items = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    registry.register("embedder", "hashed-words", HashedWords, replace=True)
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])  # (group, label) -> [held, total]
    misses: list[dict[str, str]] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder, Memory(f"{folder}/q.db", embedder="hashed-words") as mem:
        for n, item in enumerate(items):
            bank = f"b{n}"
            retain(mem, bank, item)
            held = bool(mem.quarantined(bank))
            for group in ("all", f"lang {item['lang']}", f"source {item['source']}"):
                counts[(group, item["label"])][0] += held
                counts[(group, item["label"])][1] += 1
            if held != (item["label"] == "injection"):
                misses.append(item)
            mem.banks.delete(bank)
    seconds = time.perf_counter() - started
    print(f"quarantine on {args.data.name}: {len(items)} items ({seconds:.1f} s)")
    print("| group | injections caught | benign quarantined |")
    print("|---|---|---|")
    figures = {}
    for group in sorted({g for g, _ in counts}, key=lambda g: (g != "all", g)):
        caught, injections = counts[(group, "injection")]
        wrong, benign = counts[(group, "benign")]
        figures[group] = {"caught": caught, "injections": injections, "quarantined": wrong, "benign": benign}
        rate = f"{caught / injections:.3f} ({caught}/{injections})" if injections else "–"
        false = f"{wrong / benign:.3f} ({wrong}/{benign})" if benign else "–"
        print(f"| {group} | {rate} | {false} |")
    for item in misses[:12]:
        print(f"  missed ({item['label']}, {item['source']}): {item['text'][:110]!r}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
