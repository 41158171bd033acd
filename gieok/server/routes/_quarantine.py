"""The memory quarantine: statements retain held back (instruction-like text from a source below the
user's own words). Listing reads; release and dismiss write, as forget does."""


from typing import Annotated

from fastapi import APIRouter, Query

from gieok import HeldStatement
from gieok.records import RecalledMemory
from gieok.server.routes._deps import Mem, Readable, Writable

__all__ = ["router"]

router = APIRouter()


@router.get("/v1/banks/{bank}/quarantine", tags=["quarantine"])
def quarantined(bank: Readable, memory: Mem, limit: Annotated[int, Query(gt=0)] = 1000) -> list[HeldStatement]:
    """Statements retain held back, newest first: instruction-like text from a source below the
    user's own words, kept verbatim in its source but not a fact, each with the reason."""
    return memory.quarantined(bank, limit=limit)


@router.post("/v1/banks/{bank}/quarantine/{held_id}/release", tags=["quarantine"])
def release(bank: Writable, held_id: str, memory: Mem) -> RecalledMemory:
    """Write the held statement as a fact, at its own trust level; the memory it became."""
    return memory.release(bank, held_id)


@router.delete("/v1/banks/{bank}/quarantine/{held_id}", tags=["quarantine"])
def dismiss(bank: Writable, held_id: str, memory: Mem) -> dict[str, str]:
    """Stop listing the held statement: it stays only in its verbatim source, never a fact (to erase
    it, forget its source)."""
    memory.dismiss(bank, held_id)
    return {"dismissed": held_id}
