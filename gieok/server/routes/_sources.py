"""A bank's sources: documents and chat exports sent as the request body (ingested, imported), and
the sources retain kept verbatim with the facts each produced."""


from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from starlette.concurrency import run_in_threadpool

from gieok.records import ImportResult, IngestResult, RecalledMemory, SourceInfo
from gieok.server.routes._deps import Mem, Readable, Writable
from gieok.server.schemas import TRUST_HELP, FactOverrides, Trust, json_object

__all__ = ["router"]

router = APIRouter()
_NO_OVERRIDES = FactOverrides()


@router.post("/v1/banks/{bank}/documents", tags=["memory"],
             openapi_extra={"requestBody": {"content": {"application/octet-stream": {}}, "required": True}})
async def ingest_document(bank: Writable, request: Request, memory: Mem, document_id: str | None = None,
                          user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
                          tags: Annotated[list[str] | None, Query()] = None,
                          trust: Annotated[Trust | None, Query(description=TRUST_HELP)] = None,
                          timestamp: str | None = None,
                          metadata: Annotated[str | None, Query(description="a JSON object")] = None,
                          lifecycle: Annotated[FactOverrides, Depends()] = _NO_OVERRIDES) -> IngestResult:
    """The request body is the file (PDF, DOCX, HTML, Markdown, text); its Content-Type, or else the
    extension of ``document_id`` and the bytes themselves, say which format it is. ``user_id``,
    ``agent_id``, ``session_id`` and ``tags`` (repeated: ``?tags=a&tags=b``) are its scope; ``trust``
    (default ``document``) how much it is believed; ``timestamp``, ``metadata`` (a JSON object),
    ``decay_class``, ``importance`` and ``pinned`` as in retain."""
    data = await request.body()
    content_type = (request.headers.get("content-type") or "").split(";", 1)[0].strip().lower()
    media_type = None if content_type in ("", "application/octet-stream") else content_type
    return await run_in_threadpool(lambda: memory.ingest(bank, data, document_id=document_id, media_type=media_type,
                                                         user_id=user_id, agent_id=agent_id, session_id=session_id,
                                                         tags=tags, trust=trust, timestamp=timestamp,
                                                         metadata=json_object(metadata, "metadata"),
                                                         **lifecycle.call()))


@router.post("/v1/banks/{bank}/imports/{format}", tags=["memory"],
             openapi_extra={"requestBody": {"content": {"application/octet-stream": {}}, "required": True}})
async def import_chat(bank: Writable, format: str, request: Request, memory: Mem, name: str = "upload",
                      skip_bad: bool = False, timezone: str = "Asia/Seoul", user_id: str | None = None,
                      agent_id: str | None = None, tags: Annotated[list[str] | None, Query()] = None,
                      lifecycle: Annotated[FactOverrides, Depends()] = _NO_OVERRIDES) -> ImportResult:
    """The request body is a chat export: ``format`` kakaotalk (the app's .txt), chatgpt
    (conversations.json) or jsonl (OpenAI messages). ``name`` (the file's) names a KakaoTalk or JSONL
    conversation, so importing the same export again adds only what is new. Bad lines: 422, with
    their numbers, and nothing stored — unless ``skip_bad``. ``user_id``, ``agent_id`` and ``tags``
    scope every conversation."""
    data = await request.body()
    return await run_in_threadpool(lambda: memory.import_chat(bank, data, format, skip_bad=skip_bad,
                                                              timezone=timezone, name=name, user_id=user_id,
                                                              agent_id=agent_id, tags=tags, **lifecycle.call()))


@router.get("/v1/banks/{bank}/sources", tags=["inspection"])
def sources(bank: Readable, memory: Mem) -> list[SourceInfo]:
    return memory.sources(bank)


@router.get("/v1/banks/{bank}/sources/{source_id}", tags=["inspection"])
def source(bank: Readable, source_id: str, memory: Mem) -> SourceInfo:
    return memory.source(bank, source_id)


@router.get("/v1/banks/{bank}/sources/{source_id}/facts", tags=["inspection"])
def source_facts(bank: Readable, source_id: str, memory: Mem) -> dict[str, list[RecalledMemory]]:
    """The facts a source produced, keyed by the id of the message each came from."""
    return memory.browse.source_facts(bank, source_id)
