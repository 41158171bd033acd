"""Fact extraction. Deterministic (no LLM) is the default and the fallback; with an LLM provider
configured, retain extracts narrative facts with :func:`extract_facts`."""

from gieok.extract.deterministic import chunk_document, facts_from_text, is_small_talk
from gieok.extract.llm import ExtractedFact, ExtractionError, SourceItem, extract_facts

__all__ = ["ExtractedFact", "ExtractionError", "SourceItem", "chunk_document", "extract_facts",
           "facts_from_text", "is_small_talk"]
