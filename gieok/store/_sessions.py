"""``store.sessions``: working-memory sessions, written once for both stores: a session's raw turns
and its summary slot.

The turns are kept verbatim (the summary is always rebuilt from them); the slot holds the current
summary and the position before which turns are folded into it. Each turn names the user its session
was opened with; :meth:`SQLSessions.owner` reads it back, so the engine can refuse another
user's read or write before it touches anything.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from gieok.store._area import Area

__all__ = ["SQLSessions", "SessionTurn", "SessionState", "SessionOwner"]


@dataclass(frozen=True)
class SessionTurn:
    position: int
    role: str
    content: str
    tokens: int
    created_at: float


@dataclass(frozen=True)
class SessionState:
    summary: str
    folded_upto: int  # turns with a position below this are in the summary, not verbatim
    folds: int  # how many times the summary was rebuilt
    updated_at: float


@dataclass(frozen=True)
class SessionOwner:
    user_id: str | None  # None: the session was opened without a user


class SQLSessions(Area):
    """Working-memory sessions: their turns, owner and running summary."""

    def add_turn(self, bank_id: int, session_id: str, role: str, content: str, tokens: int,
                 at: float | None = None, *, user_id: str | None = None) -> int:
        """Append a turn of ``user_id``'s session; return its position (0, 1, 2, ... per session).
        The caller checks ``store.sessions.owner`` first, in the same write transaction."""
        conn = self._require_write()
        row = conn.execute("SELECT COALESCE(MAX(position) + 1, 0) FROM session_turns WHERE bank_id = ? "
                           "AND session_id = ?", (bank_id, session_id)).fetchone()
        position = int(row[0])
        conn.execute("INSERT INTO session_turns (bank_id, session_id, position, role, content, tokens, created_at, "
                     "user_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                     (bank_id, session_id, position, role, content, int(tokens), at or time.time(), user_id))
        return position

    def owner(self, bank_id: int, session_id: str) -> SessionOwner | None:
        """Whose the session is (the user of its turns); None when it has no turns (no session yet)."""
        row = self._conn().execute("SELECT user_id FROM session_turns WHERE bank_id = ? AND session_id = ? "
                                   "ORDER BY position LIMIT 1", (bank_id, session_id)).fetchone()
        return SessionOwner(None if row[0] is None else str(row[0])) if row else None

    def turns(self, bank_id: int, session_id: str, since: int = 0) -> list[SessionTurn]:
        rows = self._conn().execute(
            "SELECT position, role, content, tokens, created_at FROM session_turns WHERE bank_id = ? "
            "AND session_id = ? AND position >= ? ORDER BY position", (bank_id, session_id, since)).fetchall()
        return [SessionTurn(int(r[0]), str(r[1]), str(r[2]), int(r[3]), float(r[4])) for r in rows]

    def state(self, bank_id: int, session_id: str) -> SessionState | None:
        r = self._conn().execute("SELECT summary, folded_upto, folds, updated_at FROM session_state "
                                 "WHERE bank_id = ? AND session_id = ?", (bank_id, session_id)).fetchone()
        return SessionState(str(r[0]), int(r[1]), int(r[2]), float(r[3])) if r else None

    def set_summary(self, bank_id: int, session_id: str, summary: str, folded_upto: int) -> None:
        self._require_write().execute(
            "INSERT INTO session_state AS s (bank_id, session_id, summary, folded_upto, folds, updated_at) "
            "VALUES (?, ?, ?, ?, 1, ?) ON CONFLICT (bank_id, session_id) DO UPDATE SET summary = excluded.summary, "
            "folded_upto = excluded.folded_upto, folds = s.folds + 1, updated_at = excluded.updated_at",
            (bank_id, session_id, summary, int(folded_upto), time.time()))

    def erase_turns(self, bank_id: int, needles: list[str], *, only_user: str | None = None) -> int:
        """Drop every session turn that contains one of ``needles`` (erased texts and names), and the
        summary of each session that lost a turn (rebuilt from the remaining turns at its next fold);
        return how many rows went. With ``only_user``, only that user's sessions and shared ones."""
        wanted = [n for n in (x.strip() for x in needles) if n]
        if not wanted:
            return 0
        conn = self._require_write()
        whose = "" if only_user is None else " AND (user_id = ? OR user_id IS NULL)"
        rows = conn.execute(f"SELECT session_id, position, content FROM session_turns WHERE bank_id = ?{whose}",
                            (bank_id,) if only_user is None else (bank_id, only_user)).fetchall()
        hit = [(str(r[0]), int(r[1])) for r in rows if any(n in str(r[2]) for n in wanted)]
        for session_id, position in hit:
            conn.execute("DELETE FROM session_turns WHERE bank_id = ? AND session_id = ? AND position = ?",
                         (bank_id, session_id, position))
        states = 0
        for session_id in sorted({s for s, _ in hit}):
            states += int(conn.execute("DELETE FROM session_state WHERE bank_id = ? AND session_id = ?",
                                       (bank_id, session_id)).rowcount)
        return len(hit) + states

    def delete_of_user(self, bank_id: int, user_id: str) -> int:
        """Drop every session opened by ``user_id`` (its turns and summary, including turns that only
        raised a fact and quote nothing erased); return how many rows went."""
        conn = self._require_write()
        owned = [str(r[0]) for r in conn.execute("SELECT DISTINCT session_id FROM session_turns WHERE bank_id = ? "
                                                 "AND user_id = ? ORDER BY session_id", (bank_id, user_id)).fetchall()]
        return sum(self.delete(bank_id, session_id) for session_id in owned)

    def delete(self, bank_id: int, session_id: str) -> int:
        """Drop a session's turns and summary; return how many rows went."""
        conn = self._require_write()
        turns = int(conn.execute("DELETE FROM session_turns WHERE bank_id = ? AND session_id = ?",
                                 (bank_id, session_id)).rowcount)
        state = int(conn.execute("DELETE FROM session_state WHERE bank_id = ? AND session_id = ?",
                                 (bank_id, session_id)).rowcount)
        return turns + state
