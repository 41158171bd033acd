"""gieok.integrations.langgraph: GieokStore through LangGraph's own BaseStore API (sync and async) and
inside a compiled graph: put / get / search (recall, filter, paging) / delete (forget) / list_namespaces,
one user's items never another's. Korean and English."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

import pytest
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)

from gieok import Memory

pytest.importorskip("langgraph")
from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.store.base import BaseStore, InvalidNamespaceError  # noqa: E402

from gieok.integrations.langgraph import GieokStore  # noqa: E402


def test_put_get_search_delete_through_the_base_store_api(store_mem: Memory) -> None:
    store = GieokStore(store_mem)
    assert isinstance(store, BaseStore)
    store.put(("memories", "민지"), "birthday", {"text": "내 생일은 6월 23일이야.", "kind": "date"})
    store.put(("memories", "민지"), "sister", {"text": "My sister Ana is a nurse in Busan.", "kind": "family"})
    store.put(("memories", "tom"), "birthday", {"text": "Tom's birthday is March 3.", "kind": "date"})

    item = store.get(("memories", "민지"), "birthday")
    assert item is not None and item.value == {"text": "내 생일은 6월 23일이야.", "kind": "date"}
    assert item.namespace == ("memories", "민지") and item.key == "birthday"
    assert store.get(("memories", "민지"), "nothing") is None and store.get(("nobank",), "x") is None

    found = store.search(("memories", "민지"), query="생일이 언제야?")
    assert found[0].key == "birthday" and found[0].score is not None
    assert all(i.namespace == ("memories", "민지") for i in found)  # never Tom's birthday
    assert [i.key for i in store.search(("memories", "민지"), query="What does my sister do?", limit=1)] == ["sister"]
    assert [i.key for i in store.search(("memories", "민지"), query="birthday sister", filter={"kind": "family"})] \
        == ["sister"]
    listed = store.search(("memories",))
    assert {(i.namespace[1], i.key) for i in listed} == {("민지", "birthday"), ("민지", "sister"), ("tom", "birthday")}
    assert len(store.search(("memories",), limit=2)) == 2 and len(store.search(("memories",), offset=2)) == 1
    assert store.search(("memories",), filter={"kind": {"$ne": "date"}})[0].key == "sister"

    store.put(("memories", "민지"), "birthday", {"text": "내 생일은 7월 1일로 바뀌었어.", "kind": "date"})
    updated = store.get(("memories", "민지"), "birthday")
    assert updated is not None and updated.value["text"] == "내 생일은 7월 1일로 바뀌었어."

    store.delete(("memories", "민지"), "birthday")
    assert store.get(("memories", "민지"), "birthday") is None
    assert all(i.key != "birthday" for i in store.search(("memories", "민지"), query="생일"))
    assert store_mem.verify_erased("7월 1일로 바뀌었어", deep=False).clean
    store.delete(("memories", "민지"), "birthday")  # deleting again is a no-op

    assert store.list_namespaces() == [("memories", "tom"), ("memories", "민지")]
    assert store.list_namespaces(prefix=("memories", "tom")) == [("memories", "tom")]
    assert store.list_namespaces(suffix=("민지",)) == [("memories", "민지")]
    assert store.list_namespaces(max_depth=1) == [("memories",)]


def test_index_fields_and_values_without_text(mem: Memory) -> None:
    store = GieokStore(mem)
    store.put(("prefs", "u1"), "food", {"likes": "spicy tteokbokki", "note": "ignore me"}, index=["likes"])
    store.put(("prefs", "u1"), "count", {"visits": 3})
    assert mem.source("prefs", 'langgraph:["u1", "food"]').text == "spicy tteokbokki"
    item = store.get(("prefs", "u1"), "count")
    assert item is not None and item.value == {"visits": 3}
    with pytest.raises(InvalidNamespaceError):
        store.put((), "k", {"text": "x"})


def test_the_async_api(mem: Memory) -> None:
    async def run() -> None:
        store = GieokStore(mem)
        await store.aput(("notes", "수진"), "cat", {"text": "수진이는 고양이 두 마리를 키워."})
        await store.aput(("notes", "수진"), "job", {"text": "Sujin works as a violin teacher."})
        item = await store.aget(("notes", "수진"), "cat")
        assert item is not None and item.value["text"].startswith("수진이는")
        hits = await store.asearch(("notes", "수진"), query="What is Sujin's job?", limit=1)
        assert [h.key for h in hits] == ["job"]
        await store.adelete(("notes", "수진"), "cat")
        assert await store.aget(("notes", "수진"), "cat") is None
        assert await store.alist_namespaces() == [("notes", "수진")]
    asyncio.run(run())


class _State(TypedDict):
    user: str
    message: str
    recalled: list[str]


def _remember_then_recall(state: _State, *, store: BaseStore) -> dict[str, Any]:
    namespace = ("chat", state["user"])
    store.put(namespace, f"m{len(store.search(namespace))}", {"text": state["message"]})
    return {"recalled": [i.value["text"] for i in store.search(namespace, query=state["message"], limit=3)]}


def test_a_compiled_graph_reads_and_writes_the_store(mem: Memory) -> None:
    graph = StateGraph(_State)
    graph.add_node("memory", _remember_then_recall)
    graph.add_edge(START, "memory")
    graph.add_edge("memory", END)
    app = graph.compile(store=GieokStore(mem))
    app.invoke({"user": "jin", "message": "I am allergic to peanuts.", "recalled": []})
    out = app.invoke({"user": "jin", "message": "땅콩 알레르기 있어서 조심해야 해 (peanuts)", "recalled": []})
    assert "I am allergic to peanuts." in out["recalled"]
    other = app.invoke({"user": "ana", "message": "What am I allergic to? peanuts?", "recalled": []})
    assert other["recalled"] == ["What am I allergic to? peanuts?"]  # jin's memories stay jin's
