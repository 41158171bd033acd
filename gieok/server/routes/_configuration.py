"""A bank's configuration (an admin key): the redaction policy and its audit log (fingerprints of
what was redacted, never values), the decision model; and its LLM usage (a read key)."""


from typing import Annotated, Any

from fastapi import APIRouter, Query

from gieok import RedactionPolicy
from gieok.server.routes._deps import Caller, Mem
from gieok.server.schemas import DecisionsRequest, PolicyRequest

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
