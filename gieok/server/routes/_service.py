"""The service's own routes: health, Prometheus metrics, and the schema pages (``/openapi.json``,
``/docs`` with Swagger UI, ``/redoc``; FastAPI's own are off so that these can want a key)."""


from typing import Any

from fastapi import APIRouter, Depends, Request, Response
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse

from gieok import __version__
from gieok.server.routes._deps import Server, docs_page, metrics_page

__all__ = ["router"]

router = APIRouter()


@router.get("/openapi.json", include_in_schema=False, dependencies=[Depends(docs_page)])
def openapi(request: Request) -> JSONResponse:
    return JSONResponse(request.app.openapi())


@router.get("/docs", include_in_schema=False, dependencies=[Depends(docs_page)])
def swagger() -> HTMLResponse:
    return get_swagger_ui_html(openapi_url="/openapi.json", title="gieok API")


@router.get("/redoc", include_in_schema=False, dependencies=[Depends(docs_page)])
def redoc() -> HTMLResponse:
    return get_redoc_html(openapi_url="/openapi.json", title="gieok API")


@router.get("/health", tags=["service"])
def health(server: Server) -> dict[str, Any]:
    runner = server.worker
    return {"status": "ok", "version": __version__, "store": server.memory.store_kind,
            "keys_required": server.gate.keys_in_force(), "worker": runner is not None and runner.alive()}


@router.get("/metrics", tags=["service"], response_class=PlainTextResponse, dependencies=[Depends(metrics_page)])
def prometheus(server: Server) -> Response:
    body, content_type = server.metrics.render()
    return Response(body, media_type=content_type)
