"""Malformed input to every public Memory method (issue #13, item 13): whatever a caller passes —
wrong types, lone surrogates, NaN, deep or cyclic metadata, sets, bytes — the call either works or
raises a typed :class:`GieokError` that says what to fix, and a call that fails leaves what is stored
untouched. Korean and English values throughout."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gieok import Memory
from gieok.errors import GieokError

TEXTS = st.sampled_from(["민지 생일은 6월 23일이야.", "I moved to Busan in March.", "", "   ", "\ud800", "a\udc00b",
                         "x" * 3, "땅콩", "f-1", "o-1", "../../etc/passwd", "\x00", "null"])
ODD = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=True, allow_infinity=True),
    TEXTS, st.binary(max_size=4), st.just(object()), st.just({1, 2}), st.just(("t", 1)),
    st.lists(st.integers(0, 3), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))


def _deep(n: int) -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    for _ in range(n):
        node["k"] = {}
        node = node["k"]
    return root


def _cycle() -> dict[str, Any]:
    d: dict[str, Any] = {"이름": "민지"}
    d["self"] = d
    return d


METADATA = st.one_of(ODD, st.just(_deep(5000)), st.just(_cycle()), st.just({(1, 2): "x"}), st.just({"a": b"x"}),
                     st.just({"a": float("nan")}), st.just({"키\ud800": 1}), st.just({"채널": "slack", "n": [1, 2]}))
MESSAGES = st.one_of(ODD, st.lists(st.one_of(ODD, st.fixed_dictionaries(
    {"text": st.one_of(TEXTS, ODD)}, optional={"id": ODD, "speaker": st.one_of(TEXTS, ODD), "timestamp": ODD,
                                               "role": ODD})), max_size=3))

CALLS: dict[str, Callable[[Memory, st.DataObject], Any]] = {
    "retain": lambda m, d: m.retain(d.draw(st.one_of(st.just("b"), ODD)), d.draw(MESSAGES), text=d.draw(ODD),
                                    document_id=d.draw(ODD), timestamp=d.draw(ODD), metadata=d.draw(METADATA),
                                    decay_class=d.draw(ODD), importance=d.draw(ODD), pinned=d.draw(ODD),
                                    ttl=d.draw(ODD)),
    "retain_text": lambda m, d: m.retain("b", text=d.draw(TEXTS), metadata=d.draw(METADATA), ttl=d.draw(ODD),
                                         importance=d.draw(ODD)),
    "recall": lambda m, d: m.recall(d.draw(st.one_of(st.just("b"), ODD)), d.draw(st.one_of(TEXTS, ODD)),
                                    max_tokens=d.draw(ODD), limit=d.draw(ODD), now=d.draw(ODD), as_of=d.draw(ODD),
                                    explain=d.draw(ODD)),
    "reflect": lambda m, d: m.reflect(d.draw(st.one_of(st.just("b"), ODD)), d.draw(st.one_of(TEXTS, ODD)),
                                      now=d.draw(ODD)),
    "forget": lambda m, d: m.forget(d.draw(st.one_of(st.just("b"), ODD)), source_id=d.draw(ODD),
                                    memory_id=d.draw(ODD), entity=d.draw(ODD), before=d.draw(ODD)),
    "get": lambda m, d: m.get(d.draw(st.one_of(st.just("b"), ODD)), d.draw(st.one_of(TEXTS, ODD))),
    "history": lambda m, d: m.history(d.draw(st.one_of(st.just("b"), ODD)), d.draw(st.one_of(TEXTS, ODD))),
    "source": lambda m, d: m.source(d.draw(st.one_of(st.just("b"), ODD)), d.draw(st.one_of(TEXTS, ODD))),
    "sources": lambda m, d: m.sources(d.draw(st.one_of(st.just("b"), ODD))),
    "entities": lambda m, d: m.entities(d.draw(st.one_of(st.just("b"), ODD))),
    "observations": lambda m, d: m.observations(d.draw(st.one_of(st.just("b"), ODD))),
    "verify_erased": lambda m, d: m.verify_erased(d.draw(st.one_of(st.lists(TEXTS, max_size=2), ODD)),
                                                  deep=False),
    "add_mental_model": lambda m, d: m.models.add(d.draw(st.one_of(st.just("b"), ODD)),
                                                        d.draw(st.one_of(TEXTS, ODD)), d.draw(st.one_of(TEXTS, ODD))),
    "mental_model": lambda m, d: m.models.get(d.draw(st.one_of(st.just("b"), ODD)), d.draw(st.one_of(TEXTS, ODD))),
    "set_redaction_policy": lambda m, d: m.set_redaction_policy(d.draw(st.one_of(st.just("b"), ODD)),
                                                                d.draw(st.one_of(TEXTS, ODD, st.sampled_from(
                                                                    ["block", "redact", "off"])))),
    "run_jobs": lambda m, d: m.run_jobs(d.draw(st.one_of(st.just("b"), ODD)), limit=d.draw(ODD), now=d.draw(ODD)),
    "maintain": lambda m, d: m.maintain(d.draw(st.one_of(st.just("b"), ODD)), now=d.draw(ODD)),
    "jobs": lambda m, d: m.jobs(d.draw(st.one_of(st.just("b"), ODD))),
    "operation": lambda m, d: m.operation(d.draw(st.one_of(TEXTS, ODD))),
    "delete_bank": lambda m, d: m.banks.delete(d.draw(st.sampled_from(["nobody", "", "\ud800"]) | ODD)),
}


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    from conftest import FakeEmbedder

    from gieok.providers import registry

    embedder = FakeEmbedder()
    registry.register("embedder", "fake", lambda: embedder, replace=True)
    path = Path(tmp_path_factory.mktemp("fuzz")) / "fuzz.db"
    with Memory(str(path), embedder="fake") as mem:
        mem.retain("b", [{"id": "m1", "speaker": "민지", "text": "민지 생일은 6월 23일이야."},
                         {"id": "m2", "speaker": "Tom", "text": "I moved to Busan in March."}], document_id="chat")
        yield mem
    registry.unregister("embedder", "fake")


def _state(mem: Memory) -> tuple[Any, ...]:
    return tuple((b.name, b.facts, b.sources) for b in mem.banks()) + tuple(
        (s.id, len(s.messages), s.text) for s in mem.sources("b"))


@pytest.mark.parametrize("name", sorted(CALLS))
def test_no_untyped_error_and_nothing_lost(fuzzed: Memory, name: str) -> None:
    call = CALLS[name]

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(st.data())
    def run(data: st.DataObject) -> None:
        before = _state(fuzzed)
        try:
            call(fuzzed, data)
        except GieokError as exc:
            assert str(exc) and "Traceback" not in str(exc)
            if name not in ("forget", "delete_bank"):
                assert _state(fuzzed) == before, "a refused call changed what is stored"
        except RecursionError:  # pragma: no cover - reported with the inputs by hypothesis
            raise
        # whatever worked must still leave the seeded bank readable
        assert fuzzed.banks() is not None

    run()


def test_the_refusals_name_the_fix(mem: Memory) -> None:
    mem.retain("b", text="Tom lives in Austin. 톰은 오스틴에 살아.")
    cases: list[tuple[Callable[[], Any], str]] = [
        (lambda: mem.retain("b", text="hi \ud800"), "lone surrogate"),
        (lambda: mem.retain("b", [{"speaker": "a\udc00", "text": "x y"}]), "lone surrogate"),
        (lambda: mem.retain("b", text="deep", metadata=_deep(5000)), "deeper than"),
        (lambda: mem.retain("b", text="cycle", metadata=_cycle()), "cycle"),
        (lambda: mem.retain("b", text="set", metadata={"a": {1, 2}}), "convert it"),
        (lambda: mem.retain("b", text="key", metadata={(1, 2): "x"}), "keys are strings"),
        (lambda: mem.retain("b", text="imp", importance="high"), "importance must be a number"),
        (lambda: mem.retain("b", text="ttl", ttl=math.nan), "finite"),
        (lambda: mem.recall("b", "Tom", max_tokens="10"), "whole number"),
        (lambda: mem.recall("b", "Tom", max_tokens=1.5), "whole number"),
        (lambda: mem.recall("b", "Tom", limit=True), "whole number"),
        (lambda: mem.recall("b", "톰 \ud800"), "lone surrogate"),
    ]
    before = _state(mem)
    for call, fix in cases:
        with pytest.raises(GieokError, match=fix):
            call()
    assert _state(mem) == before


@pytest.mark.parametrize("kind", ["folder", "missing parent", "text file"])
def test_a_path_that_is_not_a_database_says_so(tmp_path: Path, kind: str, fake_embedder: object) -> None:
    from gieok.errors import ConfigError

    target = {"folder": str(tmp_path) + "/", "missing parent": str(tmp_path / "nope" / "x.db"),
              "text file": str(tmp_path / "notes.txt")}[kind]
    if kind == "text file":
        Path(target).write_text("메모: not a database\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="folder|not a gieok database"):
        Memory(target, embedder="fake")
    if kind == "text file":
        assert Path(target).read_text(encoding="utf-8") == "메모: not a database\n"  # untouched
