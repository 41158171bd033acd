"""How a location reads in an answer: ``p. 3``, ``§ 환불 정책 › 예외`` or both."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["format_location", "SECTION_SEPARATOR"]

SECTION_SEPARATOR = " › "


def format_location(location: Mapping[str, Any] | None) -> str:
    """``{"page": 3}`` → ``p. 3``; ``{"section": ["환불 정책", "예외"]}`` → ``§ 환불 정책 › 예외``; empty → ``""``."""
    if not location:
        return ""
    parts = []
    if location.get("page") is not None:
        parts.append(f"p. {location['page']}")
    section = location.get("section") or []
    if section:
        parts.append("§ " + SECTION_SEPARATOR.join(str(s) for s in section))
    return ", ".join(parts)
