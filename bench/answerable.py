"""Does this memory answer this question? The answerability head against today's rules, on the blind split.

Reads bench/data/answer_blind.jsonl (500 items written by another hand than the training set, never
used to choose a feature, weight or bar) and scores every (question, memory) pair with:

* **head** — the shipped answerability head (gieok/answering/_answerable.py) with e5-small vectors,
  at its bar: what the ``learned`` decision model answers for the ``answers`` task;
* **head, lexical** — the same head's lexical variant (a bank with another embedder);
* **rules** — the lexical sufficiency gate reflect used before the head (``gieok.answering.support``:
  IDF-weighted coverage of the question's terms over the memories written for the same question,
  with the answer-type, category and speaker-name rules, yes at ``MIN_SUPPORT``), when this checkout
  still has it.

Printed per language (Korean, English, mixed Korean-English): AUC, precision and recall at the bar;
then per trap kind (the ways a memory can look like an answer and not be one) the share wrongly
judged an answer. ``--json`` prints the numbers as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from _embed_cache import DiskCachedEmbedder  # noqa: E402
from train_answerable import Item, auc, load  # noqa: E402

from gieok.answering import answerable_model  # noqa: E402

BLIND = ROOT / "bench" / "data" / "answer_blind.jsonl"
TRAPS = ("other-subject", "other-attribute", "other-time", "policy", "greeting", "plan", "question", "topic-only")


def head_scores(items: list[Item], embedder: DiskCachedEmbedder | None) -> tuple[np.ndarray, np.ndarray]:
    model = answerable_model()
    judged = [model.judge(it.question, it.memory, it.speaker, embedder) for it in items]
    return np.array([j.probability for j in judged]), np.array([j.answers for j in judged])


def rule_scores(items: list[Item]) -> tuple[np.ndarray, np.ndarray] | None:
    """Coverage by the old lexical gate, IDF over the memories written for the same question."""
    try:
        from gieok.answering import MIN_SUPPORT, EvidenceItem, support  # type: ignore[attr-defined]
    except ImportError:
        return None
    groups: dict[str, list[int]] = defaultdict(list)
    for i, it in enumerate(items):
        groups[it.question].append(i)
    coverage = np.zeros(len(items))
    for question, members in groups.items():
        evidence = [EvidenceItem(items[i].id, items[i].memory, 0.0, None, items[i].speaker or None)
                    for i in members]
        found = support(question, evidence)
        for i in members:
            held = found.get(items[i].id)
            coverage[i] = held.coverage if held is not None else 0.0
    return coverage, coverage >= MIN_SUPPORT


def measure(items: list[Item], score: np.ndarray, said: np.ndarray) -> dict[str, dict[str, float]]:
    y = np.array([it.label for it in items])
    out: dict[str, dict[str, float]] = {}
    for lang in ("ko", "en", "mixed", "all"):
        m = np.array([lang in ("all", it.lang) for it in items])
        tp = float((said & m & (y == 1)).sum())
        out[lang] = {"n": int(m.sum()), "auc": round(auc(score[m], y[m]), 3),
                     "precision": round(tp / max(1.0, float((said & m).sum())), 3),
                     "recall": round(tp / max(1.0, float((m & (y == 1)).sum())), 3)}
    for trap in TRAPS:
        m = np.array([it.trap == trap for it in items])
        if m.any():
            out[f"trap {trap}"] = {"n": int(m.sum()), "said yes": round(float(said[m].mean()), 3)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=BLIND)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    items = load(args.data)
    results = {"head": measure(items, *head_scores(items, DiskCachedEmbedder("e5-small"))),
               "head, lexical": measure(items, *head_scores(items, None))}
    rules = rule_scores(items)
    if rules is not None:
        results["rules"] = measure(items, *rules)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{args.data.name}: {len(items)} items, {sum(it.label for it in items)} answer")
    print(f"{'':16s}" + "".join(f"{name:>28s}" for name in results))
    for row in results["head"]:
        cells = []
        for name in results:
            r = results[name][row]
            cells.append(f"AUC {r['auc']:.3f} P {r['precision']:.3f} R {r['recall']:.3f}" if "auc" in r
                         else f"said yes {r['said yes']:.3f}")
        print(f"{row + ' (' + str(results['head'][row]['n']) + ')':22s}" + "".join(f"{c:>28s}" for c in cells))


if __name__ == "__main__":
    main()
