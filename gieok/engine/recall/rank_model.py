"""Recall's learned ranker: each candidate's feature vector, and the model that orders the pool by it.

The channels nominate a pool (a few hundred facts); the ranker orders it. Every feature is read from
what the channels and the scoring stage already hold — nothing here touches the store or the
embedder — and is made comparable across queries and embedders: a channel's rank as its reciprocal,
a cosine as its distance below the pool's best and its z-score within the pool, BM25 as a fraction of
the query's best, an age as its place among the pool's ages. The model is a small set of
gradient-boosted regression trees (LambdaRank objective) trained by ``bench/train_ranker.py`` on
conversations written or published for it, and shipped as ``gieok/data/ranker.json``; evaluating it is
a few hundred comparisons per candidate in numpy. ``explain=True`` shows each feature's contribution
to a memory's score (the change in the trees' output along its path, attributed to the feature split
on: the contributions and the bias sum to the score).
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gieok.errors import ConfigError
from gieok.records import ChannelHit
from gieok.text.korean import has_hangul

__all__ = ["FEATURES", "PoolQuery", "RankModel", "feature_matrix", "ranker"]

_DAY = 86400.0
_MODEL = Path(__file__).resolve().parent.parent.parent / "data" / "ranker.json"
_HOUR = 3600.0
# "지금 어디 살아?" / "where does she live now?" ask for the present state
_ASKS_FOR_NOW = re.compile(r"지금|현재|요즘|요새|\b(?:now|currently|these days|nowadays)\b", re.IGNORECASE)
# "언제 갔어?" / "when did she go?" ask for a date
_ASKS_WHEN = re.compile(r"언제|며칠|몇 ?월|몇 ?년|무슨 요일|\b(?:when|what (?:date|day|year|month|time))\b",
                        re.IGNORECASE)

FEATURES = (
    "semantic_rr", "keyword_rr", "graph_rr", "temporal_rr", "profile_rr",  # 1 / rank in each channel (0: absent)
    "channels",  # how many channels found it
    "rrf",  # the channels' reciprocal ranks fused at k = 20, equal weights
    "cosine_gap",  # the pool's best cosine minus its own (0 for the best)
    "cosine_z",  # its cosine's z-score within the pool
    "keyword_share",  # its BM25 score over the query's best BM25 score (0: keyword channel missed it)
    "graph_score",  # the graph channel's raw score
    "age_place",  # 0 for the pool's newest memory, 1 for its oldest
    "log_age_days",
    "time_range", "time_closeness",  # whether the query names a time range; 1.0 inside it, less further away
    "support",  # log(1 + semantic links to it from the other candidates)
    "strength", "importance",
    "names_speaker",  # the query names one speaker of the candidates, and it is theirs
    "other_speaker",  # the query names one speaker, and someone else said it
    "question_only",  # a question and nothing else ("What do you think?")
    "replaced", "replacement_in_pool",  # a later statement replaced it / and that statement is a candidate too
    "replaces_in_pool",  # it replaced another candidate
    "same_message", "message_place",  # how many candidates share its message; its place among them by rrf
    "log_tokens",
    "query_korean", "memory_korean",
    "asks_now", "asks_history",  # "지금 …?" / "원래 …?"
    "chunk", "observation",  # a document section / a consolidated observation (else a conversation fact)
    "scope_weight",  # the ``scopes=`` weight (1.0 without weights)
    "same_time",  # log(1 + other candidates said within the hour of it: its session, in a chat)
    "session_top",  # how many of the pool's first ten (by rrf) were said within the hour of it
    "session_best",  # the best cosine z-score among the candidates said in its hour (its session's pull)
    "session_rrf",  # log(1 + the rrf of every candidate said in its hour)
    "asks_when",  # "언제 …?" / "when …?": the answer is a date
    "query_words",  # log(1 + the question's words)
)
_INDEX = {name: i for i, name in enumerate(FEATURES)}
_CHANNELS = ("semantic", "keyword", "graph", "temporal", "profile")
_RRF_K = 20


@dataclass(frozen=True)
class PoolQuery:
    """What the ranker needs to know of the question itself."""

    text: str
    time_range: bool
    history: bool  # the question asks for replaced versions


@dataclass(slots=True)  # built for every candidate of every recall: not frozen, which is slower to build
class PoolItem:
    """One candidate as the ranker reads it (a fact's :class:`~gieok.engine.recall.score.Features`, or an
    observation with its one channel)."""

    hits: Mapping[str, ChannelHit]  # channel -> its rank (1 = best) and raw score
    cosine: float | None
    said_at: float | None
    now_ts: float
    time_closeness: float | None
    support: int
    strength: float
    importance: float
    speaker_named: bool
    other_speaker: bool
    question_only: bool
    replaced: bool
    fact_id: int | None
    superseded_by: int | None
    message_key: tuple[object, ...] | None
    tokens: int
    text: str
    chunk: bool
    observation: bool
    scope_weight: float


def feature_matrix(items: Sequence[PoolItem], query: PoolQuery) -> np.ndarray:
    """The pool's feature vectors, one row per item, columns in :data:`FEATURES` order."""
    n = len(items)
    x = np.zeros((n, len(FEATURES)), dtype=np.float64)
    if not n:
        return x
    _channel_columns(x, items)
    _cosine_columns(x, items)
    ages = np.array([max(0.0, it.now_ts - (it.said_at if it.said_at is not None else it.now_ts)) / _DAY
                     for it in items])
    order = np.argsort(np.argsort(ages, kind="stable"), kind="stable")
    x[:, _INDEX["age_place"]] = order / max(1, n - 1)
    x[:, _INDEX["log_age_days"]] = np.log1p(ages)
    _message_columns(x, items)
    _session_columns(x, items)
    in_pool = {it.fact_id for it in items if it.fact_id is not None}
    replaced_ones = {it.superseded_by for it in items if it.superseded_by is not None}
    history = query.history
    now = _ASKS_FOR_NOW.search(query.text) is not None and not history
    constant = {"time_range": query.time_range, "query_korean": has_hangul(query.text), "asks_now": now,
                "asks_history": history, "asks_when": _ASKS_WHEN.search(query.text) is not None,
                "query_words": math.log1p(len(query.text.split()))}
    for name, value in constant.items():
        x[:, _INDEX[name]] = float(value)
    columns: dict[str, list[float] | list[bool]] = {
        "time_closeness": [it.time_closeness or 0.0 for it in items],
        "support": [math.log1p(it.support) for it in items],
        "strength": [it.strength for it in items], "importance": [it.importance for it in items],
        "names_speaker": [it.speaker_named for it in items], "other_speaker": [it.other_speaker for it in items],
        "question_only": [it.question_only for it in items], "replaced": [it.replaced for it in items],
        "replacement_in_pool": [it.replaced and it.superseded_by in in_pool for it in items],
        "replaces_in_pool": [it.fact_id is not None and it.fact_id in replaced_ones for it in items],
        "log_tokens": [math.log1p(it.tokens) for it in items],
        "memory_korean": [has_hangul(it.text) for it in items], "chunk": [it.chunk for it in items],
        "observation": [it.observation for it in items], "scope_weight": [it.scope_weight for it in items],
    }
    for name, values in columns.items():
        x[:, _INDEX[name]] = values
    return x


def _channel_columns(x: np.ndarray, items: Sequence[PoolItem]) -> None:
    keyword = [h.score if (h := it.hits.get("keyword")) is not None else 0.0 for it in items]
    best_keyword = max(keyword, default=0.0)
    if best_keyword > 0:
        x[:, _INDEX["keyword_share"]] = np.array(keyword) / best_keyword
    x[:, _INDEX["graph_score"]] = [h.score if (h := it.hits.get("graph")) is not None else 0.0 for it in items]
    x[:, _INDEX["channels"]] = [len(it.hits) for it in items]
    rrf = np.zeros(len(items))
    for channel in (*_CHANNELS, "observation"):
        # an observation's one list stands where the semantic channel's would
        column = _INDEX["semantic_rr" if channel == "observation" else f"{channel}_rr"]
        ranks = np.array([h.rank if (h := it.hits.get(channel)) is not None else 0 for it in items], dtype=np.float64)
        found = ranks > 0
        if found.any():
            x[found, column] = 1.0 / ranks[found]
            rrf[found] += 1.0 / (_RRF_K + ranks[found])
    x[:, _INDEX["rrf"]] = rrf * _RRF_K


def _cosine_columns(x: np.ndarray, items: Sequence[PoolItem]) -> None:
    known = [it.cosine for it in items if it.cosine is not None]
    if not known:
        return
    floor = min(known)
    cosines = np.array([it.cosine if it.cosine is not None else floor for it in items])
    spread = float(cosines.std())
    x[:, _INDEX["cosine_gap"]] = cosines.max() - cosines
    x[:, _INDEX["cosine_z"]] = (cosines - cosines.mean()) / spread if spread > 1e-9 else 0.0


def _message_columns(x: np.ndarray, items: Sequence[PoolItem]) -> None:
    """How many candidates came from the same message, and each one's place among them (by rrf)."""
    keys = [it.message_key for it in items]
    counts = Counter(k for k in keys if k is not None)
    seen: Counter[tuple[object, ...]] = Counter()
    for row in np.argsort(-x[:, _INDEX["rrf"]], kind="stable"):
        key = keys[row]
        if key is None:
            continue
        x[row, _INDEX["same_message"]] = math.log(counts[key])
        x[row, _INDEX["message_place"]] = seen[key]
        seen[key] += 1


def _session_columns(x: np.ndarray, items: Sequence[PoolItem]) -> None:
    """Who else in the pool was said in the same hour: a chat's session, read from the clock alone."""
    said = np.array([it.said_at if it.said_at is not None else np.nan for it in items])
    known = ~np.isnan(said)
    if not known.any():
        return
    order = np.argsort(np.where(known, said, np.inf), kind="stable")
    times = said[order]
    n_known = int(known.sum())
    lo = np.searchsorted(times[:n_known], times[:n_known] - _HOUR, side="left")
    hi = np.searchsorted(times[:n_known], times[:n_known] + _HOUR, side="right")
    near = np.zeros(len(items))
    near[order[:n_known]] = hi - lo - 1
    x[:, _INDEX["same_time"]] = np.log1p(near)
    # the pool's candidates grouped by the hour they were said in: each one's session, in a chat
    _, bucket = np.unique(np.where(known, np.floor(said / _HOUR), -1.0), return_inverse=True)
    best = np.full(bucket.max() + 1, -np.inf)
    np.maximum.at(best, bucket, x[:, _INDEX["cosine_z"]])
    total = np.zeros(bucket.max() + 1)
    np.add.at(total, bucket, x[:, _INDEX["rrf"]])
    x[:, _INDEX["session_best"]] = np.where(known, best[bucket], 0.0)
    x[:, _INDEX["session_rrf"]] = np.where(known, np.log1p(total[bucket]), 0.0)
    top = np.argsort(-x[:, _INDEX["rrf"]], kind="stable")[:10]
    top_times = np.sort(said[top][~np.isnan(said[top])])
    if len(top_times):
        lo_t = np.searchsorted(top_times, said - _HOUR, side="left")
        hi_t = np.searchsorted(top_times, said + _HOUR, side="right")
        x[:, _INDEX["session_top"]] = np.where(known, hi_t - lo_t, 0)


class RankModel:
    """Gradient-boosted regression trees over :data:`FEATURES`, read from their JSON form.

    Each tree there is six arrays (split feature, threshold, left child, right child, node value,
    leaf values; a negative child ``~i`` is leaf ``i``); a row goes left when its value is at most
    the threshold. Read, every tree's nodes and leaves sit in one flat array each (:func:`_flatten`)."""

    def __init__(self, spec: dict[str, object]) -> None:
        names: tuple[str, ...] = tuple(spec.get("features", ()))  # type: ignore[arg-type]
        if names != FEATURES:
            raise ConfigError("the ranker model's features differ from the code's: retrain it with "
                              "`make train-ranker`")
        self.bias = float(spec.get("bias", 0.0))  # type: ignore[arg-type]
        trees = list(spec["trees"])  # type: ignore[call-overload]
        self.depth = max(_depth(t["left"], t["right"], 0) for t in trees)
        self.feature, self.threshold, self.left, self.right, self.value, self.roots = _flatten(trees)

    @classmethod
    def load(cls, path: Path = _MODEL) -> RankModel:
        try:
            return cls(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"cannot read the ranker model {path}: {exc}; reinstall gieok or run "
                              "`make train-ranker`") from exc

    def score(self, x: np.ndarray) -> np.ndarray:
        """One score per row: the bias plus each tree's leaf. Every tree's nodes and leaves sit in one
        flat array (a leaf is a node that leads to itself), so a level of all trees for all rows is
        a handful of numpy gathers, ``depth`` times."""
        n = len(x)
        flat = np.ascontiguousarray(x.T).ravel()  # feature f of row r at f * n + r: one 1-d take per level
        rows = np.arange(n)[:, None]
        node = np.broadcast_to(self.roots, (n, len(self.roots)))
        for _ in range(self.depth):
            goes_left = flat.take(self.feature.take(node) * n + rows) <= self.threshold.take(node)
            node = np.where(goes_left, self.left.take(node), self.right.take(node))
        out: np.ndarray = self.bias + self.value.take(node).sum(axis=1)
        return out

    def contributions(self, row: np.ndarray) -> dict[str, float]:
        """Each feature's part of one row's score (they and the bias sum to it), largest first: along
        the row's path in each tree, the change in the tree's value goes to the feature split on."""
        parts: dict[str, float] = {"bias": self.bias}
        for root in self.roots:
            node, before = int(root), float(self.value[root])
            parts["bias"] += before
            while self.left[node] != node:  # a leaf leads to itself
                name = FEATURES[self.feature[node]]
                goes_left = row[self.feature[node]] <= self.threshold[node]
                node = int(self.left[node] if goes_left else self.right[node])
                after = float(self.value[node])
                parts[name] = parts.get(name, 0.0) + after - before
                before = after
        return dict(sorted(parts.items(), key=lambda kv: -abs(kv[1])))


def _flatten(trees: list[dict[str, list[float]]]) -> tuple[np.ndarray, ...]:
    """Every tree's nodes, then its leaves, in one array each: split feature, threshold, left and
    right child (global indices; a leaf's children are itself, its threshold +inf), value (a node's
    for contributions, a leaf's its output), and each tree's root."""
    feature: list[int] = []
    threshold: list[float] = []
    left: list[int] = []
    right: list[int] = []
    value: list[float] = []
    roots: list[int] = []
    for t in trees:
        base, nodes = len(feature), len(t["feature"])
        leaf_base = base + nodes

        def where(child: float, base: int = base, leaf_base: int = leaf_base) -> int:
            c = int(child)
            return base + c if c >= 0 else leaf_base + ~c

        roots.append(base)
        feature += [int(f) for f in t["feature"]]
        threshold += [float(v) for v in t["threshold"]]
        left += [where(c) for c in t["left"]]
        right += [where(c) for c in t["right"]]
        value += [float(v) for v in t["value"]]
        for k, leaf in enumerate(t["leaf"]):
            feature.append(0)
            threshold.append(np.inf)
            left.append(leaf_base + k)
            right.append(leaf_base + k)
            value.append(float(leaf))
    return (np.array(feature, dtype=np.int64), np.array(threshold), np.array(left, dtype=np.int64),
            np.array(right, dtype=np.int64), np.array(value), np.array(roots, dtype=np.int64))


def _depth(left: Sequence[int], right: Sequence[int], node: int) -> int:
    if node < 0:
        return 0
    return 1 + max(_depth(left, right, left[node]), _depth(left, right, right[node]))


_loaded: RankModel | None = None
_lock = threading.Lock()


def ranker() -> RankModel:
    """The shipped model, read once per process."""
    global _loaded
    with _lock:
        if _loaded is None:
            _loaded = RankModel.load()
        return _loaded
