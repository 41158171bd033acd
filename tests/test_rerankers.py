"""Rerankers: the batching/caching base, the HTTP client against a loopback server, the ONNX plugin's
checks (with stand-in onnxruntime/tokenizers modules), and registration."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import types
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gieok.errors import ConfigError, GieokError, InputError
from gieok.providers.registry import KINDS
from gieok.providers.rerankers import (
    DEFAULT_API_KEY_ENV,
    HTTPReranker,
    ONNXCrossEncoder,
    Reranker,
    RerankerError,
    RerankerUnavailableError,
    register_builtins,
)

KO_QUERY = "서울 날씨 어때?"
KO_DOCS = ["부산은 오늘 비가 온다", "서울은 오늘 날씨가 맑다", "민지는 필라테스를 좋아한다"]
EN_QUERY = "what does Minji do for exercise"
EN_DOCS = [
    "The weather in Seoul is sunny today",
    "Minji does pilates every Tuesday for exercise",
    "Minji works at a bakery",
]


def _bigrams(text: str) -> set[str]:
    grams: set[str] = set()
    for token in text.lower().split():
        grams |= {token} if len(token) < 2 else {token[i : i + 2] for i in range(len(token) - 1)}
    return grams


def overlap_score(query: str, document: str) -> float:
    """Share of the query's character bigrams found in the document: works for Korean and English."""
    wanted = _bigrams(query)
    return len(wanted & _bigrams(document)) / len(wanted) if wanted else 0.0


# --- fake /rerank server -----------------------------------------------------------------------------


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # JSON-able, raw bytes, or None for the built-in overlap reranker
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    raw: bytes

    @property
    def body(self) -> Any:
        return json.loads(self.raw)


class FakeRerankServer:
    """A /rerank server on 127.0.0.1: scripted replies first, then an overlap reranker. Records requests."""

    max_requests = 40
    max_body = 1_000_000

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.replies: deque[Reply] = deque()
        self.stop = threading.Event()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length > server.max_body:
                    self._send(Reply(413, {"error": "body too large for the fake server"}))
                    return
                raw = self.rfile.read(length)
                with server._lock:
                    server.requests.append(Recorded(self.path, dict(self.headers.items()), raw))
                    count = len(server.requests)
                    reply = server.replies.popleft() if server.replies else Reply()
                if count > server.max_requests:
                    reply = Reply(410, {"error": "the fake server's request budget is spent"})
                if reply.delay:
                    server.stop.wait(reply.delay)
                if reply.body is None and reply.status == 200:
                    reply = Reply(200, server.score(json.loads(raw)), reply.headers)
                self._send(reply)

            def _send(self, reply: Reply) -> None:
                data = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (timeout test)
                    pass

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = False
        self.httpd.block_on_close = True  # close() joins every handler thread
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05})

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    @staticmethod
    def score(body: dict[str, Any]) -> dict[str, Any]:
        documents = body.get("documents", body.get("texts"))
        results = [{"index": i, "relevance_score": overlap_score(body["query"], d)} for i, d in enumerate(documents)]
        results.reverse()  # deliberately not in input order
        return {"results": results}

    def script(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def __enter__(self) -> FakeRerankServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeRerankServer]:
    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv(DEFAULT_API_KEY_ENV, raising=False)
    with FakeRerankServer() as fake:
        yield fake


def client(server: FakeRerankServer, **options: Any) -> HTTPReranker:
    options.setdefault("backoff", 0.0)
    return HTTPReranker(server.url, **options)


# --- HTTP client -------------------------------------------------------------------------------------


def test_request_body_and_bearer_key(server: FakeRerankServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEFAULT_API_KEY_ENV, "sk-test-123\n")  # a trailing newline from `cat keyfile`
    reranker = client(server, model="rerank-v3.5")
    reranker.score(KO_QUERY, KO_DOCS)
    [request] = server.requests
    assert request.path == "/rerank"
    assert request.body == {"model": "rerank-v3.5", "query": KO_QUERY, "documents": KO_DOCS}
    assert "서울은 오늘".encode() in request.raw  # UTF-8 on the wire, not \\u escapes
    assert request.headers["Authorization"] == "Bearer sk-test-123"
    assert request.headers["Content-Type"] == "application/json"
    assert "sk-test" not in repr(reranker)


@pytest.mark.parametrize("key", ["sk-비밀", "sk one", "sk\ttwo"])
def test_malformed_key_is_refused_without_echoing_it(monkeypatch: pytest.MonkeyPatch, key: str) -> None:
    monkeypatch.setenv(DEFAULT_API_KEY_ENV, key)
    with pytest.raises(ConfigError, match=f"{DEFAULT_API_KEY_ENV} is not a valid API key") as caught:
        HTTPReranker("http://127.0.0.1:1")
    assert key not in str(caught.value)


def test_url_keeps_an_explicit_rerank_path_and_api_prefix(server: FakeRerankServer) -> None:
    HTTPReranker(server.url + "/v1/rerank", backoff=0).score(EN_QUERY, EN_DOCS[:1])
    HTTPReranker(server.url + "/v2/", backoff=0).score(EN_QUERY, EN_DOCS[1:2])
    assert [r.path for r in server.requests] == ["/v1/rerank", "/v2/rerank"]


def test_no_key_no_model_sends_neither(server: FakeRerankServer) -> None:
    client(server).score(EN_QUERY, EN_DOCS)
    [request] = server.requests
    assert "Authorization" not in request.headers
    assert request.body == {"query": EN_QUERY, "documents": EN_DOCS}


def test_named_key_variable(server: FakeRerankServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JINA_API_KEY", "jina_abc")
    client(server, api_key_env="JINA_API_KEY").score(EN_QUERY, EN_DOCS)
    assert server.requests[0].headers["Authorization"] == "Bearer jina_abc"
    monkeypatch.delenv("JINA_API_KEY")
    with pytest.raises(ConfigError, match="JINA_API_KEY is not set"):
        client(server, api_key_env="JINA_API_KEY")


def test_tei_flavor_sends_texts(server: FakeRerankServer) -> None:
    server.script(Reply(body=[{"index": 1, "score": 0.9}, {"index": 0, "score": 0.1}]))
    assert client(server, flavor="tei").score(EN_QUERY, EN_DOCS[:2]) == [0.1, 0.9]
    assert server.requests[0].body == {"query": EN_QUERY, "texts": EN_DOCS[:2], "raw_scores": False}


@pytest.mark.parametrize("body", [
    {"results": [{"index": 2, "relevance_score": 0.2}, {"index": 0, "relevance_score": 0.7},
                 {"index": 1, "relevance_score": 0.1, "document": {"text": "echoed by Jina"}}]},
    {"object": "list", "data": [{"index": 0, "relevance_score": 0.7}, {"index": 2, "relevance_score": 0.2},
                                {"index": 1, "relevance_score": 0.1}]},  # Voyage
    [{"index": 1, "score": 0.1}, {"index": 2, "score": 0.2}, {"index": 0, "score": 0.7}],  # TEI
], ids=["cohere", "voyage", "tei"])
def test_response_shapes(server: FakeRerankServer, body: Any) -> None:
    server.script(Reply(body=body))
    assert client(server).rerank(KO_QUERY, KO_DOCS) == [(0, 0.7), (2, 0.2), (1, 0.1)]


@pytest.mark.parametrize("body, match", [
    (b"<html>bad gateway</html>", "not JSON"),
    ({"detail": "no"}, "unknown shape"),
    ([{"index": 0, "score": 0.5}], "scored 1 of 2"),
    ([{"index": 0, "score": 0.5}, {"index": 0, "score": 0.4}], "twice"),
    ([{"index": 5, "score": 0.5}, {"index": 0, "score": 0.4}], "bad index"),
    ([{"index": 0, "score": "high"}, {"index": 1, "score": 0.4}], "numeric score"),
])
def test_malformed_replies_are_errors(server: FakeRerankServer, body: Any, match: str) -> None:
    server.script(Reply(body=body))
    with pytest.raises(RerankerError, match=match):
        client(server).score(EN_QUERY, EN_DOCS[:2])
    assert len(server.requests) == 1  # a bad answer is not retried


def test_retry_on_503_then_success(server: FakeRerankServer) -> None:
    server.script(Reply(503, {"error": "warming up"}), Reply(502, b"bad gateway"))
    assert client(server, max_retries=2).rerank(KO_QUERY, KO_DOCS)[0][0] == 1
    assert len(server.requests) == 3
    assert server.requests[0].raw == server.requests[2].raw


def test_5xx_exhausts_retries(server: FakeRerankServer) -> None:
    server.script(*[Reply(503, {"error": "overloaded"})] * 3)
    with pytest.raises(RerankerUnavailableError, match=r"after 3 attempts \(last: HTTP 503: .*overloaded"):
        client(server, max_retries=2).score(EN_QUERY, EN_DOCS)
    assert len(server.requests) == 3


def test_backoff_is_exponential_capped_and_honours_retry_after(server: FakeRerankServer) -> None:
    server.script(Reply(503), Reply(429, {"error": "slow down"}, {"Retry-After": "0.7"}), Reply(500), Reply(503))
    reranker = client(server, max_retries=4, backoff=0.25, max_backoff=0.8)
    delays: list[float] = []
    reranker._sleep = delays.append
    reranker.score(EN_QUERY, EN_DOCS)
    assert delays == [0.25, 0.7, 0.8, 0.8]


@pytest.mark.parametrize("status", [401, 403])
def test_refused_key_is_a_config_error_at_once(
    server: FakeRerankServer, monkeypatch: pytest.MonkeyPatch, status: int
) -> None:
    monkeypatch.setenv(DEFAULT_API_KEY_ENV, "sk-wrong-key")
    server.script(Reply(status, {"message": "invalid api token"}))
    with pytest.raises(ConfigError, match=f"refused the API key \\(HTTP {status}\\).*{DEFAULT_API_KEY_ENV}") as caught:
        client(server, max_retries=3).score(EN_QUERY, EN_DOCS)
    assert "sk-wrong-key" not in str(caught.value)
    assert len(server.requests) == 1


def test_missing_key_says_which_variable_to_set(server: FakeRerankServer) -> None:
    server.script(Reply(401, {"message": "no api key"}))
    with pytest.raises(ConfigError, match=f"export {DEFAULT_API_KEY_ENV}="):
        client(server).score(EN_QUERY, EN_DOCS)


def test_timeout_errors_after_retries(server: FakeRerankServer) -> None:
    server.script(Reply(delay=2.0), Reply(delay=2.0))
    started = time.monotonic()
    with pytest.raises(RerankerUnavailableError, match=r"after 2 attempts \(last: timed out\)"):
        client(server, timeout=0.15, max_retries=1).score(EN_QUERY, EN_DOCS)
    assert time.monotonic() - started < 1.5
    assert len(server.requests) == 2


def test_connection_refused_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DEFAULT_API_KEY_ENV, raising=False)
    with FakeRerankServer() as fake:
        url = fake.url
    with pytest.raises(RerankerUnavailableError, match="did not answer after 1 attempt "):
        HTTPReranker(url, max_retries=0).score(EN_QUERY, EN_DOCS)


def test_client_errors_are_not_retried_and_hint_the_fix(server: FakeRerankServer) -> None:
    server.script(Reply(422, b"Failed to deserialize the JSON body: missing field `texts`"))
    with pytest.raises(RerankerError, match="HTTP 422.*flavor='tei'"):
        client(server, max_retries=3).score(EN_QUERY, EN_DOCS)
    server.script(Reply(404, {"detail": "Not Found"}))
    with pytest.raises(ConfigError, match="HTTP 404.*check base_url"):
        client(server, max_retries=3).score(EN_QUERY, EN_DOCS)
    assert len(server.requests) == 2


def test_redirect_is_refused_not_followed(server: FakeRerankServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEFAULT_API_KEY_ENV, "sk-test")
    server.script(Reply(307, {}, {"Location": "http://127.0.0.1:9/elsewhere"}))
    with pytest.raises(ConfigError, match="redirects .*127.0.0.1:9/elsewhere.*set base_url"):
        client(server).score(EN_QUERY, EN_DOCS)
    assert len(server.requests) == 1


def test_rerank_orders_best_first(server: FakeRerankServer) -> None:
    reranker = client(server)
    ranked = reranker.rerank(KO_QUERY, KO_DOCS)
    assert [i for i, _ in ranked] == [1, 0, 2]  # the tie between 0 and 2 keeps input order
    assert ranked[0][1] == pytest.approx(overlap_score(KO_QUERY, KO_DOCS[1]))
    assert reranker.rerank(EN_QUERY, EN_DOCS, top_n=1) == [(1, pytest.approx(overlap_score(EN_QUERY, EN_DOCS[1])))]
    assert reranker.rerank(EN_QUERY, EN_DOCS, top_n=0) == []


def test_cache_hit_avoids_a_second_request(server: FakeRerankServer) -> None:
    reranker = client(server)
    first = reranker.rerank(KO_QUERY, KO_DOCS)
    assert reranker.rerank(KO_QUERY, KO_DOCS) == first
    assert len(server.requests) == 1
    reranker.rerank(KO_QUERY, [*KO_DOCS, "서울 날씨는 흐림"])
    assert len(server.requests) == 2
    assert server.requests[1].body["documents"] == ["서울 날씨는 흐림"]  # only the new document
    reranker.rerank(EN_QUERY, KO_DOCS)  # same documents, another query: not a hit
    assert len(server.requests) == 3


def test_http_batches(server: FakeRerankServer) -> None:
    docs = [f"Minji note {i}" for i in range(5)]
    scores = client(server, batch_size=2).score(EN_QUERY, docs)
    assert [len(r.body["documents"]) for r in server.requests] == [2, 2, 1]
    assert scores == [pytest.approx(overlap_score(EN_QUERY, d)) for d in docs]


@pytest.mark.parametrize("options, match", [
    ({"base_url": "ftp://example.com"}, "http:// or https://"),
    ({"base_url": "http://127.0.0.1:1", "flavor": "openai"}, "flavor"),
    ({"base_url": "http://127.0.0.1:1", "timeout": 0}, "timeout"),
    ({"base_url": "http://127.0.0.1:1", "max_retries": -1}, "max_retries"),
    ({"base_url": "http://127.0.0.1:1", "extra_body": {"query": "x"}}, "extra_body cannot set query"),
    ({"base_url": "http://127.0.0.1:1", "batch_size": 0}, "batch_size"),
])
def test_http_config_is_checked(options: dict[str, Any], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        HTTPReranker(**options)


def test_extra_body_is_sent(server: FakeRerankServer) -> None:
    client(server, model="jina-reranker-v2-base-multilingual", extra_body={"return_documents": False}).score(
        EN_QUERY, EN_DOCS[:1]
    )
    assert server.requests[0].body["return_documents"] is False


# --- base class --------------------------------------------------------------------------------------


class CountingReranker(Reranker):
    """Scores by bigram overlap and records every batch it is asked to score."""

    model_id = "counting"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.batches: list[list[str]] = []

    def score_pairs(self, query: str, documents: list[str]) -> list[float]:
        self.batches.append(list(documents))
        return [overlap_score(query, d) for d in documents]


def test_base_batches_and_dedupes() -> None:
    reranker = CountingReranker(batch_size=3)
    docs = [f"문서 {i}" for i in range(7)] + ["문서 0"]
    scores = reranker.score("문서 3", docs)
    assert [len(b) for b in reranker.batches] == [3, 3, 1]  # the repeated "문서 0" is scored once
    assert scores[0] == scores[-1]
    assert reranker.rerank("문서 3", docs)[0] == (3, 1.0)
    assert len(reranker.batches) == 3  # all cached


def test_base_cache_is_lru_and_bounded() -> None:
    reranker = CountingReranker(cache_size=2)
    reranker.score(EN_QUERY, ["a", "b"])
    reranker.score(EN_QUERY, ["a"])  # touch a: b is now the oldest
    reranker.score(EN_QUERY, ["c"])  # evicts b
    reranker.batches.clear()
    reranker.score(EN_QUERY, ["a", "b", "c"])
    assert reranker.batches == [["b"]]
    uncached = CountingReranker(cache_size=0)
    uncached.score(EN_QUERY, ["a"])
    uncached.score(EN_QUERY, ["a"])
    assert len(uncached.batches) == 2


def test_base_empty_and_bad_input() -> None:
    reranker = CountingReranker()
    assert reranker.rerank(EN_QUERY, []) == []
    assert reranker.batches == []
    with pytest.raises(InputError, match="not one string"):
        reranker.rerank(EN_QUERY, "one document")
    with pytest.raises(InputError, match=r"documents\[1\]"):
        reranker.rerank(EN_QUERY, ["ok", None])  # type: ignore[list-item]
    with pytest.raises(InputError, match="top_n"):
        reranker.rerank(EN_QUERY, ["ok"], top_n=-1)


@pytest.mark.parametrize("reply, match", [
    ([0.5], "returned 1 scores for 2"),
    ([0.5, float("nan")], "NaN"),
    ([0.5, "0.1"], "not a number"),
])
def test_base_checks_subclass_scores(reply: list[Any], match: str) -> None:
    class Broken(Reranker):
        model_id = "broken"

        def score_pairs(self, query: str, documents: list[str]) -> list[float]:
            return reply

    with pytest.raises(RerankerError, match=match):
        Broken().score(EN_QUERY, ["a", "b"])


def test_base_accepts_numpy_scores() -> None:
    class Numpy(Reranker):
        model_id = "numpy"

        def score_pairs(self, query: str, documents: list[str]) -> list[float]:
            return np.arange(len(documents), dtype=np.float32)  # type: ignore[return-value]

    assert Numpy().rerank(EN_QUERY, ["a", "b", "c"]) == [(2, 2.0), (1, 1.0), (0, 0.0)]


def test_errors_belong_to_the_hierarchy() -> None:
    assert issubclass(RerankerUnavailableError, RerankerError)
    assert issubclass(RerankerError, GieokError)


# --- ONNX --------------------------------------------------------------------------------------------


@pytest.fixture
def model_dir(tmp_path: Path) -> Path:
    (tmp_path / "model.onnx").write_bytes(b"stand-in")
    (tmp_path / "tokenizer.json").write_text("{}")
    return tmp_path


def test_onnx_names_missing_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        ONNXCrossEncoder(tmp_path / "nowhere")
    with pytest.raises(ConfigError, match="lacks model.onnx and tokenizer.json"):
        ONNXCrossEncoder(tmp_path)
    (tmp_path / "tokenizer.json").write_text("{}")
    with pytest.raises(ConfigError, match="lacks model.onnx:"):
        ONNXCrossEncoder(tmp_path)


@pytest.mark.parametrize("module", ["onnxruntime", "tokenizers"])
def test_onnx_without_its_packages(model_dir: Path, monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    install_fake_onnx(monkeypatch)
    monkeypatch.setitem(sys.modules, module, None)  # import now fails, installed or not
    with pytest.raises(ConfigError, match="pip install onnxruntime tokenizers"):
        ONNXCrossEncoder(model_dir)


class FakeEncoding:
    def __init__(self, ids: list[int], type_ids: list[int]) -> None:
        self.ids, self.type_ids, self.attention_mask = ids, type_ids, [1] * len(ids)


class FakeTokenizer:
    """Words hashed to ids >= 10; pairs as [CLS] query [SEP] document [SEP]. Pad id 1, as in XLM-R."""

    padding = {"pad_id": 1, "pad_token": "<pad>"}

    @classmethod
    def from_file(cls, path: str) -> FakeTokenizer:
        assert path.endswith("tokenizer.json")
        return cls()

    def no_padding(self) -> None:
        self.padding = None  # type: ignore[assignment]

    def enable_truncation(self, max_length: int) -> None:
        self.max_length = max_length

    def token_to_id(self, token: str) -> int | None:
        return None

    def encode_batch(self, pairs: list[tuple[str, str]]) -> list[FakeEncoding]:
        out = []
        for query, document in pairs:
            q = [10 + sum(map(ord, w)) % 1000 for w in query.split()]
            d = [10 + sum(map(ord, w)) % 1000 for w in document.split()]
            ids = ([0, *q, 2, *d, 2])[: self.max_length]
            out.append(FakeEncoding(ids, ([0] * (len(q) + 2) + [1] * (len(d) + 1))[: len(ids)]))
        return out


class FakeSession:
    """Logit = shared words between the query and document segments, minus one."""

    inputs = [("input_ids", "tensor(int64)"), ("attention_mask", "tensor(int64)"), ("token_type_ids", "tensor(int64)")]
    output_width = 1
    feeds: list[dict[str, np.ndarray]] = []

    def __init__(self, path: str, sess_options: Any = None, providers: list[str] | None = None) -> None:
        assert path.endswith("model.onnx") and providers == ["CPUExecutionProvider"]

    def get_inputs(self) -> list[types.SimpleNamespace]:
        return [types.SimpleNamespace(name=n, type=t) for n, t in self.inputs]

    def get_outputs(self) -> list[types.SimpleNamespace]:
        return [types.SimpleNamespace(name="logits")]

    def run(self, names: list[str], feed: dict[str, np.ndarray]) -> list[np.ndarray]:
        assert names == ["logits"]
        self.feeds.append(feed)
        ids = feed["input_ids"]
        types_ = feed.get("token_type_ids", np.zeros_like(ids))
        logits = []
        for row in range(len(ids)):
            query = {int(t) for t, s in zip(ids[row], types_[row]) if s == 0 and t >= 10}
            document = {int(t) for t, s in zip(ids[row], types_[row]) if s == 1 and t >= 10}
            logits.append(len(query & document) - 1.0)
        column = np.asarray(logits, dtype=np.float32)[:, None]
        if self.output_width == 2:
            return [np.concatenate([np.zeros_like(column), column], axis=1)]
        return [column if self.output_width == 1 else np.zeros((len(ids), self.output_width), np.float32)]


def install_fake_onnx(monkeypatch: pytest.MonkeyPatch, **session_attrs: Any) -> type[FakeSession]:
    session = type("Session", (FakeSession,), {"feeds": [], **session_attrs})
    ort = types.ModuleType("onnxruntime")
    ort.InferenceSession = session  # type: ignore[attr-defined]
    ort.SessionOptions = types.SimpleNamespace  # type: ignore[attr-defined]
    tok = types.ModuleType("tokenizers")
    tok.Tokenizer = FakeTokenizer  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "onnxruntime", ort)
    monkeypatch.setitem(sys.modules, "tokenizers", tok)
    return session


def test_onnx_scores_pairs_with_padding(model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = install_fake_onnx(monkeypatch)
    reranker = ONNXCrossEncoder(model_dir, num_threads=1)
    docs = ["Minji does pilates for exercise", "weather", "민지는 필라테스를 해"]
    ranked = reranker.rerank("Minji exercise", docs)
    assert [i for i, _ in ranked] == [0, 1, 2]
    assert ranked[0][1] == pytest.approx(1 / (1 + np.exp(-1.0)))  # sigmoid(2 shared words - 1)
    assert all(0.0 < s < 1.0 for _, s in ranked)
    [feed] = session.feeds
    assert feed["input_ids"].dtype == np.int64 and feed["input_ids"].shape[0] == 3
    assert feed["input_ids"][1, -1] == 1 and feed["attention_mask"][1, -1] == 0  # padded with the model's pad id
    assert feed["attention_mask"][0].all()
    assert reranker.model_id.startswith("onnx:")


def test_onnx_two_logit_head_int32_inputs_and_raw_scores(model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = install_fake_onnx(
        monkeypatch, output_width=2,
        inputs=[("input_ids", "tensor(int32)"), ("attention_mask", "tensor(int32)"),
                ("token_type_ids", "tensor(int32)")],
    )
    raw = ONNXCrossEncoder(model_dir, raw_scores=True).score("서울 날씨", ["서울 날씨 맑음", "부산 비"])
    assert raw == [1.0, -1.0]
    assert session.feeds[0]["input_ids"].dtype == np.int32


def test_onnx_refuses_a_model_that_is_not_a_cross_encoder(model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_fake_onnx(monkeypatch, inputs=[("pixel_values", "tensor(float)")])
    with pytest.raises(ConfigError, match="text-classification"):
        ONNXCrossEncoder(model_dir)
    install_fake_onnx(monkeypatch, output_width=3)
    with pytest.raises(RerankerError, match="output has shape"):
        ONNXCrossEncoder(model_dir).score(EN_QUERY, EN_DOCS)


REAL_MODEL = os.environ.get("GIEOK_TEST_ONNX_RERANKER")


@pytest.mark.slow
@pytest.mark.skipif(not REAL_MODEL, reason="set GIEOK_TEST_ONNX_RERANKER to a folder with model.onnx + tokenizer.json")
def test_onnx_real_model_ranks_the_relevant_document_first() -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tokenizers")
    reranker = ONNXCrossEncoder(REAL_MODEL or "")
    assert reranker.rerank(EN_QUERY, EN_DOCS)[0][0] == 1
    assert reranker.rerank("민지는 운동으로 뭘 해?", ["민지는 매주 화요일 필라테스를 한다", "서울은 맑다"])[0][0] == 0


# --- registration ------------------------------------------------------------------------------------


def test_register_builtins(server: FakeRerankServer) -> None:
    registered: dict[tuple[str, str], Any] = {}
    register_builtins(lambda kind, name, factory: registered.__setitem__((kind, name), factory))
    assert set(registered) == {("reranker", "http"), ("reranker", "onnx")}
    assert all(kind in KINDS for kind, _ in registered)
    reranker = registered[("reranker", "http")](base_url=server.url, model="bge-reranker-v2-m3", max_retries=0)
    assert isinstance(reranker, HTTPReranker)
    assert reranker.rerank(KO_QUERY, KO_DOCS, top_n=1)[0][0] == 1
    with pytest.raises(ConfigError, match="'http'.*colour.*its options are base_url, model"):
        registered[("reranker", "http")](base_url=server.url, colour="red")
    with pytest.raises(ConfigError, match="'onnx'.*model_dir"):
        registered[("reranker", "onnx")]()
