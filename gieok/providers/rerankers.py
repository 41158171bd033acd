"""Rerankers: a base class that batches and caches, a client for rerank servers, and a local ONNX model.

A subclass implements one method, :meth:`Reranker.score_pairs`, returning one relevance score per
document (higher is more relevant). The base adds batching, an in-process LRU cache keyed by
(model id, query hash, document hash) so a document already scored for a query is never sent again,
and :meth:`Reranker.rerank`, which orders documents best first.

Both built-ins are plugins and off by default; nothing here downloads a model.

* ``http`` — :class:`HTTPReranker`, any server speaking the common ``/rerank`` JSON protocol
  (Cohere, Jina, Voyage, vLLM, Infinity; HuggingFace TEI with ``flavor="tei"``). It sends through the
  transport every HTTP provider shares (``_http``: stdlib ``urllib``, redirects refused;
  ``transport=`` replaces it), retries 5xx/429/timeouts with capped exponential backoff honouring
  Retry-After, and fails at once on a refused key.
* ``onnx`` — :class:`ONNXCrossEncoder`, a cross-encoder the user exported to ``model.onnx`` +
  ``tokenizer.json``, run with ``onnxruntime`` and ``tokenizers`` when those are installed.

Errors (all in :mod:`gieok.errors`, re-exported here): configuration problems (bad URL, refused key,
missing files or packages) raise :class:`~gieok.errors.ConfigError`; a reranker that fails at run time
raises :class:`RerankerError`, and :class:`RerankerUnavailableError` when it never answered, so a
caller may fall back to the un-reranked order.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import math
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from gieok.errors import (
    ConfigError,
    GieokError,
    InputError,
    RerankerError,
    RerankerUnavailableError,
)
from gieok.providers._http import (
    Response,
    Transport,
    UrllibTransport,
    auth_hint,
    backoff_delay,
    find_api_key,
    is_transient,
    no_answer,
    post_json,
    retry,
)

__all__ = [
    "DEFAULT_API_KEY_ENV",
    "HTTPReranker",
    "ONNXCrossEncoder",
    "Reranker",
    "RerankerError",
    "RerankerUnavailableError",
    "register_builtins",
]

DEFAULT_API_KEY_ENV = "GIEOK_RERANKER_API_KEY"

Flavor = Literal["cohere", "tei"]


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Reranker:
    """Base of every reranker. Subclasses set ``model_id`` and implement ``score_pairs``."""

    model_id: str = ""
    batch_size: int = 32
    cache_size: int = 4096

    def __init__(self, *, batch_size: int | None = None, cache_size: int | None = None) -> None:
        if batch_size is not None:
            if batch_size < 1:
                raise ConfigError(f"reranker batch_size must be at least 1, not {batch_size}")
            self.batch_size = batch_size
        if cache_size is not None:
            if cache_size < 0:
                raise ConfigError(f"reranker cache_size must be 0 (no cache) or more, not {cache_size}")
            self.cache_size = cache_size
        self._cache: OrderedDict[tuple[str, str, str], float] = OrderedDict()
        self._cache_lock = threading.Lock()

    def score_pairs(self, query: str, documents: list[str]) -> list[float]:
        """Return one relevance score per document, in order; higher is more relevant."""
        raise NotImplementedError

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        """Score every document against ``query``, reusing cached scores, in batches of ``batch_size``."""
        _check_input(query, documents)
        query_hash = _sha256(query)
        scores: list[float | None] = [None] * len(documents)
        # Unique uncached documents in first-seen order, each with every position it fills, so a
        # document repeated in one call is scored once.
        pending: dict[tuple[str, str, str], list[int]] = {}
        with self._cache_lock:
            for i, document in enumerate(documents):
                key = (self.model_id, query_hash, _sha256(document))
                hit = self._cache.get(key)
                if hit is not None:
                    self._cache.move_to_end(key)
                    scores[i] = hit
                else:
                    pending.setdefault(key, []).append(i)
        keys = list(pending)
        for start in range(0, len(keys), self.batch_size):
            batch = keys[start : start + self.batch_size]
            texts = [documents[pending[key][0]] for key in batch]
            got = self._checked_scores(self.score_pairs(query, texts), len(texts))
            with self._cache_lock:
                for key, value in zip(batch, got):
                    for i in pending[key]:
                        scores[i] = value
                    if self.cache_size:
                        self._cache[key] = value
                        self._cache.move_to_end(key)
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        return [s for s in scores if s is not None]

    def rerank(self, query: str, documents: Sequence[str], top_n: int | None = None) -> list[tuple[int, float]]:
        """``(index into documents, score)`` pairs, best first; ties keep input order. ``top_n`` keeps the best n."""
        if top_n is not None and (isinstance(top_n, bool) or not isinstance(top_n, int) or top_n < 0):
            raise InputError(f"top_n must be a whole number of 0 or more, or None for all, not {top_n!r}")
        scores = self.score(query, documents)
        order = sorted(range(len(scores)), key=lambda i: -scores[i])
        if top_n is not None:
            order = order[:top_n]
        return [(i, scores[i]) for i in order]

    def _checked_scores(self, got: Sequence[float], expected: int) -> list[float]:
        values = list(got)
        if len(values) != expected:
            raise RerankerError(f"reranker {self.model_id} returned {len(values)} scores for {expected} documents")
        out: list[float] = []
        for value in values:
            try:
                if isinstance(value, (bool, str, bytes)):
                    raise TypeError
                number = float(value)
            except (TypeError, ValueError):
                raise RerankerError(
                    f"reranker {self.model_id} returned a score that is not a number: {value!r}") from None
            if math.isnan(number):
                raise RerankerError(f"reranker {self.model_id} returned NaN as a score; check the model and its inputs")
            out.append(number)
        return out


def _check_input(query: str, documents: Sequence[str]) -> None:
    if not isinstance(query, str):
        raise InputError(f"the rerank query must be a string, not {type(query).__name__}")
    if isinstance(documents, str):
        raise InputError("documents must be a list of strings, not one string: wrap it as [document]")
    for i, document in enumerate(documents):
        if not isinstance(document, str):
            raise InputError(f"documents[{i}] must be a string, not {type(document).__name__}")


# --- HTTP ------------------------------------------------------------------------------------------


class HTTPReranker(Reranker):
    """Client for a ``/rerank`` server: POST ``{model, query, documents}`` -> ``{results: [{index, relevance_score}]}``.

    ``base_url`` is the server root or API prefix (``https://api.cohere.com/v2``,
    ``https://api.jina.ai/v1``, ``http://localhost:8080``); ``/rerank`` is appended unless present.
    ``flavor="tei"`` sends TEI's ``texts`` field instead of ``documents``. Replies may be
    ``{"results": [...]}`` (Cohere, Jina, vLLM), ``{"data": [...]}`` (Voyage) or a bare list of
    ``{index, score}`` (TEI). The API key is read from the environment variable ``api_key_env``
    (default ``GIEOK_RERANKER_API_KEY``; unset means no key) and sent as a bearer token.
    ``top_n`` is never sent: every batch needs all its scores, to merge batches and fill the cache.
    ``extra_body`` adds provider-specific fields, e.g. ``{"return_documents": False}`` for Jina.
    """

    def __init__(
        self,
        base_url: str,
        model: str | None = None,
        api_key_env: str | None = None,
        timeout: float = 10.0,
        max_retries: int = 2,
        *,
        flavor: Flavor = "cohere",
        batch_size: int = 64,
        cache_size: int | None = None,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        extra_body: dict[str, Any] | None = None,
        transport: Transport | None = None,
    ) -> None:
        super().__init__(batch_size=batch_size, cache_size=cache_size)
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"reranker base_url must start with http:// or https://, not {base_url!r}")
        if flavor not in ("cohere", "tei"):
            raise ConfigError(f"reranker flavor must be 'cohere' or 'tei', not {flavor!r}")
        if not timeout > 0:
            raise ConfigError(f"reranker timeout must be more than 0 seconds, not {timeout!r}")
        if max_retries < 0 or backoff < 0 or max_backoff < 0:
            raise ConfigError("reranker max_retries, backoff and max_backoff must be 0 or more")
        self.documents_field = "texts" if flavor == "tei" else "documents"
        reserved = {"query", "documents", "texts"} & set(extra_body or {})
        if reserved:
            raise ConfigError(f"extra_body cannot set {', '.join(sorted(reserved))}: the reranker fills them itself")
        root = base_url.rstrip("/")
        self.url = root if root.endswith("/rerank") else root + "/rerank"
        self.model = model
        self.flavor = flavor
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.extra_body = dict(extra_body or {})
        self.api_key_env = api_key_env or DEFAULT_API_KEY_ENV
        self._api_key = find_api_key(self.api_key_env)
        if api_key_env and self._api_key is None:
            raise ConfigError(
                f"reranker API key variable {api_key_env} is not set: export {api_key_env}=<your key>, "
                "or leave api_key_env unset for a server that needs no key"
            )
        self.model_id = f"http:{model or '-'}@{self.url}"
        self._transport: Transport = transport if transport is not None else UrllibTransport()
        self._sleep: Callable[[float], None] = time.sleep

    def __repr__(self) -> str:  # never shows the key itself
        return f"HTTPReranker(url={self.url!r}, model={self.model!r}, api_key_env={self.api_key_env!r})"

    def score_pairs(self, query: str, documents: list[str]) -> list[float]:
        body: dict[str, Any] = dict(self.extra_body)
        if self.model is not None:
            body["model"] = self.model
        body["query"] = query
        body[self.documents_field] = documents
        if self.flavor == "tei":
            body.setdefault("raw_scores", False)
        return self._parse(self._post(body), len(documents))

    def _post(self, body: dict[str, Any]) -> bytes:
        headers = {"Authorization": f"Bearer {self._api_key.value}"} if self._api_key else {}
        try:
            return retry(lambda: self._attempt(body, headers), transient=RerankerUnavailableError,
                         max_retries=self.max_retries, delay=self._backoff_delay, sleep=self._sleep)
        except RerankerUnavailableError as error:
            attempts = self.max_retries + 1
            raise RerankerUnavailableError(
                f"reranker at {self.url} did not answer after {attempts} attempt{'s' * (attempts > 1)} "
                f"(last: {error}): check the server is up, or raise timeout= / max_retries=",
                retry_after=error.retry_after,
            ) from error

    def _attempt(self, body: dict[str, Any], headers: dict[str, str]) -> bytes:
        # One try; RerankerUnavailableError (naming only this failure) is what a retry may cure.
        try:
            response = post_json(self._transport, self.url, body, headers=headers, timeout=self.timeout)
        except OSError as error:
            raise RerankerUnavailableError(no_answer(error)) from error
        if response.ok:
            return response.body
        if is_transient(response.status):
            detail = _snippet(response.body)
            raise RerankerUnavailableError(f"HTTP {response.status}" + (f": {detail}" if detail else ""),
                                           retry_after=response.retry_after())
        raise self._status_error(response)

    def _backoff_delay(self, attempt: int, retry_after: float | None) -> float:
        # No jitter: one process asks one reranker, and tests can name every delay.
        return backoff_delay(attempt, base=self.backoff, cap=self.max_backoff, retry_after=retry_after)

    def _status_error(self, response: Response) -> GieokError:
        status, detail = response.status, _snippet(response.body)
        if status in (401, 403):
            return ConfigError(f"reranker at {self.url} refused the API key (HTTP {status}): "
                               + auth_hint(self._api_key, self.api_key_env, can_pass_key=False))
        if 300 <= status < 400:
            return ConfigError(
                f"reranker at {self.url} redirects (HTTP {status}) to "
                f"{response.header('Location') or 'another address'}: "
                "set base_url to the final address"
            )
        if status == 404:
            return ConfigError(
                f"reranker at {self.url} found no such endpoint or model (HTTP 404: {detail or 'no detail'}): "
                "check base_url (with the API prefix, e.g. /v1) and model"
            )
        hint = ""
        if "texts" in detail and self.flavor != "tei":
            hint = "; this looks like HuggingFace TEI: pass flavor='tei'"
        elif "model" in detail and self.model is None:
            hint = "; the server may need a model name: pass model="
        return RerankerError(
            f"reranker at {self.url} rejected the request (HTTP {status}: {detail or 'no detail'}){hint}")

    def _parse(self, raw: bytes, expected: int) -> list[float]:
        try:
            payload = json.loads(raw)
        except ValueError:
            raise RerankerError(
                f"reranker at {self.url} answered with something that is not JSON: {_snippet(raw)}") from None
        items = payload.get("results", payload.get("data")) if isinstance(payload, dict) else payload
        if not isinstance(items, list):
            raise RerankerError(
                f"reranker at {self.url} answered in an unknown shape ({_snippet(raw)}): expected "
                '{"results": [{"index", "relevance_score"}]} or a list of {"index", "score"}'
            )
        scores: list[float | None] = [None] * expected
        for item in items:
            index = item.get("index") if isinstance(item, dict) else None
            value = item.get("relevance_score", item.get("score")) if isinstance(item, dict) else None
            if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < expected:
                raise RerankerError(f"reranker at {self.url} returned a result with a bad index: {item!r}"[:300])
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise RerankerError(f"reranker at {self.url} returned a result without a numeric score: {item!r}"[:300])
            if scores[index] is not None:
                raise RerankerError(f"reranker at {self.url} returned document {index} twice")
            scores[index] = float(value)
        got = [s for s in scores if s is not None]
        if len(got) != expected:
            raise RerankerError(
                f"reranker at {self.url} scored {len(got)} of {expected} documents: it may cut replies to a "
                "default top_n; raise that limit on the server or lower batch_size"
            )
        return got


def _snippet(raw: bytes, limit: int = 200) -> str:
    text = raw.decode("utf-8", "replace").strip().replace("\n", " ")
    return text if len(text) <= limit else text[:limit] + "…"


# --- ONNX ------------------------------------------------------------------------------------------


class ONNXCrossEncoder(Reranker):
    """A cross-encoder exported to ONNX (``model.onnx`` + ``tokenizer.json`` in ``model_dir``).

    Export one yourself, e.g. ``optimum-cli export onnx --task text-classification --model
    BAAI/bge-reranker-v2-m3 DIR``; gieok never downloads it. Needs ``onnxruntime`` and ``tokenizers``.
    Scores are sigmoid probabilities in [0, 1] (the positive class's softmax for two-logit heads),
    comparable with hosted rerankers; ``raw_scores=True`` returns the logits instead.
    """

    required_files = ("model.onnx", "tokenizer.json")

    def __init__(
        self,
        model_dir: str | os.PathLike[str],
        *,
        max_length: int = 512,
        batch_size: int = 16,
        cache_size: int | None = None,
        num_threads: int | None = None,
        raw_scores: bool = False,
    ) -> None:
        super().__init__(batch_size=batch_size, cache_size=cache_size)
        directory = Path(model_dir).expanduser()
        if not directory.is_dir():
            raise ConfigError(
                f"reranker model directory {directory} does not exist: pass model_dir= a folder holding "
                + " and ".join(self.required_files)
            )
        missing = [name for name in self.required_files if not (directory / name).is_file()]
        if missing:
            raise ConfigError(
                f"reranker model directory {directory} lacks {' and '.join(missing)}: export the cross-encoder "
                "with `optimum-cli export onnx --task text-classification --model NAME DIR` and copy "
                "model.onnx and tokenizer.json there"
            )
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as error:
            raise ConfigError(
                f"the onnx reranker needs onnxruntime and tokenizers ({error}): pip install onnxruntime tokenizers"
            ) from error
        self.model_dir = directory
        self.model_id = f"onnx:{directory.resolve()}"
        self.raw_scores = raw_scores
        try:
            self._tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
            options = onnxruntime.SessionOptions()
            if num_threads:
                options.intra_op_num_threads = int(num_threads)
            self._session = onnxruntime.InferenceSession(
                str(directory / "model.onnx"), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as error:  # their own exception types; chained, not hidden
            raise ConfigError(f"cannot load the cross-encoder in {directory}: {error}") from error
        # Padding is done here, not by the tokenizer, so the pad id is the model's own: XLM-R models
        # derive position ids from it and score differently with a wrong one.
        padding = self._tokenizer.padding
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=max_length)
        pad_id = padding.get("pad_id") if padding else None
        if pad_id is None:
            pad_id = self._tokenizer.token_to_id("<pad>")
        if pad_id is None:
            pad_id = self._tokenizer.token_to_id("[PAD]")
        self._pad_id = int(pad_id or 0)
        self._inputs = {i.name: i.type for i in self._session.get_inputs()}
        unknown = set(self._inputs) - {"input_ids", "attention_mask", "token_type_ids"}
        if "input_ids" not in self._inputs or unknown:
            raise ConfigError(
                f"{directory / 'model.onnx'} takes inputs {sorted(self._inputs)}, not those of a cross-encoder "
                "(input_ids, attention_mask, token_type_ids): export it with --task text-classification"
            )
        self._output = self._session.get_outputs()[0].name

    def score_pairs(self, query: str, documents: list[str]) -> list[float]:
        import numpy as np

        encodings = self._tokenizer.encode_batch([(query, document) for document in documents])
        width = max(len(e.ids) for e in encodings)
        arrays = {name: np.zeros((len(documents), width), dtype=np.int64) for name in self._inputs}
        arrays["input_ids"][:] = self._pad_id
        for row, encoding in enumerate(encodings):
            length = len(encoding.ids)
            arrays["input_ids"][row, :length] = encoding.ids
            if "attention_mask" in arrays:
                arrays["attention_mask"][row, :length] = encoding.attention_mask
            if "token_type_ids" in arrays:
                arrays["token_type_ids"][row, :length] = encoding.type_ids
        feed = {name: a.astype(np.int32) if self._inputs[name] == "tensor(int32)" else a for name, a in arrays.items()}
        logits = np.asarray(self._session.run([self._output], feed)[0], dtype=np.float64)
        if logits.ndim == 2 and logits.shape[1] == 2:
            logits = logits[:, 1] - logits[:, 0]  # log-odds of "relevant": sigmoid of it is the softmax
        elif logits.ndim == 2 and logits.shape[1] == 1:
            logits = logits[:, 0]
        if logits.shape != (len(documents),):
            raise RerankerError(
                f"cross-encoder {self.model_dir} output has shape {logits.shape}; expected "
                f"({len(documents)}, 1) or ({len(documents)}, 2): is it a reranker?"
            )
        values = [float(x) for x in logits]
        return values if self.raw_scores else [_sigmoid(x) for x in values]


def _sigmoid(x: float) -> float:
    # exp() of a non-positive number only: no overflow at any logit.
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


# --- registration ----------------------------------------------------------------------------------


def _factory(name: str, cls: type[Reranker]) -> Callable[..., Reranker]:
    signature = inspect.signature(cls)

    def build(**options: Any) -> Reranker:
        try:
            signature.bind(**options)
        except TypeError as error:
            accepted = ", ".join(signature.parameters)
            raise ConfigError(f"reranker {name!r}: {error}; its options are {accepted}") from None
        return cls(**options)

    build.__doc__ = cls.__doc__
    return build


def register_builtins(register: Callable[..., Any]) -> None:
    register("reranker", "http", _factory("http", HTTPReranker))
    register("reranker", "onnx", _factory("onnx", ONNXCrossEncoder))
