"""Reading a bank back: recall (the memories that answer a query, within a token budget) and
reflect (an answer written from them, with what it is based on)."""


from fastapi import APIRouter

from gieok.records import Recall, Reflection
from gieok.server.routes._deps import Mem, Readable
from gieok.server.schemas import RecallRequest, ReflectRequest

__all__ = ["router"]

router = APIRouter()


@router.post("/v1/banks/{bank}/recall", tags=["memory"])
def recall(bank: Readable, body: RecallRequest, memory: Mem) -> Recall:
    return memory.recall(bank, body.query, max_tokens=body.max_tokens, limit=body.limit, now=body.now,
                         as_of=body.as_of, explain=body.explain, **body.scope())


@router.post("/v1/banks/{bank}/reflect", tags=["memory"])
def reflect(bank: Readable, body: ReflectRequest, memory: Mem) -> Reflection:
    return memory.reflect(bank, body.question, now=body.now, **body.scope())
