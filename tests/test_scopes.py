"""Scopes (issue #17): user / agent / session / tags on retain, filters and weights on recall, in
Korean and English, on SQLite and PostgreSQL. A user's memories never reach another user's recall
through any channel, observation, mental model or reflect quote."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)

from gieok import InputError, Memory, ScopeConflictError, ScopeError, SensitiveIdError
from gieok.records import Scope, ScopeFilter
from gieok.store import PostgresStore


@pytest.fixture
def scoped(store_mem: Memory) -> Memory:
    """Memory on SQLite, then on PostgreSQL (conftest's ``store_mem``)."""
    return store_mem


def _chat(mem: Memory, user: str | None, prefix: str, *texts: str, **scope: Any) -> None:
    messages = [{"id": f"{prefix}-{i}", "speaker": user or "agent", "text": t,
                 "timestamp": f"2026-05-{10 + i:02d}T10:00:00+09:00"} for i, t in enumerate(texts)]
    mem.retain("team", messages, document_id=f"chat-{prefix}", user_id=user, **scope)


def _users(memories: Any) -> set[str | None]:
    return {m.user_id for m in memories}


# -- retain: scope and metadata stored and inherited -----------------------------------------
def test_retain_stores_the_scope_and_metadata_and_every_fact_inherits_them(scoped: Memory) -> None:
    scoped.retain("team", [{"id": "a1", "speaker": "민지", "text": "나 땅콩 알레르기 있어"},
                           {"id": "a2", "speaker": "민지", "text": "I drink oat milk now"}],
                  document_id="chat-a", user_id="u-minji", agent_id="helper", session_id="s-1",
                  tags=["health", "음식"], metadata={"channel": "kakao", "n": 1})
    source = scoped.source("team", "chat-a")
    assert source.scope == Scope("u-minji", "helper", "s-1", ("health", "음식"))
    assert source.metadata == {"channel": "kakao", "n": 1}
    recalled = scoped.recall("team", "땅콩 알레르기", user_id="u-minji").memories
    assert recalled
    for memory in recalled:
        assert (memory.user_id, memory.agent_id, memory.session_id) == ("u-minji", "helper", "s-1")
        assert memory.tags == ["health", "음식"] and memory.metadata == {"channel": "kakao", "n": 1}
    got = scoped.get("team", recalled[0].id)
    assert got.metadata == {"channel": "kakao", "n": 1} and got.user_id == "u-minji"
    assert recalled[0].to_dict()["metadata"] == {"channel": "kakao", "n": 1}


def test_a_document_and_its_chunks_carry_the_scope(scoped: Memory) -> None:
    text = "\n\n".join([f"환불 정책 {i}조: 구매 후 {i + 7}일 안에 환불할 수 있어요. " * 12 for i in range(4)]
                       + ["Refunds of sale items are store credit only. " * 20])
    result = scoped.retain("team", text=text, document_id="policy.md", agent_id="support", tags=["policy"],
                           metadata={"version": 3})
    assert result.chunks_total >= 2 and result.facts_added > 2
    memories = scoped.recall("team", "환불 며칠 refunds", tags=["policy"], limit=50).memories
    assert len({m.id for m in memories}) > 2
    facts = [f for per_message in scoped.browse.source_facts("team", "policy.md").values() for f in per_message]
    assert len(facts) == result.facts_added and all(f.tags == ["policy"] for f in facts)
    assert all(m.agent_id == "support" and m.tags == ["policy"] and m.user_id is None for m in memories)
    assert all(m.metadata == {"version": 3} for m in memories)
    assert scoped.recall("team", "환불 며칠", tags=["other"]).memories == []


def test_metadata_of_a_conversation_is_kept_until_a_call_gives_new(scoped: Memory) -> None:
    _chat(scoped, "u1", "c", "첫 메시지예요", metadata={"app": "web"})
    _chat(scoped, "u1", "c", "첫 메시지예요", "second message here")
    assert scoped.source("team", "chat-c").metadata == {"app": "web"}


@pytest.mark.parametrize("kwargs, match", [
    ({"user_id": ""}, "user_id must be a non-empty string"),
    ({"user_id": 42}, "user_id must be a non-empty string"),
    ({"agent_id": "x" * 300}, "at most 200 characters"),
    ({"session_id": "a\nb"}, "control characters"),
    ({"tags": "work"}, "tags must be a list"),
    ({"tags": ["ok", ""]}, "a tag must be a non-empty string"),
    ({"tags": [f"t{i}" for i in range(40)]}, "at most 32"),
])
def test_bad_scopes_are_refused_with_a_fix(mem: Memory, kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ScopeError, match=match):
        mem.retain("b", text="문서 본문입니다", **kwargs)
    assert mem.banks() == []  # nothing stored
    assert issubclass(ScopeError, InputError)


def test_a_scope_id_holding_an_identifier_is_refused_not_stored(mem: Memory) -> None:
    with pytest.raises(SensitiveIdError, match="user_id"):
        mem.retain("b", text="문서 본문입니다", user_id="minji@example.com")


def test_a_source_keeps_its_scope(scoped: Memory) -> None:
    _chat(scoped, "u1", "c", "민지는 필라테스를 해")
    with pytest.raises(ScopeConflictError, match="retained with user 'u1'"):
        _chat(scoped, "u2", "c", "민지는 필라테스를 해", "I like tennis")
    # another user reusing a message id in a new conversation cannot take over u1's message
    with pytest.raises(ScopeConflictError):
        scoped.retain("team", [{"id": "c-0", "speaker": "u2", "text": "다른 내용으로 바꿔"}], document_id="chat-x",
                      user_id="u2")
    assert [m.text for m in scoped.source("team", "chat-c").messages] == ["민지는 필라테스를 해"]


# -- recall: the hard filter ------------------------------------------------------------------
def _two_users(mem: Memory) -> None:
    _chat(mem, "u-ana", "ana", "나 땅콩 알레르기 있어", "I work at Samsung as a designer", "민지랑 한라산 등산 갔어")
    _chat(mem, "u-bo", "bo", "나는 새우 알레르기가 있어", "I work at Kakao as an engineer", "민지랑 지리산 등산 갔어")
    mem.retain("team", text="회사 휴가 규정: 연차는 15일입니다. Annual leave is 15 days.", document_id="handbook")


@pytest.mark.parametrize("query", ["알레르기 있어?", "where do I work", "민지랑 어디 등산 갔어?", "지난주에 뭐 했어?",
                                   "what happened in May 2026"])
def test_a_user_filtered_recall_sees_only_that_user_and_shared_memories(scoped: Memory, query: str) -> None:
    _two_users(scoped)
    scoped.run_jobs("team")  # observations too
    for user, other in (("u-ana", "u-bo"), ("u-bo", "u-ana")):
        found = scoped.recall("team", query, user_id=user, limit=50, now="2026-05-20T00:00:00+09:00").memories
        assert other not in _users(found)
        assert all(m.user_id in (user, None) for m in found)
        for memory in found:
            if memory.type == "observation":
                assert all(scoped.get("team", f).user_id in (user, None) for f in memory.based_on)
    both = scoped.recall("team", "알레르기", limit=50).memories
    assert {"u-ana", "u-bo"} <= _users(both)  # without a filter the bank sees everything


def test_shared_memories_are_included_unless_include_shared_is_false(scoped: Memory) -> None:
    _two_users(scoped)
    with_shared = scoped.recall("team", "연차 휴가 며칠?", user_id="u-ana").memories
    assert any(m.source_id == "handbook" for m in with_shared)
    without = scoped.recall("team", "연차 휴가 며칠?", user_id="u-ana", include_shared=False, limit=50).memories
    assert all(m.user_id == "u-ana" for m in without)


def test_agent_session_and_tag_filters(scoped: Memory) -> None:
    _chat(scoped, "u1", "s1", "I booked the Jeju hotel", session_id="trip-1", agent_id="travel", tags=["trip"])
    _chat(scoped, "u1", "s2", "제주 호텔 취소했어", session_id="trip-2", agent_id="travel", tags=["trip", "cancel"])
    _chat(scoped, "u1", "s3", "Jeju hotel review was bad", session_id="misc", agent_id="chat")
    ids = {m.session_id for m in scoped.recall("team", "Jeju hotel 제주 호텔", user_id="u1", limit=50).memories}
    assert ids == {"trip-1", "trip-2", "misc"}
    trip = scoped.recall("team", "Jeju hotel 제주 호텔", session_id="trip-2").memories
    assert {m.session_id for m in trip} == {"trip-2"}
    assert {m.agent_id for m in scoped.recall("team", "Jeju hotel 제주 호텔", agent_id="travel").memories} == {"travel"}
    tagged = scoped.recall("team", "Jeju hotel 제주 호텔", tags=["trip", "cancel"]).memories
    assert {m.session_id for m in tagged} == {"trip-2"}


def test_scope_weights_re_rank_by_the_scope_a_memory_matches(scoped: Memory) -> None:
    _chat(scoped, "u1", "old", "Hiking with my dad is always fun", session_id="old")
    _chat(scoped, "u1", "new", "The new hiking boots were expensive", session_id="new")
    plain = scoped.recall("team", "hiking", user_id="u1", session_id="new").memories
    assert {m.session_id for m in plain} == {"new"}  # a filter without weights
    unweighed = {m.session_id: m.score for m in scoped.recall("team", "hiking", user_id="u1", scopes={"session": 1.0},
                                                               session_id="new").memories}
    weighed = scoped.recall("team", "hiking", user_id="u1", session_id="new", scopes={"session": 10.0},
                            explain=True).memories
    assert {m.session_id for m in weighed} == {"old", "new"}  # weighed, no longer filtered
    # the weight multiplies the ranker's score (0..1): ten times lifts the session's memory to the top
    assert weighed[0].session_id == "new" and weighed[0].score == pytest.approx(10 * unweighed["new"])
    assert weighed[0].explanation is not None and weighed[0].explanation["multipliers"]["scope"] == 10.0
    demoted = scoped.recall("team", "hiking", user_id="u1", session_id="new", scopes={"session": 0.1}).memories
    assert demoted[0].session_id == "old"


@pytest.mark.parametrize("scopes, match", [
    ({"project": 1.0}, "names 'project'"),
    ({"session": 0}, "positive number"),
    ({"session": True}, "positive number"),
    ({"agent": 1.2}, "gives no agent_id"),
    ("session", "scopes must map"),
    (None, "include_shared=False leaves out"),
])
def test_bad_scope_weights_are_refused(mem: Memory, scopes: Any, match: str) -> None:
    mem.retain("b", text="문서 본문입니다")
    with pytest.raises(ScopeError, match=match):
        if scopes is None:
            mem.recall("b", "문서", include_shared=False)
        mem.recall("b", "문서", session_id="s", scopes=scopes)


def test_a_user_filter_never_reaches_another_users_facts_through_the_graph(scoped: Memory) -> None:
    # both users talk about 김민지; the graph channel's entity expansion must stay inside u-ana's facts
    _chat(scoped, "u-ana", "ana", "김민지 팀장님은 필라테스를 해", "김민지 팀장님이랑 점심 먹었어")
    _chat(scoped, "u-bo", "bo", "김민지 팀장님은 테니스를 쳐", "김민지 팀장님 생일은 3월이야")
    found = scoped.recall("team", "민지 팀장은 무슨 운동 해?", user_id="u-ana", limit=50, explain=True).memories
    assert found and _users(found) == {"u-ana"}
    assert all("테니스" not in m.text and "생일" not in m.text for m in found)


def test_observations_are_written_per_user(scoped: Memory) -> None:
    _chat(scoped, "u-ana", "ana", "김민지 팀장님은 필라테스를 해")
    _chat(scoped, "u-bo", "bo", "김민지 팀장님은 테니스를 쳐")
    scoped.run_jobs("team")
    observations = scoped.observations("team")
    assert len(observations) >= 2
    assert all(len({scoped.get("team", f).user_id for f in o.based_on}) == 1 for o in observations)
    recalled = scoped.recall("team", "김민지 운동", user_id="u-ana", limit=50).memories
    ana = [m for m in recalled if m.type == "observation"]
    assert ana and all("테니스" not in m.text for m in ana)


def test_reflect_answers_only_from_the_users_memories(scoped: Memory) -> None:
    _chat(scoped, "u-ana", "ana", "my locker code is 4417")
    _chat(scoped, "u-bo", "bo", "my locker code is 9902")
    answer = scoped.reflect("team", "what is my locker code?", user_id="u-ana")
    assert "9902" not in answer.answer
    assert all(b.get("source_id") != "chat-bo" for b in answer.based_on)
    scoped.models.add("team", "codes", "what is my locker code?")
    model = scoped.models.get("team", "codes")
    assert model.answer
    # the bank-wide standing answer rests on both users' memories: a user-filtered reflect does not use it
    filtered = scoped.reflect("team", "what is my locker code?", user_id="u-ana")
    assert filtered.source != "mental_model" and "9902" not in filtered.answer


def test_forget_a_user_erases_every_source_of_theirs(scoped: Memory) -> None:
    _two_users(scoped)
    scoped.run_jobs("team")
    result = scoped.forget("team", user_id="u-bo", verify=True)
    assert result.selector == {"user_id": "u-bo"} and result.erased["facts"] > 0
    assert result.proof is not None and result.proof.clean, result.proof.found
    assert "chat-bo" not in {s.id for s in scoped.sources("team")}
    assert "u-bo" not in _users(scoped.recall("team", "알레르기 등산 work", limit=100).memories)
    assert scoped.recall("team", "새우 알레르기", user_id="u-bo", include_shared=False).memories == []
    with scoped.store.write():  # no scope row outlives the erase
        pass
    assert scoped.store.sources.of_user(scoped.store.banks.get("team").id, "u-bo") == []  # type: ignore[union-attr]


def test_scope_filter_admits_is_the_sql_rule() -> None:
    ana, shared = Scope("ana", "bot", "s", ("a", "b")), Scope()
    assert ScopeFilter(user_id="ana").admits(shared)
    assert not ScopeFilter(user_id="ana", include_shared=False).admits(shared)
    assert not ScopeFilter(user_id="bo").admits(ana)
    assert ScopeFilter(tags=("a",)).admits(ana) and not ScopeFilter(tags=("a", "c")).admits(ana)
    assert not ScopeFilter(agent_id="bot").admits(shared)


# -- the property: random users, random facts, zero leaks -----------------------------------
KO_WORDS = ["땅콩", "알레르기", "한라산", "등산", "회사", "점심", "커피", "제주", "여행", "필라테스", "민지", "생일"]
EN_WORDS = ["peanut", "allergy", "hiking", "office", "lunch", "coffee", "travel", "tennis", "birthday", "Jeju"]
_sentence = st.lists(st.sampled_from(KO_WORDS + EN_WORDS), min_size=2, max_size=6).map(" ".join)
_bank_content = st.lists(st.tuples(st.sampled_from(["u-1", "u-2", "u-3", None]), _sentence), min_size=2, max_size=12)


def _no_leaks(mem: Memory, bank: str, content: list[tuple[str | None, str]], queries: list[str]) -> None:
    for i, (user, text) in enumerate(content):
        mem.retain(bank, [{"id": f"m{i}", "speaker": user or "agent", "text": text,
                           "timestamp": f"2026-05-{1 + i % 28:02d}T09:00:00+00:00"}],
                   document_id=f"c{i}", user_id=user)
    mem.run_jobs(bank)
    for user in ("u-1", "u-2", "u-3"):
        for query in queries:
            for include_shared in (True, False):
                found = mem.recall(bank, query, user_id=user, include_shared=include_shared, limit=100,
                                   now="2026-05-20T00:00:00+00:00").memories
                allowed = {user, None} if include_shared else {user}
                assert _users(found) <= allowed, (user, query, [(m.user_id, m.text) for m in found])
                for memory in found:
                    if memory.type == "observation":
                        assert {mem.get(bank, f).user_id for f in memory.based_on} <= allowed


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=_bank_content, queries=st.lists(_sentence, min_size=1, max_size=2))
def test_property_no_user_sees_another_users_memory_sqlite(tmp_path: Path, fake_embedder: object,
                                                           content: list[tuple[str | None, str]],
                                                           queries: list[str]) -> None:
    with Memory(str(tmp_path / "property.db"), embedder="fake") as mem:
        bank = f"p{abs(hash((tuple(content), tuple(queries)))) % 10**9}"
        _no_leaks(mem, bank, content, queries + ["지난주에 뭐 했어?"])


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=_bank_content, queries=st.lists(_sentence, min_size=1, max_size=2))
def test_property_no_user_sees_another_users_memory_postgres(pg_dsn_factory: Callable[[], str],  # noqa: F811
                                                             fake_embedder: object,
                                                             content: list[tuple[str | None, str]],
                                                             queries: list[str]) -> None:
    with Memory(store=PostgresStore(pg_dsn_factory()), embedder="fake") as mem:
        _no_leaks(mem, "property", content, queries)


# -- the channels' SQL filters (recall's Python guard is not what keeps them apart) ----------
def test_every_channel_query_filters_in_sql_and_still_fills_its_limit(scoped: Memory) -> None:
    # u-bo has many facts closer to the query than u-ana's few: a filter applied after a bank-wide
    # top-k would starve u-ana's results; applied in SQL it returns k of hers
    _chat(scoped, "u-bo", "bo", *[f"김민지 팀장님과 커피 coffee 마셨어 {i}" for i in range(12)])
    _chat(scoped, "u-ana", "ana", *[f"김민지 팀장님 커피 얘기 {i}번" for i in range(4)])
    scoped.run_jobs("team")
    store = scoped.store
    bank = store.banks.get("team")
    assert bank is not None
    ana = ScopeFilter(user_id="u-ana", include_shared=False)
    ana_facts = {f.id for f in store.facts.get(bank.id, list(store.facts.ids(bank.id)))
                 if f.scope.user_id == "u-ana"}
    vector = scoped.engine.embedder(bank.embedder).embed_query("김민지 커피 coffee")
    hits = store.search.vector(bank.id, bank.dim, vector, 3, scope=ana)
    assert {i for i, _ in hits} <= ana_facts and len(hits) == 3
    assert {i for i, _ in store.search.vector(bank.id, bank.dim, vector, 3, view="context", scope=ana)} <= ana_facts
    hits = store.search.keyword(bank.id, ["커피", "coffee", "김민지"], 3, 0.5, scope=ana)
    assert {i for i, _ in hits} <= ana_facts and len(hits) == 3
    in_range = store.facts.in_range(bank.id, 0.0, 4_000_000_000.0, 100, scope=ana)
    assert {i for i, _s, _e in in_range} == ana_facts
    entities = [e.id for e, _n in store.graph.entities(bank.id)]
    reached = {f for fs in store.graph.facts_of_entities(entities, 200, scope=ana).values() for f in fs}
    assert reached and reached <= ana_facts
    links = store.graph.links_of(sorted(ana_facts), scope=ana)
    assert all(other in ana_facts for _seed, other, _t, _w in links)
    ids, _vectors = store.observations.vectors(bank.id, ana)
    for observation in store.observations.get(bank.id, ids):
        assert set(observation.fact_ids) <= ana_facts
    assert {o for o, _t in store.observations.terms(bank.id, ana)} == set(ids)


def test_the_same_note_retained_for_two_users_is_two_documents(mem: Memory) -> None:
    first = mem.retain("b", text="회의는 목요일 3시", user_id="u-1")
    second = mem.retain("b", text="회의는 목요일 3시", user_id="u-2")
    assert first.source_id != second.source_id
    assert mem.retain("b", text="회의는 목요일 3시").source_id not in (first.source_id, second.source_id)


def test_a_submitted_retain_keeps_its_scope(mem: Memory) -> None:
    op = mem.submit_retain("b", [{"id": "q1", "speaker": "지민", "text": "다음 주에 부산 출장 가"}],
                           document_id="chat-q", user_id="u-q", session_id="s-q", tags=["work"],
                           metadata={"from": "queue"})
    mem.run_jobs("b")
    assert mem.operation(op.id).status == "done"
    found = mem.recall("b", "부산 출장", user_id="u-q", include_shared=False).memories
    assert found and (found[0].session_id, found[0].tags, found[0].metadata) == ("s-q", ["work"], {"from": "queue"})


def test_an_ingested_document_and_a_session_carry_their_scope(mem: Memory) -> None:
    mem.ingest("b", "# Refunds\n\nRefunds take 7 days.\n\n# 배송\n\n제주는 2일 더 걸려요.".encode(),
               document_id="faq.md", user_id="u-doc", tags=["faq"])
    assert {m.user_id for m in mem.recall("b", "refunds 배송", user_id="u-doc").memories} == {"u-doc"}
    assert mem.recall("b", "refunds 배송", user_id="u-other", include_shared=False).memories == []
    mem.session("b", "chat-7").add("user", "결혼식 장소는 제주 신라호텔로 하기로 했어.")
    session = mem.recall("b", "결혼식 장소", session_id="chat-7").memories
    assert session and {m.session_id for m in session} == {"chat-7"}


def test_one_users_statement_never_replaces_another_users(scoped: Memory) -> None:
    scoped.retain("team", [{"id": "w1", "speaker": "user", "text": "I work at Samsung now",
                            "timestamp": "2026-03-01T09:00:00+09:00"}], document_id="chat-w1", user_id="u-a")
    scoped.retain("team", [{"id": "w2", "speaker": "user", "text": "I work at Kakao now",
                            "timestamp": "2026-04-01T09:00:00+09:00"}], document_id="chat-w2", user_id="u-b")
    scoped.retain("team", [{"id": "w3", "speaker": "user", "text": "나 이제 네이버 다녀",
                            "timestamp": "2026-05-01T09:00:00+09:00"}], document_id="chat-w3", user_id="u-a")
    mine = scoped.recall("team", "where do I work", user_id="u-a", limit=10).memories
    samsung = next(m for m in mine if "Samsung" in m.text)
    assert samsung.superseded_by is None or scoped.get("team", samsung.superseded_by).user_id == "u-a"
    kakao = scoped.recall("team", "where do I work", user_id="u-b", limit=10).memories[0]
    assert "Kakao" in kakao.text and kakao.superseded_by is None and kakao.valid_to is None


def test_erasing_a_source_takes_its_scope_and_metadata(scoped: Memory) -> None:
    scoped.retain("team", [{"id": "e1", "speaker": "민지", "text": "비밀 프로젝트 회의는 금요일"}],
                  document_id="chat-e", user_id="u-erase", tags=["기밀태그쥐라기"],
                  metadata={"note": "Zebraquartz marker"})
    keep = scoped.retain("team", text="Shared handbook text stays.", document_id="handbook", tags=["공용"])
    assert keep.facts_added
    scoped.forget("team", source_id="chat-e")
    proof = scoped.verify_erased(["기밀태그쥐라기", "Zebraquartz marker", "u-erase"], deep=False)
    assert proof.clean, proof.found
    assert scoped.source("team", "handbook").scope.tags == ("공용",)


def test_a_users_session_retains_and_recalls_as_that_user(scoped: Memory) -> None:
    scoped.retain("team", [{"id": "o1", "speaker": "user", "text": "My locker code is 9902"}], document_id="chat-o",
                  user_id="u-other")
    session = scoped.session("team", "chat-1", user_id="u-me")
    session.add("user", "내 사물함 번호는 4417이야. My locker code is 4417")
    memories = session.context("what is my locker code?").recall
    assert memories is not None and memories.memories
    assert {m.user_id for m in memories.memories} == {"u-me"} and all("9902" not in m.text for m in memories.memories)
    source = scoped.source("team", "session:chat-1")
    assert (source.scope.user_id, source.scope.session_id) == ("u-me", "chat-1")


def test_an_imported_chat_is_the_users(mem: Memory, tmp_path: Path) -> None:
    import json

    path = tmp_path / "chat.jsonl"
    lines = [{"role": "user", "content": "우리 강아지 이름은 콩이야."},
             {"role": "user", "content": "My dog Kong loves walks."}]
    path.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines), encoding="utf-8")
    result = mem.import_chat("b", path, "jsonl", user_id="u-kong", tags=["import"])
    assert result.facts_added == 2
    found = mem.recall("b", "강아지 dog 이름", user_id="u-kong", include_shared=False).memories
    assert len(found) == 2 and all(m.tags == ["import"] for m in found)
    assert mem.recall("b", "강아지 dog 이름", user_id="u-else", include_shared=False).memories == []


def test_a_users_new_version_finds_their_old_one_among_many_users_alike(scoped: Memory) -> None:
    # twenty other users say "I work at X now" under the same speaker name: the bank-wide nearest few
    # are theirs, so u-a's older statement is found only because retain searches u-a's own facts
    def said(user: str, source: str, text: str, when: str) -> None:
        scoped.retain("team", [{"id": f"{source}-1", "speaker": "user", "text": text, "timestamp": when}],
                      document_id=source, user_id=user)

    said("u-a", "a1", "I work at Samsung now", "2026-01-01T09:00:00+09:00")
    for i, company in enumerate(["Kakao", "Naver", "Coupang", "Line", "Baemin", "Krafton", "Nexon", "Hyundai", "LG",
                                 "Lotte", "Hanwha", "Doosan", "Posco", "Daum", "Kia", "Toss", "CJ", "KT", "SK", "NC"]):
        said(f"u-{i}", f"o{i}", f"I work at {company} now", "2026-02-01T09:00:00+09:00")
    said("u-a", "a2", "I work at Musinsa now", "2026-03-01T09:00:00+09:00")
    mine = {m.text: m for m in scoped.recall("team", "where do I work", user_id="u-a").memories}
    assert mine["I work at Samsung now"].superseded_by == mine["I work at Musinsa now"].id
    others = scoped.recall("team", "where do I work", user_id="u-3", include_shared=False).memories
    assert [m.superseded_by for m in others] == [None]
