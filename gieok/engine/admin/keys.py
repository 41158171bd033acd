"""API keys: who may reach which banks through the server adapters.

A key is ``gk_`` and 32 random bytes (URL-safe base64); only its SHA-256 is stored, so a copy of the
database does not hold a usable key. A key names the banks it may use (``read``: recall, reflect and
inspection; ``write``: also retain and forget) — ``admin`` keys reach every bank and may delete banks.
Keys are plain high-entropy secrets, so one SHA-256 (not a slow password hash) is the right digest.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from typing import Any

from gieok.engine._time import at_epoch, from_epoch
from gieok.engine._validate import check_encodable, check_int64
from gieok.engine.context import Engine, check_bank_name
from gieok.errors import InputError, KeyRequiredError, NotFoundError
from gieok.records import KEY_ROLES, OPEN_ACCESS, ApiKey, Principal

__all__ = ["ROLES", "ApiKey", "Principal", "OPEN", "create_key", "list_keys", "revoke_key", "authenticate",
           "key_count"]

ROLES = KEY_ROLES
OPEN = OPEN_ACCESS
_PREFIX = "gk_"


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _api_key(row: Any) -> ApiKey:
    return ApiKey(row.id, row.prefix, row.role, list(row.banks), at_epoch(row.created_at), row.name,
                  from_epoch(row.last_used_at) if row.last_used_at else None,
                  from_epoch(row.revoked_at) if row.revoked_at else None)


def create_key(engine: Engine, *, role: str, banks: list[str] | tuple[str, ...] = (),
               name: str | None = None) -> tuple[ApiKey, str]:
    """A new key: its record and the key itself (shown once; only its digest is kept)."""
    if role not in ROLES:
        raise InputError(f"role is unknown: use one of {', '.join(ROLES)}")
    names = [check_bank_name(b) for b in dict.fromkeys(banks)]
    if name is not None:
        if not isinstance(name, str):
            raise InputError(f"a key's name is text, not {type(name).__name__}")
        check_encodable(name, "the key's name")  # (its length is checked at the edge, with every name)
    if role != "admin" and not names:
        raise InputError(f"a {role} key needs at least one bank: `gieok keys create --bank NAME --role {role}`")
    key = _PREFIX + secrets.token_urlsafe(32)
    with engine.store.write():
        key_id = engine.store.keys.add(_digest(key), key[:10], name, role, names)
    created = next(k for k in list_keys(engine) if k.id == key_id)
    return created, key


def list_keys(engine: Engine) -> list[ApiKey]:
    return [_api_key(r) for r in engine.store.keys.all()]


def revoke_key(engine: Engine, key_id: int) -> ApiKey:
    key_id = check_int64(key_id, "key_id")
    with engine.store.write():
        engine.store.keys.revoke(key_id, time.time())
    for key in list_keys(engine):
        if key.id == int(key_id):
            return key
    raise NotFoundError(f"no key with id {key_id}: list keys with `gieok keys list`")


def key_count(engine: Engine) -> int:
    """How many keys are in force (0: the server runs without keys)."""
    return engine.store.keys.count_active()


def authenticate(engine: Engine, key: str | None) -> Principal:
    """The caller a presented key stands for; a missing, unknown or revoked key raises KeyRequiredError."""
    if not key:
        raise KeyRequiredError("missing")
    row = engine.store.keys.by_hash(_digest(key.strip()))
    if row is None or row.revoked_at is not None:
        raise KeyRequiredError("unknown or revoked")
    now = time.time()
    if row.last_used_at is None or now - float(row.last_used_at) > 60.0:  # at most one write a minute per key
        with engine.store.write():
            engine.store.keys.touch(row.id, now)
    return Principal(row.role, frozenset(row.banks), row.id)
