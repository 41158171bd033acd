"""Mental models: standing questions whose answers reflect writes and background jobs refresh.
Reading them wants a read key; adding or deleting one a write key."""


from typing import Any

from fastapi import APIRouter

from gieok.server.routes._deps import Caller, Mem
from gieok.server.schemas import MentalModelRequest

__all__ = ["router"]

router = APIRouter()
_BANK = "/v1/banks/{bank}"


@router.get(_BANK + "/mental-models", tags=["mental models"])
def mental_models(bank: str, who: Caller, memory: Mem) -> list[dict[str, Any]]:
    who.require(bank, "read")
    return [m.to_dict() for m in memory.models.list(bank)]


@router.post(_BANK + "/mental-models", tags=["mental models"], status_code=201)
def add_mental_model(bank: str, body: MentalModelRequest, who: Caller, memory: Mem) -> dict[str, Any]:
    """A standing question whose answer reflect writes and background jobs refresh."""
    who.require(bank, "write")
    return memory.models.add(bank, body.name, body.question, refresh=body.refresh).to_dict()


@router.get(_BANK + "/mental-models/{name}", tags=["mental models"])
def mental_model(bank: str, name: str, who: Caller, memory: Mem) -> dict[str, Any]:
    who.require(bank, "read")
    return memory.models.get(bank, name).to_dict()


@router.delete(_BANK + "/mental-models/{name}", tags=["mental models"])
def delete_mental_model(bank: str, name: str, who: Caller, memory: Mem) -> dict[str, str]:
    who.require(bank, "write")
    memory.models.delete(bank, name)
    return {"deleted": name}
