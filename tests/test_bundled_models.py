"""The real bundled embedders load from their packages (no download) and retrieve in both languages."""

from __future__ import annotations

import numpy as np
import pytest

from gieok import Memory
from gieok.providers import create

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(("name", "dim"), [("e5-small", 384), ("use-multilingual", 512)])
def test_bundled_embedder_shapes_and_norms(name: str, dim: int) -> None:
    embedder = create("embedder", name)
    vectors = embedder.embed(["나 땅콩 알레르기 있어", "땅콩을 먹으면 두드러기가 나", "오늘 날씨 좋다",
                              "I am allergic to peanuts", "Peanuts give me hives", "Nice weather today"])
    assert vectors.shape == (6, dim) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    # a paraphrase is closer than an unrelated sentence, in each language
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    assert vectors[3] @ vectors[4] > vectors[3] @ vectors[5]


def test_default_memory_recalls_with_e5(db_path: str) -> None:
    with Memory(db_path) as mem:
        mem.retain("jiwoo", messages=[
            {"id": "1", "speaker": "지우", "text": "요즘 퇴근하고 매일 수영 다니고 있어"},
            {"id": "2", "speaker": "지우", "text": "회사는 판교에 있는 카카오야"},
            {"id": "3", "speaker": "Jiwoo", "text": "My favourite coffee is an oat milk flat white."},
        ])
        assert mem.banks()[0].embedder == "e5-small"
        assert mem.recall("jiwoo", "지우는 무슨 운동 해?").memories[0].source_ids == ["1"]
        assert mem.recall("jiwoo", "How does Jiwoo take her coffee?").memories[0].source_ids == ["3"]
