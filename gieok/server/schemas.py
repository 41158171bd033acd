"""Request bodies of the HTTP API. Responses are the library's own records (gieok.records and the
engine's result dataclasses), so the OpenAPI schema is generated from the code the library returns.

Unknown fields are refused (a typo such as ``"max_token"`` must not silently do nothing)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from fastapi import Query
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from gieok.errors import InputError

__all__ = ["TRUST_HELP", "Trust", "MessageIn", "RetainRequest", "RecallRequest", "ReflectRequest", "ForgetRequest",
           "KeyRequest", "OperationAccepted", "ReembedRequest", "PinRequest", "FactOverrides", "json_object",
           "MentalModelRequest", "PolicyRequest", "DecisionsRequest"]


# how much a source is believed: gieok.engine.retain.doubt.TRUST_LEVELS (a test pins the two together)
Trust = Literal["user", "assistant", "document", "web", "tool"]
TRUST_HELP = ("how much the source is believed: user (the user's own words), assistant, document, web or tool; "
              "left out, each message goes by its speaker and a document is a document. Instruction-like "
              "statements below the user's own words are held back (GET /v1/banks/{bank}/quarantine)")


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _message_id(value: Any) -> Any:
    # pydantic's own error for a union names only its first member; say what an id may be
    if value is not None and (isinstance(value, bool) or not isinstance(value, (str, int))):
        raise ValueError(f"a message id must be a string or an integer, e.g. \"m-1\" or 42, "
                         f"not {type(value).__name__}")
    return value


class MessageIn(_Body):
    """A message in either shape Memory.retain reads: gieok's ``{"speaker", "text", "timestamp"}`` or
    OpenAI's chat format ``{"role", "content", "name", "created_at"}`` (so a client's chat history goes in
    as it is). ``text`` or ``content`` is required; the library resolves the rest
    (:func:`gieok.engine.retain.plan.normalize_messages`)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"anyOf": [{"required": ["text"]},
                                                                          {"required": ["content"]}]})

    id: Annotated[str | int | None, BeforeValidator(_message_id)] = Field(
        None, description="your id for the message, a string or an integer (forget(source_id=...) accepts it)")
    speaker: str | None = Field(None, description="who said it; default the role, else 'user'")
    text: str | None = Field(None, description="what was said, verbatim (or give content)")
    timestamp: str | None = Field(None, description="ISO 8601, e.g. 2026-05-04T09:00:00+09:00")
    role: str | None = Field(None, description="OpenAI format: user, assistant, system or tool (the speaker "
                                               "when none is given)")
    content: str | None = Field(None, description="OpenAI format: what was said (text's other name)")
    name: str | None = Field(None, description="OpenAI format: the user's name, their speaker name "
                                               "(with role user only; an assistant or tool stays one)")
    created_at: str | None = Field(None, description="timestamp's other name")

    @model_validator(mode="after")
    def _said_something(self) -> MessageIn:
        if self.text is None and self.content is None:
            raise ValueError('a message needs "text" (or "content", in OpenAI\'s chat format)')
        return self


class _Scoped(_Body):
    user_id: str | None = Field(None, description="whose memory (none: shared); recall filters by it")
    agent_id: str | None = None
    session_id: str | None = None
    tags: list[str] | None = Field(None, description="short strings; recall keeps memories carrying every one")

    def scope(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "agent_id": self.agent_id, "session_id": self.session_id, "tags": self.tags}


class _ScopeFilter(_Scoped):
    include_shared: bool = Field(True, description="with user_id: also memories no user owns")
    scopes: dict[str, float] | None = Field(None, description='weights instead of filters, e.g. {"session": 1.2}')

    def scope(self) -> dict[str, Any]:
        return {**super().scope(), "include_shared": self.include_shared, "scopes": self.scopes}


class RetainRequest(_Scoped):
    messages: list[MessageIn] | None = Field(None, description="a conversation; or give text")
    text: str | None = Field(None, description="a document's text; or give messages")
    document_id: str | None = Field(None, description="names the source; re-retaining it re-processes what changed")
    timestamp: str | None = None
    metadata: dict[str, Any] | None = None
    decay_class: Literal["pinned", "stable", "transient"] | None = None
    importance: float | None = Field(None, ge=0.0, le=1.0)
    pinned: bool | None = None
    ttl: float | None = Field(None, gt=0, description="seconds until the facts expire")
    expires_at: str | None = None
    trust: Trust | None = Field(None, description=TRUST_HELP)
    async_: bool = Field(False, alias="async", description="queue it: 202 with an operation id to poll")

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    def call(self) -> dict[str, Any]:
        """The keyword arguments of Memory.retain / submit_retain."""
        messages = [m.model_dump(exclude_none=True) for m in self.messages] if self.messages is not None else None
        return {"messages": messages, "text": self.text, "document_id": self.document_id, "timestamp": self.timestamp,
                "metadata": self.metadata, "decay_class": self.decay_class, "importance": self.importance,
                "pinned": self.pinned, "ttl": self.ttl, "expires_at": self.expires_at, "trust": self.trust,
                **self.scope()}


class SessionTurnRequest(_Body):
    role: str = "user"
    content: str
    user_id: str | None = Field(None, description="whose session: its turns are that user's memories")
    max_tokens: int = Field(3000, ge=50)
    keep_recent: int = Field(6, ge=1)


class RecallRequest(_ScopeFilter):
    query: str
    max_tokens: int | None = Field(None, gt=0)
    limit: int | None = Field(None, gt=0, le=1000)
    now: str | None = None
    as_of: str | None = None
    explain: bool = False


class ReflectRequest(_ScopeFilter):
    question: str
    now: str | None = None


class ForgetRequest(_Body):
    source_id: str | None = None
    memory_id: str | None = None
    entity: str | None = None
    before: str | None = None
    user_id: str | None = Field(None, description="erase every source retained for this user")
    verify: bool = False


class PinRequest(_Body):
    pinned: bool = Field(True, description="false: unpin (the fact decays as a stable fact)")


@dataclass(frozen=True)
class FactOverrides:
    """The lifecycle overrides of an upload route, as query parameters (the body is the file)."""

    decay_class: Literal["pinned", "stable", "transient"] | None = None
    importance: Annotated[float | None, Query(ge=0.0, le=1.0)] = None
    pinned: bool | None = None

    def call(self) -> dict[str, Any]:
        return {"decay_class": self.decay_class, "importance": self.importance, "pinned": self.pinned}


def json_object(value: str | None, what: str) -> dict[str, Any] | None:
    """A query parameter holding a JSON object, or an InputError saying what to send."""
    if value is None:
        return None
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict):
        raise InputError(f'{what} must be a JSON object, e.g. {{"team": "sales"}}')
    return parsed


class MentalModelRequest(_Body):
    name: str = Field(description="the model's name, e.g. 'food preferences'")
    question: str = Field(description="the standing question, e.g. '이 사용자의 음식 선호는?'")
    refresh: bool = Field(True, description="answer it now (runs the bank's queued jobs in this request)")


class PolicyRequest(_Body):
    policy: dict[str, Literal["allow", "redact", "block"]] | None = Field(
        description='e.g. {"default": "redact", "email": "allow", "kr_rrn": "block"}; null resets it')


class DecisionsRequest(_Body):
    model: str | None = Field(description="learned, llm or a plugin; null: the setting decision_model")


class DispositionRequest(_Body):
    """A bank's disposition; what is left out is neutral (3, no name, no background)."""
    skepticism: int = Field(3, ge=1, le=5, description="how much evidence an answer needs (3: neutral)")
    literalism: int = Field(3, ge=1, le=5, description="4-5: only memories in the question's own words answer")
    empathy: int = Field(3, ge=1, le=5, description="how the answer treats the asker (3: neutral)")
    name: str = Field("", description="who answers, e.g. 'Cautious risk analyst'")
    background: str = Field("", description="a sentence or two about them")


class DirectivesRequest(_Body):
    directives: list[str | dict[str, Any]] = Field(description=(
        'hard rules, in order: text ("Never give medical dosages", "답변은 존댓말로") or objects '
        '({"forbid": "dosages", "words": ["mg"]}, {"language": "ko"}, {"register": "polite"}, {"rule": "..."}); '
        "[] clears them"))


class DirectiveOut(BaseModel):
    """A directive as the bank read it; ``enforced``: checked in code, not only an LLM's prompt."""
    text: str
    kind: Literal["forbid", "language", "register", "rule"]
    enforced: bool
    topic: str | None = None
    words: list[str] | None = None
    language: str | None = None
    register_: str | None = Field(None, alias="register")  # "register" would shadow BaseModel's own


class ReembedRequest(_Body):
    embedder: str = Field(description="the registered embedder to move the bank to, e.g. e5-small")


class KeyRequest(_Body):
    role: Literal["read", "write", "admin"]
    banks: list[str] = Field(default_factory=list)
    name: str | None = None


class OperationAccepted(BaseModel):
    operation_id: str
    status: str
    bank: str
