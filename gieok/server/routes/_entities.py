"""A bank's entities: the people and things its facts are about, pairs that may be one, and one
entity with its latest facts and neighbourhood."""


from typing import Annotated, Any

from fastapi import APIRouter, Query

from gieok.records import EntityInfo
from gieok.server.routes._deps import Mem, Readable

__all__ = ["router"]

router = APIRouter()


@router.get("/v1/banks/{bank}/entities", tags=["inspection"])
def entities(bank: Readable, memory: Mem) -> list[EntityInfo]:
    return memory.entities(bank)


# before /entities/{name}: "merge-suggestions" is not an entity's name
@router.get("/v1/banks/{bank}/entities/merge-suggestions", tags=["inspection"])
def merge_suggestions(bank: Readable, memory: Mem, limit: int = 20) -> list[dict[str, Any]]:
    """Pairs of entities that may be one person or thing, which retain kept apart (not sure)."""
    return [s.to_dict() for s in memory.browse.merge_suggestions(bank, limit=limit)]


@router.get("/v1/banks/{bank}/entities/{name}", tags=["inspection"])
def entity(bank: Readable, name: str, memory: Mem, limit: Annotated[int, Query(gt=0)] = 200) -> dict[str, Any]:
    """One entity by name or alias, its latest facts and its neighbourhood."""
    return memory.browse.entity(bank, name, limit=limit).to_dict()
