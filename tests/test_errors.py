"""The error tree: every exception class lives in gieok.errors, is importable from gieok, and sits where
the errors module's docstring draws it; the old import locations still work."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from types import ModuleType

import pytest

import gieok
from gieok import errors


def _modules() -> list[ModuleType]:
    found = [gieok]
    for info in pkgutil.walk_packages(gieok.__path__, "gieok."):
        found.append(importlib.import_module(info.name))
    return found


def _defined_exceptions() -> dict[type[BaseException], str]:
    """Every exception class defined in gieok, with the module it was found in (nested ones too)."""
    found: dict[type[BaseException], str] = {}

    def visit(owner: object, module: str) -> None:
        for value in vars(owner).values():
            if inspect.isclass(value) and value.__module__.startswith("gieok") and value not in found:
                if issubclass(value, BaseException):
                    found[value] = module
                if value.__module__ == module:
                    visit(value, module)

    for module in _modules():
        visit(module, module.__name__)
    return found


def test_every_exception_class_is_defined_in_gieok_errors() -> None:
    found = _defined_exceptions()
    assert errors.GieokError in found and errors.LLMRateLimitError in found  # the walk does see them
    elsewhere = sorted(f"{cls.__module__}.{cls.__qualname__}" for cls in found if cls.__module__ != "gieok.errors")
    assert elsewhere == [], "define these in gieok/errors.py (and import them where they are raised)"


def test_every_public_exception_is_exported_from_gieok() -> None:
    public = {cls.__name__ for cls in _defined_exceptions() if not cls.__name__.startswith("_")}
    assert public == set(errors.__all__)
    missing = sorted(public - set(gieok.__all__))
    assert missing == [], "add these to gieok/__init__.py and its __all__"
    for name in public:
        assert getattr(gieok, name) is getattr(errors, name)


def _drawn_tree() -> list[tuple[str, str | None]]:
    """(class, parent) for every line of the tree in gieok.errors' docstring."""
    assert errors.__doc__ is not None
    drawn: list[tuple[str, str | None]] = []
    stack: list[str] = []
    for line in errors.__doc__.splitlines():
        match = re.fullmatch(r"    ([│├└─ ]*)([A-Z]\w*Error)\b.*", line)
        if match is None:
            continue
        depth = len(match.group(1)) // 4  # each level of the drawing is four characters wide
        del stack[depth:]
        drawn.append((match.group(2), stack[-1] if stack else None))
        stack.append(match.group(2))
    assert drawn, "the errors docstring lost its tree"
    return drawn


def test_the_docstring_tree_is_exact() -> None:
    drawn = _drawn_tree()
    assert {name for name, _ in drawn} == set(errors.__all__)
    for name, parent in drawn:
        cls = getattr(errors, name)
        if parent is None:
            assert cls.__bases__ == (Exception,), name
            continue
        assert issubclass(cls, getattr(errors, parent)), f"{name} is drawn under {parent}"
        # Drawn under its nearest public ancestor: no public class sits between them.
        between = [base.__name__ for base in cls.__mro__[1:cls.__mro__.index(getattr(errors, parent))]
                   if not base.__name__.startswith("_") and issubclass(base, getattr(errors, parent))]
        assert between == [], f"{name} is drawn under {parent}, but {between} lie between"
    for name in errors.__all__:  # every public parent in gieok is drawn
        cls = getattr(errors, name)
        drawn_parents = {parent for child, parent in drawn if child == name}
        real = {base.__name__ for base in cls.__mro__[1:] if base.__module__ == "gieok.errors"
                and not base.__name__.startswith("_")}
        direct = {p for p in real if not any(issubclass(getattr(errors, q), getattr(errors, p)) and q != p
                                             for q in real)}
        assert drawn_parents == (direct or {None}), name


@pytest.mark.parametrize("module, names", [
    ("gieok.providers.llms", ["LLMError", "LLMAuthError", "LLMConfigError", "LLMRequestError",
                              "LLMRateLimitError", "LLMUnavailableError", "LLMOutputError"]),
    ("gieok.providers.rerankers", ["RerankerError", "RerankerUnavailableError"]),
    ("gieok.extract", ["ExtractionError"]),
    ("gieok.extract.llm", ["ExtractionError"]),
    ("gieok.engine.forget.run", ["EntityNotFoundError"]),
])
def test_old_import_locations_still_work(module: str, names: list[str]) -> None:
    imported = importlib.import_module(module)
    for name in names:
        assert getattr(imported, name) is getattr(errors, name)


def test_mixins_keep_their_builtin_bases() -> None:
    assert issubclass(errors.InputError, ValueError) and issubclass(errors.NotFoundError, LookupError)
    assert issubclass(errors.LLMAuthError, errors.ConfigError) and issubclass(errors.LLMConfigError, errors.ConfigError)
