"""gieok.integrations.agents: the OpenAI Agents SDK's own tool path (FunctionTool.on_invoke_tool) runs
remember / recall_memories / forget_memory / reflect bound to one bank and user; a Runner.run with a
scripted Model (no network) calls a memory tool and answers; memory_instructions puts the recalled
memories into instructions. Korean and English."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from gieok import Memory

agents = pytest.importorskip("agents")
from agents import Agent, FunctionTool, ModelResponse, RunConfig, Runner, Usage  # noqa: E402
from agents.models.interface import Model  # noqa: E402
from agents.tool_context import ToolContext  # noqa: E402
from openai.types.responses import (  # noqa: E402
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from gieok.integrations.agents import memory_instructions, memory_tools  # noqa: E402


def _invoke(tools: list[FunctionTool], name: str, **args: Any) -> Any:
    tool = next(t for t in tools if t.name == name)
    raw = json.dumps(args, ensure_ascii=False)
    ctx = ToolContext(context=None, tool_name=name, tool_call_id="call-1", tool_arguments=raw)
    out = asyncio.run(tool.on_invoke_tool(ctx, raw))
    return json.loads(out) if isinstance(out, str) and out.startswith("{") else out


def test_the_tools_through_the_sdk_invocation_path(mem: Memory) -> None:
    tools = memory_tools(mem, "shop", user_id="민지")
    assert [t.name for t in tools] == ["remember", "recall_memories", "forget_memory", "reflect"]
    assert tools[0].params_json_schema["required"] == ["text"]
    assert _invoke(tools, "recall_memories", query="알레르기")["memories"] == []  # no bank yet
    assert _invoke(tools, "remember", text="나는 땅콩 알레르기가 있어.")["stored"] >= 1
    assert _invoke(tools, "remember", text="I prefer window seats on long flights.")["stored"] >= 1
    mem.retain("shop", text="Tom is allergic to shellfish.", user_id="tom")

    found = _invoke(tools, "recall_memories", query="무슨 알레르기가 있어? allergy", limit=5)["memories"]
    assert "땅콩" in found[0]["text"] and all("shellfish" not in m["text"] for m in found)
    seat = _invoke(tools, "recall_memories", query="Which seat do I like?", limit=1)["memories"][0]
    assert "window seats" in seat["text"]

    toms = mem.recall("shop", "shellfish", user_id="tom").memories[0].id
    refused = _invoke(tools, "forget_memory", memory_id=toms)
    assert isinstance(refused, str) and "not one of this user's memories" in refused
    assert _invoke(tools, "forget_memory", memory_id=seat["id"])["forgotten"] == [seat["id"]]
    after = _invoke(tools, "recall_memories", query="Which seat do I like?")["memories"]
    assert all("window seats" not in m["text"] for m in after)
    assert mem.recall("shop", "shellfish", user_id="tom").memories  # Tom's memory is untouched
    assert "answered" in _invoke(tools, "reflect", question="무슨 알레르기가 있어?")


def test_memory_instructions(mem: Memory) -> None:
    assert memory_instructions(mem, "none", "anything", base="Be kind.") == "Be kind."
    mem.retain("travel", text="수진은 다음 달에 제주도로 여행 가.", user_id="수진")
    mem.retain("travel", text="Ana is flying to Lisbon in May.", user_id="ana")
    text = memory_instructions(mem, "travel", "제주도 여행 언제 가?", user_id="수진", base="You are a travel helper.")
    assert text.startswith("You are a travel helper.\n\n") and "제주도" in text and "Lisbon" not in text


class _ScriptedModel(Model):
    """A Model that replies from a queue and records what it was given (instructions, tools, input)."""

    def __init__(self, replies: list[list[Any]]) -> None:
        self.replies, self.calls = replies, []  # type: list[list[Any]], list[dict[str, Any]]

    async def get_response(self, system_instructions: str | None, input: Any, model_settings: Any, tools: Any,
                           output_schema: Any, handoffs: Any, tracing: Any, **_: Any) -> ModelResponse:
        self.calls.append({"instructions": system_instructions, "input": input, "tools": [t.name for t in tools]})
        return ModelResponse(output=self.replies.pop(0), usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("the scripted model does not stream")


def _say(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(id="msg-1", type="message", role="assistant", status="completed",
                                 content=[ResponseOutputText(type="output_text", text=text, annotations=[])])


def test_a_run_with_a_scripted_model_calls_a_memory_tool(mem: Memory) -> None:
    mem.retain("cafe", text="제 최애 메뉴는 바닐라 라떼예요. My usual order is a vanilla latte.", user_id="jin")
    model = _ScriptedModel([
        [ResponseFunctionToolCall(id="fc-1", type="function_call", call_id="call-1", name="recall_memories",
                                  arguments=json.dumps({"query": "최애 메뉴 usual order"}))],
        [_say("바닐라 라떼 맞으시죠? A vanilla latte again?")]])
    agent = Agent(name="barista", model=model, tools=memory_tools(mem, "cafe", user_id="jin"),
                  instructions=lambda ctx, agent: memory_instructions(mem, "cafe", "usual order", user_id="jin",
                                                                      base="You are a barista."))
    result = asyncio.run(Runner.run(agent, "늘 먹던 걸로 주세요", run_config=RunConfig(tracing_disabled=True)))
    assert result.final_output == "바닐라 라떼 맞으시죠? A vanilla latte again?"
    assert "vanilla latte" in str(model.calls[0]["instructions"]) and "recall_memories" in model.calls[0]["tools"]
    tool_output = next(i for i in model.calls[1]["input"] if isinstance(i, dict) and i.get("type") ==
                       "function_call_output")
    assert "바닐라 라떼" in tool_output["output"]
