"""Recall's learned ranker: the feature vector of a candidate pool, the shipped model, and what
``explain=True`` shows of it. Korean and English."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import gieok
from gieok import Memory
from gieok.engine.recall.rank_model import FEATURES, PoolItem, PoolQuery, RankModel, feature_matrix, ranker
from gieok.errors import ConfigError
from gieok.records import ChannelHit

NOW = 1_780_000_000.0
DAY = 86400.0


def item(text: str, *, ranks: dict[str, int], cosine: float | None, days: float, fact_id: int,
         message: str | None = None, **extra: object) -> PoolItem:
    hits = {c: ChannelHit(rank=r, score=(cosine or 0.0) if c == "semantic" else 10.0 / r) for c, r in ranks.items()}
    values: dict[str, object] = dict(
        hits=hits, cosine=cosine, said_at=NOW - days * DAY, now_ts=NOW, time_closeness=None, support=0,
        strength=1.0, importance=0.5, speaker_named=False, other_speaker=False, question_only=False, replaced=False,
        fact_id=fact_id, superseded_by=None, message_key=(message or f"m{fact_id}",), tokens=12, text=text,
        chunk=False, observation=False, scope_weight=1.0)
    values.update(extra)
    return PoolItem(**values)  # type: ignore[arg-type]


POOLS = {
    "en": (["Tom lives in Denver now", "Tom lived in Austin", "Tom likes tennis"], "Where does Tom live now?"),
    "ko": (["태윤은 지금 분당에 살아", "태윤은 수원에 살았어", "태윤은 테니스를 좋아해"], "태윤 지금 어디 살아?"),
}


@pytest.mark.parametrize("lang", POOLS)
def test_features_are_read_relative_to_the_pool(lang: str) -> None:
    texts, question = POOLS[lang]
    pool = [item(texts[0], ranks={"semantic": 1, "keyword": 2}, cosine=0.9, days=2, fact_id=1, message="a"),
            item(texts[1], ranks={"semantic": 2}, cosine=0.8, days=400, fact_id=2, replaced=True, superseded_by=1),
            item(texts[2], ranks={"keyword": 1}, cosine=None, days=30, fact_id=3, message="a")]
    x = feature_matrix(pool, PoolQuery(question, time_range=False, history=False))
    col = {name: x[:, i] for i, name in enumerate(FEATURES)}
    assert x.shape == (3, len(FEATURES))
    assert col["semantic_rr"].tolist() == [1.0, 0.5, 0.0] and col["keyword_rr"].tolist() == [0.5, 0.0, 1.0]
    assert col["channels"].tolist() == [2, 1, 1]
    assert col["rrf"][0] == pytest.approx(20 * (1 / 21 + 1 / 22))
    # the best cosine has no gap; a candidate the semantic channel missed stands at the pool's lowest
    assert col["cosine_gap"].tolist() == pytest.approx([0.0, 0.1, 0.1])
    assert col["cosine_z"][0] > 0 > col["cosine_z"][1]
    assert col["keyword_share"].tolist() == pytest.approx([0.5, 0.0, 1.0])
    assert col["age_place"].tolist() == [0.0, 1.0, 0.5]  # newest 0, oldest 1
    assert col["log_age_days"].tolist() == pytest.approx([math.log1p(2), math.log1p(400), math.log1p(30)])
    assert col["replaced"].tolist() == [0, 1, 0] and col["replacement_in_pool"].tolist() == [0, 1, 0]
    assert col["replaces_in_pool"].tolist() == [1, 0, 0]
    # two candidates share message "a": both know it; the one ranked higher by rrf comes first
    assert col["same_message"].tolist() == pytest.approx([math.log(2), 0.0, math.log(2)])
    assert col["message_place"].tolist() == [1, 0, 0] or col["message_place"].tolist() == [0, 0, 1]
    assert set(col["query_korean"]) == {float(lang == "ko")} and set(col["memory_korean"]) == {float(lang == "ko")}
    assert set(col["asks_now"]) == {1.0} and set(col["asks_history"]) == {0.0}


def test_an_empty_pool_and_one_without_cosines() -> None:
    assert feature_matrix([], PoolQuery("anything", False, False)).shape == (0, len(FEATURES))
    x = feature_matrix([item("키워드만", ranks={"keyword": 1}, cosine=None, days=1, fact_id=1)],
                       PoolQuery("키워드", False, False))
    assert x[0, FEATURES.index("cosine_z")] == 0.0 and x[0, FEATURES.index("cosine_gap")] == 0.0


SHIPPED = json.loads((Path(gieok.__file__).parent / "data" / "ranker.json").read_text(encoding="utf-8"))


def _walk(row: np.ndarray) -> float:
    """The shipped trees walked one by one, node by node, as the JSON file states them: what the
    vectorised scorer over its flattened arrays must agree with."""
    total = float(SHIPPED["bias"])
    for tree in SHIPPED["trees"]:
        node = 0
        while node >= 0:
            goes_left = row[tree["feature"][node]] <= tree["threshold"][node]
            node = tree["left"][node] if goes_left else tree["right"][node]
        total += tree["leaf"][~node]
    return total


@pytest.mark.parametrize("lang", POOLS)
def test_the_shipped_model_scores_as_its_trees_say(lang: str) -> None:
    texts, question = POOLS[lang]
    model = ranker()
    assert len(SHIPPED["trees"]) >= 10 and model.depth >= 2
    rng = np.random.default_rng(7)
    pool = [item(texts[i % 3], ranks={"semantic": i + 1, "keyword": 3 * i + 1}, cosine=0.9 - 0.01 * i,
                 days=float(rng.integers(1, 500)), fact_id=i) for i in range(40)]
    x = feature_matrix(pool, PoolQuery(question, False, False))
    scores = model.score(x)
    assert scores.tolist() == pytest.approx([_walk(row) for row in x])
    for row, score in zip(x[:5], scores[:5], strict=True):
        parts = model.contributions(row)
        assert sum(parts.values()) == pytest.approx(score)
        assert set(parts) <= {"bias", *FEATURES}
    # a memory every channel ranks first beats one they rank fortieth
    assert scores[0] > scores[-1]


def test_a_model_for_other_features_is_refused(tmp_path) -> None:
    spec = {"features": ["semantic_rr"], "bias": 0.0,
            "trees": [{"feature": [0], "threshold": [0.5], "left": [-1], "right": [-2], "value": [0.0],
                       "leaf": [0.0, 1.0]}]}
    with pytest.raises(ConfigError, match="make train-ranker"):
        RankModel(spec)
    broken = tmp_path / "ranker.json"
    broken.write_text(json.dumps({"features": list(FEATURES)}), encoding="utf-8")
    with pytest.raises(ConfigError, match="cannot read the ranker model"):
        RankModel.load(broken)


CHAT = {
    "en": [("Mina", "I adopted a grey cat named Biscuit last spring."),
           ("Sam", "Nice! I am training for the Seoul marathon in October."),
           ("Mina", "Biscuit sleeps on my keyboard every afternoon."),
           ("Sam", "My knee hurts after long runs, so I see a physio on Fridays.")],
    "ko": [("민아", "작년 봄에 비스킷이라는 회색 고양이를 입양했어."),
           ("수호", "좋다! 나는 10월 서울 마라톤 준비하고 있어."),
           ("민아", "비스킷은 매일 오후에 내 키보드 위에서 자."),
           ("수호", "장거리 뛰고 나면 무릎이 아파서 금요일마다 물리치료 받아.")],
}
ASKED = {"en": "What is the name of Mina's cat?", "ko": "민아 고양이 이름이 뭐야?"}


@pytest.mark.parametrize("lang", CHAT)
def test_recall_scores_are_the_rankers_and_explain_shows_why(db_path: str, fake_embedder: object, lang: str) -> None:
    with Memory(db_path, embedder="fake") as mem:
        mem.retain(lang, [{"id": f"m{i}", "speaker": who, "text": text, "timestamp": f"2026-05-0{i + 1}T12:00:00Z"}
                          for i, (who, text) in enumerate(CHAT[lang])], document_id="chat")
        found = mem.recall(lang, ASKED[lang], limit=4, explain=True).memories
        again = mem.recall(lang, ASKED[lang], limit=4).memories
    assert [m.id for m in found] == [m.id for m in again]  # deterministic, explain or not
    assert [m.score for m in found] == sorted((m.score for m in found), reverse=True)
    for memory in found:
        x = memory.explanation
        assert x is not None and set(x["features"]) == set(FEATURES)
        assert sum(x["contributions"].values()) == pytest.approx(x["ranker"], abs=1e-3)
        # the score is the ranker's output squashed to 0..1, times the multipliers (none here)
        assert memory.score == pytest.approx(1 / (1 + math.exp(-x["ranker"])), rel=1e-6)
