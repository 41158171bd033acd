"""``store.keys``: API keys of the server, written once for both stores.

Only a key's SHA-256 is stored, with its first characters (``prefix``) so a person can tell keys
apart in ``gieok keys list``. A key names banks by name: a key for a bank that does not exist yet
may create it with its first retain.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gieok.store._area import Area

__all__ = ["SQLKeys", "KeyRow"]


_KEY_COLUMNS = "id, prefix, name, role, banks, created_at, last_used_at, revoked_at"


@dataclass(frozen=True)
class KeyRow:
    id: int
    prefix: str
    name: str | None
    role: str
    banks: list[str]
    created_at: float
    last_used_at: float | None
    revoked_at: float | None


class SQLKeys(Area):
    """The server's API keys (hashed)."""

    def _key(self, r: Any) -> KeyRow:
        return KeyRow(int(r[0]), str(r[1]), r[2], str(r[3]), list(self._dialect.from_json(r[4])), float(r[5]),
                      r[6], r[7])

    def add(self, key_hash: str, prefix: str, name: str | None, role: str, banks: Sequence[str]) -> int:
        return self._dialect.insert_id(
            self._require_write(),
            "INSERT INTO api_keys (key_hash, prefix, name, role, banks, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (key_hash, prefix, name, role, json.dumps(list(banks), ensure_ascii=False), time.time()))

    def all(self) -> list[KeyRow]:
        return [self._key(r) for r in self._conn().execute(f"SELECT {_KEY_COLUMNS} FROM api_keys ORDER BY id")]

    def by_hash(self, key_hash: str) -> KeyRow | None:
        row = self._conn().execute(f"SELECT {_KEY_COLUMNS} FROM api_keys WHERE key_hash = ?", (key_hash,)).fetchone()
        return self._key(row) if row else None

    def count_active(self) -> int:
        return int(self._conn().execute("SELECT COUNT(*) FROM api_keys WHERE revoked_at IS NULL").fetchone()[0])

    def revoke(self, key_id: int, at: float) -> bool:
        return bool(self._require_write().execute(
            "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", (at, key_id)).rowcount)

    def touch(self, key_id: int, at: float) -> None:
        self._require_write().execute("UPDATE api_keys SET last_used_at = ? WHERE id = ?", (at, key_id))
