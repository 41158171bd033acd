"""Shared fixtures: a deterministic fake embedder registered per test, and Memory on a temp file."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pytest

from gieok import Memory
from gieok.providers import registry
from gieok.providers.decisions import Decision, DecisionModel, LearnedDecisions, Task
from gieok.providers.embedders import Embedder
from gieok.text.terms import keyword_terms


class FakeEmbedder(Embedder):
    """Bag of keyword terms hashed into 64 dimensions: texts sharing words are close. Records calls."""

    model_id = "fake"
    dim = 64

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, int]] = []

    def embed_batch(self, texts: list[str], kind: str) -> np.ndarray:  # type: ignore[override]
        self.calls.append((kind, len(texts)))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for term in keyword_terms(text) or (text,):
                h = int.from_bytes(hashlib.sha256(term.encode()).digest()[:4], "little")
                out[i, h % self.dim] += 1.0
            out[i, -1] += 0.01  # never the zero vector
        return out


_PROVIDER_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "COHERE_API_KEY", "JINA_API_KEY", "VOYAGE_API_KEY")


@pytest.fixture(autouse=True)
def sealed_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test starts from gieok's defaults: no stray GIEOK_* setting and no provider key of the
    machine running the tests changes what a test sees (``GIEOK_CHANNELS=temporal pytest`` must pass)."""
    import os

    for name in list(os.environ):
        if name.startswith("GIEOK_") or name in _PROVIDER_KEYS or name.endswith("_API_KEY"):
            monkeypatch.delenv(name)


@pytest.fixture
def fake_embedder() -> Iterator[FakeEmbedder]:
    embedder = FakeEmbedder()
    registry.register("embedder", "fake", lambda: embedder, replace=True)
    yield embedder
    registry.unregister("embedder", "fake")


class ScriptedAnswers(DecisionModel):
    """A decision model for the ``answers`` task: a memory holding a word of ``sure`` answers with its
    probability, any other with 0.1; every other task is the learned model's. Tests of what reflect does
    with a decision (quote, cite, refuse, skip a replaced version) use it, so they do not hang on what
    the learned head makes of a sentence (tests/test_answerable.py tests that)."""

    name = "scripted-answers"

    def __init__(self) -> None:
        self.sure: dict[str, float] = {}
        self.asked: list[dict[str, str]] = []
        self.learned = LearnedDecisions()

    def _decide(self, task: Task, inputs: Mapping[str, str]) -> Decision:
        if task.name != "answers":
            return self.learned.decide(task.name, **inputs)
        self.asked.append(dict(inputs))
        p = next((v for word, v in self.sure.items() if word in inputs["memory"]), 0.1)
        return Decision(task.name, "yes" if p >= 0.5 else "no", p if p >= 0.5 else 1 - p, self.name, "scripted")


DecisionT = TypeVar("DecisionT", bound=DecisionModel)


@contextmanager
def registered(model: DecisionT) -> Iterator[DecisionT]:
    """``model`` registered as the decision model ``model.name`` while the block runs; a bank chooses
    it with ``configure_decisions(bank, model.name)`` or ``Memory(..., decision_model=model.name)``."""
    registry.register("decision", model.name, lambda: model, replace=True)
    try:
        yield model
    finally:
        registry.unregister("decision", model.name)


@pytest.fixture
def scripted_answers() -> Iterator[ScriptedAnswers]:
    """:class:`ScriptedAnswers`, registered (see :func:`registered`)."""
    with registered(ScriptedAnswers()) as model:
        yield model


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    return str(tmp_path / "memories.db")


@pytest.fixture
def mem(db_path: str, fake_embedder: FakeEmbedder) -> Iterator[Memory]:
    with Memory(db_path, embedder="fake") as memory:
        yield memory


@pytest.fixture(params=["sqlite", "postgres"])
def store_mem(request: pytest.FixtureRequest, tmp_path: Path, fake_embedder: FakeEmbedder) -> Iterator[Memory]:
    """Memory on each store: a SQLite file, then PostgreSQL (the test module imports ``pg_dsn_factory``)."""
    if request.param == "sqlite":
        with Memory(str(tmp_path / "s.db"), embedder="fake") as memory:
            yield memory
    else:
        from gieok.store import PostgresStore

        dsn = request.getfixturevalue("pg_dsn_factory")()
        with Memory(store=PostgresStore(dsn), embedder="fake") as memory:
            yield memory


@pytest.fixture(params=["sqlite", "postgres"])
def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Any]]:
    """Opens a store on this test's own empty database (every call: the same database), SQLite then
    PostgreSQL (the test module imports ``pg_dsn_factory``)."""
    from gieok.store import PostgresStore, SQLiteStore

    target = str(tmp_path / "memories.db") if request.param == "sqlite" else request.getfixturevalue("pg_dsn_factory")()
    opened: list[Any] = []

    def open_() -> Any:
        store = SQLiteStore(target) if request.param == "sqlite" else PostgresStore(target)
        opened.append(store)
        return store

    yield open_
    for store in opened:
        store.close()


@pytest.fixture
def store(open_store: Callable[[], Any]) -> Any:
    """A store of each kind (see ``open_store``); the contract tests call only protocol methods on it."""
    return open_store()
