"""Sessions: a conversation's turns, kept within a token budget, and its context for the next
answer (the session rendered, recalled memories included)."""


from typing import Any

from fastapi import APIRouter

from gieok.server.routes._deps import Mem, Readable, Writable
from gieok.server.schemas import SessionTurnRequest

__all__ = ["router"]

router = APIRouter()


@router.post("/v1/banks/{bank}/sessions/{session_id}/turns", tags=["sessions"], status_code=201)
def add_session_turn(bank: Writable, session_id: str, body: SessionTurnRequest, memory: Mem) -> dict[str, Any]:
    """Add a turn as ``user_id`` (the user the session was opened with; another is refused with
    ``SessionUserError`` and nothing is written); the session rendered after it."""
    session = memory.session(bank, session_id, max_tokens=body.max_tokens, keep_recent=body.keep_recent,
                             user_id=body.user_id)
    position = session.add(body.role, body.content)
    return {"position": position, **session.show()}


@router.get("/v1/banks/{bank}/sessions/{session_id}", tags=["sessions"])
def get_session(bank: Readable, session_id: str, memory: Mem, query: str | None = None, max_tokens: int = 4000,
                session_tokens: int = 3000, keep_recent: int = 6, user_id: str | None = None) -> dict[str, Any]:
    """The session rendered; with ``?query=`` the context for it, recalled memories included (with
    ``?user_id=``: that user's and the shared ones only). Only the session's own user may read it
    (the ``user_id`` it was opened with, or none): another is refused with ``SessionUserError``."""
    return memory.session(bank, session_id, max_tokens=session_tokens, keep_recent=keep_recent,
                          user_id=user_id).show(query, max_tokens)
