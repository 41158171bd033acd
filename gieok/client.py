"""``Client`` and ``AsyncClient``: the :class:`gieok.Memory` API over HTTP, for a ``gieok serve``.

Switching from embedded to server is one line::

    mem = Memory("memories.db")                                   # embedded
    mem = Client("http://127.0.0.1:8765", api_key="gk_...")       # the same calls, on a server

The methods, their arguments and their return types are Memory's (a contract test runs one suite
against both); what comes back is parsed into the same records (gieok.records) with the schema the
server generated its answers from. A problem+json answer is raised as the typed error the server
raised (``BankNotFoundError``, ``InputError``, ...), with the server's message. Needs httpx (the
``server`` extra).
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import io
import itertools
import json
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import IO, Any, TypeVar
from urllib.parse import quote, urlencode

import httpx
from pydantic import TypeAdapter

from gieok import RedactionPolicy
from gieok import errors as _errors
from gieok._twin import add_async_twins
from gieok.memory import should_recall
from gieok.records import (
    AuditEntry,
    BankImport,
    BankInfo,
    BankOverview,
    Connections,
    DeletedBank,
    Directive,
    Disposition,
    EntityInfo,
    EntityView,
    ForgetResult,
    GateDecision,
    HeldStatement,
    ImportResult,
    IngestResult,
    Job,
    LlmUsage,
    MentalModel,
    MergeSuggestion,
    Message,
    Operation,
    Profile,
    Recall,
    RecalledMemory,
    Reflection,
    RetainResult,
    Slot,
    SourceInfo,
)

__all__ = ["AsyncClient", "AsyncClientSession", "Client", "ClientSession", "ClientJobs", "ClientBanks",
           "ClientBrowse", "ClientModels"]

T = TypeVar("T")
TimeLike = str | datetime | date
FileSource = str | os.PathLike[str] | bytes | bytearray | memoryview  # as gieok.engine.sources.documents.Source
_STATUS_ERRORS: dict[int, type[_errors.GieokError]] = {
    401: _errors.KeyRequiredError, 403: _errors.PermissionDeniedError, 404: _errors.NotFoundError,
    409: _errors.EmbedderMismatchError, 413: _errors.InputError, 422: _errors.InputError,
    429: _errors.SpendLimitError, 503: _errors.LLMUnavailableError,
}
_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def _parse(kind: Any, data: Any) -> Any:
    adapter = _ADAPTERS.get(kind)
    if adapter is None:
        adapter = _ADAPTERS[kind] = TypeAdapter(kind)
    return adapter.validate_python(data)


def _directives(data: list[dict[str, Any]]) -> list[Directive]:
    """Directives as the server read them (its JSON leaves out what a kind does not use)."""
    return [Directive.from_dict(d) for d in data]


def _time(value: TimeLike | None) -> str | None:
    return value.isoformat() if isinstance(value, (datetime, date)) else value


def _error(response: httpx.Response) -> _errors.GieokError:
    """The typed error a problem+json answer names, carrying the server's message."""
    try:
        body = response.json()
    except ValueError:
        body = {}
    detail = str(body.get("detail") or response.text or f"HTTP {response.status_code}")
    cls = getattr(_errors, str(body.get("error", "")), None)
    if not (isinstance(cls, type) and issubclass(cls, _errors.GieokError)):
        cls = _STATUS_ERRORS.get(response.status_code, _errors.GieokError)
    exc = cls.__new__(cls)
    Exception.__init__(exc, detail)  # the server's message as is; the class's own __init__ would re-word it
    exc.status = response.status_code  # type: ignore[attr-defined]
    return exc


def _messages(messages: Sequence[Mapping[str, Any] | Message] | None) -> list[dict[str, Any]] | None:
    if messages is None:
        return None
    out = []
    for m in messages:
        item = {"id": m.id, "speaker": m.speaker, "text": m.text, "timestamp": m.timestamp} \
            if isinstance(m, Message) else dict(m)
        out.append({k: _time(v) if k in ("timestamp", "created_at") else v for k, v in item.items() if v is not None})
    return out


def _retain_body(messages: Sequence[Mapping[str, Any] | Message] | None, text: str | None,
                 document_id: str | None, timestamp: TimeLike | None, metadata: Mapping[str, Any] | None,
                 decay_class: str | None, importance: float | None, pinned: bool | None, ttl: float | None,
                 expires_at: TimeLike | None, trust: str | None) -> dict[str, Any]:
    body = {"messages": _messages(messages), "text": text, "document_id": document_id, "timestamp": _time(timestamp),
            "metadata": dict(metadata) if metadata is not None else None, "decay_class": decay_class,
            "importance": importance, "pinned": pinned, "ttl": ttl, "expires_at": _time(expires_at), "trust": trust}
    return _drop_none(body)


def _scope_body(user_id: str | None, agent_id: str | None, session_id: str | None, tags: Sequence[str] | None,
                **more: Any) -> dict[str, Any]:
    return {"user_id": user_id, "agent_id": agent_id, "session_id": session_id,
            "tags": list(tags) if tags is not None else None, **more}


def _drop_none(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if v is not None}


def _q(name: str) -> str:
    return quote(str(name), safe="")  # a bank or id is one path segment, whatever its letters


_GETS: dict[str, tuple[str, Any]] = {
    "banks": ("/v1/banks", list[BankInfo]),
    "sources": ("/v1/banks/{bank}/sources", list[SourceInfo]),
    "source": ("/v1/banks/{bank}/sources/{id}", SourceInfo),
    "get": ("/v1/banks/{bank}/memories/{id}", RecalledMemory),
    "history": ("/v1/banks/{bank}/memories/{id}/history", list[RecalledMemory]),
    "observations": ("/v1/banks/{bank}/observations", list[RecalledMemory]),
    "entities": ("/v1/banks/{bank}/entities", list[EntityInfo]),
    "operation": ("/v1/operations/{id}", Operation),
    "quarantined": ("/v1/banks/{bank}/quarantine", list[HeldStatement]),
}


def _get_path(name: str, bank: str | None = None, item: str | None = None) -> tuple[str, Any]:
    template, kind = _GETS[name]
    return template.format(bank=_q(bank or ""), id=_q(item or "")), kind


def _file(source: FileSource) -> tuple[bytes, str | None]:
    """A file's bytes and name (None for bytes given as they are); the server checks their size."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), None
    if not isinstance(source, (str, os.PathLike)):
        raise _errors.InputError(f"give a file path or bytes, not {type(source).__name__}")
    path = Path(source)
    try:
        return path.read_bytes(), path.name
    except FileNotFoundError:
        raise _errors.FileFormatError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise _errors.FileFormatError(f"{path}: is a folder; give a file") from None


def _lines(response: httpx.Response) -> Iterator[str]:
    """A streamed bank file's lines, split on b"\\n" only (a record may hold U+2028 and the like, which
    text line splitting breaks on); the response is closed when they end or the caller stops."""
    try:
        pending = b""
        for chunk in response.iter_bytes():
            *lines, pending = (pending + chunk).split(b"\n")
            yield from (line.decode("utf-8") + "\n" for line in lines if line)
        if pending:
            yield pending.decode("utf-8") + "\n"
    finally:
        response.close()


def _headers(api_key: str | None) -> dict[str, str]:
    key = api_key if api_key is not None else os.environ.get("GIEOK_API_KEY")
    return {"Authorization": f"Bearer {key}"} if key else {}


class Client:
    """:class:`gieok.Memory`'s calls on a gieok server. ``api_key`` defaults to ``$GIEOK_API_KEY``."""

    def __init__(self, url: str = "http://127.0.0.1:8765", *, api_key: str | None = None, timeout: float = 120.0,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.url = url.rstrip("/")
        self._http = httpx.Client(base_url=self.url, headers=_headers(api_key), timeout=timeout, transport=transport)
        self.jobs, self.banks = ClientJobs(self), ClientBanks(self)
        self.browse, self.models = ClientBrowse(self), ClientModels(self)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, method: str, path: str, body: Any = None, kind: Any = None, *, content: bytes | None = None,
              headers: dict[str, str] | None = None) -> Any:
        try:
            if content is not None:
                response = self._http.request(method, path, content=content, headers=headers)
            else:
                response = self._http.request(method, path, json=body)
        except httpx.TransportError as exc:
            raise _errors.GieokError(f"cannot reach the gieok server at {self.url}: {exc} "
                                     "(is `gieok serve` running there?)") from None
        if response.status_code >= 400:
            raise _error(response)
        data = response.json()
        return _parse(kind, data) if kind is not None else data

    def _get(self, name: str, bank: str | None = None, item: str | None = None) -> Any:
        path, kind = _get_path(name, bank, item)
        return self._call("GET", path, None, kind)

    # -- retain and recall -------------------------------------------------------------------
    def retain(self, bank: str, messages: Sequence[Mapping[str, Any] | Message] | None = None, *,
               text: str | None = None, document_id: str | None = None, timestamp: TimeLike | None = None,
               metadata: Mapping[str, Any] | None = None, decay_class: str | None = None,
               importance: float | None = None, pinned: bool | None = None, ttl: float | None = None,
               expires_at: TimeLike | None = None, user_id: str | None = None, agent_id: str | None = None,
               session_id: str | None = None, tags: Sequence[str] | None = None,
               trust: str | None = None) -> RetainResult:
        body = _retain_body(messages, text, document_id, timestamp, metadata, decay_class, importance, pinned, ttl,
                            expires_at, trust) | _drop_none(_scope_body(user_id, agent_id, session_id, tags))
        return self._call("POST", f"/v1/banks/{_q(bank)}/retain", body, RetainResult)  # type: ignore[no-any-return]

    def submit_retain(self, bank: str, messages: Sequence[Mapping[str, Any] | Message] | None = None, *,
                      text: str | None = None, document_id: str | None = None, timestamp: TimeLike | None = None,
                      metadata: Mapping[str, Any] | None = None, decay_class: str | None = None,
                      importance: float | None = None, pinned: bool | None = None, ttl: float | None = None,
                      expires_at: TimeLike | None = None, user_id: str | None = None, agent_id: str | None = None,
                      session_id: str | None = None, tags: Sequence[str] | None = None,
                      trust: str | None = None) -> Operation:
        body = _retain_body(messages, text, document_id, timestamp, metadata, decay_class, importance, pinned, ttl,
                            expires_at, trust) | _drop_none(_scope_body(user_id, agent_id, session_id, tags))
        accepted = self._call("POST", f"/v1/banks/{_q(bank)}/retain", {**body, "async": True})
        return self.operation(accepted["operation_id"])

    def operation(self, operation_id: str) -> Operation:
        return self._get("operation", item=operation_id)  # type: ignore[no-any-return]

    def reembed(self, bank: str, embedder: str, *, wait: bool = False) -> Operation:
        """Move ``bank`` to another embedder (an admin key); with ``wait``, poll until the server's
        workers have run it (done, failed, cancelled, or queued again after an error)."""
        accepted = self._call("POST", f"/v1/banks/{_q(bank)}/reembed", {"embedder": embedder})
        op = self.operation(accepted["operation_id"])
        while wait and (op.status == "running" or (op.status == "queued" and not op.error)):
            time.sleep(0.25)
            op = self.operation(op.id)
        return op

    def recall(self, bank: str, query: str, *, max_tokens: int | None = None, limit: int | None = None,
               now: TimeLike | None = None, explain: bool = False, as_of: TimeLike | None = None,
               user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
               tags: Sequence[str] | None = None, include_shared: bool = True,
               scopes: Mapping[str, float] | None = None) -> Recall:
        body = _drop_none({"query": query, "max_tokens": max_tokens, "limit": limit, "now": _time(now),
                           "explain": explain, "as_of": _time(as_of),
                           **_scope_body(user_id, agent_id, session_id, tags, include_shared=include_shared,
                                         scopes=dict(scopes) if scopes is not None else None)})
        return self._call("POST", f"/v1/banks/{_q(bank)}/recall", body, Recall)  # type: ignore[no-any-return]

    def reflect(self, bank: str, question: str, *, now: TimeLike | None = None, user_id: str | None = None,
                agent_id: str | None = None, session_id: str | None = None, tags: Sequence[str] | None = None,
                include_shared: bool = True, scopes: Mapping[str, float] | None = None) -> Reflection:
        body = _drop_none({"question": question, "now": _time(now),
                           **_scope_body(user_id, agent_id, session_id, tags, include_shared=include_shared,
                                         scopes=dict(scopes) if scopes is not None else None)})
        return self._call("POST", f"/v1/banks/{_q(bank)}/reflect", body, Reflection)  # type: ignore[no-any-return]

    def forget(self, bank: str, *, source_id: str | None = None, memory_id: str | None = None,
               entity: str | None = None, before: TimeLike | None = None, verify: bool = False,
               user_id: str | None = None) -> ForgetResult:
        body = _drop_none({"source_id": source_id, "memory_id": memory_id, "entity": entity, "before": _time(before),
                           "verify": verify, "user_id": user_id})
        return self._call("POST", f"/v1/banks/{_q(bank)}/forget", body, ForgetResult)  # type: ignore[no-any-return]

    # -- the memory quarantine ---------------------------------------------------------------
    def quarantined(self, bank: str, *, limit: int = 1000) -> list[HeldStatement]:
        path, kind = _get_path("quarantined", bank)
        return self._call("GET", f"{path}?{urlencode({'limit': limit})}", None, kind)  # type: ignore[no-any-return]

    def release(self, bank: str, held_id: str) -> RecalledMemory:
        return self._call("POST", f"/v1/banks/{_q(bank)}/quarantine/{_q(held_id)}/release",  # type: ignore[no-any-return]
                          None, RecalledMemory)

    def dismiss(self, bank: str, held_id: str) -> None:
        self._call("DELETE", f"/v1/banks/{_q(bank)}/quarantine/{_q(held_id)}")

    # -- inspection --------------------------------------------------------------------------
    def sources(self, bank: str) -> list[SourceInfo]:
        return self._get("sources", bank)  # type: ignore[no-any-return]

    def source(self, bank: str, source_id: str) -> SourceInfo:
        return self._get("source", bank, source_id)  # type: ignore[no-any-return]

    def get(self, bank: str, memory_id: str) -> RecalledMemory:
        return self._get("get", bank, memory_id)  # type: ignore[no-any-return]

    def history(self, bank: str, memory_id: str) -> list[RecalledMemory]:
        return self._get("history", bank, memory_id)  # type: ignore[no-any-return]

    def observations(self, bank: str) -> list[RecalledMemory]:
        return self._get("observations", bank)  # type: ignore[no-any-return]

    def entities(self, bank: str) -> list[EntityInfo]:
        return self._get("entities", bank)  # type: ignore[no-any-return]

    def profile(self, bank: str, person: str | None = None, *, user_id: str | None = None) -> list[Profile]:
        query = urlencode(_drop_none({"person": person, "user_id": user_id}))
        return self._call("GET", f"/v1/banks/{_q(bank)}/profile?{query}", None, list[Profile])  # type: ignore[no-any-return]

    def lookup(self, bank: str, slot: str, entity: str | None = None, *, user_id: str | None = None) -> Slot | None:
        query = urlencode(_drop_none({"entity": entity, "user_id": user_id}))
        return self._call("GET", f"/v1/banks/{_q(bank)}/profile/{_q(slot)}?{query}",  # type: ignore[no-any-return]
                          None, Slot | None)

    def should_recall(self, text: str, *, explain: bool = False) -> bool | GateDecision:
        """Answered here, without the server: the gate reads only ``text`` (:meth:`gieok.Memory.should_recall`)."""
        return should_recall(text, explain=explain)

    def pin(self, bank: str, memory_id: str, *, pinned: bool = True) -> RecalledMemory:
        return self._call("POST", f"/v1/banks/{_q(bank)}/memories/{_q(memory_id)}/pin",  # type: ignore[no-any-return]
                          {"pinned": pinned}, RecalledMemory)

    # -- configuration and bookkeeping (gieok.server.configuration) --------------------------
    def redaction_policy(self, bank: str) -> RedactionPolicy:
        return RedactionPolicy.from_mapping(self._call("GET", f"/v1/banks/{_q(bank)}/redaction-policy"))

    def set_redaction_policy(self, bank: str, policy: RedactionPolicy | Mapping[str, str] | None) -> RedactionPolicy:
        given = {"default": policy.default, **policy.overrides} if isinstance(policy, RedactionPolicy) else policy
        body = {"policy": dict(given) if given is not None else None}
        return RedactionPolicy.from_mapping(self._call("PUT", f"/v1/banks/{_q(bank)}/redaction-policy", body))

    def audit_log(self, bank: str, limit: int = 1000) -> list[AuditEntry]:
        return self._call("GET", f"/v1/banks/{_q(bank)}/audit-log?{urlencode({'limit': limit})}",  # type: ignore[no-any-return]
                          None, list[AuditEntry])

    def configure_decisions(self, bank: str, model: str | None) -> str:
        return str(self._call("PUT", f"/v1/banks/{_q(bank)}/decision-model", {"model": model})["decision_model"])

    def llm_usage(self, bank: str) -> LlmUsage:
        return self._call("GET", f"/v1/banks/{_q(bank)}/llm-usage", None, LlmUsage)  # type: ignore[no-any-return]

    def set_disposition(self, bank: str, disposition: Disposition | Mapping[str, Any] | None = None, *,
                        skepticism: int | None = None, literalism: int | None = None, empathy: int | None = None,
                        name: str | None = None, background: str | None = None) -> Disposition:
        body = Disposition.changed(disposition, skepticism=skepticism, literalism=literalism, empathy=empathy,
                                   name=name, background=background).to_dict()
        return self._call("PUT", f"/v1/banks/{_q(bank)}/disposition", body, Disposition)  # type: ignore[no-any-return]

    def disposition(self, bank: str) -> Disposition:
        return self._call("GET", f"/v1/banks/{_q(bank)}/disposition", None, Disposition)  # type: ignore[no-any-return]

    def set_directives(self, bank: str, directives: Sequence[str | Mapping[str, Any] | Directive] | None
                       ) -> list[Directive]:
        body = [d.to_input() if isinstance(d, Directive) else d for d in directives or []]
        return _directives(self._call("PUT", f"/v1/banks/{_q(bank)}/directives", {"directives": body}))

    def directives(self, bank: str) -> list[Directive]:
        return _directives(self._call("GET", f"/v1/banks/{_q(bank)}/directives"))

    # -- files: the body is the file's bytes, the options are query parameters ---------------
    def ingest(self, bank: str, path_or_bytes: FileSource, *, document_id: str | None = None,
               media_type: str | None = None, timestamp: TimeLike | None = None,
               metadata: Mapping[str, Any] | None = None, decay_class: str | None = None,
               importance: float | None = None, pinned: bool | None = None, user_id: str | None = None,
               agent_id: str | None = None, session_id: str | None = None, tags: Sequence[str] | None = None,
               trust: str | None = None) -> IngestResult:
        """:meth:`gieok.Memory.ingest` on the server: a path is read here and its bytes uploaded (its
        name the default ``document_id``, as in the library)."""
        data, file_name = _file(path_or_bytes)
        query = {"document_id": document_id or file_name, "timestamp": _time(timestamp),
                 "metadata": json.dumps(dict(metadata), ensure_ascii=False) if metadata is not None else None,
                 "decay_class": decay_class, "importance": importance, "pinned": pinned, "user_id": user_id,
                 "agent_id": agent_id, "session_id": session_id, "tags": list(tags) if tags else None,
                 "trust": trust}
        return self._upload(f"/v1/banks/{_q(bank)}/documents", data, query, media_type, IngestResult)  # type: ignore[no-any-return]

    def import_chat(self, bank: str, path_or_bytes: FileSource, format: str, *, name: str | None = None,
                    skip_bad: bool = False, timezone: str = "Asia/Seoul", decay_class: str | None = None,
                    importance: float | None = None, pinned: bool | None = None, user_id: str | None = None,
                    agent_id: str | None = None, tags: Sequence[str] | None = None) -> ImportResult:
        """:meth:`gieok.Memory.import_chat` on the server (a path is read here, its name the default ``name``)."""
        data, file_name = _file(path_or_bytes)
        query = {"name": name or file_name, "skip_bad": skip_bad, "timezone": timezone, "decay_class": decay_class,
                 "importance": importance, "pinned": pinned, "user_id": user_id, "agent_id": agent_id,
                 "tags": list(tags) if tags else None}
        return self._upload(f"/v1/banks/{_q(bank)}/imports/{_q(format)}", data, query, None,  # type: ignore[no-any-return]
                            ImportResult)

    def _upload(self, path: str, data: bytes, query: dict[str, Any], media_type: str | None, kind: Any) -> Any:
        params = urlencode(_drop_none(query), doseq=True)  # tags repeat: ?tags=a&tags=b
        headers = {"Content-Type": media_type or "application/octet-stream"}
        return self._call("POST", f"{path}?{params}", kind=kind, content=data, headers=headers)

    # -- moving banks (docs/guide/portability.md) ---------------------------------------------------
    def iter_export(self, bank: str, *, with_vectors: bool = False) -> Iterator[str]:
        """:meth:`gieok.Memory.iter_export` on the server: the bank file's lines, streamed (admin). The
        request is sent now (an unknown bank fails here); the lines are read as they are iterated."""
        path = f"/v1/banks/{_q(bank)}/export?with_vectors={str(bool(with_vectors)).lower()}"
        try:
            response = self._http.send(self._http.build_request("GET", path), stream=True)
        except httpx.TransportError as exc:
            raise _errors.GieokError(f"cannot reach the gieok server at {self.url}: {exc}") from None
        if response.status_code >= 400:
            response.read()
            response.close()
            raise _error(response)
        return _lines(response)

    def export_bank(self, bank: str, dest: str | os.PathLike[str] | IO[Any], *, with_vectors: bool = False) -> int:
        """:meth:`gieok.Memory.export_bank` on the server: the file is streamed into ``dest`` here."""
        lines = self.iter_export(bank, with_vectors=with_vectors)
        first = next(lines)  # an unknown bank fails before a file is created
        written = 1
        with contextlib.ExitStack() as stack:
            if isinstance(dest, (str, os.PathLike)):
                dest = stack.enter_context(open(dest, "w", encoding="utf-8", newline="\n"))
            out: Any = dest
            binary = not isinstance(out, io.TextIOBase)
            for line in itertools.chain([first], lines):
                out.write(line.encode("utf-8") if binary else line)
                written += 1
        return written - 1

    def import_bank(self, src: str | os.PathLike[str] | bytes | IO[Any], bank: str | None = None) -> BankImport:
        """:meth:`gieok.Memory.import_bank` on the server (admin): the file is uploaded. Without ``bank``,
        the name in the file's header."""
        data = src.read() if hasattr(src, "read") else _file(src)[0]
        data = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        if bank is None:
            try:
                bank = str(json.loads(data.split(b"\n", 1)[0])["bank"])
            except (ValueError, KeyError, TypeError):
                raise _errors.BankFileError(1, "the first line must be the header naming the bank") from None
        result: BankImport = self._call("POST", f"/v1/banks/{_q(bank)}/import", kind=BankImport, content=data,
                                        headers={"Content-Type": "application/x-ndjson"})
        return result

    def clone_bank(self, bank: str, new: str) -> BankImport:
        return self._call("POST", f"/v1/banks/{_q(bank)}/clone", {"new": new}, BankImport)  # type: ignore[no-any-return]

    def rename_bank(self, bank: str, new: str) -> BankInfo:
        return self._call("POST", f"/v1/banks/{_q(bank)}/rename", {"new": new}, BankInfo)  # type: ignore[no-any-return]

    # -- working memory ---------------------------------------------------------------------------
    def session(self, bank: str, session_id: str, *, max_tokens: int = 3000, keep_recent: int = 6,
                user_id: str | None = None) -> ClientSession:
        """:meth:`gieok.Memory.session` on the server. Nothing is sent until a call; a session of
        another user is refused as in the library (``SessionUserError``)."""
        return ClientSession(self, bank, session_id, max_tokens=max_tokens, keep_recent=keep_recent, user_id=user_id)


class _ClientNamespace:
    def __init__(self, client: Client) -> None:
        self._client = client


class ClientJobs(_ClientNamespace):
    """``client.jobs``: :class:`gieok.Memory`'s ``mem.jobs`` over HTTP — list, get, cancel, retry (the
    server's workers run the queue). ``client.jobs(...)`` is ``client.jobs.list(...)``."""

    def __call__(self, bank: str | None = None, *, status: str | None = None, limit: int = 100) -> builtins.list[Job]:
        return self.list(bank, status=status, limit=limit)

    def list(self, bank: str | None = None, *, status: str | None = None, limit: int = 100) -> list[Job]:
        """A bank's job queue (a read key), or every bank's (``bank=None``: an admin key)."""
        query = urlencode(_drop_none({"status": status, "limit": limit}))
        path = f"/v1/banks/{_q(bank)}/jobs" if bank is not None else "/v1/jobs"
        return self._client._call("GET", f"{path}?{query}", None, list[Job])  # type: ignore[no-any-return]

    def cancel(self, operation_id: str) -> Operation:
        return self._client._call("POST", f"/v1/operations/{_q(operation_id)}/cancel", None,  # type: ignore[no-any-return]
                          Operation)

    def retry(self, operation_id: str) -> Operation:
        return self._client._call("POST", f"/v1/operations/{_q(operation_id)}/retry", None,  # type: ignore[no-any-return]
                          Operation)


    def get(self, operation_id: str) -> Operation:
        return self._client.operation(operation_id)


class ClientBanks(_ClientNamespace):
    """``client.banks``: :class:`gieok.Memory`'s ``mem.banks`` over HTTP; ``client.banks()`` lists them."""

    def __call__(self) -> builtins.list[BankInfo]:
        return self.list()

    def list(self) -> list[BankInfo]:
        return self._client._get("banks")  # type: ignore[no-any-return]

    def create(self, bank: str) -> BankInfo:
        return self._client._call("PUT", f"/v1/banks/{_q(bank)}", None, BankInfo)  # type: ignore[no-any-return]

    def delete(self, bank: str) -> DeletedBank:
        return self._client._call("DELETE", f"/v1/banks/{_q(bank)}", None, DeletedBank)  # type: ignore[no-any-return]


    def names(self) -> builtins.list[str]:
        return [b.name for b in self.list()]


class ClientBrowse(_ClientNamespace):
    """``client.browse``: :class:`gieok.Memory`'s ``mem.browse`` over HTTP."""

    def overview(self, bank: str, *, now: TimeLike | None = None) -> BankOverview:
        query = urlencode(_drop_none({"now": _time(now)}))
        return self._client._call("GET", f"/v1/banks/{_q(bank)}/overview" + (f"?{query}" if query else ""),  # type: ignore[no-any-return]
                          None, BankOverview)

    def source_facts(self, bank: str, source_id: str) -> dict[str, list[RecalledMemory]]:
        return self._client._call("GET", f"/v1/banks/{_q(bank)}/sources/{_q(source_id)}/facts", None,  # type: ignore[no-any-return]
                          dict[str, list[RecalledMemory]])

    def connections(self, bank: str, memory_id: str) -> Connections:
        return self._client._call("GET", f"/v1/banks/{_q(bank)}/memories/{_q(memory_id)}/connections",  # type: ignore[no-any-return]
                          None, Connections)

    def entity(self, bank: str, name: str, *, limit: int = 200) -> EntityView:
        return self._client._call("GET", f"/v1/banks/{_q(bank)}/entities/{_q(name)}?{urlencode({'limit': limit})}",  # type: ignore[no-any-return]
                          None, EntityView)

    def merge_suggestions(self, bank: str, *, limit: int = 20) -> list[MergeSuggestion]:
        return self._client._call("GET", f"/v1/banks/{_q(bank)}/entities/merge-suggestions?"  # type: ignore[no-any-return]
                          f"{urlencode({'limit': limit})}", None, list[MergeSuggestion])



class ClientModels(_ClientNamespace):
    """``client.models``: :class:`gieok.Memory`'s ``mem.models`` (mental models) over HTTP."""

    def add(self, bank: str, name: str, question: str, *, refresh: bool = True) -> MentalModel:
        body = {"name": name, "question": question, "refresh": refresh}
        return self._client._call("POST", f"/v1/banks/{_q(bank)}/mental-models", body, MentalModel)  # type: ignore[no-any-return]

    def get(self, bank: str, name: str) -> MentalModel:
        return self._client._call("GET", f"/v1/banks/{_q(bank)}/mental-models/{_q(name)}", None,  # type: ignore[no-any-return]
                          MentalModel)

    def list(self, bank: str) -> list[MentalModel]:
        return self._client._call("GET", f"/v1/banks/{_q(bank)}/mental-models", None, list[MentalModel])  # type: ignore[no-any-return]

    def delete(self, bank: str, name: str) -> None:
        self._client._call("DELETE", f"/v1/banks/{_q(bank)}/mental-models/{_q(name)}")



class _AsyncClientNamespace:
    def __init__(self, sync: Any) -> None:
        self._sync = sync


class AsyncClientJobs(_AsyncClientNamespace):
    async def __call__(self, bank: str | None = None, *, status: str | None = None,
                       limit: int = 100) -> builtins.list[Job]:
        return await asyncio.to_thread(self._sync.list, bank, status=status, limit=limit)


class AsyncClientBanks(_AsyncClientNamespace):
    async def __call__(self) -> builtins.list[BankInfo]:
        return await asyncio.to_thread(self._sync.list)


class AsyncClientBrowse(_AsyncClientNamespace):
    pass


class AsyncClientModels(_AsyncClientNamespace):
    pass


class ClientSession:
    """A session's calls over HTTP (what :meth:`Client.session` gives): ``add``, ``show``, ``turns``,
    ``render`` and ``summary``, answered as :class:`gieok.engine.working_memory.Session` answers them."""

    def __init__(self, client: Client, bank: str, session_id: str, *, max_tokens: int, keep_recent: int,
                 user_id: str | None) -> None:
        self._client, self.bank, self.session_id, self.user_id = client, bank, session_id, user_id
        self.max_tokens, self.keep_recent = max_tokens, keep_recent
        self._path = f"/v1/banks/{_q(bank)}/sessions/{_q(session_id)}"

    def add(self, role: str, content: str) -> int:
        body = _drop_none({"role": role, "content": content, "user_id": self.user_id, "max_tokens": self.max_tokens,
                           "keep_recent": self.keep_recent})
        return int(self._client._call("POST", f"{self._path}/turns", body)["position"])

    def show(self, query: str | None = None, max_tokens: int = 4000) -> dict[str, Any]:
        params = _drop_none({"query": query, "max_tokens": max_tokens, "session_tokens": self.max_tokens,
                             "keep_recent": self.keep_recent, "user_id": self.user_id})
        return self._client._call("GET", f"{self._path}?{urlencode(params)}")  # type: ignore[no-any-return]

    def turns(self) -> list[dict[str, Any]]:
        return self.show()["turns"]  # type: ignore[no-any-return]

    def render(self) -> list[dict[str, str]]:
        return self.show()["messages"]  # type: ignore[no-any-return]

    @property
    def summary(self) -> str:
        return str(self.show()["summary"])


class AsyncClient:
    """The async twin of :class:`Client` (as :class:`gieok.AsyncMemory` is of Memory): every call of
    Client as a coroutine, run in a worker thread on Client's connection pool."""

    def __init__(self, url: str = "http://127.0.0.1:8765", *, api_key: str | None = None, timeout: float = 120.0,
                 transport: httpx.BaseTransport | None = None) -> None:
        self._sync = Client(url, api_key=api_key, timeout=timeout, transport=transport)
        self.url = self._sync.url
        self.jobs, self.banks = AsyncClientJobs(self._sync.jobs), AsyncClientBanks(self._sync.banks)
        self.browse, self.models = AsyncClientBrowse(self._sync.browse), AsyncClientModels(self._sync.models)

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await asyncio.to_thread(self._sync.close)

    async def session(self, bank: str, session_id: str, *, max_tokens: int = 3000, keep_recent: int = 6,
                      user_id: str | None = None) -> AsyncClientSession:
        """:meth:`Client.session`, whose calls are coroutines too."""
        return AsyncClientSession(self._sync.session(bank, session_id, max_tokens=max_tokens,
                                                     keep_recent=keep_recent, user_id=user_id))


class AsyncClientSession:
    """The async twin of :class:`ClientSession`; ``summary()`` for the ``summary`` property."""

    def __init__(self, session: ClientSession) -> None:
        self._sync = session
        self.bank, self.session_id, self.user_id = session.bank, session.session_id, session.user_id

    async def summary(self) -> str:
        return await asyncio.to_thread(lambda: self._sync.summary)


add_async_twins(Client, AsyncClient)
for _sync_cls, _async_cls in ((ClientJobs, AsyncClientJobs), (ClientBanks, AsyncClientBanks),
                              (ClientBrowse, AsyncClientBrowse), (ClientModels, AsyncClientModels)):
    add_async_twins(_sync_cls, _async_cls)
add_async_twins(ClientSession, AsyncClientSession)
