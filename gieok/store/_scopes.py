"""Recall's scope filter as SQL, written once for both stores.

A fact's scope is its source's (``sources.user_id / agent_id / session_id`` and ``source_tags``), so
every channel query filters facts by ``source_id``: either selecting the bank's sources in scope
first (:func:`sources_in_scope`, by the ``sources_user`` / ``sources_agent`` / ``sources_session``
and ``source_tags_tag`` indexes; the KNN and BM25 queries, which see many facts) or looking each
candidate's source up by its key (:func:`source_in_scope`; the graph and link queries, which start
from a few facts). Either way the filter is part of the query: a channel returns up to its limit of
facts *in scope*, never a bank-wide list that Python then thins out.

The SQL uses ``?`` placeholders (the PostgreSQL connection respells them; see
:func:`named_placeholders` for a query with named ones).
"""

from __future__ import annotations

import itertools
from typing import Any

from gieok.records import ScopeFilter

__all__ = ["named_placeholders", "source_in_scope", "sources_in_scope"]


def _conditions(scope: ScopeFilter) -> tuple[list[str], list[Any]]:
    conditions: list[str] = []
    params: list[Any] = []
    if scope.user_id is not None:
        conditions.append("(s.user_id = ? OR s.user_id IS NULL)" if scope.include_shared else "s.user_id = ?")
        params.append(scope.user_id)
    for column, value in (("agent_id", scope.agent_id), ("session_id", scope.session_id)):
        if value is not None:
            conditions.append(f"s.{column} = ?")
            params.append(value)
    for tag in dict.fromkeys(scope.tags):  # every tag: one indexed lookup each
        conditions.append("EXISTS (SELECT 1 FROM source_tags t WHERE t.bank_id = s.bank_id AND t.source_id = s.id "
                          "AND t.tag = ?)")
        params.append(tag)
    return conditions, params


def sources_in_scope(scope: ScopeFilter | None, bank_id: int, column: str) -> tuple[str, list[Any]]:
    """``" AND <column> IN (the bank's sources in scope)"`` and its parameters; nothing for no filter."""
    if scope is None or scope.empty:
        return "", []
    conditions, params = _conditions(scope)
    return (f" AND {column} IN (SELECT s.id FROM sources s WHERE s.bank_id = ? AND {' AND '.join(conditions)})",
            [int(bank_id), *params])


def source_in_scope(scope: ScopeFilter | None, column: str) -> tuple[str, list[Any]]:
    """``" AND EXISTS (the source <column> names is in scope)"`` (a key lookup per row) and its parameters."""
    if scope is None or scope.empty:
        return "", []
    conditions, params = _conditions(scope)
    return f" AND EXISTS (SELECT 1 FROM sources s WHERE s.id = {column} AND {' AND '.join(conditions)})", params


def named_placeholders(sql: str, params: list[Any], into: dict[str, Any], prefix: str = "scope") -> str:
    """``sql`` with its ``?`` placeholders renamed ``%(<prefix>_<n>)s`` and ``params`` added to ``into``,
    for a psycopg query that uses named parameters."""
    counter = itertools.count()
    pieces = sql.split("?")
    out = [pieces[0]]
    for piece, value in zip(pieces[1:], params):
        name = f"{prefix}_{next(counter)}"
        into[name] = value
        out.append(f"%({name})s{piece}")
    return "".join(out)
