"""Mental models: standing questions ("이 사용자의 음식 선호는?") whose answers reflect writes and the
``refresh_models`` job rewrites after consolidation; reading one is a lookup, not a search."""

from __future__ import annotations

from typing import Any

from gieok.engine._time import from_epoch
from gieok.engine._validate import check_name
from gieok.engine.context import BankContext
from gieok.errors import InputError, NotFoundError
from gieok.records import MentalModel

__all__ = ["add_mental_model", "mental_model", "mental_models", "delete_mental_model"]


def _record(model: Any) -> MentalModel:
    refreshed = from_epoch(model.refreshed_at)
    return MentalModel(name=model.name, question=model.question, answer=model.answer, based_on=list(model.based_on),
                       refreshed_at=refreshed.isoformat() if refreshed else None)


def add_mental_model(ctx: BankContext, name: str, question: str) -> None:
    """Store the standing question and queue its first answer (the ``refresh_models`` job)."""
    if not isinstance(name, str) or not isinstance(question, str) or not name.strip() or not question.strip():
        raise InputError("a mental model needs a name and a question")
    with ctx.store.write():
        ctx.store.models.save(ctx.bank.id, name.strip(), question.strip())
        ctx.store.jobs.enqueue(ctx.bank.id, "refresh_models")


def mental_model(ctx: BankContext, name: str) -> MentalModel:
    check_name(name, "the mental model's name", "'travel plans'")
    for model in ctx.store.models.all(ctx.bank.id):
        if model.name == name.strip():
            return _record(model)
    raise NotFoundError(f"no mental model {name!r} in bank {ctx.bank.name!r}: add it with mem.models.add / "
                        "`gieok models add`")


def mental_models(ctx: BankContext) -> list[MentalModel]:
    return [_record(m) for m in ctx.store.models.all(ctx.bank.id)]


def delete_mental_model(ctx: BankContext, name: str) -> None:
    check_name(name, "the mental model's name", "'travel plans'")
    with ctx.store.write():
        if not ctx.store.models.delete(ctx.bank.id, name):
            raise NotFoundError(f"no mental model {name!r} in bank {ctx.bank.name!r}")
