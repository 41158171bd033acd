"""Checks of what a caller hands the engine, so that bad input gets a typed error that says how to fix
it before anything is stored (and nothing already stored is touched).

Strings must be encodable (a lone surrogate such as ``"\\ud800"`` comes from text decoded wrongly and
cannot be stored) and free of NUL characters (PostgreSQL cannot store them in text; SQLite would, so
both stores refuse them alike); integers that name rows must fit 64 bits; metadata must be JSON — an
object of names to strings, numbers, booleans, null, lists and objects, not too deep, without
cycles; numbers must be finite. Messages name the argument, never echo its value (a request may hold
a secret, and a server sends the message back).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from gieok.errors import InputError
from gieok.limits import limit

__all__ = ["INT64_MAX", "MAX_METADATA_DEPTH", "check_encodable", "check_int64", "check_metadata", "check_name",
           "check_number", "check_optional_text", "check_text"]

MAX_METADATA_DEPTH = limit("metadata_depth")
INT64_MAX = 2 ** (limit("integer_bits") - 1) - 1  # the widest integer either store keeps (SQLite INTEGER, bigint)


def check_encodable(value: str, what: str) -> str:
    """``value`` unless it holds a lone surrogate (UTF-8 cannot store it) or a NUL."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(
            f"{what} holds a lone surrogate ({value[exc.start]!r} at position {exc.start}): the text was decoded "
            "wrongly; decode it with errors='replace' (or fix the source) and retain it again") from None
    if "\x00" in value:
        raise InputError(f"{what} holds a NUL character (\\x00 at position {value.index(chr(0))}): text cannot hold "
                         "it; remove it (it usually comes from binary data read as text)")
    return value


def check_text(value: Any, what: str) -> str:
    """``value`` if it is a storable string; any other type is refused, never stringified."""
    if not isinstance(value, str):
        raise InputError(f"{what} must be a string, not {type(value).__name__}")
    return check_encodable(value, what)


def check_optional_text(value: Any, what: str) -> str | None:
    """:func:`check_text`, with None passed through (an argument left out)."""
    return None if value is None else check_text(value, what)


def check_int64(value: Any, what: str, *, low: int = -INT64_MAX - 1) -> int:
    """``value`` as an integer of at least ``low`` that fits 64 bits; booleans, floats and strings refused."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{what} must be an integer, not {type(value).__name__}")
    if not low <= value <= INT64_MAX:
        raise InputError(f"{what} must be between {low} and {INT64_MAX}")
    return value


def check_name(value: Any, what: str, example: str) -> str:
    """A non-empty, storable string naming something (a source id, a model name)."""
    if not isinstance(value, str) or not value.strip():
        got = "an empty string" if isinstance(value, str) else type(value).__name__
        raise InputError(f"{what} must be a non-empty string, e.g. {example}, not {got}")
    return check_encodable(value, what)


def check_metadata(metadata: Any, what: str = "metadata") -> dict[str, Any]:
    """``metadata`` as a plain JSON object, or an InputError naming the first bad path."""
    if not isinstance(metadata, Mapping):
        raise InputError(f"{what} must be an object of names to values, e.g. {{'channel': 'slack'}}")
    checked: dict[str, Any] = _json_value(metadata, what, 0, set())
    return checked


def _json_value(value: Any, path: str, depth: int, seen: set[int]) -> Any:
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(f"{path} is {value!r}: metadata numbers must be finite")
        return value
    if isinstance(value, str):
        return check_encodable(value, path)
    if depth >= MAX_METADATA_DEPTH:
        raise InputError(f"{path} nests deeper than {MAX_METADATA_DEPTH} levels: flatten the metadata")
    if id(value) in seen:
        raise InputError(f"{path} contains itself (a cycle): metadata must be a tree of values")
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise InputError(f"{path} has a key of type {type(key).__name__}: metadata keys are strings")
            check_encodable(key, f"a key of {path}")
            out[key] = _json_value(item, f"{path}.{key}", depth + 1, seen | {id(value)})
        return out
    if isinstance(value, (list, tuple)):
        return [_json_value(item, f"{path}[{i}]", depth + 1, seen | {id(value)}) for i, item in enumerate(value)]
    raise InputError(f"{path} is a {type(value).__name__}: metadata values are strings, numbers, booleans, null, "
                     "lists or objects (convert it, e.g. a set to a list)")


def check_number(value: Any, what: str, *, low: float | None = None, high: float | None = None,
                 example: str = "") -> float:
    """``value`` as a finite float within [low, high]; booleans and strings are refused."""
    hint = f", e.g. {example}" if example else ""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{what} must be a number{hint}, not {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number):
        raise InputError(f"{what} must be a finite number{hint}")
    if (low is not None and number < low) or (high is not None and number > high):
        bounds = f"between {low:g} and {high:g}" if low is not None and high is not None else \
            f"at least {low:g}" if low is not None else f"at most {high:g}"
        raise InputError(f"{what} must be {bounds}{hint}")
    return number
