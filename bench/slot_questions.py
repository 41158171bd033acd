"""How well a profile question is read: the learned head against the rules it replaced, on the blind split.

``bench/data/slot_questions_blind.jsonl`` (450 questions written by a helper who saw neither the code
nor the training file; see bench/data/README.md) holds for each question the slot it asks about (or
none), whose it is (``self``, a relation key, ``name:<name>``) and whether it asks for an earlier
value. For the head (``gieok.extract.slot_question.slot_question``, as the engine reads a question
for a caller without a bank) and for the old cue rules (``bench/_slot_question_rules.py``) it prints,
per language:

* slot accuracy — the slot, or none, as written;
* answered precision — of the questions given a slot, the share given the right one (a wrong slot
  puts a wrong memory first);
* none precision / recall — a question given no slot asks about none / a question about none is
  given none;
* whose and previous accuracy, over the questions that ask about a slot and were given one (the
  count is shown); ``whose`` counts a named person right only by the name's span — the rules never
  read names (their caller matches the bank's people) — so ``whose (self / relative)`` is shown too.

Nothing here is tuned: the head's features, weights and bar come from the training file alone.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _slot_question_rules import rules_slot_question  # noqa: E402

from gieok.extract.slot_question import SlotQuestion, slot_question  # noqa: E402

BLIND = ROOT / "bench" / "data" / "slot_questions_blind.jsonl"
LANGUAGES = ("ko", "en", "mixed", "all")


def whose_of(asked: SlotQuestion) -> str:
    if asked.person:
        return f"name:{asked.person}"
    return asked.relation or "self"


def scores(rows: list[dict[str, object]], read: Callable[[str], SlotQuestion | None]) -> dict[str, float]:
    answers = [read(str(r["question"])) for r in rows]
    slot_right = sum((a.slot if a else None) == r["slot"] for a, r in zip(answers, rows, strict=True))
    answered = [(a, r) for a, r in zip(answers, rows, strict=True) if a is not None]
    none_given = [r for a, r in zip(answers, rows, strict=True) if a is None]
    none_gold = [a for a, r in zip(answers, rows, strict=True) if r["slot"] is None]
    asked = [(a, r) for a, r in answered if r["slot"] is not None]
    kin = [(a, r) for a, r in asked if not str(r["whose"]).startswith("name:")]
    return {
        "n": len(rows),
        "slot": slot_right / len(rows),
        "answered precision": sum(a.slot == r["slot"] for a, r in answered) / max(len(answered), 1),
        "none precision": sum(r["slot"] is None for r in none_given) / max(len(none_given), 1),
        "none recall": sum(a is None for a in none_gold) / max(len(none_gold), 1),
        "whose": sum(whose_of(a) == r["whose"] for a, r in asked) / max(len(asked), 1),
        "whose (self / relative)": sum(whose_of(a) == r["whose"] for a, r in kin) / max(len(kin), 1),
        "previous": sum(a.previous == r["previous"] for a, r in asked) / max(len(asked), 1),
        "asked and answered": len(asked),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=BLIND)
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    slot_question("warm-up: 내 생일 언제야?")  # loads Kiwi and the weights outside the timing
    started = time.perf_counter()
    for row in rows:
        slot_question(str(row["question"]))
    per_question = (time.perf_counter() - started) / len(rows) * 1000
    print(f"{args.data.name}: {len(rows)} questions, head {per_question:.2f} ms a question\n")
    print("| language | reader | n | slot | answered precision | none precision | none recall | whose "
          "| whose (self / relative) | previous | asked and answered |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for language in LANGUAGES:
        subset = [r for r in rows if language == "all" or r["lang"] == language]
        for name, read in (("head", slot_question), ("rules", rules_slot_question)):
            s = scores(subset, read)
            print(f"| {language} | {name} | {s['n']} | {s['slot']:.3f} | {s['answered precision']:.3f} | "
                  f"{s['none precision']:.3f} | {s['none recall']:.3f} | {s['whose']:.3f} | "
                  f"{s['whose (self / relative)']:.3f} | {s['previous']:.3f} | {s['asked and answered']} |")


if __name__ == "__main__":
    main()
