"""Memory ids are read and written in one place (gieok.ids)."""

from __future__ import annotations

import pytest

from gieok.ids import (
    MemoryRef,
    fact_memory_id,
    fact_number,
    observation_memory_id,
    observation_number,
    parse_memory_id,
)


@pytest.mark.parametrize(("text", "expected"), [
    ("f-12", MemoryRef("fact", 12)),
    ("o-3", MemoryRef("observation", 3)),
    (" f-7 ", MemoryRef("fact", 7)),
])
def test_memory_ids_are_read(text: str, expected: MemoryRef) -> None:
    assert parse_memory_id(text) == expected


@pytest.mark.parametrize("text", ["f-", "f12", "x-1", "f-1a", "f-١٢", "conversation-m1", "민지-1", "", "-1"])
def test_other_strings_are_not_memory_ids(text: str) -> None:
    assert parse_memory_id(text) is None


def test_non_strings_are_not_memory_ids() -> None:
    assert parse_memory_id(12) is None
    assert parse_memory_id(None) is None


def test_ids_round_trip() -> None:
    assert fact_memory_id(5) == "f-5" and fact_number("f-5") == 5
    assert observation_memory_id(9) == "o-9" and observation_number("o-9") == 9
    assert fact_number("o-9") is None and observation_number("f-5") is None
    assert str(parse_memory_id("o-40")) == "o-40"
