"""``redact``: find, apply the policy, rewrite the text, and keep an audit trail without the values.

The result never holds a found value. Spans point into the caller's original text; audit entries carry
the type, position, length and, for high-entropy secrets (keys, tokens, URLs with a password), a
keyed HMAC fingerprint: enough to tell "the same key pasted again" or to prove what was removed, and
nothing to recover it from. Types whose values are few enough to try them all (phone, registration,
card, account, business and passport numbers, e-mail addresses, passwords) get no fingerprint: with
the key, a phone number's would be found by trying the 10⁸ numbers of the 010 range. Blocked types
are replaced in the text too, so a caller that forgets :func:`enforce` still stores nothing secret.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass

from gieok.defense._catalog import IDENTIFIER_TYPES
from gieok.defense._scan import find_hits
from gieok.defense.policy import Action, RedactionPolicy
from gieok.errors import BlockedContentError

__all__ = ["Span", "AuditEntry", "RedactionResult", "redact", "enforce", "placeholder", "UNFINGERPRINTED_TYPES"]

FINGERPRINT_HEX_CHARS = 16
# Low-entropy types: a fingerprint of one would be reversible by search, so none is made.
UNFINGERPRINTED_TYPES: frozenset[str] = frozenset({*IDENTIFIER_TYPES, "password"})


def placeholder(type_name: str) -> str:
    """The text a redacted value is replaced with."""
    return f"[REDACTED:{type_name}]"


@dataclass(frozen=True, slots=True)
class Span:
    """A finding in the original text: ``text[start:end]`` is the value, of ``type``, handled by ``action``."""

    start: int
    end: int
    type: str
    action: Action


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """What was found, where, and a fingerprint of it (None for low-entropy types); never the value."""

    type: str
    start: int
    end: int
    length: int
    fingerprint: str | None
    action: Action

    def to_dict(self) -> dict[str, str | int | None]:
        return {
            "type": self.type,
            "start": self.start,
            "end": self.end,
            "length": self.length,
            "fingerprint": self.fingerprint,
            "action": self.action,
        }


@dataclass(frozen=True)
class RedactionResult:
    text: str
    spans: tuple[Span, ...]
    audit: tuple[AuditEntry, ...]

    @property
    def blocked_types(self) -> tuple[str, ...]:
        """Sorted, distinct types whose action is "block"; non-empty means the item must not be stored."""
        return tuple(sorted({span.type for span in self.spans if span.action == "block"}))

    @property
    def blocked(self) -> bool:
        return any(span.action == "block" for span in self.spans)

    @property
    def changed(self) -> bool:
        """True when at least one value was replaced (allowed findings leave the text as it was)."""
        return any(span.action != "allow" for span in self.spans)


def fingerprint(value: str, key: bytes) -> str:
    """Keyed, truncated SHA-256 HMAC of the value; with its length it identifies, without revealing."""
    digest = hmac.new(key, value.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()
    return digest[:FINGERPRINT_HEX_CHARS]


def _fingerprint(type_name: str, value: str, key: bytes | None) -> str | None:
    if key is None or type_name in UNFINGERPRINTED_TYPES:
        return None
    return fingerprint(value, key)


def redact(text: str, policy: RedactionPolicy | Mapping[str, str] | None = None) -> RedactionResult:
    """Replace every secret and identifier in ``text`` by ``[REDACTED:type]`` according to ``policy``
    (default: redact everything). Findings the policy allows are reported in ``spans`` but kept."""
    if not isinstance(text, str):
        raise TypeError(f"redact() takes a str, not {type(text).__name__}")
    resolved = RedactionPolicy.coerce(policy)
    hits = find_hits(text)
    if not hits:
        return RedactionResult(text, (), ())

    spans: list[Span] = []
    audit: list[AuditEntry] = []
    pieces: list[str] = []
    cursor = 0
    for hit in hits:
        action = resolved.action_for(hit.type)
        spans.append(Span(hit.start, hit.end, hit.type, action))
        audit.append(
            AuditEntry(
                hit.type,
                hit.start,
                hit.end,
                hit.end - hit.start,
                _fingerprint(hit.type, text[hit.start : hit.end], resolved.fingerprint_key),
                action,
            )
        )
        if action != "allow":
            pieces.append(text[cursor : hit.start])
            pieces.append(placeholder(hit.type))
            cursor = hit.end
    pieces.append(text[cursor:])
    return RedactionResult("".join(pieces), tuple(spans), tuple(audit))


def enforce(result: RedactionResult) -> RedactionResult:
    """Raise :class:`~gieok.errors.BlockedContentError` when the policy blocked a type; otherwise
    return ``result`` so the call can wrap ``redact``: ``enforce(redact(text, policy)).text``."""
    if result.blocked:
        raise BlockedContentError(list(result.blocked_types))
    return result
