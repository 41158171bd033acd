"""``store.audit``: the audit log of redactions and erasures, written once for both stores.

The log keeps ids, types, positions, counts and keyed fingerprints, never the values themselves;
the key that makes the fingerprints lives apart from the database (:meth:`SQLAudit.key_file`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from gieok.store._area import Area, utc

__all__ = ["SQLAudit"]



class SQLAudit(Area):
    """The ``audit_log`` table, and where its fingerprint key lives by default."""

    def add(self, entries: Sequence[dict[str, Any]]) -> None:
        """Append audit entries: ids, types, positions, counts and fingerprints — never values."""
        conn = self._require_write()
        now = time.time()
        for e in entries:
            conn.execute(
                'INSERT INTO audit_log (bank, at, operation, source_id, item_id, type, start, "end", length, '
                "fingerprint, action, count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (e["bank"], now, e["operation"], e.get("source_id"), e.get("item_id"), e["type"], e.get("start"),
                 e.get("end"), e.get("length"), e.get("fingerprint"), e["action"], e.get("count", 1)),
            )

    def log(self, bank: str, limit: int = 1000) -> list[dict[str, Any]]:
        cur = self._conn().execute(
            'SELECT at, operation, source_id, item_id, type, start, "end", length, fingerprint, action, count '
            "FROM audit_log WHERE bank = ? ORDER BY id DESC LIMIT ?", (bank, limit),
        )
        names = [d[0] for d in cur.description]
        return [{**dict(zip(names, row)), "at": utc(row[0]).isoformat()} for row in cur.fetchall()]

    def key_file(self) -> str | None:
        """Where the audit fingerprint key lives by default: a file beside a database file (none for
        an in-memory one), so a copy of the database file alone cannot check guesses against the log.
        A server database has no "beside the file": the key comes from GIEOK_FINGERPRINT_KEY or the
        ``fingerprint_key_file`` setting (see gieok.engine.admin.audit_key)."""
        return self._store.path + ".key" if self._store.file_backed else None
