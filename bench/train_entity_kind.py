"""Train the entity-kind head (gieok/entities/_kind_model.py) on bench/data/entity_train.jsonl.

Each item is a text, a span in it and the span's kind (person / place / org / thing / none; see
bench/data/README.md). Multinomial L2 logistic regression over ``kind_features`` (features seen in at
least ``--min-count`` items), full-batch descent (bench/_sparse.py). Five fixed folds choose the
regularisation and the class balance by out-of-fold accuracy, then the bar on P(none) at which at
most ``--names-lost`` of the real names are called none (dropping a name loses an entity) and the
bar under which a name's kind is left unknown (``--kind-precision``); the report gives per-language
accuracy and the confusions a user sees (places called people, non-names kept). Then the head is trained on
every item and written to gieok/data/entity_kind.json. The blind split is only read by
bench/entity_kind.py. Deterministic: ``make train-entity-kind`` twice gives the same file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._sparse import design, fit_softmax, softmax  # noqa: E402
from gieok.entities._kind_model import KIND_OPTIONS, KindModel, decide, kind_features, span_at  # noqa: E402

DATA = ROOT / "bench" / "data" / "entity_train.jsonl"
OUT = ROOT / "gieok" / "data" / "entity_kind.json"
SEED = 20261205


def load(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def vectors_of(items: list[dict[str, str]]) -> list[dict[str, float]]:
    return [kind_features(it["text"], *span_at(it["text"], it["span"])) for it in items]


def report(items: list[dict[str, str]], predicted: list[str], title: str) -> None:
    """Accuracy per language, per-kind precision / recall, and the two confusions users notice."""
    print(title)
    for lang in ("ko", "en", "mixed", "all"):
        rows = [(it["kind"], p) for it, p in zip(items, predicted) if lang in ("all", it["lang"])]
        if not rows:
            continue
        accuracy = sum(g == p for g, p in rows) / len(rows)
        places = [p for g, p in rows if g == "place"]
        nones = [p for g, p in rows if g == "none"]
        print(f"  {lang:5} n={len(rows):4}  accuracy {accuracy:.3f}  places called people "
              f"{places.count('person') / max(len(places), 1):.3f}  non-names kept "
              f"{sum(p != 'none' for p in nones) / max(len(nones), 1):.3f}")
        cells = []
        for kind in KIND_OPTIONS:
            tp = sum(g == p == kind for g, p in rows)
            said, gold = sum(p == kind for _, p in rows), sum(g == kind for g, _ in rows)
            cells.append(f"{kind} P {tp / max(said, 1):.2f} R {tp / max(gold, 1):.2f}")
        print("        " + " · ".join(cells))


def choose_none_bar(oof: np.ndarray, y: np.ndarray, names_lost: float) -> float:
    """The lowest P(none) bar at which at most ``names_lost`` of the real names are called none: a
    dropped name is an entity the user never sees, a kept common word only a stray node."""
    none = KIND_OPTIONS.index("none")
    names = np.sort(oof[y != none, none])[::-1]
    allowed = int(np.floor(names_lost * len(names)))
    return max(0.5 if allowed >= len(names) else float(names[allowed]) + 1e-6, 0.2)


def choose_kind_bar(oof: np.ndarray, y: np.ndarray, none_bar: float, precision: float) -> float:
    """The lowest probability at which the kinds given to real names are right ``precision`` of the
    time, out of fold: below it the engine leaves the kind unknown (a wrong kind keeps a name apart
    from its entity, an unknown one does not)."""
    none = KIND_OPTIONS.index("none")
    judged = [(p, *decide(p, none_bar)) for p, gold in zip(oof, y) if gold != none]
    answers = [(probability, KIND_OPTIONS[gold] == kind) for (p, kind, probability), gold
               in zip(judged, y[y != none]) if kind != "none"]
    for bar in np.arange(0.3, 0.96, 0.01):
        kept = [right for probability, right in answers if probability >= bar]
        if kept and sum(kept) / len(kept) >= precision:
            return float(round(bar, 2))
    return 0.95


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--min-count", type=int, default=2)
    parser.add_argument("--names-lost", type=float, default=0.05,
                        help="share of names (out of fold) the head may call none: the none bar is chosen for it")
    parser.add_argument("--kind-precision", type=float, default=0.85,
                        help="out-of-fold precision of the kinds given to names: the kind bar is chosen for it")
    args = parser.parse_args()
    items = load(args.data)
    vectors = vectors_of(items)
    y = np.array([KIND_OPTIONS.index(it["kind"]) for it in items])
    print(f"{len(items)} spans of {args.data.name}: "
          + ", ".join(f"{k} {int((y == i).sum())}" for i, k in enumerate(KIND_OPTIONS)))
    order = np.random.default_rng(SEED).permutation(len(items))
    folds = [order[k :: args.folds] for k in range(args.folds)]
    best: tuple[float, float, float, np.ndarray] | None = None
    for l2 in (1e-4, 3e-4, 1e-3, 3e-3):
        for balance in (0.0, 0.5):
            oof = np.zeros((len(items), len(KIND_OPTIONS)))
            for k, held in enumerate(folds):
                train = np.concatenate([f for j, f in enumerate(folds) if j != k])
                x, vocabulary = design([vectors[i] for i in train], min_count=args.min_count)
                w, b = fit_softmax(x, y[train], len(KIND_OPTIONS), l2, steps=400, balance=balance, method="momentum")
                oof[held] = softmax(design([vectors[i] for i in held], vocabulary)[0].dot(w) + b)
            accuracy = float((oof.argmax(axis=1) == y).mean())
            loss = float(-np.log(oof[np.arange(len(y)), y] + 1e-9).mean())
            print(f"l2 {l2:g} balance {balance:g}: out-of-fold accuracy {accuracy:.3f}, log loss {loss:.3f}")
            if best is None or accuracy > best[0]:
                best = (accuracy, l2, balance, oof)
    assert best is not None
    _, l2, balance, oof = best
    none_bar = choose_none_bar(oof, y, args.names_lost)
    kind_bar = choose_kind_bar(oof, y, none_bar, args.kind_precision)
    print(f"kind bar {kind_bar:.3f}: a name judged below it is left of unknown kind")
    report(items, [decide(p, none_bar)[0] for p in oof],
           f"chosen l2 {l2:g} balance {balance:g}, none bar {none_bar:.3f}, out of fold:")
    x, vocabulary = design(vectors, min_count=args.min_count)
    w, b = fit_softmax(x, y, len(KIND_OPTIONS), l2, steps=400, balance=balance, method="momentum")
    kept = [name for name, i in vocabulary.items() if np.abs(w[i]).max() >= 5e-3]
    kept.sort()
    weights = np.array([w[vocabulary[n]] for n in kept])
    model = KindModel({n: i for i, n in enumerate(kept)}, weights, b, none_bar, kind_bar)
    args.out.write_text(model.to_json() + "\n", encoding="utf-8")
    print(f"wrote {args.out.relative_to(ROOT)}: {len(kept):,} features of {len(vocabulary):,}, "
          f"{args.out.stat().st_size / 1024:.0f} KB")


if __name__ == "__main__":
    main()
