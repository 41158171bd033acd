"""A property-based fuzz of the HTTP API from its own OpenAPI schema (schemathesis), in-process (ASGI),
on SQLite and PostgreSQL: whatever a request holds — valid by the schema or not — the answer is never
a 500, never carries a traceback, and every error is the one problem+json body. Kept to a few
examples per route so the whole run stays near a minute."""

from __future__ import annotations

import json
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from pg_server import pg_dsn_factory  # noqa: F401
from schemathesis import GenerationMode

from gieok import Memory
from gieok.engine.admin import keys
from gieok.server.app import create_app

SEEDED = "민지"  # a bank with memories, so that reads reach the engine instead of stopping at 404
PROBLEM_FIELDS = {"type", "title", "status", "detail"}
TRACEBACK_MARKS = ("Traceback (most recent call last)", 'File "/', "site-packages")
# revoking the fuzz's own key would turn every later request into a 401 and test nothing
SKIPPED = {("DELETE", "/v1/keys/{key_id}")}


@pytest.fixture
def admin_key(store_mem: Memory) -> str:
    store_mem.retain(SEEDED, [{"id": "m1", "speaker": "민지", "text": "나 땅콩 알레르기 있어."},
                              {"id": "m2", "speaker": "Minji", "text": "My sister Hana lives in Toronto."}],
                     document_id="chat-1")
    _, key = keys.create_key(store_mem.engine, role="admin")
    return key


# per route: requests valid by the schema reach the engine (the hostile values of issue 32 were all
# valid JSON of the right type), invalid ones mostly stop at the schema; about 30 s per store
EXAMPLES = {GenerationMode.POSITIVE: 25, GenerationMode.NEGATIVE: 3}


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_request_breaks_the_api(store_mem: Memory, admin_key: str, mode: GenerationMode) -> None:
    auth = {"Authorization": f"Bearer {admin_key}"}
    # warm_up=False: /ready is 200 at once (the ASGI calls run no lifespan, which would start the warm-up)
    app = create_app(store_mem, mcp=False, worker=False, ui=False, require_keys=True, warm_up=False)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app, headers=auth)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) > 25  # every route of the API is in the schema, so every route is fuzzed
    for operation in operations:
        if (operation.method.upper(), operation.path) in SKIPPED:
            continue

        @given(operation.as_strategy(mode))
        @settings(max_examples=EXAMPLES[mode], deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def fuzz(case: Any) -> None:
            _check(case, auth)

        try:
            fuzz()
        except Unsatisfiable:
            assert mode == GenerationMode.NEGATIVE  # a route without parameters has no invalid request


def _check(case: Any, auth: dict[str, str]) -> None:
    bank = (case.path_parameters or {}).get("bank")
    if isinstance(bank, str) and len(bank) % 2 == 0 and case.method.upper() != "DELETE":
        case.path_parameters["bank"] = SEEDED  # half the cases read and write a bank that has memories
    response = case.call(headers=auth)
    where = f"{case.method} {case.formatted_path}"
    assert response.status_code < 500, (where, response.status_code, response.text[:500])
    assert not any(mark in response.text for mark in TRACEBACK_MARKS), (where, response.text[:500])
    if response.status_code >= 400:
        content_type = response.headers.get("content-type") or [""]  # each header: the list of its values
        assert content_type[0].startswith("application/problem+json"), (where, response.text[:300])
        body = json.loads(response.text)
        assert PROBLEM_FIELDS <= set(body) and body["status"] == response.status_code, (where, body)
        assert isinstance(body["detail"], str) and body["detail"], (where, body)
