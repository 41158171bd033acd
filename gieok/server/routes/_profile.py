"""A bank's profile: what people stated about themselves and their family, as typed slots."""


from typing import Any

from fastapi import APIRouter

from gieok.server.routes._deps import Mem, Readable

__all__ = ["router"]

router = APIRouter()


@router.get("/v1/banks/{bank}/profile", tags=["inspection"])
def profile(bank: Readable, memory: Mem, person: str | None = None, user_id: str | None = None) -> list[dict[str, Any]]:
    """What people stated about themselves and their family, as typed slots with their history."""
    return [p.to_dict() for p in memory.profile(bank, person, user_id=user_id)]


@router.get("/v1/banks/{bank}/profile/{slot}", tags=["inspection"])
def lookup(bank: Readable, slot: str, memory: Mem, entity: str | None = None,
           user_id: str | None = None) -> dict[str, Any] | None:
    """One profile slot of the bank's main person (of ``user_id``'s memories), or of ``entity`` (a
    name, a relative); null when it was never stated."""
    found = memory.lookup(bank, slot, entity, user_id=user_id)
    return found.to_dict() if found is not None else None
