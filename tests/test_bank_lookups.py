"""Each public call resolves its bank once and passes the context down: the plan, resolve, link,
supersede and write steps of a retain, and recall's channels, never look the bank up again. The
store's lookup by name is counted (the bank's configuration too: read once per call, if at all).
A retain re-reads the bank's row by id once, under the bank's lock (a reembed that swapped the
embedder meanwhile is refused); a new bank is looked up once more, under the lock that creates it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from gieok import Memory

SAID = {
    "ko": ([{"id": "k1", "speaker": "민지", "text": "나 망원동에 살아. 강아지 두부는 네 살이야."},
            {"id": "k2", "speaker": "민지", "text": "이사했어! 이제 성수동에 살아."}],
           "민지 어디 살아?", "# 환불 정책\n\n환불은 구매 후 7일 이내에 가능합니다."),
    "en": ([{"id": "e1", "speaker": "Melanie", "text": "I live in Park Slope. My dog Max is three."},
            {"id": "e2", "speaker": "Melanie", "text": "We moved! We're in Jersey City now."}],
           "Where does Melanie live?", "# Refunds\n\nA refund is possible within 7 days of purchase."),
}


@pytest.fixture
def counted(mem: Memory) -> Iterator[tuple[Memory, Counter[str]]]:
    """``mem`` with its store's bank lookups counted: by name, by id, and reads of a bank's configuration."""
    counts: Counter[str] = Counter()
    banks: Any = mem.engine.store.banks
    methods = {"get_bank": "get", "bank_by_id": "by_id", "bank_config": "config"}
    for name, method in methods.items():
        original = getattr(banks, method)

        def wrapped(*args: Any, _original: Any = original, _name: str = name, **kwargs: Any) -> Any:
            counts[_name] += 1
            return _original(*args, **kwargs)

        setattr(banks, method, wrapped)
    yield mem, counts
    for method in methods.values():
        delattr(banks, method)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_retain_and_recall_look_the_bank_up_once(counted: tuple[Memory, Counter[str]], lang: str) -> None:
    mem, counts = counted
    messages, question, _document = SAID[lang]
    mem.retain(lang, messages=messages[:1])
    assert counts["get_bank"] == 2, "a new bank: looked up once, and once more under the lock that creates it"

    counts.clear()
    result = mem.retain(lang, messages=messages[1:])
    assert result.facts_added >= 1
    assert counts == {"get_bank": 1, "bank_by_id": 1, "bank_config": 1}, counts

    counts.clear()
    found = mem.recall(lang, question, explain=True)
    assert found.memories, "the precondition: the recall finds what was retained"
    assert counts["get_bank"] == 1 and counts["bank_by_id"] == 0 and counts["bank_config"] == 0, counts


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_every_public_call_resolves_its_bank_once(counted: tuple[Memory, Counter[str]], lang: str) -> None:
    mem, counts = counted
    messages, question, document = SAID[lang]
    mem.retain(lang, messages=messages)
    calls = {
        "ingest": lambda: mem.ingest(lang, document.encode(), document_id="refunds.md"),
        "submit_retain": lambda: mem.submit_retain(lang, text=document, document_id="refunds-2"),
        "reflect": lambda: mem.reflect(lang, question),
        "forget": lambda: mem.forget(lang, source_id="refunds.md"),
    }
    for name, call in calls.items():
        counts.clear()
        call()
        assert counts["get_bank"] == 1, (name, counts)
        assert counts["bank_config"] <= 1, (name, counts)
