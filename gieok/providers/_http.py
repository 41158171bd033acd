"""One HTTP transport for every provider: JSON POST, no redirects, Retry-After, backoff, API keys.

After httpx's single ``handle_request`` seam: a **transport** is any callable taking a
:class:`Request` and returning a :class:`Response`. It returns a Response for every HTTP answer,
3xx, 4xx and 5xx included (redirects are never followed, so a key is never replayed to another
address and a POST never turns into a GET), and raises :class:`OSError` when no answer came
(:class:`TimeoutError` for a timeout, :class:`ConnectionError` for the rest). Two exist:

* :class:`UrllibTransport`, the default: stdlib ``urllib``, so no HTTP package is a dependency;
  proxies come from the environment as urllib reads them.
* :class:`MockTransport`, for tests: hands each request to a function and records it.

Providers pass ``transport=`` through to :func:`post_json`; what a status *means* stays with each
provider, which has its own error types and hints. Shared here are the parts that must not drift:
which statuses a retry may cure (:func:`is_transient`), how long to wait (:meth:`Response.retry_after`,
:func:`backoff_delay`), the retry loop (:func:`retry`), and API keys (:func:`find_api_key`), which are
read from the environment variable that names them, checked, and never shown in a repr or a message.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import os
import random
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, TypeVar

from gieok.errors import ConfigError

__all__ = [
    "APIKey",
    "MockTransport",
    "Request",
    "Response",
    "Transport",
    "UrllibTransport",
    "auth_hint",
    "backoff_delay",
    "find_api_key",
    "is_transient",
    "no_answer",
    "post_json",
    "retry",
]

T = TypeVar("T")


@dataclass(frozen=True)
class Request:
    """One HTTP request. Its repr names the headers but never shows their values (one holds the key)."""

    method: str
    url: str
    headers: Mapping[str, str]
    body: bytes
    timeout: float

    def __repr__(self) -> str:
        return f"Request({self.method} {self.url}, headers={sorted(self.headers)}, {len(self.body)} bytes)"

    def header(self, name: str) -> str | None:
        return _lookup(self.headers, name)

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass(frozen=True)
class Response:
    """One HTTP answer, whatever its status. Header names are matched without regard to case."""

    status: int
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_json(cls, payload: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> Response:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        return cls(status, data, {"Content-Type": "application/json", **(headers or {})})

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def header(self, name: str) -> str | None:
        return _lookup(self.headers, name)

    def json(self) -> Any:
        """The body as JSON; raises ValueError when it is not."""
        return json.loads(self.body)

    def retry_after(self) -> float | None:
        """Seconds the server asks to wait: ``retry-after-ms`` (OpenAI), else ``Retry-After`` in
        seconds or as an HTTP date; None when absent or unreadable (the backoff is good enough then)."""
        milliseconds = self.header("retry-after-ms")
        if milliseconds is not None:
            try:
                return max(0.0, float(milliseconds) / 1000)
            except ValueError:
                pass
        value = self.header("Retry-After")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            pass
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


def _lookup(headers: Mapping[str, str], name: str) -> str | None:
    wanted = name.lower()
    return next((value for key, value in headers.items() if key.lower() == wanted), None)


Transport = Callable[[Request], Response]


# --- transports -------------------------------------------------------------------------------------


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    # Following a redirect would replay the key to wherever it points, and urllib turns a redirected
    # POST into a GET; refused, the 3xx comes back as a Response and the provider names the new address.
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class UrllibTransport:
    """The default transport: stdlib ``urllib``, redirects refused, every failure to answer an OSError."""

    def __init__(self) -> None:
        self._opener = urllib.request.build_opener(_NoRedirect)

    def __repr__(self) -> str:
        return "UrllibTransport()"

    def __call__(self, request: Request) -> Response:
        sent = urllib.request.Request(request.url, data=request.body, headers=dict(request.headers),
                                      method=request.method)
        try:
            with self._opener.open(sent, timeout=request.timeout) as answer:
                return Response(answer.status, bytes(answer.read()), dict(answer.headers.items()))
        except urllib.error.HTTPError as error:  # urllib raises every status outside 2xx
            try:
                body = bytes(error.read())
            except (OSError, http.client.HTTPException):
                body = b""  # the status says enough; a body cut off mid-way is not worth a failure
            finally:
                error.close()
            return Response(error.code, body, dict(error.headers.items()) if error.headers is not None else {})
        except urllib.error.URLError as error:
            # One exception per kind of silence, with urllib's wrapper peeled off.
            if isinstance(error.reason, TimeoutError):
                raise TimeoutError("timed out") from error
            raise ConnectionError(str(error.reason) or type(error.reason).__name__) from error
        except http.client.HTTPException as error:  # a reply cut off or garbled on the wire
            raise ConnectionError(str(error) or type(error).__name__) from error


class MockTransport:
    """A transport for tests (after httpx's): ``handler`` answers each request; ``requests`` records them.

    The handler returns a :class:`Response`, or raises an :class:`OSError` to play a server that
    never answered (``TimeoutError``, ``ConnectionRefusedError``).
    """

    def __init__(self, handler: Callable[[Request], Response]) -> None:
        self.handler = handler
        self.requests: list[Request] = []

    def __repr__(self) -> str:
        return f"MockTransport({len(self.requests)} requests)"

    def __call__(self, request: Request) -> Response:
        self.requests.append(request)
        return self.handler(request)


def post_json(
    transport: Transport, url: str, body: Mapping[str, Any], *, headers: Mapping[str, str], timeout: float
) -> Response:
    """POST ``body`` as UTF-8 JSON (not ``\\u`` escapes: Korean stays a third of the size)."""
    data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    sent = {"Content-Type": "application/json", "Accept": "application/json", "User-Agent": "gieok", **headers}
    return transport(Request("POST", url, sent, data, timeout))


def no_answer(error: OSError) -> str:
    """How to name a failure to answer in a message."""
    return "timed out" if isinstance(error, TimeoutError) else str(error) or type(error).__name__


# --- retries ----------------------------------------------------------------------------------------


def is_transient(status: int) -> bool:
    """Whether a later attempt may get another answer: timeouts, too early, rate limits, server errors."""
    return status in (408, 425, 429) or status >= 500


def backoff_delay(
    attempt: int, *, base: float, cap: float, retry_after: float | None = None, jitter: random.Random | None = None
) -> float:
    """Seconds to wait before retry number ``attempt + 1``: ``base * 2**attempt``, at most ``cap``.

    With ``jitter`` the wait is between half and all of that step ("equal jitter"), so clients that
    failed together do not retry together. A server's ``retry_after`` wins when longer, within the cap:
    an hour's Retry-After must not stall a recall.
    """
    step = min(cap, base * 2.0 ** min(attempt, 64))  # the exponent's bound keeps the float finite
    delay = step if jitter is None else step / 2 + jitter.random() * step / 2
    if retry_after is not None:
        delay = max(delay, min(retry_after, cap))
    return delay


def retry(
    attempt: Callable[[], T],
    *,
    transient: type[Exception],
    max_retries: int,
    delay: Callable[[int, float | None], float],
    sleep: Callable[[float], None],
) -> T:
    """Call ``attempt`` until it returns, at most ``max_retries + 1`` times.

    After the n-th (0-based) ``transient`` failure it sleeps ``delay(n, error.retry_after)``; the last
    transient failure is raised as is, for the caller to name every attempt. Any other error is
    raised at once.
    """
    for n in range(max_retries):
        try:
            return attempt()
        except transient as error:
            sleep(delay(n, getattr(error, "retry_after", None)))
    return attempt()


# --- API keys ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class APIKey:
    """A key and where it came from. Its repr and str never show the value."""

    value: str = field(repr=False)
    env_var: str | None  # None: passed in code as api_key=

    @property
    def source(self) -> str:
        return f"the value of {self.env_var}" if self.env_var else "the api_key passed"


def find_api_key(env_var: str, given: str | None = None, *, error: type[ConfigError] = ConfigError) -> APIKey | None:
    """``given``, else the variable ``env_var``; None when neither holds a key.

    Surrounding whitespace is dropped (a key read with ``$(cat keyfile)`` ends in a newline). A key
    with spaces, control or non-ASCII characters raises ``error`` without quoting it: http.client would
    echo the bad header value, key included, in its own exception.
    """
    raw = given if given is not None else os.environ.get(env_var) or ""
    value = raw.strip()
    if not value:
        return None
    key = APIKey(value, None if given is not None else env_var)
    if not (value.isascii() and value.isprintable() and " " not in value):
        raise error(f"{key.source} is not a valid API key (it holds spaces, control or non-ASCII characters): "
                    "use the key exactly as the provider issued it")
    return key


def auth_hint(key: APIKey | None, env_var: str, *, can_pass_key: bool = True) -> str:
    """What to tell a user whose key the server refused, or who sent none: which variable to set."""
    export = f"export {env_var}=<your key>"
    if key is None:
        return f"it needs one: {export}" + (", or pass api_key=" if can_pass_key else "")
    if key.env_var is None:
        return "check the api_key passed"
    return f"check {key.env_var} ({export})"
