"""An experiment toward the decision model's update head: does a later statement update an earlier
one? A classifier of the pair, compared with the supersede rules (``gieok.lifecycle.detect_update``,
which answer the decision task ``updates`` offline) on pairs nobody wrote either from.

    python bench/train_updates.py [--precision 0.9] [--chat 700] [--out updates.npz]   # make bench-updates

Training pairs, all by one speaker:

* **written** — ``bench/data/supersede_train.jsonl`` and ``supersede_pairs.json`` splits ``tune``,
  ``held-out`` and ``fresh``: two statements on one topic, about half updates;
* **crossed** — two per written pair: its later statement after the earlier statement of another
  written pair of the same language (another attribute where both say which), labelled no. Retain
  asks about such pairs all the time, and without them a head learns that any pair is an update;
* **chat** — statements of one speaker in real chats, each after the same speaker's previous one or
  two turns in the same session, labelled no (they almost never update each other):
  ``bench/data/korean_multisession.json`` (Korean) and the BEAM chats' user turns (English). LoCoMo is
  left out: ``bench/supersede.py --locomo`` measures closures there.

L2 logistic regression (``bench/_sparse.py``) over the pair's features (``bench/_update_pairs.py``).
Five fixed folds (by a hash of the later statement, so the pairs sharing one sit in one fold) choose
the regularisation by out-of-fold log loss and the bar: the lowest probability whose out-of-fold
precision over every training pair reaches ``--precision`` (a false update hides a fact that is still
true; the curve at other precisions is printed). The head is then fitted on every pair and written
as a float16 npz (``--out``, else a temporary file); the report uses those rounded weights.

The engine does not use the head: it does not beat the rules' precision on the blind pairs
(docs/benchmarks/supersede.md, "A head of the pair").

Reports, on the blind ``supersede_blind.jsonl`` and ``fresh-2`` (never used to choose a feature, a
weight or a bar), the head's and the rules' precision and recall per language.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _sparse import Sparse, design, fit, log_loss  # noqa: E402
from _update_pairs import EMBEDDER, UpdateModel, dense_features, lexical_features, load, standardised  # noqa: E402

from gieok.lifecycle import detect_update  # noqa: E402
from gieok.text.sentences import split_sentences  # noqa: E402

DATA = ROOT / "bench" / "data"
RULES_BAR = 0.5  # the engine's MIN_CONFIDENCE when the rules decided
FOLDS = 5
Pair = dict[str, object]


def pairs(path: Path, splits: tuple[str, ...] | None = None) -> list[Pair]:
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    items = json.loads(path.read_text(encoding="utf-8"))
    return [p for p in items if splits is None or p["split"] in splits]


def crossed(items: Sequence[Pair], per_pair: int = 2) -> list[Pair]:
    """``per_pair`` made-up no pairs per written pair: its later statement after another written
    pair's earlier one, of the same language and (where both say) another attribute."""
    rng = np.random.default_rng(20261206)
    out: list[Pair] = []
    for language in ("ko", "en"):
        index = [i for i, p in enumerate(items) if p["language"] == language]
        for i in index:
            made = 0
            for j in rng.permutation(index):
                a, b = items[i], items[int(j)]
                if made == per_pair:
                    break
                if a["old"] == b["old"] or (a.get("attribute") and a.get("attribute") == b.get("attribute")):
                    continue
                out.append({"old": b["old"], "new": a["new"], "update": False, "language": language, "kind": "crossed"})
                made += 1
    return out


def _statements(text: str) -> list[str]:
    """A turn's sentences, and the whole turn when it has several: retain keeps a chat message of a
    few sentences as one fact. Code and pasted text (past 200 characters a sentence, 600 a turn) left out."""
    sentences = [text[s:e].strip() for s, e in split_sentences(text) if 8 <= len(text[s:e].strip()) <= 200]
    whole = text.strip()
    return sentences + ([whole] if len(sentences) > 1 and len(whole) <= 600 else [])


def chat_pairs(turns: Sequence[tuple[str, str, str]], language: str, limit: int) -> list[Pair]:
    """(session, speaker, text) turns in order -> no pairs: each statement after the same speaker's
    statements in their previous one or two turns of the session, and after the previous sentence
    of its own turn."""
    out: list[Pair] = []
    history: dict[tuple[str, str], list[list[str]]] = {}
    for session, speaker, text in turns:
        said = _statements(text)
        earlier = history.setdefault((session, speaker), [])
        for k, statement in enumerate(said):
            before = ([said[k - 1]] if k else []) + [s for turn in earlier[-2:] for s in turn[-1:]]
            out.extend({"old": o, "new": statement, "update": False, "language": language, "kind": "chat"}
                       for o in before)
        earlier.append(said)
    rng = np.random.default_rng(20261207)
    return [out[i] for i in sorted(rng.permutation(len(out))[:limit])]


def korean_chat(limit: int) -> list[Pair]:
    turns: list[tuple[str, str, str]] = []
    for sample in json.loads((DATA / "korean_multisession.json").read_text(encoding="utf-8")):
        conversation = sample["conversation"]
        for key, value in conversation.items():
            if key.startswith("session_") and isinstance(value, list):
                turns += [(f"{sample['sample_id']}/{key}", t["speaker"], t["text"]) for t in value]
    return chat_pairs(turns, "ko", limit)


def beam_chat(limit: int) -> list[Pair]:
    from _beam_data import load

    turns: list[tuple[str, str, str]] = []
    for conversation in load():
        turns += [(f"{conversation.id}/{t.timestamp[:10]}", t.speaker, t.text) for t in conversation.turns
                  if t.speaker == "user"]
    return chat_pairs(turns, "en", limit)


def embedder() -> object:
    from _embed_cache import DiskCachedEmbedder

    return DiskCachedEmbedder(EMBEDDER)


def featurise(items: Sequence[Pair], embed: object) -> tuple[list[dict[str, float]], np.ndarray]:
    texts = sorted({str(p[k]) for p in items for k in ("old", "new")})
    vectors = dict(zip(texts, embed.embed(texts, "document"), strict=True))  # type: ignore[attr-defined]
    dense = np.stack([dense_features(vectors[str(p["old"])], vectors[str(p["new"])]) for p in items])
    lexical = [lexical_features(str(p["old"]), str(p["new"]), "user", "user", float(d[0]))
               for p, d in zip(items, dense, strict=True)]
    return lexical, dense


class Stacked:
    """The named features (sparse) beside the dense block, as ``_sparse.fit`` reads a matrix."""

    def __init__(self, lexical: Sparse, dense: np.ndarray) -> None:
        self.lexical, self.dense = lexical, dense
        self.shape = (lexical.shape[0], lexical.shape[1] + dense.shape[1])

    def dot(self, w: np.ndarray) -> np.ndarray:
        return np.asarray(self.lexical.dot(w[:self.lexical.shape[1]]) + self.dense @ w[self.lexical.shape[1]:])

    def tdot(self, g: np.ndarray) -> np.ndarray:
        return np.concatenate([self.lexical.tdot(g), self.dense.T @ g])


def train(table: Sequence[dict[str, float]], dense: np.ndarray, y: np.ndarray, l2: float) -> UpdateModel:
    mean, scale = dense.mean(axis=0), np.maximum(dense.std(axis=0), 1e-6)
    lexical, vocabulary = design(list(table), min_count=3)
    w, b = fit(Stacked(lexical, standardised(dense, mean, scale)), y.astype(float), l2)  # type: ignore[arg-type]
    return UpdateModel(vocabulary, w[:len(vocabulary)], w[len(vocabulary):], float(b), mean, scale, 0.5)


def scores(model: UpdateModel, table: Sequence[dict[str, float]], dense: np.ndarray) -> np.ndarray:
    lexical, _ = design(list(table), model.vocabulary)
    z = lexical.dot(model.lexical) + standardised(dense, model.mean, model.scale) @ model.dense + model.bias
    return np.asarray(1 / (1 + np.exp(-z)))


def rates(predicted: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    closes = predicted.sum()
    right = (predicted & truth).sum()
    return (float(right / closes) if closes else 1.0), (float(right / truth.sum()) if truth.sum() else 1.0)


def folds(items: Sequence[Pair]) -> np.ndarray:
    return np.array([int(hashlib.sha256(str(p["new"]).encode()).hexdigest(), 16) % FOLDS for p in items])


def choose(items: Sequence[Pair], table: list[dict[str, float]], dense: np.ndarray, y: np.ndarray,
           precision: float) -> tuple[float, float]:
    """(l2, bar) from the out-of-fold probabilities; prints what they give per kind of pair."""
    fold = folds(items)
    best: tuple[float, float, np.ndarray] | None = None
    for l2 in (1e-5, 1e-4):
        oof = np.zeros(len(items))
        for k in range(FOLDS):
            rest, held = np.flatnonzero(fold != k), np.flatnonzero(fold == k)
            model = train([table[i] for i in rest], dense[rest], y[rest], l2)
            oof[held] = scores(model, [table[i] for i in held], dense[held])
        loss = log_loss(y, oof)
        print(f"l2 {l2:g}: out-of-fold log loss {loss:.4f}")
        if best is None or loss < best[0]:
            best = (loss, l2, oof)
    assert best is not None
    _, l2, oof = best
    bar = next((float(c) for c in np.sort(np.unique(oof)) if rates(oof >= c, y)[0] >= precision), 0.99)
    kinds = np.array([str(p.get("kind", "written")) for p in items])
    written = kinds == "written"
    for target in (0.8, 0.85, 0.9, 0.95):
        at = next((float(c) for c in np.sort(np.unique(oof)) if rates(oof >= c, y)[0] >= target), 0.99)
        p, r = rates(oof[written] >= at, y[written])
        shut = {k: int((oof[kinds == k] >= at).sum()) for k in ("crossed", "chat")}
        print(f"  precision {target} over every pair: bar {at:.3f}, written P {p:.3f} R {r:.3f}, "
              f"crossed closed {shut['crossed']}, chat {shut['chat']}")
    p, r = rates(oof[written] >= bar, y[written])
    closed = {k: f"{int((oof[kinds == k] >= bar).sum())} of {int((kinds == k).sum())}" for k in ("crossed", "chat")}
    print(f"l2 {l2:g}, bar {bar:.3f}: out of fold on the written pairs precision {p:.3f} recall {r:.3f}; "
          f"closed: crossed {closed['crossed']}, chat {closed['chat']}")
    return l2, bar


def report(model: UpdateModel, embed: object) -> None:
    print("| set | language | pairs | head P / R | rules (the engine's) P / R |")
    print("|---|---|---:|---|---|")
    for name, test in (("supersede_blind.jsonl", pairs(DATA / "supersede_blind.jsonl")),
                       ("fresh-2", pairs(DATA / "supersede_pairs.json", ("fresh-2",)))):
        table, dense = featurise(test, embed)
        said = scores(model, table, dense) >= model.threshold
        for language in ("ko", "en", None):
            chosen = np.array([language is None or t["language"] == language for t in test])
            truth = np.array([bool(t["update"]) for t in test])[chosen]
            head = rates(said[chosen], truth)
            verdicts = [detect_update(str(t["old"]), str(t["new"])) for t, c in zip(test, chosen, strict=True) if c]
            rules = rates(np.array([v is not None and v.confidence >= RULES_BAR for v in verdicts]), truth)
            print(f"| {name} | {language or 'all'} | {int(chosen.sum())} | {head[0]:.3f} / {head[1]:.3f} | "
                  f"{rules[0]:.3f} / {rules[1]:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--precision", type=float, default=0.9)
    parser.add_argument("--chat", type=int, default=700, help="real-chat no pairs per language")
    parser.add_argument("--out", type=Path, default=None, help="write the weights here (float16 npz)")
    args = parser.parse_args()
    embed = embedder()
    written = (pairs(DATA / "supersede_train.jsonl")
               + pairs(DATA / "supersede_pairs.json", ("tune", "held-out", "fresh")))
    items = written + crossed(written) + korean_chat(args.chat) + beam_chat(args.chat)
    y = np.array([bool(p["update"]) for p in items])
    print(f"{len(written)} written pairs ({int(y.sum())} updates) + {len(items) - len(written)} "
          "made-up and chat no pairs")
    table, dense = featurise(items, embed)
    l2, bar = choose(items, table, dense, y, args.precision)
    fitted = train(table, dense, y, l2)
    model = UpdateModel(fitted.vocabulary, fitted.lexical, fitted.dense, fitted.bias, fitted.mean, fitted.scale, bar)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(args.out) if args.out is not None else Path(directory) / "updates.npz"
        model.save(str(path))
        model = load(path)  # report what would ship: the float16 weights
    report(model, embed)


if __name__ == "__main__":
    main()
