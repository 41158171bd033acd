"""The ``store.banks`` contract (:class:`gieok.store.protocol.Banks`): the same tests against the
SQLite store and the PostgreSQL store (``store`` and ``open_store`` are parametrized over both; the
PostgreSQL side runs on a throw-away server, see ``pg_server.py``, and fails — not skips — when it
cannot start).
"""

from __future__ import annotations

import numpy as np
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from store_contract import AnyStore, _conversation, _setup

from gieok.records import BankInfo
from gieok.text.terms import keyword_terms


def test_a_bank_counts_the_bytes_it_holds(store: AnyStore) -> None:
    conv = _conversation(store)
    other = _setup(store, "bob", ["다른 뱅크의 긴 문장입니다", "another bank"])
    # each message's text is stored three times (message, chunk, fact), in UTF-8, plus a vector per fact
    text = sum(3 * len(t.encode("utf-8")) for t in conv["texts"])
    assert store.banks.byte_size(conv["bank"], conv["dim"]) == text + len(conv["texts"]) * conv["dim"] * 4
    assert store.banks.byte_size(other, 4) == 1 + sum(len(t.encode("utf-8")) for t in ["다른 뱅크의 긴 문장입니다",
                                                                                   "another bank"]) + 2 * 4 * 4


def test_banks_round_trip_and_delete_cascades(store: AnyStore) -> None:
    a = _setup(store, "a", ["한라산에 올랐다", "Hiking on Jeju"])
    b = _setup(store, "b", ["부산 여행"], dim=8)
    assert store.banks.get("a") == store.banks.by_id(a)
    assert (store.banks.get("b").name, store.banks.get("b").embedder, store.banks.get("b").dim) == ("b", "fake", 8)
    assert store.banks.get("missing") is None and store.banks.by_id(999) is None
    assert [(r.id, r.name, r.dim) for r in store.banks.rows()] == [(a, "a", 4), (store.banks.get("b").id, "b", 8)]
    banks = store.banks.all()
    assert [x.name for x in banks] == ["a", "b"] and all(isinstance(x, BankInfo) for x in banks)
    assert (banks[0].sources, banks[0].facts, banks[1].facts) == (1, 2, 1)
    assert banks[0].created_at.tzinfo is not None
    assert store.banks.config(a) == {}
    with store.write():
        store.banks.set_config(a, {"redaction": {"email": "redact"}, "이름": "값"})
    assert store.banks.config(a) == {"redaction": {"email": "redact"}, "이름": "값"}
    with store.write():
        assert store.banks.delete(a) == {"facts": 2, "chunks": 1, "messages": 0, "sources": 1}
        assert store.banks.delete(a) == {}
    assert store.banks.get("a") is None and store.facts.count(a) == 0
    # (keyword_search on a deleted bank is undefined: SQLite's per-bank FTS table is gone)
    assert store.search.vector(a, 4, np.ones(4, dtype=np.float32), 10) == []
    assert store.facts.count(b) == 1 and store.search.keyword(b, keyword_terms("부산"), 10)
