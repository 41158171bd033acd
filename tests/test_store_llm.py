"""The ``store.llm`` contract (:class:`gieok.store.protocol.LLMUsage`): the same tests against the
SQLite store and the PostgreSQL store (``store`` and ``open_store`` are parametrized over both; the
PostgreSQL side runs on a throw-away server, see ``pg_server.py``, and fails — not skips — when it
cannot start).
"""

from __future__ import annotations

from pg_server import pg_dsn_factory  # noqa: F401  (fixture)
from store_contract import AnyStore, _setup


def test_llm_usage_adds_up_per_day_operation_and_model(store: AnyStore) -> None:
    bank = _setup(store, "a", ["x"])
    with store.write():
        store.llm.add(bank, "2026-05-01", "extract", "openai", "gpt", 1, 100, 20, 0.25)
        store.llm.add(bank, "2026-05-01", "extract", "openai", "gpt", 2, 50, 10, 0.5)
        store.llm.add(bank, "2026-04-30", "reflect", "anthropic", "claude", 1, 10, 5, 0.125)
    assert store.llm.usage(bank) == [
        {"day": "2026-04-30", "operation": "reflect", "provider": "anthropic", "model": "claude", "calls": 1,
         "input_tokens": 10, "output_tokens": 5, "cost_usd": 0.125},
        {"day": "2026-05-01", "operation": "extract", "provider": "openai", "model": "gpt", "calls": 3,
         "input_tokens": 150, "output_tokens": 30, "cost_usd": 0.75},
    ]
    assert store.llm.spend(bank) == 0.875 and store.llm.spend(bank + 1) == 0.0
