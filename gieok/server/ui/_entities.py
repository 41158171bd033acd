"""A bank's entities (with the pairs that may be one), and one entity with its neighbourhood graph."""

from __future__ import annotations

from fastapi import Request
from starlette.responses import Response

from gieok.server.ui import _svg
from gieok.server.ui._state import UI, bank_url, ui_router

__all__ = ["router"]

router = ui_router()


@router.get("/b/{bank}/entities")
def entities_page(request: Request, bank: str, ui: UI) -> Response:
    caller = ui.reader(request, bank)
    return ui.page(request, "entities.html", caller, bank, "entities", entities=ui.memory.entities(bank),
                   suggestions=ui.memory.browse.merge_suggestions(bank))


@router.get("/b/{bank}/e/{name:path}")
def entity_page(request: Request, bank: str, name: str, ui: UI) -> Response:
    caller = ui.reader(request, bank)
    found = ui.memory.browse.entity(bank, name)
    graph = _svg.neighbourhood(found.entity.name, found.neighbours, found.edges,
                               lambda other: bank_url(bank, "e", other))
    return ui.page(request, "entity.html", caller, bank, "entities", found=found, graph=graph)
