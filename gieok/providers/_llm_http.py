"""HTTP clients for LLM servers: OpenAI-compatible ``/chat/completions`` and Anthropic ``/v1/messages``.

Import them from :mod:`gieok.providers.llms`. Both send through the transport every HTTP provider
shares (:mod:`gieok.providers._http`: stdlib ``urllib`` by default, ``transport=`` to replace it).
Each client turns a request into its protocol's body and the reply into a :class:`ChatResponse`;
:meth:`_HTTPLLM._post` maps every failure to the typed error the base class acts on: 429 ->
LLMRateLimitError and 5xx, 408, 425 or no answer -> LLMUnavailableError (both retried by
``LLM.complete``), 401/403 -> LLMAuthError, a redirect -> LLMConfigError (redirects are never
followed, so a key is never replayed to another address), any other 4xx -> LLMRequestError. Keys are
read once, at construction, and never appear in a repr or a message.
"""

from __future__ import annotations

import json
import time
import urllib.parse
from collections.abc import Callable, Mapping
from typing import Any

from gieok.errors import (
    LLMAuthError,
    LLMConfigError,
    LLMError,
    LLMRateLimitError,
    LLMRequestError,
    LLMUnavailableError,
)
from gieok.providers._http import (
    Response,
    Transport,
    UrllibTransport,
    auth_hint,
    find_api_key,
    is_transient,
    no_answer,
    post_json,
)
from gieok.providers._llm_base import LLM, ChatRequest, ChatResponse, Usage

__all__ = ["AnthropicLLM", "OpenAICompatibleLLM"]


class _HTTPLLM(LLM):
    """What both HTTP clients share: endpoint, model, timeout, key lookup, no redirects, a repr without the key."""

    label = "LLM"

    def _connect(
        self, url: str, model: str, timeout: float, api_key: str | None, api_key_env: str, transport: Transport | None
    ) -> None:
        self.url = url
        self.model = _checked_model(model)
        self.timeout = _checked_timeout(timeout)
        self.api_key_env = api_key_env
        self._api_key = find_api_key(api_key_env, api_key, error=LLMConfigError)
        self._transport: Transport = transport if transport is not None else UrllibTransport()

    def __repr__(self) -> str:  # never shows the key
        return f"{type(self).__name__}(url={self.url!r}, model={self.model!r}, api_key_env={self.api_key_env!r})"

    def describe(self) -> str:
        return f"{self.label} at {self.url} (model {self.model!r})"

    def _post(self, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        """One attempt: the reply's JSON object, or the typed error its status or silence means."""
        try:
            response = post_json(self._transport, self.url, body, headers=headers, timeout=self.timeout)
        except OSError as error:
            raise LLMUnavailableError(no_answer(error)) from error
        if not response.ok:
            raise self._status_error(response)
        try:
            payload = response.json()
        except ValueError:
            shown = _clip(response.body.decode("utf-8", "replace"))
            raise LLMError(f"LLM at {self.url} answered with something that is not JSON: {shown}") from None
        if not isinstance(payload, dict):
            raise LLMError(f"LLM at {self.url} answered with a JSON {type(payload).__name__}, not an object")
        return payload

    def _status_error(self, response: Response) -> LLMError:
        status, detail = response.status, _error_detail(response.body)
        shown = f"HTTP {status}" + (f": {_clip(detail)}" if detail else "")
        if status in (401, 403):
            hint = auth_hint(self._api_key, self.api_key_env)
            return LLMAuthError(f"LLM at {self.url} refused the API key ({shown}): {hint}")
        if status == 429:
            return LLMRateLimitError(shown, retry_after=response.retry_after())
        if is_transient(status):
            return LLMUnavailableError(shown, retry_after=response.retry_after())
        if 300 <= status < 400:
            return LLMConfigError(f"LLM at {self.url} redirects ({shown}) to "
                                  f"{response.header('Location') or 'another address'}: "
                                  "set base_url to the final address")
        hint = "; check base_url (with its API prefix, e.g. /v1) and model" if status == 404 else ""
        return LLMRequestError(f"LLM at {self.url} refused the request ({shown}){hint}", status=status, detail=detail)


class OpenAICompatibleLLM(_HTTPLLM):
    """Any server speaking OpenAI's chat completions: OpenAI, vLLM, Ollama, llama.cpp, LM Studio.

    ``base_url`` is the API root with its prefix (``https://api.openai.com/v1``,
    ``http://localhost:11434/v1``). The key is ``api_key``, else the variable ``api_key_env``; with
    neither, no Authorization header is sent (local servers need none; api.openai.com refuses to
    start without one). With ``json_schema=`` the schema goes in ``response_format`` (strict); a server
    that answers 400 about it is asked in the prompt instead, then and for the rest of this instance's
    life (``supports_json_schema`` turns False). ``supports_json_schema=False`` asks in the prompt from
    the start.
    """

    provider = "openai"

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 60.0,
        max_retries: int = 4,
        backoff_base: float = 0.5,
        backoff_cap: float = 8.0,
        supports_json_schema: bool = True,
        *,
        sleep: Callable[[float], None] = time.sleep,
        on_usage: Callable[[Usage], None] | None = None,
        prices: Mapping[str, tuple[float, float]] | None = None,
        transport: Transport | None = None,
    ) -> None:
        super().__init__(max_retries=max_retries, backoff_base=backoff_base, backoff_cap=backoff_cap,
                         sleep=sleep, on_usage=on_usage, prices=prices)
        self._connect(_endpoint(base_url, "/chat/completions"), model, timeout, api_key, api_key_env, transport)
        if self._api_key is None and urllib.parse.urlsplit(self.url).hostname == "api.openai.com":
            raise LLMConfigError(f"OpenAI needs an API key: export {api_key_env}=<your key>, or pass api_key=")
        self.supports_json_schema = bool(supports_json_schema)

    def _complete(self, request: ChatRequest) -> ChatResponse:
        structured = request.json_schema is not None and self.supports_json_schema
        try:
            return self._send(request, structured)
        except LLMRequestError as error:
            if not (structured and error.status == 400 and _about_response_format(error.detail)):
                raise
        # Older vLLM / llama.cpp builds and some proxies refuse response_format json_schema: ask in the
        # prompt instead, now and for every later call, rather than paying a 400 each time.
        self.supports_json_schema = False
        return self._send(request, False)

    def _send(self, request: ChatRequest, structured: bool) -> ChatResponse:
        system = request.system
        if request.json_schema is not None and not structured:
            instruction = ("Reply with only a JSON object that matches this JSON schema, and no other text:\n"
                           + json.dumps(request.json_schema, ensure_ascii=False))
            system = f"{system}\n\n{instruction}" if system else instruction
        messages = ([{"role": "system", "content": system}] if system else []) + request.messages
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
        }
        if structured:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": request.schema_name, "schema": request.json_schema, "strict": True},
            }
        headers = {"Authorization": f"Bearer {self._api_key.value}"} if self._api_key else {}
        reply = self._post(body, headers)
        choices = reply.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise LLMError(f"{self.describe()} answered without choices: is base_url an OpenAI-compatible API?")
        message = _object(choices[0].get("message"))
        content, refusal = message.get("content"), message.get("refusal")
        if isinstance(content, list):  # some servers send content parts
            content = "".join(_text(_object(part).get("text"), "") for part in content)
        finish = _text(choices[0].get("finish_reason"), "stop")
        if not isinstance(content, str):
            content, finish = (refusal, "refusal") if isinstance(refusal, str) else ("", finish)
        usage = _object(reply.get("usage"))
        return ChatResponse(
            text=content,
            input_tokens=_count(usage.get("prompt_tokens")),
            output_tokens=_count(usage.get("completion_tokens")),
            finish_reason=finish,
            model=_text(reply.get("model"), self.model),
        )


class AnthropicLLM(_HTTPLLM):
    """Anthropic's Messages API. Needs a key: ``api_key``, else the variable ``api_key_env``.

    The system prompt goes in the top-level ``system`` field. With ``json_schema=`` the model must call
    one tool whose ``input_schema`` is the schema; the tool call's input is ``response.data``.
    ``base_url`` is the server root; a trailing ``/v1`` is accepted too.
    """

    provider = "anthropic"
    label = "Anthropic"
    api_version = "2023-06-01"

    def __init__(
        self,
        model: str,
        api_key: str | None = None,
        api_key_env: str = "ANTHROPIC_API_KEY",
        base_url: str = "https://api.anthropic.com",
        timeout: float = 60.0,
        max_retries: int = 4,
        backoff_base: float = 0.5,
        backoff_cap: float = 8.0,
        *,
        sleep: Callable[[float], None] = time.sleep,
        on_usage: Callable[[Usage], None] | None = None,
        prices: Mapping[str, tuple[float, float]] | None = None,
        transport: Transport | None = None,
    ) -> None:
        super().__init__(max_retries=max_retries, backoff_base=backoff_base, backoff_cap=backoff_cap,
                         sleep=sleep, on_usage=on_usage, prices=prices)
        root = _endpoint(base_url, "")
        self._connect(root + "/messages" if root.endswith("/v1") else root + "/v1/messages", model, timeout,
                      api_key, api_key_env, transport)
        if self._api_key is None:
            raise LLMConfigError(f"Anthropic needs an API key: export {api_key_env}=<your key>, or pass api_key=")

    def _complete(self, request: ChatRequest) -> ChatResponse:
        structured = request.json_schema is not None
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "messages": request.messages,
        }
        if request.system:
            body["system"] = request.system
        if structured:
            body["tools"] = [{
                "name": request.schema_name,
                "description": "Give the answer by calling this tool; its input is the answer.",
                "input_schema": request.json_schema,
            }]
            body["tool_choice"] = {"type": "tool", "name": request.schema_name}
        headers = {"x-api-key": self._api_key.value if self._api_key else "", "anthropic-version": self.api_version}
        reply = self._post(body, headers)
        blocks = reply.get("content")
        if not isinstance(blocks, list):
            raise LLMError(f"{self.describe()} answered without content blocks: is base_url Anthropic's API?")
        text = "".join(b["text"] for b in blocks if isinstance(b, dict) and b.get("type") == "text"
                       and isinstance(b.get("text"), str))
        data = None
        tool_inputs = [b.get("input") for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
        if structured and tool_inputs and isinstance(tool_inputs[0], dict):
            data = tool_inputs[0]
            text = json.dumps(data, ensure_ascii=False)
        stop = _text(reply.get("stop_reason"), "end_turn")
        finish = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length"}.get(stop, stop)
        if structured and stop == "tool_use":
            finish = "stop"  # the forced tool call is the answer, not a request to run a tool
        usage = _object(reply.get("usage"))
        return ChatResponse(
            text=text,
            data=data,
            input_tokens=_count(usage.get("input_tokens")),
            output_tokens=_count(usage.get("output_tokens")),
            finish_reason=finish,
            model=_text(reply.get("model"), self.model),
        )


# --- replies ----------------------------------------------------------------------------------------


def _error_detail(raw: bytes) -> str:
    # OpenAI {"error": {"message"}}, Anthropic {"type": "error", "error": {"message"}}, Ollama {"error": "..."}.
    text = raw.decode("utf-8", "replace").strip()
    try:
        payload = json.loads(text)
    except ValueError:
        return text[:2000]
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict):
        error = error.get("message")
    return (error if isinstance(error, str) else text)[:2000]


def _about_response_format(detail: str) -> bool:
    lowered = detail.lower()
    return "response_format" in lowered or "json_schema" in lowered or "response format" in lowered


def _clip(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any, default: str) -> str:
    return value if isinstance(value, str) else default


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


# --- configuration checks ---------------------------------------------------------------------------


def _endpoint(base_url: str, suffix: str) -> str:
    if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
        raise LLMConfigError(f"LLM base_url must start with http:// or https://, not {base_url!r}")
    root = base_url.rstrip("/")
    return root if not suffix or root.endswith(suffix) else root + suffix


def _checked_model(model: Any) -> str:
    if not isinstance(model, str) or not model.strip():
        raise LLMConfigError(f"LLM model must be a non-empty name such as 'gpt-4o-mini', not {model!r}")
    return model


def _checked_timeout(timeout: Any) -> float:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise LLMConfigError(f"LLM timeout must be more than 0 seconds, not {timeout!r}")
    return float(timeout)
