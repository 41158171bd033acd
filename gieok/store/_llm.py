"""``store.llm``: metered LLM usage (calls, tokens, cost per bank, day, operation and model),
written once for both stores.
"""

from __future__ import annotations

from typing import Any

from gieok.store._area import Area

__all__ = ["SQLLLMUsage"]


class SQLLLMUsage(Area):
    """LLM usage metering."""

    def add(self, bank_id: int, day: str, operation: str, provider: str, model: str, calls: int,
            input_tokens: int, output_tokens: int, cost_usd: float) -> None:
        self._require_write().execute(
            "INSERT INTO llm_usage AS u (bank_id, day, operation, provider, model, calls, input_tokens, output_tokens, "
            "cost_usd) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (bank_id, day, operation, provider, model) "
            "DO UPDATE SET calls = u.calls + excluded.calls, input_tokens = u.input_tokens + excluded.input_tokens, "
            "output_tokens = u.output_tokens + excluded.output_tokens, cost_usd = u.cost_usd + excluded.cost_usd",
            (bank_id, day, operation, provider, model, int(calls), int(input_tokens), int(output_tokens),
             float(cost_usd)))

    def usage(self, bank_id: int) -> list[dict[str, Any]]:
        bytewise = self._dialect.bytewise
        cur = self._conn().execute(
            "SELECT day, operation, provider, model, calls, input_tokens, output_tokens, cost_usd FROM llm_usage "
            f"WHERE bank_id = ? ORDER BY day{bytewise}, operation{bytewise}", (bank_id,))
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]

    def spend(self, bank_id: int) -> float:
        return float(self._conn().execute(
            "SELECT COALESCE(SUM(cost_usd), 0) FROM llm_usage WHERE bank_id = ?", (bank_id,)).fetchone()[0])
