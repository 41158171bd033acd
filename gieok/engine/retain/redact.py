"""Redaction inside retain: every user-supplied string of a call is redacted or refused before it is stored.

- message text, document text, metadata values (strings, and integers long enough to be a number
  someone could be called on) and metadata *keys*, and each message's ``speaker``: redacted;
- message ids, the document or conversation id and the bank name: checked, and refused with
  :class:`SensitiveIdError` when redaction finds anything in them. An id must stay stable (a
  re-retain finds its message by id, ``sources()`` prints it, ``forget(source_id=…)`` names it), so
  rewriting it would break the caller; the error names the field and the types, never the value.

A "block" finding refuses the whole retain call (nothing of it is stored) with a
:class:`BlockedContentError` naming the types and the items; the audit log then records what was
refused. Audit entries carry the type, position, length and, for high-entropy secrets only, a keyed
fingerprint; never the value. A finding outside the text names its field in ``item_id``
(``m1#speaker``, ``doc-1#metadata-key``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gieok.defense import RedactionPolicy, redact
from gieok.errors import BlockedContentError, SensitiveIdError
from gieok.records import Message

__all__ = ["Redacted", "redact_messages", "redact_document", "check_blocked", "check_id"]

# An integer with this many digits may be a phone, card or account number written without quotes.
_NUMBER_DIGITS = 9


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


# In running text "A-4471" keeps its number (it is a code, and "m-010…" reads as one too); in an id a
# letter glued to a number by '-', '_', '.' or ':' is a prefix, so the number is read on its own as well.
_PREFIX_JOIN = re.compile(r"(?<=[A-Za-z])[-_.:#](?=[0-9])|(?<=[0-9])[-_.:#](?=[A-Za-z])")
# the id normalize_messages makes for a message without one: never the caller's data
_GENERATED_ID = re.compile(r"m-[0-9a-f]{16}")


def check_id(value: str, what: str, policy: RedactionPolicy) -> str:
    """``value`` unchanged, or SensitiveIdError when the policy would redact or block something in it."""
    if _GENERATED_ID.fullmatch(value):
        return value
    types = {span.type for span in redact(value, policy).spans if span.action != "allow"}
    split = _PREFIX_JOIN.sub(" ", value)
    if split != value:
        types.update(span.type for span in redact(split, policy).spans if span.action != "allow")
    if types:
        raise SensitiveIdError(what, sorted(types))
    return value


def _apply(text: str, item_id: str, policy: RedactionPolicy, out: Redacted) -> str:
    result = redact(text, policy)
    for entry in result.audit:
        out.audit.append({"item_id": item_id, **entry.to_dict()})
    if result.blocked_types:
        out.blocked.setdefault(item_id.split("#", 1)[0], []).extend(result.blocked_types)
    return result.text


def _redact_metadata(value: Any, item_id: str, policy: RedactionPolicy, out: Redacted) -> Any:
    if isinstance(value, str):
        return _apply(value, item_id, policy, out)
    if isinstance(value, int) and not isinstance(value, bool) and len(str(abs(value))) >= _NUMBER_DIGITS:
        text = str(value)
        redacted = _apply(text, item_id, policy, out)
        return value if redacted == text else redacted
    if isinstance(value, Mapping):
        items: dict[Any, Any] = {}
        for key, inner in value.items():
            if isinstance(key, str):
                key = _unique(items, _apply(key, f"{item_id}#metadata-key", policy, out))
            items[key] = _redact_metadata(inner, item_id, policy, out)
        return items
    if isinstance(value, (list, tuple)):
        return [_redact_metadata(v, item_id, policy, out) for v in value]
    return value


def _unique(items: Mapping[Any, Any], key: str) -> str:
    """Two keys redacted to the same placeholder keep both values: the second becomes ``… #2``."""
    if key not in items:
        return key
    n = 2
    while f"{key} #{n}" in items:
        n += 1
    return f"{key} #{n}"


def check_blocked(out: Redacted) -> None:
    """Raise BlockedContentError (with ``.items``, the refused item ids) when a "block" type was found."""
    if out.blocked:
        types = sorted({t for ts in out.blocked.values() for t in ts})
        error = BlockedContentError(types)
        error.items = sorted(out.blocked)  # type: ignore[attr-defined]
        raise error


def redact_layout(layout: Sequence[tuple[str, Mapping[str, Any]]], document_id: str, policy: RedactionPolicy,
                  out: Redacted) -> list[tuple[str, Mapping[str, Any]]]:
    """An ingested document's chunks, each redacted like the document's text (a block finding is already
    in ``out`` from the text; the chunks' audit rows are not added twice). Section headings in the
    locations are redacted too: they are stored and shown."""
    scratch = Redacted()
    chunks: list[tuple[str, Mapping[str, Any]]] = []
    for piece, location in layout:
        redacted_location = dict(location)
        if location.get("section"):
            redacted_location["section"] = [_apply(str(h), document_id, policy, scratch) for h in location["section"]]
        chunks.append((_apply(piece, document_id, policy, scratch), redacted_location))
    for item, types in scratch.blocked.items():
        out.blocked.setdefault(item, []).extend(t for t in types if t not in out.blocked.get(item, []))
    return chunks


def redact_messages(messages: list[Message], policy: RedactionPolicy, source_id: str = "",
                    metadata: Mapping[str, Any] | None = None) -> Redacted:
    out = Redacted()
    out.metadata = _redact_metadata(dict(metadata or {}), source_id, policy, out)
    for i, m in enumerate(messages):
        check_id(m.id, f"the id of message #{i}", policy)
        speaker = _apply(m.speaker, f"{m.id}#speaker", policy, out)
        out.messages.append(Message(m.id, speaker, _apply(m.text, m.id, policy, out), m.timestamp))
    return out


def redact_document(text: str, document_id: str, metadata: Mapping[str, Any], policy: RedactionPolicy) -> Redacted:
    out = Redacted()
    out.text = _apply(text, document_id, policy, out)
    out.metadata = _redact_metadata(dict(metadata), document_id, policy, out)
    return out
