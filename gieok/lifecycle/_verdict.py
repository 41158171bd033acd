"""The answer of ``detect_update``: kept apart so every rule module can build one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["UpdateKind", "UpdateVerdict"]

UpdateKind = Literal["correction", "change", "value"]


@dataclass(frozen=True, slots=True)
class UpdateVerdict:
    """Why ``new`` replaces ``old``: correction (old was wrong), change (the world changed) or value
    (same frame, another value, no cue word); confidence in [0, 1]; the values swapped."""

    kind: UpdateKind
    confidence: float
    old_value: str | None
    new_value: str | None
    reason: str
