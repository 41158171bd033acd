"""Concurrent embed calls share embed_batch calls (gieok.providers._batching through Embedder.embed).

Deterministic: the first batch holds until the other threads are queued behind it (watched through
the batcher's queue), so which texts go together is known, not left to the scheduler."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from gieok.errors import ConfigError
from gieok.providers.embedders import Embedder, Kind

TEXTS = ["지난주 부산에서 먹은 돼지국밥", "my sister moved to Toronto", "알레르기가 있는 음식은?",
         "what did I order last Friday", "회의는 목요일 오후 세 시", "the dentist said twice a year",
         "제주도 여행 계획", "Minji's birthday is in March"]
WAIT = 10.0  # seconds before a test that would hang fails instead


class EmbedderDown(RuntimeError):
    pass


class Interrupted(BaseException):
    """Stands for KeyboardInterrupt / SystemExit in the thread running a batch."""


def hashed(text: str, dim: int) -> np.ndarray:
    """A vector that is a function of the whole text (no tokenizer: nothing slow to load)."""
    seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
    return np.random.default_rng(seed).standard_normal(dim).astype(np.float32)


class Gated(Embedder):
    """A fake that records each embed_batch call's texts; the first call waits on ``release``, and
    ``fail`` (call number -> exception) makes that call raise."""

    model_id = "gated"
    dim = 32

    def __init__(self, *, sleep: float = 0.0, batch_size: int = 64,
                 fail: dict[int, BaseException] | None = None) -> None:
        super().__init__()
        self.batches: list[list[str]] = []
        self.started = threading.Event()
        self.release = threading.Event()
        self.release.set()
        self.sleep = sleep
        self.batch_size = batch_size
        self.fail = fail or {}

    def embed_batch(self, texts: list[str], kind: str) -> np.ndarray:  # type: ignore[override]
        number = len(self.batches)
        self.batches.append(list(texts))
        self.started.set()
        if number == 0:
            assert self.release.wait(WAIT)
        if self.sleep:
            time.sleep(self.sleep)
        if number in self.fail:
            raise self.fail[number]
        return np.stack([hashed(text, self.dim) for text in texts])

    def expected(self, text: str) -> np.ndarray:
        vector = hashed(text, self.dim)
        normalised: np.ndarray = vector / np.linalg.norm(vector)
        return normalised


def done(*results: list[object]) -> list[object]:
    """Wait until every thread of these run_threads calls has answered; their answers, in order."""
    deadline = time.monotonic() + WAIT
    while any(r is None for part in results for r in part):
        assert time.monotonic() < deadline, "a caller never got its answer"
        time.sleep(0.001)
    return [r for part in results for r in part]


def lead_then_queue(run_threads, embedder: Gated, others: list[str]) -> tuple[list[object], list[object]]:  # type: ignore[no-untyped-def]
    """A first query that runs alone and is held, ``others`` queued behind it, then all released:
    each thread's result (a vector or the error it raised)."""
    first = run_threads([lambda: embedder.embed_query(TEXTS[0])])
    assert embedder.started.wait(WAIT)
    rest = run_threads([lambda text=text: embedder.embed_query(text) for text in others])  # type: ignore[misc]
    queued(embedder, "query", len(others))
    embedder.release.set()
    done(first, rest)
    return first, rest


def queued(embedder: Embedder, kind: Kind, n: int) -> None:
    deadline = time.monotonic() + WAIT
    while len(embedder._batchers[kind]._queue) < n:
        assert time.monotonic() < deadline, f"{n} callers never queued"
        time.sleep(0.001)


@pytest.fixture
def run_threads() -> Iterator[Callable[[list[Callable[[], object]]], list[object]]]:
    started: list[threading.Thread] = []

    def run(jobs: list[Callable[[], object]]) -> list[object]:
        results: list[object] = [None] * len(jobs)

        def one(i: int) -> None:
            try:
                results[i] = jobs[i]()
            except BaseException as exc:  # noqa: BLE001 - handed to the test to assert on
                results[i] = exc

        threads = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(len(jobs))]
        started.extend(threads)
        for thread in threads:
            thread.start()
        return results

    yield run
    for thread in started:
        thread.join(WAIT)
        assert not thread.is_alive(), "a caller is still waiting: deadlock"


def test_concurrent_queries_share_a_batch_and_each_gets_its_own_vector(run_threads) -> None:  # type: ignore[no-untyped-def]
    embedder = Gated()
    embedder.release.clear()
    first, rest = lead_then_queue(run_threads, embedder, TEXTS[1:])
    # the lone first caller ran at once; the seven that came while it ran went together in one batch
    assert embedder.batches == [TEXTS[:1], TEXTS[1:]]
    for text, vector in zip(TEXTS, first + rest, strict=True):
        assert isinstance(vector, np.ndarray)
        np.testing.assert_allclose(vector, embedder.expected(text), rtol=1e-6)


def test_a_batch_takes_the_oldest_callers_up_to_batch_size(run_threads) -> None:  # type: ignore[no-untyped-def]
    embedder = Gated(batch_size=3)
    embedder.release.clear()
    parts = [run_threads([lambda: embedder.embed_query(TEXTS[0])])]
    assert embedder.started.wait(WAIT)
    for i, text in enumerate(TEXTS[1:], start=1):  # queued one after the other: a known order
        parts.append(run_threads([lambda text=text: embedder.embed_query(text)]))  # type: ignore[misc]
        queued(embedder, "query", i)
    embedder.release.set()
    results = done(*parts)
    assert [len(batch) for batch in embedder.batches] == [1, 3, 3, 1]
    assert [text for batch in embedder.batches for text in batch] == TEXTS  # first come, first served
    for text, vector in zip(TEXTS, results, strict=True):
        np.testing.assert_allclose(vector, embedder.expected(text), rtol=1e-6)  # type: ignore[arg-type]


def test_a_lone_caller_is_not_delayed() -> None:
    embedder = Gated(sleep=0.05)
    took = []
    for i in range(5):
        started = time.perf_counter()
        embedder.embed_query(f"혼자 묻는 질문 {i} / a question asked alone")
        took.append(time.perf_counter() - started)
    # the embedding itself takes 50 ms; no window, no waiting for company (the best of five, so a
    # busy machine's scheduling does not decide the test)
    assert min(took) < 0.05 + 0.02
    assert [len(batch) for batch in embedder.batches] == [1] * 5


def test_a_gathering_window_is_a_setting_and_delays_when_set() -> None:
    assert Embedder().batch_window == 0
    assert Embedder(batch_window=0.005).batch_window == 0.005
    with pytest.raises(ConfigError, match="batch_window"):
        Embedder(batch_window=-1)
    waiting = Gated()
    waiting.batch_window = 0.2
    started = time.perf_counter()
    waiting.embed_query("창 / window")
    assert time.perf_counter() - started >= 0.2


def test_an_error_in_a_batch_reaches_every_caller_of_that_batch(run_threads) -> None:  # type: ignore[no-untyped-def]
    down = EmbedderDown("the model server is down: 임베딩 실패")
    embedder = Gated(fail={1: down})
    embedder.release.clear()
    first, rest = lead_then_queue(run_threads, embedder, TEXTS[1:])
    assert isinstance(first[0], np.ndarray)  # its batch ran before the failing one
    assert all(r is down for r in rest)  # the same typed error, to each of the seven
    assert len(embedder.batches) == 2
    # nothing stays stuck or cached: the next calls embed again and succeed
    np.testing.assert_allclose(embedder.embed_query(TEXTS[1]), embedder.expected(TEXTS[1]), rtol=1e-6)
    assert len(embedder.batches) == 3


def test_a_wrong_shape_is_a_typed_error() -> None:
    class Short(Gated):
        def embed_batch(self, texts: list[str], kind: str) -> np.ndarray:  # type: ignore[override]
            return super().embed_batch(texts, kind)[:, :10]

    with pytest.raises(ValueError, match="returned shape"):
        Short().embed(["짧은 벡터", "a short vector"])


def test_an_interrupted_leader_leaves_its_followers_to_the_next(run_threads) -> None:  # type: ignore[no-untyped-def]
    embedder = Gated(fail={0: Interrupted()})
    embedder.release.clear()
    first, rest = lead_then_queue(run_threads, embedder, TEXTS[1:4])
    assert isinstance(first[0], Interrupted)  # the interrupt stays in the thread it hit
    for text, vector in zip(TEXTS[1:4], rest, strict=True):
        np.testing.assert_allclose(vector, embedder.expected(text), rtol=1e-6)  # type: ignore[arg-type]
    assert embedder.batches == [TEXTS[:1], TEXTS[1:4]]


def test_an_interrupted_waiter_leaves_the_queue_and_nobody_waits_for_it(run_threads,  # type: ignore[no-untyped-def]
                                                                        monkeypatch) -> None:
    from gieok.providers import _batching

    class Interrupting(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            raise Interrupted

    class Call(_batching._Call):
        def __init__(self, texts: list[str]) -> None:
            super().__init__(texts)
            if threading.current_thread().name == "interrupted":
                self.wake = Interrupting()  # the signal arrives while it waits its turn

    monkeypatch.setattr(_batching, "_Call", Call)
    embedder = Gated()
    embedder.release.clear()
    first = run_threads([lambda: embedder.embed_query(TEXTS[0])])
    assert embedder.started.wait(WAIT)
    left: list[BaseException] = []

    def leave() -> None:
        try:
            embedder.embed_query(TEXTS[1])
        except Interrupted as exc:
            left.append(exc)

    thread = threading.Thread(target=leave, name="interrupted")
    thread.start()
    thread.join(WAIT)
    assert left and not embedder._batchers["query"]._queue  # it left the queue on its way out
    rest = run_threads([lambda: embedder.embed_query(TEXTS[2])])
    queued(embedder, "query", 1)
    embedder.release.set()
    done(first, rest)
    assert embedder.batches == [TEXTS[:1], TEXTS[2:3]]


def test_cache_hits_skip_the_batch(run_threads) -> None:  # type: ignore[no-untyped-def]
    embedder = Gated()
    embedder.embed(TEXTS, "query")
    assert len(embedder.batches) == 1
    results = run_threads([lambda text=text: embedder.embed_query(text) for text in TEXTS * 3])  # type: ignore[misc]
    done(results)
    assert len(embedder.batches) == 1  # every call answered from the cache
    for text, vector in zip(TEXTS * 3, results, strict=True):
        np.testing.assert_allclose(vector, embedder.expected(text), rtol=1e-6)  # type: ignore[arg-type]


def test_queries_and_passages_batch_apart(run_threads) -> None:  # type: ignore[no-untyped-def]
    embedder = Gated()
    embedder.release.clear()
    first = run_threads([lambda: embedder.embed_query(TEXTS[0])])
    assert embedder.started.wait(WAIT)
    # a passage does not queue behind the query batch in flight: it runs in a batch of its own now
    passage = embedder.embed(["문서 한 줄 / one line of a document"], "document")
    assert passage.shape == (1, embedder.dim)
    embedder.release.set()
    done(first)
    assert embedder.batches == [TEXTS[:1], ["문서 한 줄 / one line of a document"]]


def test_parallel_batches_run_at_once(run_threads) -> None:  # type: ignore[no-untyped-def]
    both_inside = threading.Barrier(2, timeout=WAIT)

    class Two(Gated):
        parallel_batches = 2

        def embed_batch(self, texts: list[str], kind: str) -> np.ndarray:  # type: ignore[override]
            both_inside.wait()  # raises BrokenBarrierError if the two batches ran one after the other
            return super().embed_batch(texts, kind)

    embedder = Two()
    results = run_threads([lambda: embedder.embed_query("동시에 하나"), lambda: embedder.embed_query("at once, two")])
    done(results)
    assert all(isinstance(r, np.ndarray) for r in results), results


def test_an_embed_batch_that_embeds_does_not_wait_for_itself() -> None:
    class Nested(Gated):
        def embed_batch(self, texts: list[str], kind: str) -> np.ndarray:  # type: ignore[override]
            if texts[0].startswith("outer"):
                return self.embed([t.replace("outer", "inner") for t in texts], kind)  # type: ignore[arg-type]
            return super().embed_batch(texts, kind)

    embedder = Nested()
    np.testing.assert_allclose(embedder.embed_query("outer 안쪽"), embedder.expected("inner 안쪽"), rtol=1e-6)


def test_e5_small_gives_each_thread_its_own_vector(run_threads) -> None:  # type: ignore[no-untyped-def]
    from gieok.providers.embedders import E5SmallEmbedder

    alone = E5SmallEmbedder(num_threads=1, parallel_batches=1)
    expected = {text: alone.embed_batch([text], "query")[0] for text in TEXTS}
    shared = E5SmallEmbedder(num_threads=1, parallel_batches=2)
    results = run_threads([lambda text=text: shared.embed_query(text) for text in TEXTS * 2])  # type: ignore[misc]
    done(results)
    for text, vector in zip(TEXTS * 2, results, strict=True):
        np.testing.assert_allclose(vector, expected[text], atol=1e-5)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="parallel_batches"):
        E5SmallEmbedder(parallel_batches=0)


def test_a_kind_with_coalescing_off_runs_each_call_alone_in_turn(run_threads) -> None:  # type: ignore[no-untyped-def]
    embedder = Gated()
    embedder.coalesce_documents = 0  # as e5-small: passages cost no less together
    embedder.release.clear()
    first = run_threads([lambda: embedder.embed([TEXTS[0]], "document")])
    assert embedder.started.wait(WAIT)
    rest = run_threads([lambda text=text: embedder.embed([text], "document") for text in TEXTS[1:4]])  # type: ignore[misc]
    queued(embedder, "document", 3)  # no free slot: they wait their turn, they do not run at once
    embedder.release.set()
    results = done(first, rest)
    assert sorted(embedder.batches) == sorted([[text] for text in TEXTS[:4]])
    for text, vectors in zip(TEXTS[:4], results, strict=True):
        np.testing.assert_allclose(vectors[0], embedder.expected(text), rtol=1e-6)  # type: ignore[index]
