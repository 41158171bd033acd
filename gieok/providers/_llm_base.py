"""The base every LLM provider extends: checked requests, retries, strict JSON, metering.

Public through :mod:`gieok.providers.llms`, which imports this module and the HTTP clients built on
it (``_llm_http``); nothing here imports either, so the imports run one way.

A provider implements one method, :meth:`LLM._complete`: one attempt, a :class:`ChatRequest` in, a
:class:`ChatResponse` out. :meth:`LLM.complete` checks the input before anything is sent, retries
transient failures with the backoff every HTTP provider shares (``gieok.providers._http``), reads
structured replies strictly and meters every answered call.
"""

from __future__ import annotations

import json
import math
import random
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gieok.errors import (
    InputError,
    LLMConfigError,
    LLMError,
    LLMOutputError,
    LLMRateLimitError,
    LLMUnavailableError,
    _TransientLLMError,
)
from gieok.providers._http import backoff_delay, retry

__all__ = ["LLM", "PRICES", "ChatRequest", "ChatResponse", "Message", "Usage", "estimate_cost"]


Message = dict[str, str]


# --- requests, responses, metering ------------------------------------------------------------------


@dataclass
class ChatRequest:
    """One checked call, as a provider receives it. ``system`` is kept apart from ``messages``."""

    messages: list[Message]
    system: str | None = None
    json_schema: dict[str, Any] | None = None
    schema_name: str = "response"
    max_tokens: int = 1024
    temperature: float = 0.0
    operation: str = "generic"


@dataclass
class ChatResponse:
    """The answer. ``data`` is the parsed object when a ``json_schema`` was given, else None."""

    text: str
    data: dict[str, Any] | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    finish_reason: str = "stop"  # "stop", "length" (cut off at max_tokens), or the provider's own word
    truncated: bool = False
    model: str = ""
    latency_s: float = 0.0


@dataclass
class Usage:
    """What one call cost: handed to ``on_usage`` after every answered call."""

    provider: str
    model: str
    operation: str
    calls: int = 1
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


# USD per million (input, output) tokens: list prices in 2025. Dated snapshots ("gpt-4o-mini-2024-07-18",
# "claude-3-5-haiku-20241022") match their family by prefix. Pass prices= for your own contract.
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-3-5-sonnet": (3.00, 15.00),
    "claude-3-7-sonnet": (3.00, 15.00),
    "claude-haiku-4-5": (1.00, 5.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-sonnet-4-5": (3.00, 15.00),
    "claude-opus-4": (15.00, 75.00),
}


def estimate_cost(
    model: str, input_tokens: int, output_tokens: int, prices: Mapping[str, tuple[float, float]] | None = None
) -> float:
    """Estimated USD cost of a call; 0.0 for a model the table does not know (local models)."""
    table = {key.lower(): value for key, value in (PRICES if prices is None else prices).items()}
    name = model.rsplit("/", 1)[-1].lower()  # "openai/gpt-4o-mini" from a router
    key = name if name in table else max((k for k in table if name.startswith(k + "-")), key=len, default=None)
    if key is None:
        return 0.0
    per_input, per_output = table[key]
    return (input_tokens * per_input + output_tokens * per_output) / 1_000_000


# --- the base class ---------------------------------------------------------------------------------


class LLM:
    """Base of every LLM. Subclasses set ``provider`` and ``model`` and implement ``_complete``."""

    provider: str = ""
    model: str = ""

    def __init__(
        self,
        *,
        max_retries: int = 4,
        backoff_base: float = 0.5,
        backoff_cap: float = 8.0,
        sleep: Callable[[float], None] = time.sleep,
        on_usage: Callable[[Usage], None] | None = None,
        prices: Mapping[str, tuple[float, float]] | None = None,
    ) -> None:
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise LLMConfigError(f"max_retries must be a whole number of 0 or more, not {max_retries!r}")
        if not backoff_base >= 0 or not backoff_cap >= 0:
            raise LLMConfigError(f"backoff_base and backoff_cap must be 0 or more, not {backoff_base}, {backoff_cap}")
        self.max_retries = max_retries
        self.backoff_base = float(backoff_base)
        self.backoff_cap = float(backoff_cap)
        self.on_usage = on_usage
        self.prices = prices
        self._sleep = sleep
        self._random = random.Random()

    def _complete(self, request: ChatRequest) -> ChatResponse:
        """One attempt. Raise LLMRateLimitError / LLMUnavailableError for what a retry may cure."""
        raise NotImplementedError

    def describe(self) -> str:
        """Names this LLM in error messages."""
        return f"{self.provider} LLM {self.model!r}"

    def complete(
        self,
        messages: str | Sequence[Mapping[str, str]],
        *,
        system: str | None = None,
        json_schema: Mapping[str, Any] | None = None,
        max_tokens: int = 1024,
        temperature: float = 0.0,
        operation: str = "generic",
    ) -> ChatResponse:
        """Answer ``messages`` (one user string, or ``[{"role": "user"|"assistant", "content": ...}]``).

        ``json_schema`` (an object schema) asks for structured output, parsed into ``response.data``.
        ``operation`` labels the call in :class:`Usage` (e.g. "extract", "reflect").
        """
        request = _checked_request(messages, system, json_schema, max_tokens, temperature, operation)
        started = time.monotonic()
        response = self._with_retries(request)
        response.latency_s = time.monotonic() - started
        response.model = response.model or self.model
        response.truncated = response.truncated or response.finish_reason == "length"
        if self.on_usage is not None:
            cost = estimate_cost(self.model, response.input_tokens, response.output_tokens, self.prices)
            self.on_usage(Usage(self.provider, self.model, request.operation, 1,
                                response.input_tokens, response.output_tokens, cost))
        if request.json_schema is None:
            response.data = None
            return response
        if response.data is None:
            response.data = self._parse_json_object(response)
        missing = [key for key in request.json_schema.get("required", ()) if key not in response.data]
        if missing:
            keys = f"key{'s' * (len(missing) > 1)} {', '.join(repr(key) for key in missing)}"
            raise LLMOutputError(f"{self.describe()} replied without the required {keys}{_truncation_hint(response)}",
                                 raw_text=response.text)
        return response

    def _with_retries(self, request: ChatRequest) -> ChatResponse:
        try:
            return retry(lambda: self._complete(request), transient=_TransientLLMError,
                         max_retries=self.max_retries, delay=self._backoff_delay, sleep=self._sleep)
        except _TransientLLMError as error:
            raise self._gave_up(error, self.max_retries + 1) from error

    def _backoff_delay(self, attempt: int, retry_after: float | None) -> float:
        # Jittered: many workers share one rate limit, and should not all retry at the same moment.
        return backoff_delay(attempt, base=self.backoff_base, cap=self.backoff_cap, retry_after=retry_after,
                             jitter=self._random)

    def _gave_up(self, error: _TransientLLMError, attempts: int) -> LLMError:
        tries = f"{attempts} attempt{'s' * (attempts > 1)}"
        if isinstance(error, LLMRateLimitError):
            return LLMRateLimitError(f"{self.describe()} is rate limiting ({error}) after {tries}: wait, send fewer "
                                     "requests at once, or raise max_retries=", retry_after=error.retry_after)
        return LLMUnavailableError(f"{self.describe()} did not answer after {tries} (last: {error}): check the "
                                   "server is up, or raise timeout= / max_retries=", retry_after=error.retry_after)

    def _parse_json_object(self, response: ChatResponse) -> dict[str, Any]:
        text = response.text.strip()
        candidate: str | None = text if text.startswith("{") else None
        if candidate is None:
            fenced = _FENCE.findall(text)
            candidate = fenced[0].strip() if len(fenced) == 1 else None
        problem = "is not a JSON object, bare or in one ```json fence"
        value: Any = None
        if candidate is not None:
            try:
                value = json.loads(candidate, parse_constant=_refuse_constant)
                problem = "" if isinstance(value, dict) else f"is JSON but a {type(value).__name__}, not an object"
            except json.JSONDecodeError as error:
                problem = f"is not valid JSON ({error.msg} at line {error.lineno}, column {error.colno})"
            except ValueError as error:
                problem = f"is not valid JSON ({error})"
        if problem:
            raise LLMOutputError(
                f"{self.describe()} reply ({len(response.text)} characters) {problem}" + _truncation_hint(response),
                raw_text=response.text,
            )
        return dict(value)


_FENCE = re.compile(r"```[ \t]*(?:json)?[ \t]*\n?(.*?)```", re.DOTALL | re.IGNORECASE)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _truncation_hint(response: ChatResponse) -> str:
    return "; it was cut off at max_tokens: raise max_tokens=" if response.truncated else ""


def _checked_request(
    messages: Any, system: Any, json_schema: Any, max_tokens: Any, temperature: Any, operation: Any
) -> ChatRequest:
    if isinstance(messages, str):
        messages = [{"role": "user", "content": messages}]
    if not isinstance(messages, Sequence) or isinstance(messages, (bytes, bytearray)):
        raise InputError(f"messages must be a string or a list of message dicts, not {type(messages).__name__}")
    checked: list[Message] = []
    for i, message in enumerate(messages):
        if not isinstance(message, Mapping):
            raise InputError(f"messages[{i}] must be a dict like {{'role': 'user', 'content': '...'}}")
        role, content = message.get("role"), message.get("content")
        if set(message) - {"role", "content"}:
            raise InputError(f"messages[{i}] has unknown keys {sorted(map(str, message))}: only role and content")
        if role == "system":
            raise InputError(f"messages[{i}] has role 'system': pass the system prompt as system= instead")
        if role not in ("user", "assistant"):
            raise InputError(f"messages[{i}] role must be 'user' or 'assistant', not {role!r}")
        if not isinstance(content, str) or not content.strip():
            raise InputError(f"messages[{i}] content must be non-empty text")
        checked.append({"role": role, "content": content})
    if not checked:
        raise InputError("messages is empty: pass at least one user message")
    if system is not None and not isinstance(system, str):
        raise InputError(f"system must be a string or None, not {type(system).__name__}")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise InputError(f"max_tokens must be a whole number of 1 or more, not {max_tokens!r}")
    if (isinstance(temperature, bool) or not isinstance(temperature, (int, float))
            or not math.isfinite(temperature) or not 0 <= temperature <= 2):
        raise InputError(f"temperature must be a number from 0 to 2, not {temperature!r}")
    if not isinstance(operation, str) or not operation.strip():
        raise InputError(f"operation must be a non-empty label such as 'extract', not {operation!r}")
    schema = None if json_schema is None else _checked_schema(json_schema)
    name = "response"
    if schema is not None and isinstance(schema.get("title"), str):
        name = re.sub(r"[^A-Za-z0-9_-]", "_", schema["title"])[:64] or name  # both APIs' name pattern
    return ChatRequest(checked, system or None, schema, name, max_tokens, float(temperature), operation)


def _checked_schema(json_schema: Any) -> dict[str, Any]:
    if not isinstance(json_schema, Mapping):
        raise InputError(f"json_schema must be a dict (a JSON schema), not {type(json_schema).__name__}")
    if json_schema.get("type") != "object":
        raise InputError("json_schema must describe an object at the top level ({'type': 'object', ...}): "
                         "wrap a list or a value in an object property")
    required = json_schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(key, str) for key in required):
        raise InputError("json_schema 'required' must be a list of property names")
    return dict(json_schema)
