"""Fact extraction. Deterministic (no LLM) is the default and the fallback."""

from gieok.extract.deterministic import chunk_document, facts_from_text, is_small_talk

__all__ = ["chunk_document", "facts_from_text", "is_small_talk"]
