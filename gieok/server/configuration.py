"""Routes for a bank's configuration and bookkeeping: mental models, the redaction policy and its
audit log, the decision model, LLM usage and the job queue — each one :class:`gieok.Memory` call.

Kept out of :func:`gieok.server.app.create_app`, so that function does not grow (added on the app
itself, not through an APIRouter: the route tables in the tests read ``app.routes``). Reading a
bank's models, usage and jobs wants a read key; adding or deleting a model a write key; the policy,
the audit log (fingerprints of what was redacted) and the decision model an admin key.
"""


from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Query, Request

from gieok import RedactionPolicy
from gieok.memory import Memory
from gieok.records import Principal
from gieok.server.schemas import DecisionsRequest, MentalModelRequest, PolicyRequest

__all__ = ["add_configuration_routes", "policy_json"]

_BANK = "/v1/banks/{bank}"


def policy_json(policy: RedactionPolicy) -> dict[str, str]:
    """A policy as the mapping :meth:`RedactionPolicy.from_mapping` reads back (never its key)."""
    return {"default": policy.default, **dict(policy.overrides)}


def add_configuration_routes(app: FastAPI, memory: Memory, caller: Callable[[Request], Principal]) -> None:
    Caller = Annotated[Principal, Depends(caller)]

    @app.get(_BANK + "/mental-models", tags=["mental models"])
    def mental_models(bank: str, who: Caller) -> list[dict[str, Any]]:
        who.require(bank, "read")
        return [m.to_dict() for m in memory.models.list(bank)]

    @app.get(_BANK + "/mental-models/{name}", tags=["mental models"])
    def mental_model(bank: str, name: str, who: Caller) -> dict[str, Any]:
        who.require(bank, "read")
        return memory.models.get(bank, name).to_dict()

    @app.post(_BANK + "/mental-models", tags=["mental models"], status_code=201)
    def add_mental_model(bank: str, body: MentalModelRequest, who: Caller) -> dict[str, Any]:
        """A standing question whose answer reflect writes and background jobs refresh."""
        who.require(bank, "write")
        return memory.models.add(bank, body.name, body.question, refresh=body.refresh).to_dict()

    @app.delete(_BANK + "/mental-models/{name}", tags=["mental models"])
    def delete_mental_model(bank: str, name: str, who: Caller) -> dict[str, str]:
        who.require(bank, "write")
        memory.models.delete(bank, name)
        return {"deleted": name}

    @app.get(_BANK + "/redaction-policy", tags=["configuration"])
    def redaction_policy(bank: str, who: Caller) -> dict[str, str]:
        who.require(bank, "admin")
        return policy_json(memory.redaction_policy(bank))

    @app.put(_BANK + "/redaction-policy", tags=["configuration"])
    def set_redaction_policy(bank: str, body: PolicyRequest, who: Caller) -> dict[str, str]:
        who.require(bank, "admin")
        return policy_json(memory.set_redaction_policy(bank, body.policy))

    @app.get(_BANK + "/audit-log", tags=["configuration"])
    def audit_log(bank: str, who: Caller, limit: Annotated[int, Query(gt=0)] = 1000) -> list[dict[str, Any]]:
        """What redaction found, newest first: types, positions, fingerprints; never values."""
        who.require(bank, "admin")
        return [entry.to_dict() for entry in memory.audit_log(bank, limit)]

    @app.put(_BANK + "/decision-model", tags=["configuration"])
    def configure_decisions(bank: str, body: DecisionsRequest, who: Caller) -> dict[str, str]:
        who.require(bank, "admin")
        return {"decision_model": memory.configure_decisions(bank, body.model)}

    @app.get(_BANK + "/llm-usage", tags=["configuration"])
    def llm_usage(bank: str, who: Caller) -> dict[str, Any]:
        who.require(bank, "read")
        return memory.llm_usage(bank).to_dict()

    @app.get(_BANK + "/jobs", tags=["configuration"])
    def jobs(bank: str, who: Caller, status: str | None = None,
             limit: Annotated[int, Query(gt=0)] = 100) -> list[dict[str, Any]]:
        """The bank's job queue, newest first: kind, status, attempts, last error."""
        who.require(bank, "read")
        return [job.to_dict() for job in memory.jobs.list(bank, status=status, limit=limit)]

    @app.get("/v1/jobs", tags=["configuration"])
    def all_jobs(who: Caller, status: str | None = None,
                 limit: Annotated[int, Query(gt=0)] = 100) -> list[dict[str, Any]]:
        """Every bank's job queue (an admin key), newest first."""
        who.require(None, "admin")
        return [job.to_dict() for job in memory.jobs.list(status=status, limit=limit)]
