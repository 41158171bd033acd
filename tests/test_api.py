"""The public surface: exported names, the async twin, settings, providers."""

from __future__ import annotations

import asyncio
import inspect

import pytest

import gieok
from gieok import AsyncMemory, ConfigError, Memory, UnknownProviderError
from gieok.providers import available, create
from gieok.settings import SETTINGS, resolve_settings


def test_public_names_are_pinned() -> None:
    assert sorted(gieok.__all__) == sorted([
        "AsyncMemory", "AsyncClient", "Client", "AuthError", "KeyRequiredError", "OperationNotFoundError",
        "OperationStateError", "ClaimLostError",
        "PermissionDeniedError",
        "EntityInfo", "Operation", "Directive", "Disposition",
        "BankInfo", "BankNotFoundError", "BlockedContentError", "ChannelHit", "ConfigError",
        "EmbedderMismatchError", "EntityNotFoundError", "ErasureProof", "ExtractionError", "ForgetResult",
        "FileFormatError", "GieokError", "InputError", "InternalError", "InvalidMessageError", "InvalidTimeError",
        "LLMAuthError", "LLMConfigError", "LLMError", "LLMOutputError", "LLMRateLimitError", "LLMRequestError",
        "LLMUnavailableError", "Memory", "MemoryNotFoundError", "Message", "MissingExtensionError",
        "NotFoundError", "Recall", "RecalledMemory", "RedactionPolicy", "Reflection", "RerankerError",
        "RerankerUnavailableError", "SensitiveIdError", "SpendLimitError", "RetainResult", "SourceInfo",
        "SourceNotFoundError",
        "StoreBusyError", "StoreError", "TimeMention", "UnknownProviderError", "UnreadableLineError", "__version__",
        "find_time_expressions",
        "parse_time_range", "redact",
        "CorruptDocumentError", "DocumentError", "DocumentTooLargeError", "EmptyDocumentError",
        "EncryptedDocumentError", "FormatMismatchError", "ScannedPageError", "UnsupportedFormatError", "IngestResult",
        "ImportResult", "Scope", "ScopeError", "ScopeConflictError", "ReembedRunningError",
        "SessionUserError", "HeldNotFoundError", "HeldStatement", "ApiKey", "Principal", "Profile", "Slot",
        "BankImport", "BankFileError", "BankExistsError",
    ])
    for name in gieok.__all__:
        assert hasattr(gieok, name)


def _public_methods(cls: type) -> set[str]:
    return {n for n, v in vars(cls).items() if not n.startswith("_") and callable(v)}


# The public API, written out: a method added to Memory must be added here (and gets its twin), a
# method lost from either side fails.
PUBLIC_METHODS = {
    "quarantined", "release", "dismiss", "configure_decisions",
    "retain", "recall", "reflect", "sources", "source", "get", "history", "observations", "forget",
    "verify_erased", "redaction_policy", "set_redaction_policy", "audit_log", "configure_llm",
    "llm_usage", "maintain", "run_jobs", "close", "submit_retain", "operation", "entities",
    "ingest", "pin", "import_chat", "session", "should_recall", "profile", "lookup", "reembed",
    "set_disposition", "disposition", "set_directives", "directives",
    "export_bank", "iter_export", "import_bank", "clone_bank", "rename_bank", "warm_up",
}
# the verbs grouped as namespaces (mem.keys.create, mem.jobs.run, ...), written out the same way
NAMESPACES = {
    "keys": {"create", "list", "revoke", "count", "authenticate", "shared_secret"},
    "jobs": {"list", "run", "maintain", "get", "cancel", "retry", "claim", "run_claimed", "release", "heartbeat",
             "warm_up"},
    "banks": {"list", "names", "check_name", "create", "delete"},
    "browse": {"overview", "source_facts", "connections", "entity", "merge_suggestions"},
    "models": {"add", "get", "list", "delete"},
}


def test_async_twin_has_the_same_methods() -> None:
    assert _public_methods(Memory) == PUBLIC_METHODS
    assert _public_methods(AsyncMemory) == PUBLIC_METHODS
    for name in PUBLIC_METHODS:
        sync, twin = inspect.signature(getattr(Memory, name)), inspect.signature(getattr(AsyncMemory, name))
        if name == "session":  # gives an AsyncSession, whose methods are coroutines too
            assert twin.parameters == sync.parameters
            continue
        assert twin == sync, name
    for name in _public_methods(Memory):
        assert inspect.iscoroutinefunction(getattr(AsyncMemory, name)), name


def test_every_namespace_has_its_async_twin(db_path: str, fake_embedder) -> None:
    async def run() -> None:
        async with AsyncMemory(db_path, embedder="fake") as amem:
            for space, methods in NAMESPACES.items():
                sync, twin = getattr(amem._sync, space), getattr(amem, space)
                assert _public_methods(type(sync)) == methods, space
                assert _public_methods(type(twin)) == methods, space
                for name in methods:
                    assert inspect.iscoroutinefunction(getattr(twin, name)), (space, name)
                    assert inspect.signature(getattr(type(twin), name)) == inspect.signature(getattr(type(sync), name))
            await amem.banks.create("민지")
            assert [b.name for b in await amem.banks()] == ["민지"]  # callable, as mem.banks() is
            assert await amem.jobs("민지") == await amem.jobs.list("민지")
            assert (await amem.browse.overview("민지")).facts == 0

    asyncio.run(run())


def test_async_memory_works(db_path: str, fake_embedder) -> None:
    async def run() -> list[str]:
        async with AsyncMemory(db_path, embedder="fake") as mem:
            await mem.retain("a", [{"id": "1", "speaker": "a", "text": "민지는 필라테스를 해"}])
            result = await mem.recall("a", "필라테스")
            return [m.text for m in result.memories]

    assert asyncio.run(run()) == ["민지는 필라테스를 해"]


def test_an_async_session_works(db_path: str, fake_embedder) -> None:
    async def run() -> tuple[list[dict[str, str]], list[str]]:
        async with AsyncMemory(db_path, embedder="fake") as mem:
            session = await mem.session("a", "s1")
            await session.add("user", "나는 우유를 못 마셔.")
            await session.add("user", "I can't drink milk either.")
            found = await session.context("what can't I drink?")
            return await session.render(), [m.text for m in found.memories]

    rendered, memories = asyncio.run(run())
    assert [m["content"] for m in rendered] == ["나는 우유를 못 마셔.", "I can't drink milk either."]
    assert not memories  # both are recent turns already, so recall adds neither again


def test_unknown_settings_are_refused() -> None:
    with pytest.raises(ConfigError, match="unknown setting 'candidate'"):
        resolve_settings({"candidate": 10})
    with pytest.raises(ConfigError, match="must be int"):
        resolve_settings({"candidates": "sixty"})
    assert resolve_settings({}, env={"GIEOK_CANDIDATES": "30"}).candidates == 30
    assert resolve_settings({"candidates": 10}, env={"GIEOK_CANDIDATES": "30"}).candidates == 10
    assert {s.name for s in SETTINGS} >= {"embedder", "fusion", "candidates"}


@pytest.mark.parametrize("name", ["rrf_k", "korean_keyword_weight", "superseded_weight", "same_message_weight",
                                  "other_speaker_weight", "present_recency", "graph_weight"])
def test_settings_the_learned_ranker_replaced_are_refused_with_the_reason(name: str) -> None:
    with pytest.raises(ConfigError, match=f"setting '{name}' no longer exists: recall's learned ranker"):
        resolve_settings({name: 1})
    assert name not in {s.name for s in SETTINGS}


def test_memory_refuses_unknown_settings(db_path: str) -> None:
    with pytest.raises(ConfigError):
        Memory(db_path, rrfk=3)


def test_unknown_provider_lists_what_exists() -> None:
    with pytest.raises(UnknownProviderError, match="e5-small, use-multilingual"):
        create("embedder", "nope")
    assert {"e5-small", "use-multilingual"} <= set(available("embedder"))
