"""The recall gate on a labelled set of Korean and English turns (bench/data/recall_gate.json).

Prints, for the tuning half (even indices) and the held-out half (odd indices): of the turns that need
memory, the share the gate skipped (target <= 2 %), and of pure small talk, the share skipped
(target >= 70 %). The gate's rules were tuned looking at the even half only.

    python bench/recall_gate.py [--data FILE] [--show-errors]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from gieok.extract.recall_gate import recall_gate

DATA = Path(__file__).parent / "data" / "recall_gate.json"


def measure(turns: list[dict[str, Any]]) -> dict[str, Any]:
    need = [t for t in turns if t["needs_memory"]]
    talk = [t for t in turns if not t["needs_memory"]]
    missed = [t["text"] for t in need if not recall_gate(t["text"]).recall]
    kept_talk = [t["text"] for t in talk if recall_gate(t["text"]).recall]
    return {"turns": len(turns), "need": len(need), "talk": len(talk),
            "need_skipped_pct": 100.0 * len(missed) / max(1, len(need)),
            "talk_skipped_pct": 100.0 * (len(talk) - len(kept_talk)) / max(1, len(talk)),
            "missed": missed, "talk_recalled": kept_talk}


def halves(turns: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(tune: even indices, held-out: odd indices)."""
    return turns[0::2], turns[1::2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--show-errors", action="store_true")
    args = parser.parse_args()
    turns = json.loads(args.data.read_text(encoding="utf-8"))["turns"]
    ko = sum(t["lang"] == "ko" for t in turns)
    print(f"recall gate: {len(turns)} turns ({ko} Korean, {len(turns) - ko} English)")
    for name, part in zip(("tune (even)", "held-out (odd)"), halves(turns)):
        r = measure(part)
        print(f"  {name:15s} need memory: {r['need']:3d}, skipped {r['need_skipped_pct']:5.1f} % (target <= 2 %) | "
              f"small talk: {r['talk']:3d}, skipped {r['talk_skipped_pct']:5.1f} % (target >= 70 %)")
        if args.show_errors:
            for text in r["missed"]:
                print(f"    MISSED (needed memory): {text}")
            for text in r["talk_recalled"]:
                print(f"    recalled small talk: {text}")


if __name__ == "__main__":
    main()
