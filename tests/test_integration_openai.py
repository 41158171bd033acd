"""gieok.integrations.openai: the official OpenAI SDK, pointed at the loopback fake server, recalls
before each call (the memories reach the system message) and retains after; function tools run
retain / recall / reflect and answer a bad call with an error the model can read. Korean and English."""

from __future__ import annotations

import json

import pytest
from fake_llm import FakeLLMServer

from gieok import Memory
from gieok.errors import InputError
from gieok.integrations.openai import MemoryChat, memory_tools, run_tool

openai = pytest.importorskip("openai")


def _system_of(server: FakeLLMServer, n: int) -> str:
    messages = server.requests[n].body["messages"]
    return str(messages[0]["content"]) if messages[0]["role"] == "system" else ""


def test_memory_chat_recalls_into_the_system_message_and_retains_the_turn(mem: Memory) -> None:
    mem.retain("민지", [{"id": "m1", "speaker": "민지", "text": "내 생일은 6월 23일이야.",
                         "timestamp": "2026-05-01T10:00:00+09:00"},
                        {"id": "m2", "speaker": "민지", "text": "My sister Ana is a nurse in Busan.",
                         "timestamp": "2026-05-01T10:01:00+09:00"}])
    with FakeLLMServer() as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="test-key", max_retries=0)
        chat = MemoryChat(client, mem, "민지", session_id="s1")
        server.queue(content="6월 23일이에요! 케이크는 초코로 준비할까요?")
        reply = chat.chat.completions.create(model="fake", messages=[
            {"role": "system", "content": "You are a kind assistant."},
            {"role": "user", "content": "내 생일 언제인지 기억해?"}])
        assert reply.choices[0].message.content.startswith("6월 23일")
        system = _system_of(server, 0)
        assert system.startswith("You are a kind assistant.") and "6월 23일" in system and "[f-" in system
        assert chat.last_recall is not None and "6월 23일" in chat.last_recall.memories[0].text

        server.queue(content="Ana works as a nurse in Busan.")
        chat.create(model="fake", messages=[{"role": "user", "content": "What does my sister do?"}])
        english = server.requests[1].body["messages"]
        assert english[0]["role"] == "system" and "Ana is a nurse" in english[0]["content"]
        assert english[-1] == {"role": "user", "content": "What does my sister do?"}
    turns = mem.source("민지", "chat:s1").messages
    assert [(t.speaker, t.text) for t in turns][:2] == [("user", "내 생일 언제인지 기억해?"),
                                                         ("assistant", "6월 23일이에요! 케이크는 초코로 준비할까요?")]
    assert len(turns) == 4


def test_the_first_turn_of_a_new_bank_goes_without_memories_and_stream_is_refused(mem: Memory) -> None:
    with FakeLLMServer() as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0)
        chat = MemoryChat(client, mem, "new", session_id="first")
        server.queue(content="Nice to meet you, Tom.")
        chat.create(model="fake", messages=[{"role": "user", "content": "Hi, I'm Tom and I live in Denver."}])
        assert server.requests[0].body["messages"] == [{"role": "user", "content": "Hi, I'm Tom and I live in Denver."}]
        with pytest.raises(InputError, match="stream"):
            chat.create(model="fake", stream=True, messages=[{"role": "user", "content": "hello"}])
    assert "Denver" in mem.recall("new", "Where does Tom live?", limit=1).memories[0].text


def test_function_tools_in_openai_format_run_against_memory(mem: Memory) -> None:
    tools = memory_tools()
    assert [t["function"]["name"] for t in tools] == ["memory_retain", "memory_recall", "memory_reflect"]
    assert all(t["type"] == "function" and t["function"]["parameters"]["type"] == "object" for t in tools)

    def call(name: str, **arguments: object) -> dict[str, object]:
        tool_call = {"id": "call_1", "type": "function",
                     "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}}
        answer: dict[str, object] = json.loads(run_tool(mem, "b", tool_call))
        return answer

    assert call("memory_recall", query="anything") == {"memories": []}  # no bank yet: empty, not an error
    assert call("memory_retain", text="우리 팀 회의는 매주 화요일 3시야.")["stored"] == 1
    assert call("memory_retain", text="Tom's favourite tea is genmaicha.")["stored"] == 1
    found = call("memory_recall", query="팀 회의 언제야?", limit=2)["memories"]
    assert isinstance(found, list) and "화요일" in found[0]["text"]
    answer = call("memory_reflect", question="What is Tom's favourite tea?")
    assert answer["answered"] is True and "genmaicha" in str(answer["answer"])
    unknown = call("memory_delete_everything")
    assert "no memory tool" in str(unknown["error"])
    broken = json.loads(run_tool(mem, "b", {"function": {"name": "memory_recall", "arguments": "{not json"}}))
    assert "error" in broken
    missing = call("memory_retain")
    assert "text" in str(missing["error"])
