"""Moving banks (admin): export a bank as a gieok bank file (streamed), import one, clone and rename
(Memory.export_bank, import_bank, clone_bank, rename_bank; the format is docs/guide/portability.md)."""


import tempfile
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from pydantic import Field
from starlette.concurrency import iterate_in_threadpool, run_in_threadpool

from gieok.records import BankImport, BankInfo
from gieok.server.routes._deps import Caller, Mem
from gieok.server.schemas import _Body

__all__ = ["router"]

router = APIRouter()

_SPOOL = 32 << 20  # an uploaded file past this goes to a temporary file, not memory


class NewBankName(_Body):
    new: str = Field(description="the new bank's name, e.g. alice-test (an existing name is refused)")


@router.get("/v1/banks/{bank}/export", tags=["banks"], response_class=StreamingResponse,
            responses={200: {"content": {"application/x-ndjson": {}},
                             "description": "the bank file, one JSON record per line"}})
def export_bank(bank: str, who: Caller, memory: Mem, with_vectors: bool = False) -> StreamingResponse:
    """The bank as a gieok bank file (JSON Lines), streamed as it is read; ``with_vectors`` adds every
    vector with its embedder id. Admin: the file holds everything the bank remembers."""
    who.require(bank, "admin")
    lines = memory.iter_export(bank, with_vectors=with_vectors)
    first = next(lines)  # an unknown bank is a 404 before the response starts
    return StreamingResponse(iterate_in_threadpool(_prepend(first, lines)), media_type="application/x-ndjson",
                             headers={"Content-Disposition": f'attachment; filename="{_filename(bank)}.jsonl"'})


def _prepend(first: str, rest: Any) -> Any:
    yield first.encode("utf-8")
    for line in rest:
        yield line.encode("utf-8")


def _filename(bank: str) -> str:
    return "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_" for c in bank) or "bank"


@router.post("/v1/banks/{bank}/import", tags=["banks"],
             openapi_extra={"requestBody": {"content": {"application/octet-stream": {}}, "required": True}})
async def import_bank(bank: str, request: Request, who: Caller, memory: Mem) -> BankImport:
    """The request body is a gieok bank file, imported into ``bank`` (admin). Checked line by line
    before anything is written (a bad line: 422 naming it); the same file again changes nothing;
    another file into a bank that holds memories: 409."""
    who.require(bank, "admin")
    with tempfile.SpooledTemporaryFile(max_size=_SPOOL) as spool:
        async for chunk in request.stream():
            spool.write(chunk)
        spool.seek(0)
        return await run_in_threadpool(memory.import_bank, spool, bank)


@router.post("/v1/banks/{bank}/clone", tags=["banks"])
def clone_bank(bank: str, body: NewBankName, who: Caller, memory: Mem) -> BankImport:
    """Copy the bank to a new bank ``new``, independent of it from then on (admin on both)."""
    who.require(bank, "admin")
    who.require(body.new, "admin")
    return memory.clone_bank(bank, body.new)


@router.post("/v1/banks/{bank}/rename", tags=["banks"])
def rename_bank(bank: str, body: NewBankName, who: Caller, memory: Mem) -> BankInfo:
    """Give the bank the name ``new`` (admin on both; an existing name: 409)."""
    who.require(bank, "admin")
    who.require(body.new, "admin")
    return memory.rename_bank(bank, body.new)
