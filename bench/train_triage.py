"""Train the consolidation triage head (gieok/extract/triage_model.py) on its labelled pairs.

Reads ``bench/data/triage_train.jsonl`` (see bench/data/README.md): (observation, fact, speaker) and
one of restates / adds / unrelated / chatter. Vectors come from the bundled ``e5-small`` (passages)
through bench/_embed_cache.py, so a rerun encodes nothing; they are of the texts the engine stores
vectors of — a fact's embedding text as retain builds it ("speaker: text"), an observation said by
its subject — so consolidation hands the head its stored vectors and embeds nothing. Five folds
grouped by observation (the four facts written against one observation never sit on both sides; fixed by a hash of the
observation) choose the regularisation by out-of-fold log loss (a probability is what the engine
reads) and the bars of the lossy answers (see ``choose_bars``); accuracy is reported per language; the head is
then trained on every item and written to ``gieok/data/triage_e5-small.npz`` (float16).
The blind split is only read by bench/triage.py. Deterministic: full-batch descent, fixed folds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _sparse import design, fit_softmax, softmax  # noqa: E402

from gieok.extract.triage_model import (  # noqa: E402
    EMBEDDER,
    FILE,
    LABELS,
    LOSSY,
    TriageModel,
    dense_features,
    fact_embed_text,
    lexical_features,
    observation_embed_text,
)

DATA = ROOT / "bench" / "data" / "triage_train.jsonl"
OUT = ROOT / "gieok" / "data" / FILE
FOLDS = 5
STEPS = 300
PRECISION = 0.9


def load(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def embedder() -> object:
    from _embed_cache import DiskCachedEmbedder

    return DiskCachedEmbedder(EMBEDDER)


def featurise(items: list[dict[str, str]], embed: object) -> tuple[list[dict[str, float]], np.ndarray]:
    observations = [observation_embed_text(i["observation"]) for i in items]
    facts = [fact_embed_text(i["fact"], i["speaker"]) for i in items]
    texts = sorted(set(observations) | set(facts))
    vectors = dict(zip(texts, embed.embed(texts, "document"), strict=True))  # type: ignore[attr-defined]
    lexical = [lexical_features(i["observation"], i["fact"], i["speaker"]) for i in items]
    dense = np.stack([dense_features(vectors[o], vectors[f]) for o, f in zip(observations, facts, strict=True)])
    return lexical, dense


def fold_of(observation: str) -> int:
    return int(hashlib.sha256(observation.encode("utf-8")).hexdigest(), 16) % FOLDS


def train(lexical: list[dict[str, float]], dense: np.ndarray, y: np.ndarray, l2: float) -> TriageModel:
    x, vocabulary = design(lexical, min_count=3)
    mean, scale = dense.mean(axis=0), np.maximum(dense.std(axis=0), 1e-6)
    w, b, d = fit_softmax(x, y, len(LABELS), l2, steps=STEPS, dense=(dense - mean) / scale)  # type: ignore[misc]
    return TriageModel(vocabulary, w, d, b, mean, scale, np.zeros(len(LABELS)))


def predict(model: TriageModel, lexical: list[dict[str, float]], dense: np.ndarray) -> np.ndarray:
    x, _ = design(lexical, model.vocabulary)
    z = x.dot(model.lexical) + model.bias + ((dense - model.mean) / model.scale) @ model.dense
    return softmax(z)


def cross_validate(items: list[dict[str, str]], lexical: list[dict[str, float]], dense: np.ndarray, y: np.ndarray,
                   l2: float) -> np.ndarray:
    folds = np.array([fold_of(i["observation"]) for i in items])
    out = np.zeros((len(items), len(LABELS)))
    for k in range(FOLDS):
        train_rows, test_rows = np.where(folds != k)[0], np.where(folds == k)[0]
        model = train([lexical[i] for i in train_rows], dense[train_rows], y[train_rows], l2)
        out[test_rows] = predict(model, [lexical[i] for i in test_rows], dense[test_rows])
    return out


def choose_bars(probabilities: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per lossy label, the lowest bar at which the folds' answers of that label are right at least
    PRECISION of the time (0 for the others): a wrong restatement or chatter loses a fact from view."""
    bars = np.zeros(len(LABELS))
    for label in LOSSY:
        c = LABELS.index(label)
        for bar in np.arange(0.4, 0.96, 0.05):
            chosen = (probabilities.argmax(axis=1) == c) & (probabilities[:, c] >= bar)
            if chosen.any() and (y[chosen] == c).mean() >= PRECISION:
                bars[c] = round(float(bar), 2)
                break
        else:
            bars[c] = 0.95
        answered = (probabilities.argmax(axis=1) == c) & (probabilities[:, c] >= bars[c])
        print(f"{label}: bar {bars[c]:.2f}, precision {(y[answered] == c).mean():.3f}, "
              f"recall {(answered & (y == c)).sum() / (y == c).sum():.3f}")
    return bars


def language(item: dict[str, str]) -> str:
    return "ko" if item["lang"] in ("ko", "mixed") else "en"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--l2", type=float, nargs="*", default=[0.03, 0.1, 0.3])
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the weights")
    args = parser.parse_args()
    items = load(DATA)
    lexical, dense = featurise(items, embedder())
    y = np.array([LABELS.index(i["label"]) for i in items])
    best = (np.inf, 0.0)
    for l2 in args.l2:
        probabilities = cross_validate(items, lexical, dense, y, l2)
        right = probabilities.argmax(axis=1) == y
        loss = float(-np.log(np.maximum(probabilities[np.arange(len(y)), y], 1e-12)).mean())
        per = {lang: right[[language(i) == lang for i in items]].mean() for lang in ("ko", "en")}
        print(f"l2={l2:g}: 5-fold log loss {loss:.3f}, accuracy {right.mean():.3f} "
              f"(ko+mixed {per['ko']:.3f}, en {per['en']:.3f})")
        best = min(best, (loss, l2))
    print(f"chosen l2={best[1]:g}")
    bars = choose_bars(cross_validate(items, lexical, dense, y, best[1]), y)
    print("bars: " + ", ".join(f"{label} {bar:.2f}" for label, bar in zip(LABELS, bars, strict=True)))
    if not args.no_write:
        model = train(lexical, dense, y, best[1])
        model = TriageModel(model.vocabulary, model.lexical, model.dense, model.bias, model.mean, model.scale, bars)
        model.save(str(args.out))
        print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KB, {len(model.vocabulary)} lexical features)")


if __name__ == "__main__":
    main()
