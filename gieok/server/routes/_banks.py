"""Banks: list them (those the caller's key sees), create, delete (admin), move one to another
embedder (admin, in the background), and one bank at a glance."""


from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from gieok.records import BankInfo
from gieok.server.routes._deps import Caller, Mem, Readable, Server, Writable, accepted
from gieok.server.schemas import OperationAccepted, ReembedRequest

__all__ = ["router"]

router = APIRouter()


@router.get("/v1/banks", tags=["banks"])
def list_banks(who: Caller, memory: Mem) -> list[BankInfo]:
    return [b for b in memory.banks() if who.sees(b.name)]


@router.delete("/v1/banks/{bank}", tags=["banks"])
def delete_bank(bank: str, who: Caller, memory: Mem) -> dict[str, int]:
    who.require(bank, "admin")
    return memory.banks.delete(bank).to_dict()


@router.put("/v1/banks/{bank}", tags=["banks"])
def create_bank(bank: Writable, memory: Mem) -> BankInfo:
    """Create an empty bank (retain creates one too); an existing bank is returned as it is."""
    return memory.banks.create(bank)


@router.post("/v1/banks/{bank}/reembed", tags=["banks"], status_code=202,
             responses={202: {"model": OperationAccepted, "description": "queued"}})
def reembed(bank: str, body: ReembedRequest, who: Caller, server: Server) -> JSONResponse:
    """Move the bank to another embedder in the background (admin: once it is done, this server
    opens the bank only if it runs with that embedder). Poll ``/v1/operations/{id}``."""
    who.require(bank, "admin")
    op = server.memory.reembed(bank, body.embedder)
    server.wake()
    return accepted(op)


@router.get("/v1/banks/{bank}/overview", tags=["inspection"])
def overview(bank: Readable, memory: Mem, now: str | None = None) -> dict[str, Any]:
    """The bank at a glance: counts, facts per week and decay class, the jobs queued."""
    return memory.browse.overview(bank, now=now).to_dict()
