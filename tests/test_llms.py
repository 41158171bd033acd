"""LLM providers through the real HTTP path against FakeLLMServer on loopback, plus ScriptedLLM,
metering and registration."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gieok.errors import ConfigError, GieokError, InputError
from gieok.providers import llms
from gieok.providers.llms import (
    PRICES,
    AnthropicLLM,
    ChatRequest,
    ChatResponse,
    LLMAuthError,
    LLMConfigError,
    LLMError,
    LLMOutputError,
    LLMRateLimitError,
    LLMRequestError,
    LLMUnavailableError,
    OpenAICompatibleLLM,
    ScriptedLLM,
    Usage,
    estimate_cost,
    register_builtins,
)
from gieok.providers.registry import KINDS

if str(Path(__file__).parent) not in sys.path:  # pytest's default import mode puts it there already
    sys.path.insert(0, str(Path(__file__).parent))
from fake_llm import FakeLLMServer  # noqa: E402

PERSON = {
    "title": "person",
    "type": "object",
    "properties": {"name": {"type": "string"}, "city": {"type": "string"}},
    "required": ["name", "city"],
    "additionalProperties": False,
}


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
                "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as fake:
        yield fake


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def openai(server: FakeLLMServer, **options: Any) -> OpenAICompatibleLLM:
    options.setdefault("sleep", Sleeps())
    return OpenAICompatibleLLM(server.base_url, options.pop("model", "fake-model"), **options)


def anthropic(server: FakeLLMServer, **options: Any) -> AnthropicLLM:
    options.setdefault("sleep", Sleeps())
    options.setdefault("api_key", "sk-ant-test")
    return AnthropicLLM(options.pop("model", "claude-3-5-haiku-latest"), base_url=server.root_url, **options)


# --- OpenAI-compatible -----------------------------------------------------------------------------


def test_plain_completion(server: FakeLLMServer) -> None:
    server.queue(content="Seoul is sunny.", usage=(12, 4))
    response = openai(server).complete("How is the weather?", system="Be brief.", max_tokens=50)
    assert response.text == "Seoul is sunny."
    assert response.data is None
    assert (response.input_tokens, response.output_tokens) == (12, 4)
    assert (response.finish_reason, response.truncated) == ("stop", False)
    assert response.model == "fake-model"
    assert response.latency_s >= 0
    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.body == {
        "model": "fake-model",
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "How is the weather?"}],
        "max_tokens": 50,
        "temperature": 0.0,
    }
    assert request.headers["content-type"].startswith("application/json")


def test_json_schema_is_sent_as_response_format(server: FakeLLMServer) -> None:
    server.queue_json({"name": "Minji", "city": "Busan"})
    response = openai(server).complete("Who?", json_schema=PERSON)
    assert response.data == {"name": "Minji", "city": "Busan"}
    assert server.requests[0].body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "person", "schema": PERSON, "strict": True},
    }


def test_fenced_json_is_parsed(server: FakeLLMServer) -> None:
    server.queue(content='Here it is:\n```json\n{"name": "Minji", "city": "Busan"}\n```\n')
    assert openai(server).complete("Who?", json_schema=PERSON).data == {"name": "Minji", "city": "Busan"}


@pytest.mark.parametrize("content, problem", [
    ("Minji lives in Busan.", "not a JSON object"),
    ('{"name": "Minji", "city": ', "not valid JSON"),
    ('["Minji", "Busan"]', "not a JSON object"),
    ('{"name": "Minji", "city": NaN}', "not valid JSON"),
    ('{"name": "Minji"}', "required key 'city'"),
    ('```json\n{"name": "a", "city": "b"}\n```\n```json\n{}\n```', "not a JSON object"),
])
def test_bad_structured_output_raises_output_error(server: FakeLLMServer, content: str, problem: str) -> None:
    server.queue(content=content)
    with pytest.raises(LLMOutputError, match=problem) as caught:
        openai(server).complete("Who?", json_schema=PERSON)
    assert caught.value.raw_text == content
    assert content not in str(caught.value)  # model output is handed over, never put in messages
    assert len(server.requests) == 1  # not retried


def test_response_format_refused_falls_back_to_prompting_once() -> None:
    with FakeLLMServer(reject_response_format=True) as server:
        llm = openai(server)
        server.queue_json({"name": "Minji", "city": "Busan"})
        assert llm.complete("Who?", system="Extract.", json_schema=PERSON).data == {"name": "Minji", "city": "Busan"}
        first, retried = server.requests
        assert "response_format" in first.body and "response_format" not in retried.body
        system = retried.body["messages"][0]
        assert system["role"] == "system" and system["content"].startswith("Extract.\n\nReply with only a JSON object")
        assert '"required": ["name", "city"]' in system["content"]
        assert llm.supports_json_schema is False
        server.queue(content='{"name": "Jisoo", "city": "Seoul"}')
        assert llm.complete("Who?", json_schema=PERSON).data == {"name": "Jisoo", "city": "Seoul"}
        assert len(server.requests) == 3  # remembered: no second 400


def test_other_400s_are_not_mistaken_for_response_format(server: FakeLLMServer) -> None:
    server.queue_error(400, {"error": {"message": "context length exceeded"}})
    with pytest.raises(LLMRequestError, match="context length exceeded") as caught:
        openai(server).complete("Who?", json_schema=PERSON)
    assert caught.value.status == 400
    assert len(server.requests) == 1


@pytest.mark.parametrize("headers, expected", [({"Retry-After": "3"}, 3.0), ({"Retry-After": "100"}, 8.0),
                                               ({"retry-after-ms": "1500"}, 1.5)])
def test_429_is_retried_honouring_retry_after_within_the_cap(
    server: FakeLLMServer, headers: dict[str, str], expected: float
) -> None:
    server.queue_error(429, headers=headers)
    server.queue(content="ok")
    sleeps = Sleeps()
    assert openai(server, sleep=sleeps).complete("hi").text == "ok"
    assert sleeps == [expected]
    assert len(server.requests) == 2


def test_backoff_is_capped_exponential_with_jitter(server: FakeLLMServer) -> None:
    for _ in range(5):
        server.queue_error(503)
    server.queue(content="ok")
    sleeps = Sleeps()
    assert openai(server, max_retries=5, backoff_base=0.5, backoff_cap=2.0, sleep=sleeps).complete("hi").text == "ok"
    steps = [0.5, 1.0, 2.0, 2.0, 2.0]
    assert len(sleeps) == 5
    assert all(step / 2 <= slept <= step for slept, step in zip(sleeps, steps, strict=True))


def test_429_forever_raises_rate_limit_error(server: FakeLLMServer) -> None:
    for _ in range(3):
        server.queue_error(429, headers={"Retry-After": "1"})
    sleeps = Sleeps()
    with pytest.raises(LLMRateLimitError, match="after 3 attempts") as caught:
        openai(server, max_retries=2, sleep=sleeps).complete("hi")
    assert caught.value.retry_after == 1.0
    assert len(server.requests) == 3 and len(sleeps) == 2


def test_401_raises_auth_error_at_once(server: FakeLLMServer) -> None:
    server.queue_error(401, {"error": {"message": "Incorrect API key provided"}})
    sleeps = Sleeps()
    with pytest.raises(LLMAuthError, match="export OPENAI_API_KEY=") as caught:
        openai(server, sleep=sleeps).complete("hi")
    assert isinstance(caught.value, ConfigError)
    assert len(server.requests) == 1 and sleeps == []


def test_refused_key_names_where_it_came_from(server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_LLM_KEY", "sk-wrong-123")
    server.queue_error(403)
    llm = openai(server, api_key_env="MY_LLM_KEY")
    with pytest.raises(LLMAuthError, match="check MY_LLM_KEY") as caught:
        llm.complete("hi")
    assert "sk-wrong" not in str(caught.value) and "sk-wrong" not in repr(llm)
    assert server.requests[0].headers["authorization"] == "Bearer sk-wrong-123"


def test_5xx_forever_raises_unavailable(server: FakeLLMServer) -> None:
    for _ in range(5):
        server.queue_error(502, "<html>Bad gateway</html>")
    with pytest.raises(LLMUnavailableError, match=r"after 5 attempts .last: HTTP 502: <html>Bad gateway"):
        openai(server).complete("hi")
    assert len(server.requests) == 5


def test_connection_refused_raises_unavailable() -> None:
    with FakeLLMServer() as server:
        url = server.base_url
    sleeps = Sleeps()
    llm = OpenAICompatibleLLM(url, "fake-model", max_retries=2, sleep=sleeps)
    with pytest.raises(LLMUnavailableError, match="did not answer after 3 attempts"):
        llm.complete("hi")
    assert len(sleeps) == 2


def test_timeout_raises_unavailable(server: FakeLLMServer) -> None:
    server.queue(content="too late", delay=2.0)
    with pytest.raises(LLMUnavailableError, match="timed out"):
        openai(server, timeout=0.2, max_retries=0).complete("hi")


def test_finish_reason_length_marks_truncated(server: FakeLLMServer) -> None:
    server.queue(content="The weather in Seo", finish_reason="length")
    response = openai(server).complete("hi", max_tokens=5)
    assert (response.finish_reason, response.truncated) == ("length", True)
    server.queue(content='{"name": "Min', finish_reason="length")
    with pytest.raises(LLMOutputError, match="cut off at max_tokens: raise max_tokens="):
        openai(server).complete("hi", json_schema=PERSON, max_tokens=5)


def test_usage_hook_gets_tokens_and_cost(server: FakeLLMServer) -> None:
    seen: list[Usage] = []
    server.queue(content="ok", usage=(1000, 200))
    openai(server, model="gpt-4o-mini", on_usage=seen.append).complete("hi", operation="extract")
    [usage] = seen
    assert usage == Usage("openai", "gpt-4o-mini", "extract", 1, 1000, 200, usage.cost_usd)
    assert usage.cost_usd == pytest.approx((1000 * 0.15 + 200 * 0.60) / 1e6)
    server.queue_error(401)
    with pytest.raises(LLMAuthError):
        openai(server, on_usage=seen.append).complete("hi")
    assert len(seen) == 1  # only answered calls are metered


def test_estimate_cost() -> None:
    assert estimate_cost("gpt-4o-mini", 1_000_000, 1_000_000) == pytest.approx(0.75)
    assert estimate_cost("gpt-4o-mini-2024-07-18", 1_000_000, 0) == pytest.approx(0.15)  # snapshot: its family
    assert estimate_cost("gpt-4o-2024-08-06", 1_000_000, 0) == pytest.approx(2.50)  # not gpt-4o-mini
    assert estimate_cost("claude-3-5-haiku-20241022", 0, 1_000_000) == pytest.approx(4.0)
    assert estimate_cost("openai/gpt-4.1-mini", 1_000_000, 0) == pytest.approx(0.40)
    assert estimate_cost("qwen2.5:7b", 10**9, 10**9) == 0.0
    assert estimate_cost("qwen2.5:7b", 10**6, 0, prices={"qwen2.5:7b": (1.0, 2.0)}) == 1.0
    assert {"gpt-4o-mini", "gpt-4.1-mini", "claude-3-5-haiku", "claude-sonnet-4"} <= set(PRICES)


def test_no_authorization_header_without_a_key(server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    server.queue(content="ok")
    openai(server).complete("hi")
    assert "authorization" not in server.requests[0].headers
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-key\n")  # a trailing newline from `cat keyfile`
    server.queue(content="ok")
    openai(server).complete("hi")
    assert server.requests[1].headers["authorization"] == "Bearer sk-env-key"


def test_missing_or_malformed_keys_fail_at_construction(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(LLMConfigError, match="export OPENAI_API_KEY="):
        OpenAICompatibleLLM("https://api.openai.com/v1", "gpt-4o-mini")
    with pytest.raises(LLMConfigError, match="export ANTHROPIC_API_KEY="):
        AnthropicLLM("claude-sonnet-4-20250514")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-비밀")
    with pytest.raises(LLMConfigError, match="OPENAI_API_KEY is not a valid API key") as caught:
        OpenAICompatibleLLM("http://127.0.0.1:1/v1", "m")
    assert "비밀" not in str(caught.value)
    with pytest.raises(LLMConfigError, match="base_url must start with http"):
        OpenAICompatibleLLM("localhost:8000/v1", "m")


def test_korean_round_trips_as_utf8(server: FakeLLMServer) -> None:
    server.queue(content="민지는 부산에 산다")
    server.queue_json({"name": "민지", "city": "부산"})
    llm = openai(server)
    assert llm.complete("민지는 어디 살아?").text == "민지는 부산에 산다"
    assert llm.complete("민지는 어디 살아?", json_schema=PERSON).data == {"name": "민지", "city": "부산"}
    assert "민지는 어디 살아?".encode() in server.requests[0].raw  # UTF-8 on the wire, not \\u escapes


def test_unknown_reply_shapes_and_404(server: FakeLLMServer) -> None:
    server.queue_error(200, "this is not json")
    with pytest.raises(LLMError, match="not JSON"):
        openai(server).complete("hi")
    server.queue_error(200, {"unexpected": True})
    with pytest.raises(LLMError, match="without choices"):
        openai(server).complete("hi")
    with pytest.raises(LLMRequestError, match="check base_url"):
        OpenAICompatibleLLM(server.root_url + "/wrong", "m").complete("hi")


# --- Anthropic -------------------------------------------------------------------------------------


def test_anthropic_plain_completion(server: FakeLLMServer) -> None:
    server.queue(content="부산은 맑다", usage=(20, 6))
    llm = anthropic(server)
    response = llm.complete([{"role": "user", "content": "날씨?"}], system="Be brief.", max_tokens=64)
    assert (response.text, response.input_tokens, response.output_tokens) == ("부산은 맑다", 20, 6)
    assert (response.finish_reason, response.truncated, response.data) == ("stop", False, None)
    [request] = server.requests
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == "sk-ant-test"
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers
    assert request.body == {"model": "claude-3-5-haiku-latest", "max_tokens": 64, "temperature": 0.0,
                            "messages": [{"role": "user", "content": "날씨?"}], "system": "Be brief."}
    assert "sk-ant-test" not in repr(llm)


def test_anthropic_structured_output_uses_one_forced_tool(server: FakeLLMServer) -> None:
    server.queue_json({"name": "민지", "city": "부산"})
    response = anthropic(server).complete("Who?", json_schema=PERSON)
    assert response.data == {"name": "민지", "city": "부산"}
    assert response.finish_reason == "stop"
    body = server.requests[0].body
    assert [tool["name"] for tool in body["tools"]] == ["person"]
    assert body["tools"][0]["input_schema"] == PERSON
    assert body["tool_choice"] == {"type": "tool", "name": "person"}


def test_anthropic_max_tokens_is_truncation(server: FakeLLMServer) -> None:
    server.queue(content="The weather", finish_reason="length")
    response = anthropic(server).complete("hi", max_tokens=3)
    assert (response.finish_reason, response.truncated) == ("length", True)
    server.queue_json({"name": "민지"}, finish_reason="length")
    with pytest.raises(LLMOutputError, match="required key 'city'; it was cut off at max_tokens"):
        anthropic(server).complete("hi", json_schema=PERSON, max_tokens=3)


def test_anthropic_errors_and_base_url_with_v1(server: FakeLLMServer) -> None:
    server.queue_error(529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    server.queue(content="ok")
    llm = AnthropicLLM("claude-sonnet-4", api_key="k", base_url=server.base_url, sleep=Sleeps())
    assert llm.complete("hi").text == "ok"
    assert [r.path for r in server.requests] == ["/v1/messages", "/v1/messages"]
    server.queue_error(401, {"type": "error", "error": {"type": "authentication_error",
                                                       "message": "invalid x-api-key"}})
    with pytest.raises(LLMAuthError, match=r"invalid x-api-key.*check the api_key passed"):
        llm.complete("hi")


# --- input checks, scripted fake, registration -----------------------------------------------------


@pytest.mark.parametrize("call, problem", [
    (lambda llm: llm.complete([]), "messages is empty"),
    (lambda llm: llm.complete([{"role": "system", "content": "x"}]), "pass the system prompt as system="),
    (lambda llm: llm.complete([{"role": "user", "content": "x", "name": "y"}]), "unknown keys"),
    (lambda llm: llm.complete("  "), "non-empty text"),
    (lambda llm: llm.complete("x", json_schema={"type": "array"}), "object at the top level"),
    (lambda llm: llm.complete("x", max_tokens=0), "max_tokens"),
    (lambda llm: llm.complete("x", temperature=float("nan")), "temperature"),
    (lambda llm: llm.complete("x", operation=""), "operation"),
])
def test_bad_input_is_refused_before_sending(call: Any, problem: str) -> None:
    llm = ScriptedLLM(["never used"])
    with pytest.raises(InputError, match=problem):
        call(llm)
    assert llm.requests == [] and llm.pending == 1


def test_scripted_llm_replies_in_order_and_records_requests() -> None:
    seen: list[Usage] = []
    llm = ScriptedLLM(["plain", {"name": "민지", "city": "부산"}], on_usage=seen.append)
    llm.queue(lambda request: f"echo {request.operation}", ChatResponse("cut", finish_reason="length"))
    assert llm.complete("one two three").text == "plain"
    assert llm.complete("x", json_schema=PERSON, operation="extract").data == {"name": "민지", "city": "부산"}
    assert llm.complete("x", operation="reflect").text == "echo reflect"
    assert llm.complete("x").truncated is True
    assert [r.operation for r in llm.requests] == ["generic", "extract", "reflect", "generic"]
    assert isinstance(llm.requests[1], ChatRequest) and llm.requests[1].json_schema == PERSON
    assert [u.operation for u in seen] == ["generic", "extract", "reflect", "generic"]
    assert (seen[0].provider, seen[0].input_tokens, seen[0].output_tokens) == ("scripted", 3, 1)
    with pytest.raises(LLMError, match="no reply queued for operation 'generic'"):
        llm.complete("x")


def test_scripted_llm_raises_and_retries_queued_errors() -> None:
    llm = ScriptedLLM([LLMUnavailableError("down")])
    with pytest.raises(LLMUnavailableError, match=r"after 1 attempt .last: down"):
        llm.complete("x")
    llm = ScriptedLLM([LLMRateLimitError("slow down", retry_after=2.0), "ok"], max_retries=1)
    assert llm.complete("x").text == "ok"
    assert llm.sleeps == [2.0]
    llm = ScriptedLLM(['{"name": "민지"}'])
    with pytest.raises(LLMOutputError):
        llm.complete("x", json_schema=PERSON)


def test_error_hierarchy() -> None:
    for error in (LLMConfigError, LLMAuthError, LLMRequestError, LLMRateLimitError, LLMUnavailableError,
                  LLMOutputError):
        assert issubclass(error, LLMError)
    assert issubclass(LLMError, GieokError)
    assert issubclass(LLMConfigError, ConfigError) and issubclass(LLMAuthError, ConfigError)


def test_public_names() -> None:
    for name in llms.__all__:
        assert getattr(llms, name) is not None
    with pytest.raises(AttributeError):
        llms.NoSuchThing  # noqa: B018


def test_register_builtins(server: FakeLLMServer) -> None:
    registered: dict[tuple[str, str], Any] = {}
    register_builtins(lambda kind, name, factory: registered.__setitem__((kind, name), factory))
    assert sorted(registered) == [("llm", "anthropic"), ("llm", "openai")]
    assert all(kind in KINDS for kind, _ in registered)
    llm = registered[("llm", "openai")](base_url=server.base_url, model="fake-model")
    assert isinstance(llm, OpenAICompatibleLLM)
    assert isinstance(registered[("llm", "anthropic")](model="claude-sonnet-4", api_key="k"), AnthropicLLM)
    with pytest.raises(LLMConfigError, match="its options are base_url, model"):
        registered[("llm", "openai")](base_url=server.base_url, model="m", temprature=0.5)
