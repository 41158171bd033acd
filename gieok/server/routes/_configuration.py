"""A bank's configuration (an admin key sets it): the redaction policy and its audit log (fingerprints
of what was redacted, never values), the decision model, reflect's disposition and directives; and
its LLM usage (a read key)."""


from typing import Annotated, Any

from fastapi import APIRouter, Query

from gieok import Disposition, RedactionPolicy
from gieok.server.routes._deps import Caller, Mem
from gieok.server.schemas import DecisionsRequest, DirectiveOut, DirectivesRequest, DispositionRequest, PolicyRequest

__all__ = ["router", "policy_json"]

router = APIRouter()
_BANK = "/v1/banks/{bank}"


def policy_json(policy: RedactionPolicy) -> dict[str, str]:
    """A policy as the mapping :meth:`RedactionPolicy.from_mapping` reads back (never its key)."""
    return {"default": policy.default, **dict(policy.overrides)}


@router.get(_BANK + "/redaction-policy", tags=["configuration"])
def redaction_policy(bank: str, who: Caller, memory: Mem) -> dict[str, str]:
    who.require(bank, "admin")
    return policy_json(memory.redaction_policy(bank))


@router.put(_BANK + "/redaction-policy", tags=["configuration"])
def set_redaction_policy(bank: str, body: PolicyRequest, who: Caller, memory: Mem) -> dict[str, str]:
    who.require(bank, "admin")
    return policy_json(memory.set_redaction_policy(bank, body.policy))


@router.get(_BANK + "/audit-log", tags=["configuration"])
def audit_log(bank: str, who: Caller, memory: Mem, limit: Annotated[int, Query(gt=0)] = 1000) -> list[dict[str, Any]]:
    """What redaction found, newest first: types, positions, fingerprints; never values."""
    who.require(bank, "admin")
    return [entry.to_dict() for entry in memory.audit_log(bank, limit)]


@router.put(_BANK + "/decision-model", tags=["configuration"])
def configure_decisions(bank: str, body: DecisionsRequest, who: Caller, memory: Mem) -> dict[str, str]:
    who.require(bank, "admin")
    return {"decision_model": memory.configure_decisions(bank, body.model)}


@router.get(_BANK + "/llm-usage", tags=["configuration"])
def llm_usage(bank: str, who: Caller, memory: Mem) -> dict[str, Any]:
    who.require(bank, "read")
    return memory.llm_usage(bank).to_dict()


@router.get(_BANK + "/disposition", tags=["configuration"])
def disposition(bank: str, who: Caller, memory: Mem) -> Disposition:
    """Who answers the bank's reflect: three dials from 1 to 5 (3 neutral), a name, a background."""
    who.require(bank, "read")
    return memory.disposition(bank)


@router.put(_BANK + "/disposition", tags=["configuration"])
def set_disposition(bank: str, body: DispositionRequest, who: Caller, memory: Mem) -> Disposition:
    """Replace the bank's disposition (what the body leaves out is neutral)."""
    who.require(bank, "admin")
    return memory.set_disposition(bank, body.model_dump())


@router.get(_BANK + "/directives", tags=["configuration"])
def directives(bank: str, who: Caller, memory: Mem) -> list[DirectiveOut]:
    """The bank's directives, in order, as read (``enforced``: checked in code)."""
    who.require(bank, "read")
    return [DirectiveOut.model_validate(d.to_dict()) for d in memory.directives(bank)]


@router.put(_BANK + "/directives", tags=["configuration"])
def set_directives(bank: str, body: DirectivesRequest, who: Caller, memory: Mem) -> list[DirectiveOut]:
    """Replace the bank's directives; a bad one is a 400 naming it, and nothing is stored."""
    who.require(bank, "admin")
    return [DirectiveOut.model_validate(d.to_dict()) for d in memory.set_directives(bank, body.directives)]
