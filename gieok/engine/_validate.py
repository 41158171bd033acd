"""Checks of what a caller hands the engine, so that bad input gets a typed error that says how to fix
it before anything is stored (and nothing already stored is touched).

Strings must be encodable (a lone surrogate such as ``"\\ud800"`` comes from text decoded wrongly and
cannot be stored); metadata must be JSON — an object of names to strings, numbers, booleans, null,
lists and objects, not too deep, without cycles; numbers must be finite.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from gieok.errors import InputError
from gieok.limits import limit

__all__ = ["MAX_METADATA_DEPTH", "check_encodable", "check_metadata", "check_name", "check_number"]

MAX_METADATA_DEPTH = limit("metadata_depth")


def check_encodable(value: str, what: str) -> str:
    """``value`` unless it holds a lone surrogate (UTF-8 cannot store it)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(
            f"{what} holds a lone surrogate ({value[exc.start]!r} at position {exc.start}): the text was decoded "
            "wrongly; decode it with errors='replace' (or fix the source) and retain it again") from None
    return value


def check_name(value: Any, what: str, example: str) -> str:
    """A non-empty, storable string naming something (a source id, a model name)."""
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{what} must be a non-empty string, e.g. {example} (got {value!r})")
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
                raise InputError(f"{path} has a key of type {type(key).__name__} ({key!r}): metadata keys are strings")
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
        raise InputError(f"{what} must be a number{hint} (got {value!r})")
    number = float(value)
    if not math.isfinite(number):
        raise InputError(f"{what} must be a finite number{hint} (got {value!r})")
    if (low is not None and number < low) or (high is not None and number > high):
        bounds = f"between {low:g} and {high:g}" if low is not None and high is not None else \
            f"at least {low:g}" if low is not None else f"at most {high:g}"
        raise InputError(f"{what} must be {bounds}{hint} (got {value!r})")
    return number
