"""A bank's memories: retain them (now, or queued with ``"async": true``), read one, its history and
connections, the observations consolidation wrote, pin and forget."""


from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from gieok.records import ForgetResult, RecalledMemory, RetainResult
from gieok.server.routes._deps import Mem, Readable, Server, Writable, accepted
from gieok.server.schemas import ForgetRequest, OperationAccepted, PinRequest, RetainRequest

__all__ = ["router"]

router = APIRouter()


@router.post("/v1/banks/{bank}/retain", tags=["memory"], response_model=None,
             responses={202: {"model": OperationAccepted, "description": "queued (\"async\": true)"}})
def retain(bank: Writable, body: RetainRequest, server: Server) -> RetainResult | JSONResponse:
    if body.async_:
        op = server.memory.submit_retain(bank, **body.call())
        server.wake()
        return accepted(op)
    return server.memory.retain(bank, **body.call())


@router.post("/v1/banks/{bank}/forget", tags=["memory"])
def forget(bank: Writable, body: ForgetRequest, memory: Mem) -> ForgetResult:
    return memory.forget(bank, source_id=body.source_id, memory_id=body.memory_id, entity=body.entity,
                         before=body.before, verify=body.verify, user_id=body.user_id)


@router.get("/v1/banks/{bank}/memories/{memory_id}", tags=["inspection"])
def get_memory(bank: Readable, memory_id: str, memory: Mem) -> RecalledMemory:
    return memory.get(bank, memory_id)


@router.get("/v1/banks/{bank}/memories/{memory_id}/history", tags=["inspection"])
def history(bank: Readable, memory_id: str, memory: Mem) -> list[RecalledMemory]:
    return memory.history(bank, memory_id)


@router.get("/v1/banks/{bank}/observations", tags=["inspection"])
def observations(bank: Readable, memory: Mem) -> list[RecalledMemory]:
    return memory.observations(bank)


@router.get("/v1/banks/{bank}/memories/{memory_id}/connections", tags=["inspection"])
def connections(bank: Readable, memory_id: str, memory: Mem) -> dict[str, Any]:
    """A fact's entities and its links to other facts."""
    return memory.browse.connections(bank, memory_id).to_dict()


@router.post("/v1/banks/{bank}/memories/{memory_id}/pin", tags=["memory"])
def pin(bank: Writable, memory_id: str, body: PinRequest, memory: Mem) -> RecalledMemory:
    """Pin a fact (it never fades), or unpin it with ``{"pinned": false}``."""
    return memory.pin(bank, memory_id, pinned=body.pinned)
