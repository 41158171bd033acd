"""What to do with each redaction type: allow it, redact it (the default), or block the whole item.

A policy is built from a plain mapping, the same shape a config file or an HTTP body carries::

    RedactionPolicy.from_mapping({"default": "redact", "email": "allow", "kr_rrn": "block"})

Unknown type names and actions are refused with a :class:`~gieok.errors.ConfigError` that lists the
valid ones: a typo in a privacy setting must never silently fall back to something weaker.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, cast

from gieok.defense._catalog import REDACTION_TYPES
from gieok.errors import ConfigError

__all__ = ["Action", "REDACTION_ACTIONS", "RedactionPolicy", "DEFAULT_POLICY"]

Action = Literal["allow", "redact", "block"]
REDACTION_ACTIONS: tuple[Action, ...] = ("allow", "redact", "block")

# Without a caller-supplied key the audit fingerprints are still stable across runs (so two sightings
# of one secret can be matched); only high-entropy secrets get one (see _redact.UNFINGERPRINTED_TYPES),
# so a public key reveals nothing a guess could find. The engine passes a key kept outside the
# database, or None (no fingerprints at all).
_DEFAULT_FINGERPRINT_KEY = b"gieok/redaction/v1"


def _check_action(name: str, action: object) -> Action:
    if action not in REDACTION_ACTIONS:
        raise ConfigError(
            f"unknown redaction action {action!r} for {name!r}: use one of " + ", ".join(REDACTION_ACTIONS)
        )
    return action  # narrowed to Action by the membership test


def _check_type(name: object) -> str:
    if not isinstance(name, str) or name not in REDACTION_TYPES:
        raise ConfigError(
            f"unknown redaction type {name!r}: valid types are 'default', " + ", ".join(REDACTION_TYPES)
        )
    return name


@dataclass(frozen=True, eq=True)
class RedactionPolicy:
    """``default`` applies to every type without an entry in ``overrides``."""

    default: Action = "redact"
    overrides: Mapping[str, Action] = field(default_factory=dict)
    fingerprint_key: bytes | None = field(default=_DEFAULT_FINGERPRINT_KEY, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_action("default", self.default)
        if not isinstance(self.overrides, Mapping):
            raise ConfigError("redaction overrides are a mapping of type name to action, e.g. {'email': 'allow'}")
        checked = {_check_type(name): _check_action(name, action) for name, action in self.overrides.items()}
        # Frozen all the way down: a policy shared between banks cannot be edited through one of them.
        object.__setattr__(self, "overrides", MappingProxyType(checked))
        if self.fingerprint_key is not None and (not isinstance(self.fingerprint_key, bytes)
                                                 or not self.fingerprint_key):
            raise ConfigError("redaction fingerprint_key must be non-empty bytes, or None for no fingerprints")

    def __hash__(self) -> int:
        return hash((self.default, tuple(sorted(self.overrides.items()))))

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, str], *,
                     fingerprint_key: bytes | None = _DEFAULT_FINGERPRINT_KEY) -> RedactionPolicy:
        """``{"default": "redact", "email": "allow", ...}``; every key but "default" is a type name.
        ``fingerprint_key=None``: audit entries carry no fingerprint."""
        if not isinstance(mapping, Mapping):
            raise ConfigError(f"a redaction policy is a mapping of type name to action, not {type(mapping).__name__}")
        overrides = {name: action for name, action in mapping.items() if name != "default"}
        default = _check_action("default", mapping.get("default", "redact"))
        return cls(default, cast("Mapping[str, Action]", overrides), fingerprint_key)

    @classmethod
    def coerce(cls, policy: RedactionPolicy | Mapping[str, str] | None) -> RedactionPolicy:
        if policy is None:
            return DEFAULT_POLICY
        if isinstance(policy, RedactionPolicy):
            return policy
        return cls.from_mapping(policy)

    def action_for(self, type_name: str) -> Action:
        return self.overrides.get(type_name, self.default)

    def to_mapping(self) -> dict[str, str]:
        """The inverse of :meth:`from_mapping` (without the key), for config files and API responses."""
        return {"default": self.default, **self.overrides}


DEFAULT_POLICY = RedactionPolicy()
