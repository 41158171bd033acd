"""Train the filler model (gieok/extract/filler_model.py) for one embedder and write its weights.

    python bench/train_filler.py [--embedder e5-small] [--out gieok/data/filler_e5-small.json]

Training data: ``bench/data/filler_train.json`` (labelled filler / content phrases, Korean and
English) and the ``tune`` and ``held-out`` phrases and content templates of ``bench/filler.py``. The
benchmark's ``fresh`` set (``bench/data/filler_fresh.json``) is never read here: it is the blind test.

Each phrase is embedded the way retain embeds a fact's own text ("speaker: text"), under a few
speakers. Logistic regression (L2, Newton steps) is fitted; the regularisation and the threshold
come from 5-fold cross-validation by phrase: the threshold is the lowest probability at which at
most 1 % of the held-out content phrases would be judged filler. The fold figures are printed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _embed_cache import DiskCachedEmbedder  # noqa: E402
from filler import CONTENT_ASSISTANT, CONTENT_USER, FILLER, NAMES_EN, NAMES_KO  # noqa: E402

from gieok.engine.retain.plan import embed_text  # noqa: E402  (the formula retain embeds with)
from gieok.extract.filler_model import FillerModel, file_name, short_enough  # noqa: E402

DATA = Path(__file__).parent / "data" / "filler_train.json"
MAX_WORDS = 12
SPEAKERS = {"ko": ["user", "assistant", "지민", "하준"], "en": ["user", "assistant", "Priya", "Mark"]}
CONTENT_LOSS = 0.01  # at most this share of held-out content judged filler


def phrases(path: Path) -> list[tuple[str, str, int]]:
    """(language, text, 1 if filler) for every training phrase, placeholders filled."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    rng = random.Random(3)
    out: list[tuple[str, str, int]] = []
    for lang in ("ko", "en"):
        names = NAMES_KO if lang == "ko" else NAMES_EN
        fill = {"name": "", "food": "땅콩", "place": "부산", "org": "카카오", "sport": "테니스", "item": "노트북",
                "name_en": "Tom", "food_en": "peanuts", "place_en": "Denver", "org_en": "Mayo Clinic",
                "sport_en": "tennis", "item_en": "blender"}
        filler = raw[lang]["filler"] + FILLER["tune"][lang] + FILLER["held-out"][lang]
        content = raw[lang]["content"] + CONTENT_USER[lang] + CONTENT_ASSISTANT[lang]
        for label, texts in ((1, filler), (0, content)):
            for text in dict.fromkeys(texts):
                fill["name"] = rng.choice(names)
                out.append((lang, text.format(**fill) if "{" in text else text, label))
    return [p for p in out if short_enough(p[1], MAX_WORDS)]


def fit(x: np.ndarray, y: np.ndarray, l2: float, steps: int = 30) -> tuple[np.ndarray, float]:
    """Logistic regression by Newton's method, classes weighted to balance."""
    n, d = x.shape
    xb = np.hstack([x, np.ones((n, 1))])
    w = np.zeros(d + 1)
    balance = np.where(y == 1, 0.5 / max(1, y.sum()), 0.5 / max(1, (1 - y).sum())) * n
    reg = np.full(d + 1, l2)
    reg[-1] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(xb @ w)))
        grad = xb.T @ (balance * (p - y)) + reg * w
        hess = (xb * (balance * p * (1 - p))[:, None]).T @ xb + np.diag(reg)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-6:
            break
    return w[:-1], float(w[-1])


def threshold_for(probabilities: np.ndarray, content_loss: float) -> float:
    """The lowest threshold judging at most ``content_loss`` of these content phrases filler."""
    ranked = np.sort(probabilities)[::-1]
    allowed = int(content_loss * len(ranked))
    return float(min(0.999, ranked[allowed] + 1e-6)) if len(ranked) else 0.5


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default="e5-small")
    parser.add_argument("--data", default=str(DATA))
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    items = phrases(Path(args.data))
    embedder = DiskCachedEmbedder(args.embedder)
    texts, labels = [], []
    for lang, text, label in items:
        for speaker in SPEAKERS[lang]:
            texts.append(embed_text(text, speaker))
            labels.append(label)
    x = embedder.embed(texts, "document")
    y = np.asarray(labels, dtype=np.float64)
    # cross-validation by phrase: a phrase's speakers stay on one side
    per = len(SPEAKERS["ko"])
    phrase_x = x.reshape(len(items), per, -1)
    phrase_y = y.reshape(len(items), per)[:, 0]
    print(f"{len(items)} phrases ({int(phrase_y.sum())} filler), {len(texts)} vectors")
    best: tuple[float, float, float] | None = None  # (filler caught, l2, threshold)
    for l2 in (0.03, 0.1, 0.3, 1.0, 3.0):
        p = out_of_fold(phrase_x, phrase_y, l2)
        t = threshold_for(p[phrase_y == 0].ravel(), CONTENT_LOSS)
        caught = float((p[phrase_y == 1] >= t).mean())
        print(f"l2 {l2:>5}: out of fold, at threshold {t:.3f} (content judged filler <= {CONTENT_LOSS:.0%}): "
              f"filler caught {caught:.3f}")
        if best is None or caught > best[0]:
            best = (caught, l2, t)
    assert best is not None
    _, l2, threshold = best
    w, b = fit(x, y, l2)
    model = FillerModel(embedder.model_id, w, b, round(threshold, 4), MAX_WORDS)
    out = Path(args.out or Path(__file__).resolve().parent.parent / "gieok" / "data" / file_name(embedder.model_id))
    out.write_text(model.to_json() + "\n", encoding="utf-8")
    print(f"l2 {l2}, threshold {model.threshold}: wrote {out}")
    return 0


def out_of_fold(phrase_x: np.ndarray, phrase_y: np.ndarray, l2: float, folds: int = 5) -> np.ndarray:
    """Each vector's P(filler) from a model fitted without its phrase (5 folds by phrase)."""
    order = np.random.default_rng(11).permutation(len(phrase_y))
    per, dim = phrase_x.shape[1], phrase_x.shape[2]
    out = np.zeros((len(phrase_y), per))
    for k in range(folds):
        test = order[k::folds]
        train = np.setdiff1d(order, test)
        w, b = fit(phrase_x[train].reshape(-1, dim), np.repeat(phrase_y[train], per), l2)
        out[test] = 1.0 / (1.0 + np.exp(-(phrase_x[test] @ w + b)))
    return out


if __name__ == "__main__":
    raise SystemExit(main())
