"""The Python and TypeScript clients against the server's API: every call of ``gieok.Client`` has a
TypeScript counterpart (``retain`` → ``retain``, ``import_chat`` → ``importChat``), and every route
of the server's OpenAPI schema is reachable from at least one of the two clients.

The TypeScript side is read from its source: each method of ``Gieok`` and ``Session`` names the
route it calls as a literal key of the generated ``paths`` type (so ``tsc`` already refuses a route
the schema lacks). The Python side is observed: each ``Client`` method is called once through an
``httpx.MockTransport`` that records the request it sends and stops it there.
"""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from gieok.client import Client, ClientSession

CLIENT = Path(__file__).resolve().parent.parent / "clients" / "typescript"

# Client's calls with no TypeScript method, each with why. A method added to Client fails the
# parity test until it is added to the TypeScript client or written here.
NOT_IN_TYPESCRIPT = {
    "close": "Client closes its httpx connection pool; the TypeScript client holds none (each call is one fetch)",
    "should_recall": "answered in-process by the Python recall gate (a learned model), with no route to call",
}
# Client's namespaces (client.banks.create …, as Memory's) and the TypeScript method of each call
NAMESPACED = {
    ("banks", "list"): "banks", ("banks", "create"): "createBank", ("banks", "delete"): "deleteBank",
    ("browse", "overview"): "overview", ("browse", "source_facts"): "sourceFacts",
    ("browse", "connections"): "connections", ("browse", "entity"): "entity",
    ("browse", "merge_suggestions"): "mergeSuggestions",
    ("models", "add"): "addMentalModel", ("models", "get"): "mentalModel", ("models", "list"): "mentalModels",
    ("models", "delete"): "deleteMentalModel",
    ("jobs", "list"): "jobs", ("jobs", "get"): "operation", ("jobs", "cancel"): "cancelOperation",
    ("jobs", "retry"): "retryOperation",
}
# namespace calls answered without a route of their own, each with why
NAMESPACED_LOCALLY = {("banks", "names"): "the names of client.banks(): the same route"}
# arguments for calling each Client method once: by parameter name, else a plain string
_ARGUMENTS: dict[str, Any] = {"path_or_bytes": "안녕 hello".encode(), "format": "kakaotalk", "policy": None,
                              "model": None, "embedder": "fake",
                              "src": b'{"record":"header","format":"gieok-bank","version":1,"bank":"minji"}\n'}
# more calls than one per method, for a method that reaches two routes
_MORE_CALLS: list[tuple[str, tuple[Any, ...]]] = [("jobs", ("민지",))]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _typescript_methods(file: str, cls: str) -> set[str]:
    text = (CLIENT / "src" / file).read_text(encoding="utf-8")
    body = text.split(f"export class {cls} ", 1)[1].split("\n}\n", 1)[0]
    names = set(re.findall(r"^  (?:async )?(?:get )?(\w+)\(", body, flags=re.MULTILINE))
    return names - {"constructor"}


def _typescript_routes() -> set[tuple[str, str]]:
    calls = re.compile(r'call\(\s*"(get|post|put|delete)",\s*"([^"]+)"')
    return {(method.upper(), route) for file in sorted((CLIENT / "src").glob("*.ts")) if file.name != "schema.ts"
            for method, route in calls.findall(file.read_text(encoding="utf-8"))}


def _schema_routes() -> set[tuple[str, str]]:
    schema = json.loads((CLIENT / "openapi.json").read_text(encoding="utf-8"))
    return {(method.upper(), path) for path, operations in schema["paths"].items() for method in operations}


def _public(cls: type) -> set[str]:
    return {n for n, v in vars(cls).items() if not n.startswith("_") and (callable(v) or isinstance(v, property))}


class _Sent(Exception):
    """Stops a recorded request before any answer has to be made up."""


def _python_requests() -> list[httpx.Request]:
    sent: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        raise _Sent

    client = Client("http://gieok.test", transport=httpx.MockTransport(record))
    session = client.session("민지", "chat-1")
    calls = [(getattr(client, name), _arguments_of(getattr(Client, name)))
             for name in sorted(_public(Client) - set(NOT_IN_TYPESCRIPT) - {"session"})]
    calls += [(getattr(client, name), args) for name, args in _MORE_CALLS]
    calls += [(getattr(getattr(client, space), name), _arguments_of(getattr(type(getattr(client, space)), name)))
              for space, name in NAMESPACED]
    calls += [(getattr(session, name), _arguments_of(getattr(ClientSession, name))) for name in ("add", "show")]
    with client:
        for method, args in calls:
            with pytest.raises(_Sent):
                method(*args)
    return sent


def _arguments_of(function: Any) -> tuple[Any, ...]:
    required = [p for p in list(inspect.signature(function).parameters.values())[1:]
                if p.default is inspect.Parameter.empty and p.kind is p.POSITIONAL_OR_KEYWORD]
    return tuple(_ARGUMENTS.get(p.name, "민지") for p in required)


def _route_of(request: httpx.Request, routes: set[tuple[str, str]]) -> set[tuple[str, str]]:
    def pattern(route: str) -> re.Pattern[str]:
        return re.compile("^" + re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(route)) + "$")

    return {(method, route) for method, route in routes
            if method == request.method and pattern(route).match(request.url.path)}


def test_every_client_method_has_a_typescript_counterpart() -> None:
    ours = _typescript_methods("index.ts", "Gieok")
    missing = {name: _camel(name) for name in _public(Client) - set(NOT_IN_TYPESCRIPT) if _camel(name) not in ours}
    assert not missing, f"Client methods with no TypeScript method on Gieok (add them to clients/typescript): {missing}"
    assert set(NOT_IN_TYPESCRIPT) <= _public(Client), "an excuse for a method Client no longer has"
    assert not {_camel(name) for name in NOT_IN_TYPESCRIPT} & ours, "excused, yet the TypeScript client has it"


def test_every_namespace_call_of_the_client_has_a_typescript_counterpart() -> None:
    ours = _typescript_methods("index.ts", "Gieok")
    client = Client("http://gieok.test")
    offered = {(space, name) for space in {s for s, _ in NAMESPACED}
               for name in _public(type(getattr(client, space)))}
    client.close()
    assert offered == set(NAMESPACED) | set(NAMESPACED_LOCALLY), "a namespace call with no TypeScript name here"
    missing = {call: ts for call, ts in NAMESPACED.items() if ts not in ours}
    assert not missing, f"namespace calls with no TypeScript method on Gieok: {missing}"


def test_every_client_session_call_has_a_typescript_counterpart() -> None:
    ours = _typescript_methods("session.ts", "Session")
    assert {_camel(name) for name in _public(ClientSession)} <= ours


def test_the_typescript_client_calls_only_routes_of_the_schema() -> None:
    assert _typescript_routes() <= _schema_routes()


def test_every_route_of_the_schema_is_reachable_from_a_client() -> None:
    routes = _schema_routes()
    python = set().union(*(_route_of(request, routes) for request in _python_requests()))
    typescript = _typescript_routes()
    unreachable = sorted(routes - python - typescript)
    assert not unreachable, f"routes neither client calls (add a method to clients/typescript or gieok/client.py): " \
                            f"{unreachable}"
    assert len(python) >= 40 and len(typescript) >= 45  # the recording itself works


def test_the_recording_sees_a_korean_bank_and_an_english_one() -> None:
    # what the route matching reads is the decoded path: a Korean bank is one segment, as an English one
    request = httpx.Request("GET", "http://gieok.test/v1/banks/%EB%AF%BC%EC%A7%80/sources")
    english = httpx.Request("GET", "http://gieok.test/v1/banks/alice/sources/chat-1")
    routes = _schema_routes()
    assert _route_of(request, routes) == {("GET", "/v1/banks/{bank}/sources")}
    assert _route_of(english, routes) == {("GET", "/v1/banks/{bank}/sources/{source_id}")}
    assert _camel("import_chat") == "importChat" and _camel("merge_suggestions") == "mergeSuggestions"
