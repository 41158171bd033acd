"""Operations and the job queue: one queued job (submitted retains, re-embedding, consolidation …)
seen, cancelled or retried by a key of its bank, and the queue of a bank or of every bank (admin)."""


from typing import Annotated, Any

from fastapi import APIRouter, Query

from gieok.errors import OperationNotFoundError
from gieok.memory import Memory
from gieok.records import Operation, Principal
from gieok.server.routes._deps import Caller, Mem, Server

__all__ = ["router"]

router = APIRouter()


@router.get("/v1/operations/{operation_id}", tags=["memory"])
def operation(operation_id: str, who: Caller, memory: Mem) -> Operation:
    op = memory.operation(operation_id)
    if not who.sees(op.bank):
        raise OperationNotFoundError(operation_id)
    return op


def _writable_operation(memory: Memory, operation_id: str, who: Principal) -> None:
    op = memory.operation(operation_id)
    if not who.sees(op.bank):
        raise OperationNotFoundError(operation_id)
    who.require(op.bank, "write")


@router.post("/v1/operations/{operation_id}/cancel", tags=["memory"])
def cancel_operation(operation_id: str, who: Caller, memory: Mem) -> Operation:
    _writable_operation(memory, operation_id, who)
    return memory.jobs.cancel(operation_id)


@router.post("/v1/operations/{operation_id}/retry", tags=["memory"])
def retry_operation(operation_id: str, who: Caller, server: Server) -> Operation:
    _writable_operation(server.memory, operation_id, who)
    op = server.memory.jobs.retry(operation_id)
    server.wake()
    return op


@router.get("/v1/banks/{bank}/jobs", tags=["configuration"])
def jobs(bank: str, who: Caller, memory: Mem, status: str | None = None,
         limit: Annotated[int, Query(gt=0)] = 100) -> list[dict[str, Any]]:
    """The bank's job queue, newest first: kind, status, attempts, last error."""
    who.require(bank, "read")
    return [job.to_dict() for job in memory.jobs.list(bank, status=status, limit=limit)]


@router.get("/v1/jobs", tags=["configuration"])
def all_jobs(who: Caller, memory: Mem, status: str | None = None,
             limit: Annotated[int, Query(gt=0)] = 100) -> list[dict[str, Any]]:
    """Every bank's job queue (an admin key), newest first."""
    who.require(None, "admin")
    return [job.to_dict() for job in memory.jobs.list(status=status, limit=limit)]
