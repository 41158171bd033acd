"""The HTTP API's routes: one :class:`fastapi.APIRouter` per resource, each in its own module, and
:func:`add_api_routes`, which puts them on an app.

Every route is a thin call: check the caller's key against the bank (:class:`Principal`, through
the dependencies of :mod:`gieok.server.routes._deps`), call one :class:`gieok.Memory` method, return
its record. What the routes share (the Memory, the key gate, metrics, the worker) they get from the
app's :class:`ServerState` through those dependencies, never from a module global, so one router
serves any number of apps.

The routes are added to the app one by one rather than with ``app.include_router``: FastAPI keeps
an included router as one entry of ``app.routes`` (the route tables in the tests read the routes
themselves), and the OpenAPI schema lists paths in the order routes were added. :data:`PATH_ORDER`
keeps that order as it was when the routes were written in one function, so the committed schema
(``clients/typescript/openapi.json``) and the docs' route table stay as they are; a path missing
from it goes last.
"""


from fastapi import FastAPI
from fastapi.routing import APIRouter
from starlette.routing import BaseRoute

from gieok.server.routes import (
    _api_keys,
    _banks,
    _configuration,
    _entities,
    _memories,
    _mental_models,
    _operations,
    _portable,
    _profile,
    _quarantine,
    _recall,
    _service,
    _sessions,
    _sources,
)
from gieok.server.routes._configuration import policy_json
from gieok.server.routes._deps import Gate, ServerState

__all__ = ["ROUTERS", "PATH_ORDER", "Gate", "ServerState", "add_api_routes", "policy_json"]

ROUTERS: tuple[APIRouter, ...] = (
    _service.router, _banks.router, _memories.router, _recall.router, _sources.router, _entities.router,
    _profile.router, _sessions.router, _quarantine.router, _operations.router, _api_keys.router,
    _mental_models.router, _configuration.router, _portable.router,
)

_BANK = "/v1/banks/{bank}"
PATH_ORDER: tuple[str, ...] = (
    "/openapi.json", "/docs", "/redoc", "/health", "/ready", "/metrics",
    "/v1/banks", _BANK, _BANK + "/retain", _BANK + "/reembed", _BANK + "/documents", _BANK + "/imports/{format}",
    _BANK + "/recall", _BANK + "/sessions/{session_id}/turns", _BANK + "/sessions/{session_id}",
    _BANK + "/reflect", _BANK + "/forget",
    _BANK + "/quarantine", _BANK + "/quarantine/{held_id}/release", _BANK + "/quarantine/{held_id}",
    _BANK + "/memories/{memory_id}", _BANK + "/memories/{memory_id}/history", _BANK + "/sources",
    _BANK + "/sources/{source_id}", _BANK + "/entities", _BANK + "/entities/merge-suggestions",
    _BANK + "/profile", _BANK + "/profile/{slot}", _BANK + "/observations", _BANK + "/overview",
    _BANK + "/sources/{source_id}/facts", _BANK + "/memories/{memory_id}/connections", _BANK + "/entities/{name}",
    _BANK + "/memories/{memory_id}/pin",
    "/v1/operations/{operation_id}", "/v1/operations/{operation_id}/cancel", "/v1/operations/{operation_id}/retry",
    "/v1/keys", "/v1/keys/{key_id}",
    _BANK + "/mental-models", _BANK + "/mental-models/{name}", _BANK + "/redaction-policy", _BANK + "/audit-log",
    _BANK + "/decision-model", _BANK + "/llm-usage", _BANK + "/jobs", "/v1/jobs", _BANK + "/disposition",
    _BANK + "/directives",
    _BANK + "/export", _BANK + "/import", _BANK + "/clone", _BANK + "/rename",
)


def _schema_position(route: BaseRoute) -> int:
    path = getattr(route, "path", "")
    return PATH_ORDER.index(path) if path in PATH_ORDER else len(PATH_ORDER)


def add_api_routes(app: FastAPI) -> None:
    """Put every router's routes on ``app``, in :data:`PATH_ORDER` (a stable sort: the routes of one
    path keep their router's order, e.g. ``DELETE`` before ``PUT`` on a bank)."""
    routes = [route for router in ROUTERS for route in router.routes]
    app.router.routes.extend(sorted(routes, key=_schema_position))
