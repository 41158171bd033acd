"""The limits of what gieok accepts, in one table.

Every way in (the library, the CLI, HTTP, MCP, workers, the client) reaches the engine through
:class:`gieok.Memory`, whose methods check their arguments against this table before any work is
done (:mod:`gieok.engine._edge`), so a value past a limit gets the same typed
:class:`gieok.errors.InputError` whichever way it came, and nothing is stored. The docs'
configuration page (docs/guide/configuration.md) lists the table (a test keeps the two in step).

Two limits are not refusals: a query longer than ``query_read_chars`` is read up to that many
characters (the embedder reads about 512 tokens, and every channel's cost grows with the query),
and ``query_chars`` is where a query stops being a question and is refused.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LIMITS", "Limit", "limit"]


@dataclass(frozen=True)
class Limit:
    name: str
    value: int
    applies_to: str
    past_it: str = "refused (InputError)"


LIMITS: tuple[Limit, ...] = (
    Limit("bank_name_chars", 200, "a bank's name"),
    Limit("id_chars", 200, "an id: source, document, message, session, user, agent, run, memory, operation, key"),
    Limit("name_chars", 200, "a name: a message's speaker, a person or entity (profile, lookup, forget), a slot, "
          "a mental model"),
    Limit("query_chars", 20_000, "a recall query, a reflect question, a session context query, should_recall text"),
    Limit("query_read_chars", 1_000, "what of a query recall and reflect read (the embedder reads about 512 "
          "tokens)", "the rest is not read"),
    Limit("messages_per_call", 10_000, "messages in one retain call (their text: the setting max_retain_chars)"),
    Limit("metadata_bytes", 65_536, "a metadata object, as UTF-8 JSON"),
    Limit("metadata_depth", 32, "nesting of a metadata object"),
    Limit("year_min", 1900, "the earliest year of a timestamp, now, as_of or expires_at"),
    Limit("year_max", 2200, "the latest year of a timestamp, now, as_of or expires_at"),
    Limit("utc_offset_hours", 14, "a timestamp's offset from UTC, either way"),
    Limit("integer_bits", 64, "a whole number (limit, max_tokens, an id given as a number): signed"),
    Limit("recall_limit", 1_000, "memories one recall returns (limit)"),
    Limit("max_tokens", 1_000_000, "a recall's or a session's token budget (max_tokens)"),
)

_BY_NAME = {item.name: item for item in LIMITS}


def limit(name: str) -> int:
    """The value of the limit ``name`` (a KeyError names a limit that does not exist: a bug)."""
    return _BY_NAME[name].value
