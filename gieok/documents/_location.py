"""How a location reads in an answer: ``p. 3``, ``§ 환불 정책 › 예외`` or both."""

from __future__ import annotations

from gieok.records import SECTION_SEPARATOR, format_location

__all__ = ["format_location", "SECTION_SEPARATOR"]
