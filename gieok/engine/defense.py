"""Redaction inside retain: every item is redacted before it is stored, chunked, embedded or indexed.

A "block" finding refuses the whole retain call (nothing of it is stored) with a
:class:`BlockedContentError` naming the types and the items; the audit log then records what was
refused. Audit entries carry the type, position, length and a keyed fingerprint, never the value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gieok.defense import RedactionPolicy, redact
from gieok.errors import BlockedContentError
from gieok.records import Message

__all__ = ["Redacted", "redact_messages", "redact_document", "check_blocked"]


@dataclass
class Redacted:
    messages: list[Message] = field(default_factory=list)
    text: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    audit: list[dict[str, Any]] = field(default_factory=list)
    blocked: dict[str, list[str]] = field(default_factory=dict)  # item id -> blocked types

    @property
    def count(self) -> int:
        return sum(1 for e in self.audit if e["action"] == "redact")


def _apply(text: str, item_id: str, policy: RedactionPolicy, out: Redacted) -> str:
    result = redact(text, policy)
    for entry in result.audit:
        out.audit.append({"item_id": item_id, **entry.to_dict()})
    if result.blocked_types:
        out.blocked[item_id] = list(result.blocked_types)
    return result.text


def _redact_metadata(value: Any, item_id: str, policy: RedactionPolicy, out: Redacted) -> Any:
    if isinstance(value, str):
        return _apply(value, item_id, policy, out)
    if isinstance(value, Mapping):
        return {k: _redact_metadata(v, item_id, policy, out) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_redact_metadata(v, item_id, policy, out) for v in value]
    return value


def check_blocked(out: Redacted) -> None:
    """Raise BlockedContentError (with ``.items``, the refused item ids) when a "block" type was found."""
    if out.blocked:
        types = sorted({t for ts in out.blocked.values() for t in ts})
        error = BlockedContentError(types)
        error.items = sorted(out.blocked)  # type: ignore[attr-defined]
        raise error


def redact_messages(messages: list[Message], policy: RedactionPolicy) -> Redacted:
    out = Redacted()
    for m in messages:
        out.messages.append(Message(m.id, m.speaker, _apply(m.text, m.id, policy, out), m.timestamp))
    return out


def redact_document(text: str, document_id: str, metadata: Mapping[str, Any], policy: RedactionPolicy) -> Redacted:
    out = Redacted()
    out.text = _apply(text, document_id, policy, out)
    out.metadata = _redact_metadata(dict(metadata), document_id, policy, out)
    return out

