"""Train recall's learned ranker (gieok/engine/recall/rank_model.py) on the candidate pools.

    python bench/train_ranker.py [--measure] [--out gieok/data/ranker.json]

Reads the pools ``bench/ranker_pool.py`` wrote (run it first: ``make train-ranker`` does both) for
every training set — the public LoCoMo slice, the Korean multi-session set, the two ranker files and
the BEAM chats — never the blind file. A row's label is 1 when its sources cover an evidence turn of
its question. The model: LightGBM gradient-boosted trees with the LambdaRank objective (nDCG at 10),
a pool a query group; a linear pointwise model is fitted beside it for comparison (``--measure``).

Held-out figures (``--measure``) are leave-one-conversation-out: each LoCoMo and Korean conversation
and each BEAM chat is scored by a model trained on every other conversation of every set; the ranker
files' conversations in six groups of four. The hyper-parameters are chosen on those folds of the
ranker files only (their mean held-out R@10), so no reported set chose them. The ranking the code
had before (its ``order`` in the pool) is scored on the same pools beside it, with the in-sample
figure and the gap between them. The final model is fitted on every training set with the chosen
parameters and written as JSON; training is deterministic (fixed seed, one thread).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from _embed_cache import CACHE_DIR  # noqa: E402
from _locomo_data import ndcg_at, recall_at  # noqa: E402
from _ranker_data import TRAINING  # noqa: E402

from gieok.engine.recall.rank_model import FEATURES  # noqa: E402

POOLS = CACHE_DIR / "ranker"
OUT = ROOT / "gieok" / "data" / "ranker.json"
SEED = 20261205
# (trees, leaves, learning rate, min rows per leaf, depth): small, so that scoring a pool of a few
# hundred candidates stays within a millisecond or two (all trees are walked a level at a time)
GRID = [(60, 8, 0.08, 300, 3), (100, 8, 0.08, 200, 3), (150, 8, 0.05, 400, 3), (100, 8, 0.08, 50, 3),
        (100, 4, 0.08, 200, 2), (100, 16, 0.08, 100, 4), (40, 8, 0.1, 500, 3), (80, 4, 0.1, 500, 2)]
GAP = 0.02  # a grid point whose in-sample R@10 beats its held-out by more than this is passed over
Params = tuple[int, int, float, int, int]
K = 10


@dataclass
class Pools:
    """Every question's pool of one or more sets, rows grouped by question."""

    x: np.ndarray
    y: np.ndarray  # 1 when the row covers an evidence turn
    question: np.ndarray  # the row's question index
    order: np.ndarray  # its place in the pool as the code ranked it before
    covers: list[list[int]]
    questions: list[dict[str, object]]

    @classmethod
    def read(cls, names: tuple[str, ...] | list[str]) -> Pools:
        parts = []
        offset = 0
        for name, path in [(n, p) for n in names for p in _pool_files(n)]:
            data = np.load(path)
            questions = json.loads(str(data["questions"]))
            for q in questions:
                q["set"] = name
            parts.append((data["x"], data["question"] + offset, data["order"], json.loads(str(data["covers"])),
                          questions))
            offset += len(questions)
        covers = [c for p in parts for c in p[3]]
        return cls(np.vstack([p[0] for p in parts]), np.array([1.0 if c else 0.0 for c in covers]),
                   np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts]), covers,
                   [q for p in parts for q in p[4]])

    def rows_of(self, questions: set[int]) -> np.ndarray:
        return np.isin(self.question, list(questions))

    def group(self, rows: np.ndarray) -> list[int]:
        """LightGBM's query sizes for the selected rows (rows of one question are contiguous)."""
        _, counts = np.unique(self.question[rows], return_counts=True)
        return counts.tolist()


def _pool_files(name: str) -> list[Path]:
    """A set's pool file, or the parts it was built in (``<set>-<part>.pool.npz``)."""
    found = sorted(POOLS.glob(f"{name}.pool.npz")) + sorted(POOLS.glob(f"{name}-*.pool.npz"))
    if not found:
        raise SystemExit(f"{POOLS / name}.pool.npz is missing: run `python bench/ranker_pool.py --sets {name}` first")
    return found


def recall_scores(pools: Pools, scores: np.ndarray, questions: list[int], k: int = K) -> dict[int, float]:
    """Each question's evidence recall@k when its pool is ordered by ``scores`` (higher first)."""
    return {qi: recall_at(*_ranked(pools, scores, qi), k) for qi in questions}


def ndcg_scores(pools: Pools, scores: np.ndarray, questions: list[int], k: int = K) -> dict[int, float]:
    """Each question's nDCG@k, the same way."""
    return {qi: ndcg_at(*_ranked(pools, scores, qi), k) for qi in questions}


def _ranked(pools: Pools, scores: np.ndarray, qi: int) -> tuple[list[list[str]], list[str]]:
    """A question's pool ordered by ``scores``, as bench/_locomo_data.py's metrics read a ranking: each
    row's evidence turns (by index), and the question's evidence."""
    rows = _rows_by_question(pools)[qi]
    ranked = [[str(e) for e in pools.covers[r]] for r in rows[np.argsort(-scores[rows], kind="stable")]]
    return ranked, [str(e) for e in range(int(pools.questions[qi]["evidence"]))]  # type: ignore[call-overload]


_BY_QUESTION: dict[int, dict[int, np.ndarray]] = {}


def _rows_by_question(pools: Pools) -> dict[int, np.ndarray]:
    key = id(pools)
    if key not in _BY_QUESTION:
        groups: dict[int, list[int]] = defaultdict(list)
        for row, qi in enumerate(pools.question.tolist()):
            groups[qi].append(row)
        _BY_QUESTION[key] = {qi: np.array(rows) for qi, rows in groups.items()}
    return _BY_QUESTION[key]


def fit_trees(pools: Pools, rows: np.ndarray, params: Params):  # type: ignore[no-untyped-def]
    import lightgbm as lgb

    trees, leaves, rate, min_rows, depth = params
    data = lgb.Dataset(pools.x[rows], pools.y[rows], group=pools.group(rows), feature_name=list(FEATURES),
                       free_raw_data=False)
    config = {"objective": "lambdarank", "metric": "ndcg", "ndcg_eval_at": [K], "num_leaves": leaves,
              "max_depth": depth, "learning_rate": rate, "min_data_in_leaf": min_rows, "feature_fraction": 0.8,
              "bagging_fraction": 0.8, "bagging_freq": 1, "lambdarank_truncation_level": 20,
              "seed": SEED, "deterministic": True, "num_threads": 1, "verbose": -1, "force_row_wise": True}
    return lgb.train(config, data, num_boost_round=trees)


def fit_linear(pools: Pools, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pointwise logistic regression (L2, Newton steps) over standardised features."""
    x = pools.x[rows]
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    y = pools.y[rows]
    w = np.zeros(z.shape[1])
    for _ in range(25):
        p = 1 / (1 + np.exp(-z @ w))
        gradient = z.T @ (p - y) + 1.0 * w
        hessian = (z * (p * (1 - p))[:, None]).T @ z + np.eye(len(w))
        w -= np.linalg.solve(hessian, gradient)
    return w, mean, scale


def folds(pools: Pools) -> list[tuple[str, set[int]]]:
    """(fold name, held-out questions): a conversation of LoCoMo, Korean and BEAM; groups of four
    conversations of the ranker files."""
    by_conv: dict[tuple[str, str], set[int]] = defaultdict(set)
    for qi, q in enumerate(pools.questions):
        by_conv[(str(q["set"]), str(q["conversation"]))].add(qi)
    out = []
    ranker_convs = sorted(c for c in by_conv if c[0] in ("train_a", "train_b"))
    for (name, conv), qs in sorted(by_conv.items()):
        if name not in ("train_a", "train_b"):
            out.append((f"{name}/{conv}", qs))
    for g in range(6):
        chosen = ranker_convs[g::6]
        out.append((f"ranker/group{g}", set().union(*(by_conv[c] for c in chosen))))
    return out


def held_out(pools: Pools, params: Params, only: set[str] | None = None,
             linear: bool = False) -> np.ndarray:
    """Scores of every row by a model that never saw its conversation (NaN outside ``only`` sets)."""
    scores = np.full(len(pools.x), np.nan)
    for name, questions in folds(pools):
        if only is not None and name.split("/")[0] not in only:
            continue
        test = pools.rows_of(questions)
        if linear:
            w, mean, scale = fit_linear(pools, ~test)
            scores[test] = ((pools.x[test] - mean) / scale) @ w[:-1]
        else:
            scores[test] = fit_trees(pools, ~test, params).predict(pools.x[test])
    return scores


def report(pools: Pools, systems: dict[str, np.ndarray]) -> dict[str, dict[str, float]]:
    """R@10 per set and category for each system (rows scored NaN are skipped), printed as markdown."""
    table: dict[str, dict[str, float]] = {}
    for system, scores in systems.items():
        asked = [qi for qi in range(len(pools.questions)) if not np.isnan(scores[pools.question == qi]).any()]
        r10, nd = recall_scores(pools, scores, asked), ndcg_scores(pools, scores, asked)
        cells: dict[str, list[float]] = defaultdict(list)
        for qi in asked:
            q = pools.questions[qi]
            for bucket in ("all", str(q["set"]), f"{q['set']}:{q['category']}"):
                cells[f"{bucket} R@10"].append(r10[qi])
                cells[f"{bucket} nDCG@10"].append(nd[qi])
        table[system] = {key: float(np.mean(v)) for key, v in sorted(cells.items())}
    keys = sorted({k for t in table.values() for k in t})
    print("| measure | " + " | ".join(table) + " |")
    print("|---|" + "---:|" * len(table))
    for key in keys:
        print(f"| {key} | " + " | ".join(f"{t.get(key, float('nan')):.3f}" for t in table.values()) + " |")
    return table


def export(booster) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """The booster as the flat arrays RankModel reads (a negative child ~i is leaf i)."""
    return {"features": list(FEATURES), "bias": 0.0,
            "trees": [flatten(info["tree_structure"]) for info in booster.dump_model()["tree_info"]]}


def flatten(root: dict[str, Any]) -> dict[str, list[Any]]:
    """One LightGBM tree (nested dicts) as arrays: split feature, threshold, children, node value, leaves."""
    tree: dict[str, list[Any]] = {k: [] for k in ("feature", "threshold", "left", "right", "value", "leaf")}

    def walk(node: dict[str, Any]) -> int:
        if "leaf_value" in node:
            tree["leaf"].append(float(node["leaf_value"]))
            return ~(len(tree["leaf"]) - 1)
        if node.get("decision_type") != "<=":
            raise SystemExit(f"unexpected split {node.get('decision_type')}")
        at = len(tree["feature"])
        tree["feature"].append(int(node["split_feature"]))
        tree["threshold"].append(float(node["threshold"]))
        tree["value"].append(float(node["internal_value"]))
        tree["left"].append(0)
        tree["right"].append(0)
        tree["left"][at] = walk(node["left_child"])
        tree["right"][at] = walk(node["right_child"])
        return at

    top = walk(root)
    if top < 0:  # a tree of one leaf: a constant
        tree.update(feature=[0], threshold=[float("inf")], left=[top], right=[top], value=[tree["leaf"][0]])
    return tree


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--measure", action="store_true",
                        help="print the held-out folds, the blind split and the pool's ceiling")
    parser.add_argument("--dry-run", action="store_true", help="write no model")
    parser.add_argument("--baselines", default="locomo,korean,beam,blind",
                        help="sets to run the baselines on (the first run on BEAM embeds its long messages: ~30 min)")
    parser.add_argument("--params", default=None,
                        help="trees,leaves,rate,min rows,depth (default: chosen on the folds)")
    parser.add_argument("--sets", default=",".join(TRAINING))
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    pools = Pools.read([s for s in args.sets.split(",") if s])
    print(f"{len(pools.questions)} questions, {len(pools.x)} candidates, {int(pools.y.sum())} covering evidence")
    if args.params:
        trees, leaves, rate, min_rows, depth = args.params.split(",")
        params = (int(trees), int(leaves), float(rate), int(min_rows), int(depth))
    else:
        params = choose_params(pools)
    print(f"parameters (trees, leaves, rate, min rows, depth): {params}")
    booster = fit_trees(pools, np.ones(len(pools.x), dtype=bool), params)
    if args.measure:
        measure(pools, params, booster, [b for b in args.baselines.split(",") if b])
    if not args.dry_run:
        Path(args.out).write_text(json.dumps(export(booster), separators=(",", ":")) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")


def choose_params(pools: Pools) -> Params:
    """The grid point with the best mean held-out R@10 on the ranker files' folds, among those whose
    in-sample R@10 on those questions (fitted on every training set, as the shipped model is) is
    within ``GAP`` of it; the largest held-out if none is."""
    ranker_qs = [qi for qi, q in enumerate(pools.questions) if q["set"] in ("train_a", "train_b")]
    everything = np.ones(len(pools.x), dtype=bool)
    scored = []
    for params in GRID:
        start = time.perf_counter()
        held = float(np.mean(list(recall_scores(pools, held_out(pools, params, only={"ranker"}), ranker_qs).values())))
        inside = fit_trees(pools, everything, params).predict(pools.x)
        gap = float(np.mean(list(recall_scores(pools, inside, ranker_qs).values()))) - held
        print(f"  {params}: ranker folds R@10 {held:.4f}, in-sample gap {gap:+.4f} "
              f"({time.perf_counter() - start:.0f} s)")
        scored.append((gap <= GAP, held, params))
    return max(scored, key=lambda t: (t[0], t[1]))[2]


def baselines(pools: Pools, names: list[str]) -> dict[str, dict[int, float]]:
    """BM25, e5-small dense and their hybrid (RRF k = 60), as bench/locomo.py runs them, on the same
    questions: per system, each question's R@10 (by its index in ``pools``)."""
    from _embed_cache import DiskCachedEmbedder
    from _ranker_data import load_set
    from locomo import baselines as baseline_rankers

    embedder = DiskCachedEmbedder("e5-small")
    out: dict[str, dict[int, float]] = defaultdict(dict)
    index = {(str(q["set"]), str(q["conversation"]), str(q["question"])): qi for qi, q in enumerate(pools.questions)}
    for name in names:
        for conv in load_set(name):
            rankers = baseline_rankers(conv, embedder)
            conv_id = f"ko-{conv.id}" if name == "korean" and not conv.id.startswith("ko-") else conv.id
            for q in conv.questions:
                qi = index.get((name, conv_id, q.question))
                if qi is None:
                    continue
                for system in ("BM25", "dense", "hybrid RRF"):
                    out[system][qi] = recall_at(rankers[system](q.question), q.evidence, K)
    return out


def versus_baselines(pools: Pools, scores: np.ndarray, names: list[str]) -> None:
    """The held-out ranker beside the best baseline on each set, in the same run."""
    systems = baselines(pools, names)
    rows = _rows_by_question(pools)
    ours = recall_scores(pools, scores, [qi for qi, r in rows.items() if not np.isnan(scores[r]).any()])
    for name in names:
        asked = [qi for qi, q in enumerate(pools.questions) if q["set"] == name and qi in ours]
        if not asked:
            continue
        mine = float(np.mean([ours[qi] for qi in asked]))
        cells = {system: float(np.mean([found[qi] for qi in asked if qi in found]))
                 for system, found in systems.items()}
        best = max(cells, key=lambda k: cells[k])
        print(f"{name}: ranker {mine:.3f}; " + ", ".join(f"{k} {v:.3f}" for k, v in cells.items())
              + f"; ranker minus best baseline ({best}) {mine - cells[best]:+.3f}")
        for category in sorted({str(pools.questions[qi]["category"]) for qi in asked}):
            inside = [qi for qi in asked if pools.questions[qi]["category"] == category]
            top = max(float(np.mean([found[qi] for qi in inside if qi in found])) for found in systems.values())
            print(f"  {category}: ranker {np.mean([ours[qi] for qi in inside]):.3f}, best baseline {top:.3f}")


def hand_tuned(pools: Pools) -> None:
    """The hand-tuned multipliers' figures on the same questions, as measured before they were deleted
    (``before_hand_tuned.json`` beside the pools: per question R@10 and nDCG@10 at commit 45a266d)."""
    path = POOLS / "before_hand_tuned.json"
    if not path.exists():
        return
    saved = json.loads(path.read_text(encoding="utf-8"))
    cells: dict[str, list[float]] = defaultdict(list)
    counts: dict[str, int] = defaultdict(int)
    for q in pools.questions:
        name = str(q["set"])
        i = counts[name]
        counts[name] += 1
        if name in saved and i < len(saved[name]["r10"]) and saved[name]["questions"][i] == q["question"]:
            for bucket in ("all", name, f"{name}:{q['category']}"):
                cells[f"{bucket} R@10"].append(saved[name]["r10"][i])
    print("hand-tuned multipliers (45a266d): " + ", ".join(f"{k} {np.mean(v):.3f}" for k, v in sorted(cells.items())))


def measure(pools: Pools, params: Params, booster, with_baselines: list[str]) -> None:  # type: ignore[no-untyped-def]
    """Held out and in-sample beside the code's previous ranking; then the blind file, scored by the
    model fitted on every training set; then the pool's ceiling (recall@100 and the whole pool)."""
    before = -pools.order.astype(float)
    print("\n## Held out: leave one conversation out (R@10, nDCG@10)\n")
    hand_tuned(pools)
    held_scores = held_out(pools, params)
    held = report(pools, {"plain RRF": before, "trees held out": held_scores,
                          "linear held out": held_out(pools, params, linear=True),
                          "trees in-sample": booster.predict(pools.x)})
    print("\n## Against the baselines, same questions, same run (held-out ranker)\n")
    present = {str(q["set"]) for q in pools.questions} & set(with_baselines)
    versus_baselines(pools, held_scores, [n for n in ("locomo", "korean", "beam") if n in present])
    print()
    for key in ("all R@10", *[f"{name} R@10" for name in TRAINING]):
        if key in held["trees held out"]:
            gap = held["trees in-sample"][key] - held["trees held out"][key]
            print(f"in-sample minus held-out, {key}: {gap:+.3f}")
    blind_path = POOLS / "blind.pool.npz"
    if blind_path.exists():
        blind = Pools.read(["blind"])
        print("\n## Blind split (bench/data/ranker_blind.jsonl, never trained or tuned on)\n")
        hand_tuned(blind)
        blind_scores = booster.predict(blind.x)
        report(blind, {"plain RRF": -blind.order.astype(float), "trees": blind_scores})
        if "blind" in with_baselines:
            versus_baselines(blind, blind_scores, ["blind"])
    print("\n## The pool's ceiling: evidence recall of the first 100 candidates and of the whole pool\n")
    everything = [qi for qi in range(len(pools.questions))]
    for k in (10, 100, 10**9):
        found = recall_scores(pools, before, everything, k=k)
        cells: dict[str, list[float]] = defaultdict(list)
        for qi, value in found.items():
            q = pools.questions[qi]
            cells[str(q["set"])].append(value)
            cells[f"{q['set']}:{q['category']}"].append(value)
        label = "whole pool" if k == 10**9 else f"R@{k} (before)"
        print(f"{label}: " + ", ".join(f"{key} {np.mean(v):.3f}" for key, v in sorted(cells.items())))


if __name__ == "__main__":
    main()
