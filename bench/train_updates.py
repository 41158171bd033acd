"""An experiment toward the decision model's update head: does a learned pair classifier beat the
supersede rules (``gieok.lifecycle.detect_update``) on pairs nobody wrote the rules or the head from?

Trains L2 logistic regression (bench/train_instructions.py's fitter) over features of an (older,
newer) statement pair — the newer one's character n-grams and words, the older one's words, the words
they share, and how much they share — on ``bench/data/supersede_train.jsonl`` plus the rules' own
``supersede_pairs.json`` splits ``tune``, ``held-out`` and ``fresh``; five folds choose the
regularisation and the threshold (the lowest giving ``--precision`` out of fold). Reports, on the
blind ``supersede_blind.jsonl`` and on ``fresh-2`` (blind to the rules), the head's and the rules'
precision and recall per language. Nothing is shipped: the README says whether the head beats the
rules, and the engine keeps its rules until it does.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from train_instructions import design, fit, predict  # noqa: E402

from gieok.defense._instructions import reveal  # noqa: E402
from gieok.engine.versions import MIN_CONFIDENCE  # noqa: E402
from gieok.lifecycle import detect_update  # noqa: E402

DATA = ROOT / "bench" / "data"
_WORD = __import__("re").compile(r"[^\W_]+")


def pairs(path: Path, splits: tuple[str, ...] | None = None) -> list[dict[str, object]]:
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    items = json.loads(path.read_text(encoding="utf-8"))
    return [{**p, "language": p["language"]} for p in items if splits is None or p["split"] in splits]


def features(old: str, new: str) -> dict[str, float]:
    """Unit-length n-gram and word features of the pair, plus overlap values (not scaled)."""
    old_text, new_text = reveal(old), reveal(new)
    counts: Counter[str] = Counter()
    squeezed = " " + " ".join(new_text.split()) + " "
    for n in (2, 3, 4):
        counts.update("c" + squeezed[i:i + n] for i in range(len(squeezed) - n + 1))
    old_words, new_words = set(_WORD.findall(old_text)), _WORD.findall(new_text)
    counts.update("w" + w for w in new_words)
    counts.update(f"p{a} {b}" for a, b in zip(new_words, new_words[1:]))
    counts.update("o" + w for w in old_words)
    shared = old_words & set(new_words)
    counts.update("s" + w for w in shared)
    scaled = {k: 1.0 + math.log(v) for k, v in counts.items()}
    norm = math.sqrt(sum(v * v for v in scaled.values())) or 1.0
    out = {k: v / norm for k, v in scaled.items()}
    grams = [{t[i:i + 3] for i in range(max(0, len(t) - 2))} for t in (old_text, new_text)]
    union = len(grams[0] | grams[1]) or 1
    out["xtrigram overlap"] = len(grams[0] & grams[1]) / union
    out["xword overlap"] = len(shared) / (len(old_words | set(new_words)) or 1)
    return out


def with_vectors(items: list[dict[str, object]], lexical: list[dict[str, float]],
                 embedder: object) -> list[dict[str, float]]:
    """Add the pair's meaning: the elementwise product and difference of the two statements' e5 vectors
    (as retain embeds a fact), scaled so they weigh like the lexical part."""
    from gieok.engine._retain_plan import embed_text

    texts = [embed_text(str(t), "user") for p in items for t in (p["old"], p["new"])]
    vectors = np.asarray(embedder.embed(texts, "document"))  # type: ignore[attr-defined]
    out = []
    for i, base in enumerate(lexical):
        u, v = vectors[2 * i], vectors[2 * i + 1]
        extra = {f"e*{k}": float(x) for k, x in enumerate(u * v * 4)}
        extra.update({f"e-{k}": float(x) for k, x in enumerate(np.abs(u - v) * 2)})
        extra["ecosine"] = float(u @ v)
        out.append({**base, **extra})
    return out


def rates(predicted: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    closes = predicted.sum()
    right = (predicted & truth).sum()
    return (float(right / closes) if closes else 1.0), (float(right / truth.sum()) if truth.sum() else 1.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--precision", type=float, default=0.97)
    parser.add_argument("--embedder", default="", help="add the pair's e5-small vectors (e5-small), or lexical only")
    args = parser.parse_args()
    embedder = None
    if args.embedder:
        from _embed_cache import DiskCachedEmbedder

        embedder = DiskCachedEmbedder(args.embedder)
    train = (pairs(DATA / "supersede_train.jsonl")
             + pairs(DATA / "supersede_pairs.json", ("tune", "held-out", "fresh")))
    y = np.array([bool(p["update"]) for p in train])
    vectors = [features(str(p["old"]), str(p["new"])) for p in train]
    if embedder is not None:
        vectors = with_vectors(train, vectors, embedder)
    order = np.random.default_rng(20261205).permutation(len(train))
    folds = [order[k::5] for k in range(5)]
    best = None
    for l2 in (1e-6, 1e-5, 1e-4):
        oof = np.zeros(len(train))
        for k, held in enumerate(folds):
            rest = np.concatenate([f for j, f in enumerate(folds) if j != k])
            x, vocabulary = design([vectors[i] for i in rest])
            w, b = fit(x, y[rest].astype(float), l2)
            oof[held] = predict(design([vectors[i] for i in held], vocabulary)[0], w, b)
        loss = float(-np.mean(y * np.log(oof + 1e-9) + (1 - y) * np.log(1 - oof + 1e-9)))
        if best is None or loss < best[0]:
            best = (loss, l2, oof)
    assert best is not None
    _, l2, oof = best
    threshold = 0.5
    for candidate in np.sort(np.unique(oof)):
        precision, _ = rates(oof >= candidate, y)
        if precision >= args.precision:
            threshold = float(candidate)
            break
    p, r = rates(oof >= threshold, y)
    print(f"{len(train)} training pairs; l2 {l2:g}; threshold {threshold:.3f}: out of fold precision {p:.3f} "
          f"recall {r:.3f}")
    x, vocabulary = design(vectors)
    w, b = fit(x, y.astype(float), l2)
    print("| set | language | pairs | head precision | head recall | rules precision | rules recall |")
    print("|---|---|---|---|---|---|---|")
    for name, test in (("supersede_blind.jsonl", pairs(DATA / "supersede_blind.jsonl")),
                       ("fresh-2", pairs(DATA / "supersede_pairs.json", ("fresh-2",)))):
        for language in ("ko", "en", None):
            chosen = [t for t in test if language is None or t["language"] == language]
            truth = np.array([bool(t["update"]) for t in chosen])
            test_vectors = [features(str(t["old"]), str(t["new"])) for t in chosen]
            if embedder is not None:
                test_vectors = with_vectors(chosen, test_vectors, embedder)
            scores = predict(design(test_vectors, vocabulary)[0], w, b)
            head = rates(scores >= threshold, truth)
            verdicts = [detect_update(str(t["old"]), str(t["new"])) for t in chosen]
            rules = rates(np.array([v is not None and v.confidence >= MIN_CONFIDENCE for v in verdicts]), truth)
            print(f"| {name} | {language or 'all'} | {len(chosen)} | {head[0]:.3f} | {head[1]:.3f} | "
                  f"{rules[0]:.3f} | {rules[1]:.3f} |")


if __name__ == "__main__":
    main()
