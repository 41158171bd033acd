"""The edge of the library: every public ``Memory`` method's arguments checked against
:mod:`gieok.limits` before the call does any work.

An argument is checked by its name (``bank``, ``*_id``, ``query`` …), the same way in every method,
so a new method is covered by naming its arguments as the others do; a test lists every argument of
every public method and fails on one this table does not know (:data:`UNCHECKED` names those whose
own call checks them, or that need no check). What deeper checks need the engine's knowledge
(a message's fields, a scope, a redaction policy) stay with the engine, using the same limits.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from gieok.engine._time import to_datetime
from gieok.engine._validate import INT64_MAX, check_encodable
from gieok.errors import InputError, ScopeError
from gieok.limits import limit

__all__ = ["ARGUMENTS", "PER_METHOD", "UNCHECKED", "check_arguments", "check_every_method", "check_integer",
           "check_length", "check_metadata_size", "check_query", "read_query"]



def check_length(value: Any, what: str, limit_name: str, *, example: str = "",
                 error: type[InputError] = InputError) -> Any:
    """A string no longer than the limit (None and non-strings pass: their own checks type them)."""
    if isinstance(value, str):
        check_encodable(value, what)
        most = limit(limit_name)
        if len(value) > most:
            hint = f", e.g. {example}" if example else ""
            raise error(f"{what} is {len(value):,} characters long; at most {most:,} characters are accepted{hint}")
    return value


def check_integer(value: Any, what: str, limit_name: str | None = None) -> Any:
    """A whole number within 64 bits (and the named limit); other types pass to their own checks."""
    if isinstance(value, int) and not isinstance(value, bool):
        if not -INT64_MAX - 1 <= value <= INT64_MAX:
            raise InputError(f"{what} is past 64 bits: give a whole number between {-INT64_MAX - 1:,} and "
                             f"{INT64_MAX:,}")
        if limit_name is not None and value > limit(limit_name):
            raise InputError(f"{what} is at most {limit(limit_name):,}")
    return value


def check_query(value: Any, what: str) -> Any:
    """A query within ``query_chars``, read to its first ``query_read_chars`` (:func:`read_query`)."""
    check_length(value, what, "query_chars")
    return read_query(value) if isinstance(value, str) else value


def read_query(query: str) -> str:
    """What of a query recall reads: its first ``query_read_chars`` characters (the embedder reads
    about 512 tokens; keyword terms, names and dates past them would only add work)."""
    most = limit("query_read_chars")
    return query if len(query) <= most else query[:most]


def check_metadata_size(metadata: Any, what: str = "metadata") -> Any:
    """A metadata object no larger than ``metadata_bytes`` as JSON (its shape: _validate.check_metadata)."""
    if isinstance(metadata, Mapping):
        try:
            size = len(json.dumps(metadata, ensure_ascii=False, default=str).encode("utf-8", "replace"))
        except (TypeError, ValueError, RecursionError):  # not JSON, a cycle, too deep: check_metadata says which
            return metadata
        if size > limit("metadata_bytes"):
            raise InputError(f"{what} is {size:,} bytes as JSON; at most {limit('metadata_bytes'):,} are accepted: "
                             "keep large data in the text or a document, and a reference in metadata")
    return metadata


def _time(value: Any, what: str) -> Any:
    if value is not None and not isinstance(value, (int, float)):  # epoch numbers are refused by the call itself
        to_datetime(value, what)
    return value


def _messages(value: Any, what: str) -> Any:
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)) and len(value) > limit("messages_per_call"):
        raise InputError(f"{what}: {len(value):,} messages in one call; at most {limit('messages_per_call'):,}: "
                         "retain them in several calls")
    return value


def _tags(value: Any, what: str) -> Any:
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        for i, tag in enumerate(value):
            check_length(tag, f"{what}[{i}]", "id_chars", error=ScopeError)
    return value


def _ids(value: Any, what: str) -> Any:
    return check_integer(check_length(value, what, "id_chars"), what)


def _scope_ids(value: Any, what: str) -> Any:
    """A user / agent / session id: a ScopeError, as gieok.engine.scopes gives for the rest of a scope."""
    return check_length(value, what, "id_chars", error=ScopeError)


def _names(value: Any, what: str) -> Any:
    return check_length(value, what, "name_chars")


Check = Callable[[Any, str], Any]

ARGUMENTS: dict[str, Check] = {
    "bank": lambda v, w: check_length(v, w, "bank_name_chars", example="'alice'"),
    **{name: _ids for name in ("source_id", "document_id", "memory_id", "operation_id", "held_id")},
    **{name: _scope_ids for name in ("session_id", "user_id", "agent_id")},
    **{name: _names for name in ("person", "entity", "slot", "name", "speaker")},
    "query": check_query,
    "question": check_query,
    **{name: _time for name in ("now", "as_of", "timestamp", "expires_at", "before")},
    "limit": lambda v, w: check_integer(v, w, "recall_limit"),
    "max_tokens": lambda v, w: check_integer(v, w, "max_tokens"),
    "keep_recent": lambda v, w: check_integer(v, w),
    "messages": _messages,
    "metadata": check_metadata_size,
    "tags": _tags,
}

# arguments whose call checks them itself, or that need no check (not text a caller can make long)
UNCHECKED = frozenset({
    "self", "progress", "on_total", "explain", "verify", "deep", "include_shared", "scopes", "decay_class",
    "importance", "pinned", "ttl", "path_or_bytes", "media_type", "format", "policy", "provider", "model",
    "base_url", "api_key_env", "spend_limit_usd", "enabled", "refresh", "status", "embedder", "wait", "texts",
    "text",  # a document's text: the setting max_retain_chars (should_recall reads it as a query: PER_METHOD)
    "content",  # a session turn's text: retained as a message, under max_retain_chars
    "role", "skip_bad", "timezone", "trust",  # one of a few values, checked by their call
    "key_id", "key", "banks", "claimed", "after",  # mem.keys / mem.jobs: checked by their call
    # a bank's disposition and directives: gieok.engine.reflect.shaping checks each field and its length
    "disposition", "directives", "skepticism", "literalism", "empathy", "background",
    "dest", "src", "with_vectors",  # a bank file's path or file object (import checks every line), a flag
})

# where an argument name means something else in one method
PER_METHOD: dict[tuple[str, str], Check] = {
    ("should_recall", "text"): check_query,
    ("audit_log", "limit"): lambda v, w: check_integer(v, w),
    ("jobs", "limit"): lambda v, w: check_integer(v, w),
    ("run_jobs", "limit"): lambda v, w: check_integer(v, w),
    ("list", "limit"): lambda v, w: check_integer(v, w),  # mem.jobs.list
    ("run", "limit"): lambda v, w: check_integer(v, w),  # mem.jobs.run
    ("refold", "upto"): lambda v, w: check_integer(v, w),
    ("clone_bank", "new"): ARGUMENTS["bank"],
    ("rename_bank", "new"): ARGUMENTS["bank"],
}

F = TypeVar("F", bound=Callable[..., Any])


def check_arguments(method: F) -> F:
    """``method`` with its arguments checked (and a query read to its limit) before it runs."""
    signature = inspect.signature(method)
    name = method.__name__
    checks = {param: PER_METHOD.get((name, param)) or ARGUMENTS.get(param) for param in signature.parameters}
    checks = {param: check for param, check in checks.items() if check is not None}

    @functools.wraps(method)
    def checked(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)  # a wrong call is a TypeError, as Python's own
        for param, value in bound.arguments.items():
            check = checks.get(param)
            if check is not None and value is not None:
                bound.arguments[param] = check(value, param)
        return method(*bound.args, **bound.kwargs)

    return checked  # type: ignore[return-value]


def check_every_method(cls: type) -> None:
    """Wrap every public method written on ``cls`` with :func:`check_arguments` (properties are left be)."""
    for name, value in list(vars(cls).items()):
        if not name.startswith("_") and inspect.isfunction(value):
            setattr(cls, name, check_arguments(value))
