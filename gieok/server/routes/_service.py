"""The service's own routes: health (live) and readiness (warmed up: :mod:`gieok.server.readiness`),
Prometheus metrics, and the schema pages (``/openapi.json``, ``/docs`` with Swagger UI, ``/redoc``;
FastAPI's own are off so that these can want a key)."""


from typing import Any

from fastapi import APIRouter, Depends, Request, Response
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse

from gieok import __version__
from gieok.server.errors import problem
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


@router.get("/ready", tags=["service"],
            responses={503: {"description": "still warming up, or the warm-up failed (a problem+json body with "
                                            "ready, state, seconds and warm_up_error)"}})
async def ready(server: Server) -> JSONResponse:
    """Whether the server has warmed up: 200 once its models are loaded, 503 until then (no key needed).

    Warming up loads the engine, the embedder and the Korean analyser in the background after the
    server starts (:mod:`gieok.server.readiness`). 200 answers ``{"ready": true, "state": "ready",
    "seconds": …}``; 503 is the one error body (problem+json) with the same fields, ``state``
    ``starting`` / ``warming`` / ``failed``, ``warm_up_error``, and a ``Retry-After``. An async route:
    it answers from the event loop, never queued behind requests in the thread pool. ``/health``
    says whether the process is live, this whether it is ready; a probe carries no key."""
    report = server.readiness.report()
    if report["ready"]:
        return JSONResponse(report)
    response = problem(503, "not-ready", server.readiness.detail(), **report)
    response.headers["Retry-After"] = "1"
    return response


@router.get("/metrics", tags=["service"], response_class=PlainTextResponse, dependencies=[Depends(metrics_page)])
def prometheus(server: Server) -> Response:
    body, content_type = server.metrics.render()
    return Response(body, media_type=content_type)
