"""The bank file format's constants, shared by export, validation and import (docs/guide/portability.md)."""

from __future__ import annotations

from collections.abc import Callable

from gieok.store._portable import TABLES

__all__ = ["FORMAT", "VERSION", "RECORDS", "BATCH", "Progress", "EXTRA", "REFS", "NULLABLE_REFS", "INTEGERS",
           "NUMBERS", "UNIQUE", "CONFIG_KEPT_OUT"]

FORMAT = "gieok-bank"
VERSION = 1
RECORDS = ("header", "bank", *TABLES, "end")  # the order of a file's lines
BATCH = 256  # rows written (and facts embedded) at a time
Progress = Callable[[int, int], None]

# fields a record carries beyond its table's columns (``vector`` fields only with_vectors)
EXTRA = {"fact": {"terms", "context_terms", "has_context_vector", "vector", "context_vector"},
         "observation": {"has_vector", "vector"}}
# each reference field: the record type whose ``id`` it names (None allowed where the column is nullable)
REFS = {"message": {"source_id": "source"}, "chunk": {"source_id": "source"},
        "fact": {"source_id": "source", "chunk_id": "chunk"}, "entity_key": {"entity_id": "entity"},
        "mention": {"fact_id": "fact", "entity_id": "entity"}, "link": {"from_fact": "fact", "to_fact": "fact"},
        "observation": {"entity_id": "entity"}, "observation_fact": {"observation_id": "observation",
                                                                      "fact_id": "fact"},
        "profile_slot": {"fact_id": "fact"}, "held": {"source_id": "source", "chunk_id": "chunk"}}
NULLABLE_REFS = {("observation", "entity_id")}
INTEGERS = {"id", "position", "tokens", "degree", "folded_upto", "folds", "utc_offset", "recall_count",
            "superseded_by", "source_id", "chunk_id", "fact_id", "entity_id", "observation_id", "from_fact", "to_fact"}
NUMBERS = {"occurred_start", "occurred_end", "mentioned_at", "valid_from", "valid_to", "importance", "expires_at",
           "created_at", "updated_at", "strength", "last_recalled_at", "archived_at", "consolidated_at", "weight",
           "last_seen", "believed_at", "refreshed_at", "said_at", "probability"}
UNIQUE = {"source": "external_id", "message": "external_id"}  # unique within a bank
CONFIG_KEPT_OUT = ("imported",)  # this database's own bookkeeping, not the bank's settings
