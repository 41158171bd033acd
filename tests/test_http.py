"""The one HTTP transport (gieok.providers._http), and both HTTP providers on it through MockTransport:
retries on 429 with Retry-After, the backoff cap, refused redirects, key lookup and keys kept out of
reprs. No sockets here, except one loopback server that proves the default transport refuses a redirect."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import random
import threading
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from gieok.errors import (
    ConfigError,
    LLMAuthError,
    LLMConfigError,
    LLMRateLimitError,
    LLMUnavailableError,
    RerankerError,
    RerankerUnavailableError,
)
from gieok.providers._http import (
    APIKey,
    MockTransport,
    Request,
    Response,
    UrllibTransport,
    auth_hint,
    backoff_delay,
    find_api_key,
    is_transient,
    post_json,
    retry,
)
from gieok.providers.llms import AnthropicLLM, OpenAICompatibleLLM
from gieok.providers.rerankers import DEFAULT_API_KEY_ENV, HTTPReranker

Reply = Response | OSError


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", DEFAULT_API_KEY_ENV, "MY_KEY"):
        monkeypatch.delenv(var, raising=False)


def scripted(*replies: Reply) -> MockTransport:
    """A transport answering with ``replies`` in order (an OSError is raised: the server never answered)."""
    queue = list(replies)

    def handler(request: Request) -> Response:
        assert queue, f"no reply scripted for {request!r}"
        reply = queue.pop(0)
        if isinstance(reply, OSError):
            raise reply
        return reply

    return MockTransport(handler)


def chat(text: str = "ok") -> Response:
    return Response.from_json({"choices": [{"message": {"content": text}, "finish_reason": "stop"}],
                               "usage": {"prompt_tokens": 3, "completion_tokens": 1}})


def scores(*values: float) -> Response:
    return Response.from_json({"results": [{"index": i, "relevance_score": v} for i, v in enumerate(values)]})


def openai(transport: MockTransport, **options: Any) -> tuple[OpenAICompatibleLLM, list[float]]:
    sleeps: list[float] = []
    llm = OpenAICompatibleLLM("http://llm.test/v1", "m", transport=transport, sleep=sleeps.append, **options)
    return llm, sleeps


def reranker(transport: MockTransport, **options: Any) -> tuple[HTTPReranker, list[float]]:
    sleeps: list[float] = []
    client = HTTPReranker("http://rerank.test", transport=transport, **options)
    client._sleep = sleeps.append
    return client, sleeps


# --- the transport's own pieces ---------------------------------------------------------------------


def test_post_json_sends_utf8_json_with_the_shared_headers() -> None:
    transport = scripted(Response(200, b"{}"))
    response = post_json(transport, "http://x.test/a", {"q": "서울 날씨"}, headers={"X-Extra": "1"}, timeout=3.0)
    assert response.ok and response.json() == {}
    [request] = transport.requests
    assert (request.method, request.url, request.timeout) == ("POST", "http://x.test/a", 3.0)
    assert "서울 날씨".encode() in request.body and request.json() == {"q": "서울 날씨"}
    assert request.header("content-type") == "application/json" and request.header("X-EXTRA") == "1"


@pytest.mark.parametrize("headers, expected", [
    ({"Retry-After": "3"}, 3.0),
    ({"retry-after": "-5"}, 0.0),
    ({"Retry-After-Ms": "1500", "Retry-After": "9"}, 1.5),  # OpenAI's finer twin wins
    ({"Retry-After": "soon"}, None),
    ({}, None),
])
def test_retry_after_is_read_without_regard_to_case(headers: dict[str, str], expected: float | None) -> None:
    assert Response(429, headers=headers).retry_after() == expected


def test_retry_after_as_an_http_date() -> None:
    when = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=30), usegmt=True)
    waited = Response(503, headers={"Retry-After": when}).retry_after()
    assert waited is not None and 25 <= waited <= 30


def test_transient_statuses() -> None:
    assert [s for s in (200, 301, 400, 401, 404, 408, 425, 429, 500, 503, 529) if is_transient(s)] == [
        408, 425, 429, 500, 503, 529]


def test_backoff_is_exponential_and_capped() -> None:
    assert [backoff_delay(n, base=0.5, cap=3.0) for n in range(5)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert backoff_delay(10_000, base=0.5, cap=3.0) == 3.0  # no overflow however many retries
    assert backoff_delay(0, base=0.5, cap=3.0, retry_after=2.5) == 2.5  # the server's wait wins when longer
    assert backoff_delay(0, base=0.5, cap=3.0, retry_after=3600) == 3.0  # but never beyond the cap
    jittered = [backoff_delay(2, base=0.5, cap=3.0, jitter=random.Random(seed)) for seed in range(20)]
    assert all(1.0 <= d <= 2.0 for d in jittered) and len(set(jittered)) > 1


def test_retry_stops_at_success_or_gives_up_with_the_last_failure() -> None:
    class Busy(Exception):
        def __init__(self, n: int) -> None:
            super().__init__(f"busy {n}")
            self.retry_after = float(n)

    calls: list[int] = []

    def flaky(succeed_on: int) -> Callable[[], str]:
        def attempt() -> str:
            calls.append(len(calls))
            if len(calls) < succeed_on:
                raise Busy(len(calls))
            return "done"
        return attempt

    delays: list[tuple[int, float | None]] = []
    sleeps: list[float] = []

    def delay(n: int, retry_after: float | None) -> float:
        delays.append((n, retry_after))
        return 0.1

    assert retry(flaky(3), transient=Busy, max_retries=5, delay=delay, sleep=sleeps.append) == "done"
    assert delays == [(0, 1.0), (1, 2.0)] and sleeps == [0.1, 0.1]
    calls.clear()
    with pytest.raises(Busy, match="busy 3"):
        retry(flaky(99), transient=Busy, max_retries=2, delay=delay, sleep=sleeps.append)
    assert len(calls) == 3

    def broken() -> str:
        calls.append(0)
        raise ValueError("not transient")

    calls.clear()
    with pytest.raises(ValueError):
        retry(broken, transient=Busy, max_retries=5, delay=delay, sleep=sleeps.append)
    assert calls == [0]


# --- API keys ---------------------------------------------------------------------------------------


def test_key_lookup_prefers_the_given_key_and_strips_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert find_api_key("MY_KEY") is None
    monkeypatch.setenv("MY_KEY", "  sk-env-1\n")
    assert find_api_key("MY_KEY") == APIKey("sk-env-1", "MY_KEY")
    assert find_api_key("MY_KEY", "sk-given") == APIKey("sk-given", None)
    assert find_api_key("MY_KEY", "") is None  # an explicit empty key is no key, not the environment's


@pytest.mark.parametrize("value", ["sk 1", "sk-비밀", "sk\x07x"])
def test_a_malformed_key_is_refused_without_quoting_it(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("MY_KEY", value)
    with pytest.raises(LLMConfigError, match="the value of MY_KEY is not a valid API key") as caught:
        find_api_key("MY_KEY", error=LLMConfigError)
    assert value not in str(caught.value)


def test_a_key_never_shows_in_a_repr(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-secret-4242"
    key = APIKey(secret, "MY_KEY")
    assert secret not in repr(key) and secret not in str(key) and key.source == "the value of MY_KEY"
    request = Request("POST", "http://x.test", {"Authorization": f"Bearer {secret}"}, b"{}", 1.0)
    assert secret not in repr(request) and "Authorization" in repr(request)
    monkeypatch.setenv(DEFAULT_API_KEY_ENV, secret)
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    transport = scripted(chat(), scores(0.5))
    clients: list[Any] = [openai(transport)[0], AnthropicLLM("claude-sonnet-4", api_key=secret, transport=transport),
                          reranker(transport)[0]]
    for client in clients:
        assert secret not in repr(client) and secret not in repr(vars(client)), type(client).__name__
    clients[0].complete("hi")
    clients[2].score("q", ["d"])
    assert [r.header("authorization") for r in transport.requests] == [f"Bearer {secret}"] * 2


def test_auth_hints_say_which_variable_to_set() -> None:
    assert auth_hint(None, "MY_KEY") == "it needs one: export MY_KEY=<your key>, or pass api_key="
    assert auth_hint(None, "MY_KEY", can_pass_key=False) == "it needs one: export MY_KEY=<your key>"
    assert auth_hint(APIKey("k", "MY_KEY"), "MY_KEY") == "check MY_KEY (export MY_KEY=<your key>)"
    assert auth_hint(APIKey("k", None), "MY_KEY") == "check the api_key passed"


def test_missing_keys_name_the_variable_to_set() -> None:
    with pytest.raises(LLMConfigError, match="export ANTHROPIC_API_KEY=<your key>"):
        AnthropicLLM("claude-sonnet-4", transport=scripted())
    with pytest.raises(LLMConfigError, match="export MY_KEY=<your key>"):
        OpenAICompatibleLLM("https://api.openai.com/v1", "gpt-4o-mini", api_key_env="MY_KEY", transport=scripted())
    with pytest.raises(ConfigError, match="MY_KEY is not set: export MY_KEY=<your key>"):
        HTTPReranker("http://rerank.test", api_key_env="MY_KEY", transport=scripted())
    llm, _ = openai(scripted(Response.from_json({"error": {"message": "no key"}}, status=401)))
    with pytest.raises(LLMAuthError, match="it needs one: export OPENAI_API_KEY=<your key>"):
        llm.complete("hi")
    client, _ = reranker(scripted(Response(401)))
    with pytest.raises(ConfigError, match=f"it needs one: export {DEFAULT_API_KEY_ENV}=<your key>"):
        client.score("q", ["d"])


# --- both providers on the transport ----------------------------------------------------------------


def test_llm_retries_a_429_honouring_retry_after() -> None:
    transport = scripted(Response(429, b"slow down", {"Retry-After": "2"}), chat("fine"))
    llm, sleeps = openai(transport)
    assert llm.complete("hi").text == "fine"
    assert sleeps == [2.0] and len(transport.requests) == 2
    assert transport.requests[0].body == transport.requests[1].body


def test_reranker_retries_a_429_honouring_retry_after() -> None:
    transport = scripted(Response(429, b"slow down", {"Retry-After": "2"}), scores(0.1, 0.9))
    client, sleeps = reranker(transport, backoff=0.25)
    assert client.rerank("q", ["a", "b"]) == [(1, 0.9), (0, 0.1)]
    assert sleeps == [2.0] and len(transport.requests) == 2


def test_llm_backoff_is_capped_and_gives_up_naming_the_attempts() -> None:
    transport = scripted(*[Response(429, headers={"Retry-After": "3600"})] * 4)
    llm, sleeps = openai(transport, max_retries=3, backoff_base=1.0, backoff_cap=4.0)
    with pytest.raises(LLMRateLimitError, match="after 4 attempts") as caught:
        llm.complete("hi")
    assert sleeps == [4.0, 4.0, 4.0] and caught.value.retry_after == 3600.0


def test_reranker_backoff_is_capped_and_gives_up_naming_the_attempts() -> None:
    transport = scripted(*[Response(503, b"overloaded")] * 5)
    client, sleeps = reranker(transport, max_retries=4, backoff=1.0, max_backoff=3.0)
    with pytest.raises(RerankerUnavailableError, match=r"after 5 attempts \(last: HTTP 503: overloaded\)"):
        client.score("q", ["d"])
    assert sleeps == [1.0, 2.0, 3.0, 3.0]


def test_silence_is_unavailable_for_both() -> None:
    llm, sleeps = openai(scripted(TimeoutError(), ConnectionRefusedError("refused")), max_retries=1)
    with pytest.raises(LLMUnavailableError, match=r"after 2 attempts \(last: refused\)"):
        llm.complete("hi")
    assert len(sleeps) == 1
    client, _ = reranker(scripted(TimeoutError()), max_retries=0)
    with pytest.raises(RerankerUnavailableError, match=r"after 1 attempt \(last: timed out\)"):
        client.score("q", ["d"])


def test_a_redirect_is_refused_by_both_and_names_where_it_points() -> None:
    moved = Response(308, b"", {"Location": "https://new.test/v1"})
    llm, sleeps = openai(scripted(moved), max_retries=3)
    with pytest.raises(LLMConfigError, match="redirects .*https://new.test/v1.*set base_url"):
        llm.complete("hi")
    assert sleeps == []
    client, _ = reranker(scripted(moved), max_retries=3)
    with pytest.raises(ConfigError, match="redirects .*https://new.test/v1.*set base_url"):
        client.score("q", ["d"])


def test_client_errors_are_not_retried() -> None:
    transport = scripted(Response(422, b"bad field"))
    client, sleeps = reranker(transport, max_retries=3)
    with pytest.raises(RerankerError, match="HTTP 422: bad field") as caught:
        client.score("q", ["d"])
    assert not isinstance(caught.value, RerankerUnavailableError) and sleeps == []


def test_the_transport_is_a_registered_option() -> None:
    from gieok.providers.registry import create

    transport = scripted(chat("via registry"))
    llm = create("llm", "openai", base_url="http://llm.test/v1", model="m", transport=transport)
    assert llm.complete("hi").text == "via registry" and len(transport.requests) == 1


# --- the default transport --------------------------------------------------------------------------


@pytest.fixture
def redirecting_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, list[str]]]:
    for var in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    paths: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            paths.append(self.path)
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(302 if self.path == "/start" else 200)
            self.send_header("Location", "/elsewhere")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", paths
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def test_urllib_transport_returns_a_redirect_instead_of_following_it(redirecting_server: tuple[str, list[str]]) -> None:
    url, paths = redirecting_server
    response = post_json(UrllibTransport(), url + "/start", {"a": 1}, headers={}, timeout=5.0)
    assert (response.status, response.header("location")) == (302, "/elsewhere")
    assert paths == ["/start"]


def test_urllib_transport_raises_oserror_when_nobody_answers() -> None:
    with ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler) as closed:
        url = f"http://127.0.0.1:{closed.server_address[1]}"
    with pytest.raises(ConnectionError):
        post_json(UrllibTransport(), url, {}, headers={}, timeout=2.0)


# --- the import graph -------------------------------------------------------------------------------


def _gieok_imports(module: str) -> set[str]:
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):  # function-level imports count too: they are how circles hide
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("gieok")}


def test_llm_modules_import_one_way_without_a_module_getattr() -> None:
    for module in ("gieok.providers._llm_base", "gieok.providers._llm_http", "gieok.providers._http"):
        assert "gieok.providers.llms" not in _gieok_imports(module), module
    assert "gieok.providers._llm_http" not in _gieok_imports("gieok.providers._llm_base")
    for module in ("gieok.providers._http", "gieok.providers.rerankers"):  # the transport serves, never asks
        assert not {m for m in _gieok_imports(module) if "llm" in m}, module
    assert "gieok.providers._http" in _gieok_imports("gieok.providers.rerankers")
    assert "gieok.providers._http" in _gieok_imports("gieok.providers._llm_http")
    llms = importlib.import_module("gieok.providers.llms")
    assert "__getattr__" not in vars(llms)
    assert llms.OpenAICompatibleLLM.__module__ == "gieok.providers._llm_http"
