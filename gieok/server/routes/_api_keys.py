"""API keys (an admin key): create one (the key itself is shown only here, once), list, revoke."""


from typing import Any

from fastapi import APIRouter

from gieok.records import ApiKey
from gieok.server.routes._deps import Caller, Mem
from gieok.server.schemas import KeyRequest

__all__ = ["router"]

router = APIRouter()


@router.post("/v1/keys", tags=["keys"], status_code=201)
def create_key(body: KeyRequest, who: Caller, memory: Mem) -> dict[str, Any]:
    who.require(None, "admin")
    record, key = memory.keys.create(role=body.role, banks=body.banks, name=body.name)
    return {"key": key, "id": record.id, "prefix": record.prefix, "role": record.role, "banks": record.banks}


@router.get("/v1/keys", tags=["keys"])
def list_keys(who: Caller, memory: Mem) -> list[ApiKey]:
    who.require(None, "admin")
    return memory.keys.list()


@router.delete("/v1/keys/{key_id}", tags=["keys"])
def revoke_key(key_id: int, who: Caller, memory: Mem) -> ApiKey:
    who.require(None, "admin")
    return memory.keys.revoke(key_id)
