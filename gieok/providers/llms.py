"""LLMs: a base class that checks, retries and meters; HTTP clients; a scripted fake for tests.

A provider implements one method, :meth:`LLM._complete`: one attempt, a :class:`ChatRequest` in, a
:class:`ChatResponse` out. The public :meth:`LLM.complete` does the rest:

* checks the caller's input and raises :class:`~gieok.errors.InputError` before anything is sent;
* retries :class:`LLMRateLimitError` / :class:`LLMUnavailableError` with capped exponential backoff and
  jitter, honouring Retry-After up to ``backoff_cap`` (``sleep`` is injectable); a refused key or
  request is raised at once;
* with ``json_schema=``, reads the reply strictly (a bare JSON object, or one fenced ```json block) and
  checks the schema's top-level ``required`` keys, else :class:`LLMOutputError`;
* meters every answered call, even one whose output is then refused (its tokens are billed): ``on_usage``
  gets a :class:`Usage` with token counts and a cost from :data:`PRICES`. No prompt text is kept or logged.

Built-ins, on the one HTTP transport every provider shares (``_http``, stdlib ``urllib``; pass
``transport=`` to replace it, e.g. with a ``MockTransport`` in tests):

* ``openai`` — :class:`OpenAICompatibleLLM`, any ``/chat/completions`` server (OpenAI, vLLM, Ollama,
  llama.cpp, LM Studio). Structured output through ``response_format`` json_schema, falling back to
  asking in the prompt when a server refuses it. Local servers need no key.
* ``anthropic`` — :class:`AnthropicLLM`, the Messages API; structured output through one forced tool.

:class:`ScriptedLLM` answers from a queue and records its requests, for engine tests without HTTP.

This module is the public face: the base lives in ``_llm_base`` and the HTTP clients in ``_llm_http``,
which builds on the base; both are imported here, and neither imports this module.

Errors are the LLMError branch of the tree in :mod:`gieok.errors`, re-exported here: a refused key
or a bad option is an LLMConfigError / LLMAuthError (both also ConfigErrors), a refused request an
LLMRequestError, a 429 or no answer after every retry an LLMRateLimitError / LLMUnavailableError, and
a reply that is not the JSON object asked for an LLMOutputError.
"""

from __future__ import annotations

import inspect
import json
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from gieok.errors import (
    LLMAuthError,
    LLMConfigError,
    LLMError,
    LLMOutputError,
    LLMRateLimitError,
    LLMRequestError,
    LLMUnavailableError,
)
from gieok.providers._llm_base import (
    LLM,
    PRICES,
    ChatRequest,
    ChatResponse,
    Usage,
    estimate_cost,
)
from gieok.providers._llm_http import AnthropicLLM, OpenAICompatibleLLM

__all__ = [
    "LLM", "PRICES", "AnthropicLLM", "ChatRequest", "ChatResponse",
    "LLMAuthError", "LLMConfigError", "LLMError", "LLMOutputError", "LLMRateLimitError", "LLMRequestError",
    "LLMUnavailableError", "OpenAICompatibleLLM", "ScriptedLLM", "Usage", "estimate_cost", "register_builtins",
]


# --- scripted fake ----------------------------------------------------------------------------------

Reply = str | dict[str, Any] | ChatResponse | BaseException | Callable[[ChatRequest], Any]


class ScriptedLLM(LLM):
    """Answers from a queue, in order, and records every :class:`ChatRequest` in ``requests``.

    A reply is a string (the text), a dict (structured data; also the text, as JSON), a
    :class:`ChatResponse` (returned as is), an exception instance (raised; transient ones are retried
    when ``max_retries`` > 0, recording delays in ``sleeps``), or a callable taking the request and
    returning any of these. Token counts are word counts. An empty queue raises :class:`LLMError`.
    """

    provider = "scripted"

    def __init__(
        self,
        replies: Iterable[Reply] = (),
        *,
        model: str = "scripted",
        max_retries: int = 0,
        sleep: Callable[[float], None] | None = None,
        on_usage: Callable[[Usage], None] | None = None,
        prices: Mapping[str, tuple[float, float]] | None = None,
    ) -> None:
        self.sleeps: list[float] = []
        super().__init__(max_retries=max_retries, sleep=sleep or self.sleeps.append, on_usage=on_usage, prices=prices)
        self.model = model
        self.requests: list[ChatRequest] = []
        self._replies: deque[Reply] = deque(replies)
        self._lock = threading.Lock()

    def queue(self, *replies: Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    @property
    def pending(self) -> int:
        """Replies queued and not yet used."""
        return len(self._replies)

    def _complete(self, request: ChatRequest) -> ChatResponse:
        with self._lock:
            self.requests.append(request)
            reply = self._replies.popleft() if self._replies else None
        if reply is None:
            raise LLMError(f"ScriptedLLM has no reply queued for operation {request.operation!r}: .queue(...) one")
        if callable(reply) and not isinstance(reply, BaseException):
            reply = reply(request)
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, ChatResponse):
            return reply
        words = sum(len(m["content"].split()) for m in request.messages) + len((request.system or "").split())
        if isinstance(reply, dict):
            text = json.dumps(reply, ensure_ascii=False)
            return ChatResponse(text, dict(reply), words, len(text.split()), model=self.model)
        if isinstance(reply, str):
            return ChatResponse(reply, None, words, len(reply.split()), model=self.model)
        raise LLMError(f"ScriptedLLM cannot answer with a {type(reply).__name__}: queue a str, dict, "
                       "ChatResponse, exception or callable")


# --- registration -----------------------------------------------------------------------------------


def _factory(name: str, cls: type[LLM]) -> Callable[..., LLM]:
    signature = inspect.signature(cls)

    def build(**options: Any) -> LLM:
        try:
            signature.bind(**options)
        except TypeError as error:
            accepted = ", ".join(signature.parameters)
            raise LLMConfigError(f"llm {name!r}: {error}; its options are {accepted}") from None
        return cls(**options)

    build.__doc__ = cls.__doc__
    return build


def register_builtins(register: Callable[..., Any]) -> None:
    register("llm", "openai", _factory("openai", OpenAICompatibleLLM))
    register("llm", "anthropic", _factory("anthropic", AnthropicLLM))
