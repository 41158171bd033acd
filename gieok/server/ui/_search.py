"""Recall and reflect in a form: recall with every channel's score and the token budget drawn;
reflect with the messages and documents its answer cites."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from starlette.responses import Response

from gieok import Reflection
from gieok.errors import NotFoundError
from gieok.server.ui import _svg
from gieok.server.ui._state import UI, UIState, optional, ui_router, user_filter, whole_number

__all__ = ["router"]

router = ui_router()
_CHANNELS = ("semantic", "keyword", "graph", "temporal", "observation", "rerank")


@router.get("/b/{bank}/recall")
def recall_page(request: Request, bank: str, ui: UI) -> Response:
    caller = ui.reader(request, bank)
    q = request.query_params
    form = {k: q.get(k, "") for k in ("q", "now", "as_of", "max_tokens")}
    users, scope = user_filter(q)
    form.update(users)
    result, bars = None, None
    peaks: dict[str, float] = {}
    if optional(form["q"]):
        result = ui.memory.recall(bank, form["q"], explain=True, now=optional(form["now"]),
                                  as_of=optional(form["as_of"]),
                                  max_tokens=whole_number(form["max_tokens"], "max_tokens"), **scope)
        for m in result.memories:
            for name, hit in (m.explanation or {}).get("channels", {}).items():
                peaks[name] = max(peaks.get(name, 0.0), float(hit["score"]))
        bars = _svg.budget([(m.id, m.tokens) for m in result.memories], result.max_tokens)
    top = max((m.score for m in result.memories), default=0.0) if result else 0.0
    return ui.page(request, "recall.html", caller, bank, "recall", form=form, result=result, peaks=peaks,
                   channels=_CHANNELS, budget_bar=bars, top=top)


@router.get("/b/{bank}/reflect")
def reflect_page(request: Request, bank: str, ui: UI) -> Response:
    caller = ui.reader(request, bank)
    q = request.query_params
    form = {k: q.get(k, "") for k in ("q", "now")}
    users, scope = user_filter(q)
    form.update(users)
    reflection, evidence = None, []
    if optional(form["q"]):
        reflection = ui.memory.reflect(bank, form["q"], now=optional(form["now"]), **scope)
        evidence = _evidence(ui, bank, reflection)
    return ui.page(request, "reflect.html", caller, bank, "reflect", form=form, reflection=reflection,
                   evidence=evidence)


def _evidence(ui: UIState, bank: str, reflection: Reflection) -> list[dict[str, Any]]:
    """What each memory the answer is based on came from: the cited messages of its source, or the
    document itself (a source read once for all the memories citing it)."""
    evidence = []
    sources: dict[str, Any] = {}
    for cited in reflection.based_on:
        source_id = cited.get("source_id")
        messages, document = [], None
        if source_id:
            if source_id not in sources:
                try:
                    sources[source_id] = ui.memory.source(bank, source_id)
                except NotFoundError:
                    sources[source_id] = None
            src = sources[source_id]
            if src is not None:
                wanted = set(cited.get("source_ids") or [])
                messages = [m for m in src.messages if m.id in wanted]
                document = src.text if not src.messages else None
        evidence.append({"cited": cited, "messages": messages, "document": document})
    return evidence
