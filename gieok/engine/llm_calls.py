"""Every LLM call the engine makes goes through :func:`call_llm`: spend ceiling first, metering after.

Usage is stored per bank, per day, per operation (``extract``, ``consolidate``, ``reflect``,
``refresh_models``): calls, input and output tokens and the estimated cost from the provider's
price table. Prompts and replies are never stored. Before a call, the bank's spend so far is
compared with its ceiling (``spend_limit_usd`` in the bank's LLM config, else the global setting);
at or above it, :class:`~gieok.errors.SpendLimitError` stops the work.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from gieok.errors import SpendLimitError
from gieok.providers.llms import LLM, ChatResponse, estimate_cost
from gieok.store.protocol import BankRow, Store

__all__ = ["call_llm", "spend_limit", "MeteredLLM"]


def spend_limit(store: Store, bank: BankRow, default: float, config: Mapping[str, Any] | None = None) -> float:
    """The bank's spend ceiling in USD (0: none); ``config`` is the bank's configuration when already read."""
    config = (config if config is not None else store.banks.config(bank.id)).get("llm") or {}
    value = config.get("spend_limit_usd", default)
    return float(value) if value is not None else 0.0


def call_llm(store: Store, bank: BankRow, llm: LLM, operation: str, messages: str | Sequence[Mapping[str, str]], *,
             limit_usd: float = 0.0, **options: Any) -> ChatResponse:
    """One metered LLM call on behalf of ``bank``; ``limit_usd`` > 0 is the bank's ceiling."""
    if limit_usd > 0:
        spent = store.llm.spend(bank.id)
        if spent >= limit_usd:
            raise SpendLimitError(bank.name, spent, limit_usd)
    response = llm.complete(messages, operation=operation, **options)
    cost = estimate_cost(llm.model, response.input_tokens, response.output_tokens)
    day = datetime.now(timezone.utc).date().isoformat()
    with store.write():
        store.llm.add(bank.id, day, operation, llm.provider, llm.model, 1, response.input_tokens,
                      response.output_tokens, cost)
    return response


class MeteredLLM:
    """An LLM bound to one bank: every ``complete`` is metered and checked against the ceiling.
    Components that take an LLM (extraction) get this instead of the raw provider."""

    def __init__(self, store: Store, bank: BankRow, llm: LLM, limit_usd: float = 0.0) -> None:
        self.store, self.bank, self.llm, self.limit_usd = store, bank, llm, limit_usd
        self.provider, self.model = llm.provider, llm.model

    def describe(self) -> str:
        return self.llm.describe()

    def complete(self, messages: str | Sequence[Mapping[str, str]], *, operation: str = "generic",
                 **options: Any) -> ChatResponse:
        return call_llm(self.store, self.bank, self.llm, operation, messages, limit_usd=self.limit_usd, **options)
