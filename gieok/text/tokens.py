"""Token counting for budgets, offline (o200k_base from the bundled quicktok tables)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

__all__ = ["count_tokens", "TOKENIZER_NAME"]

TOKENIZER_NAME = "o200k_base"


@lru_cache(maxsize=1)
def _encoding() -> Any:
    import quicktok

    return quicktok.get_encoding(TOKENIZER_NAME)


def count_tokens(text: str) -> int:
    return int(_encoding().count(text))
