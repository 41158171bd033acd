"""LLM fact extraction against a ScriptedLLM: prompts sent, replies read, truncation and re-asking."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from gieok.errors import GieokError, InputError
from gieok.extract.llm import (
    SCHEMA,
    ExtractedFact,
    ExtractionError,
    SourceItem,
    extract_facts,
)
from gieok.providers.llms import (
    ChatRequest,
    ChatResponse,
    LLMAuthError,
    LLMRateLimitError,
    LLMUnavailableError,
    ScriptedLLM,
)

MINJI = [
    SourceItem("m1", "민지", "지난주에 부산 갔다 왔어! 언니 결혼식이었거든", "2026-05-12T15:00:00+09:00"),
    SourceItem("m2", "assistant", "축하해요! 다음 주에 사진 정리하는 거 도와드릴게요.", "2026-05-12T15:01:00+09:00"),
]
CAROLINE = [
    SourceItem("c1", "Caroline", "I went to a LGBTQ support group yesterday. It was so powerful.",
               "2023-05-08T13:56:00"),
    SourceItem("c2", "Melanie", "That's amazing, Caroline! What made you go?", "2023-05-08T13:57:00"),
    SourceItem("c3", "Caroline", "My friend Jo told me about it after I came out to her.", "2023-05-08T13:58:00"),
]


def fact(text: str, **fields: Any) -> dict[str, Any]:
    return {"text": text, **fields}


def items_in(request: ChatRequest) -> list[tuple[str, str]]:
    """(id or "-", text) of every <item> in the first user message of ``request``."""
    content = request.messages[0]["content"]
    return [(m.group(1) or "-", m.group(2))
            for m in re.finditer(r'<item (?:id="([^"]*)" )?[^>]*>(.*?)</item>', content)]


def sentences(prefix: str, count: int) -> str:
    return " ".join(f"{prefix} sentence number {i} talks about the trip to Busan in some detail." for i in range(count))


# --- happy paths ------------------------------------------------------------------------------------


def test_korean_extraction() -> None:
    llm = ScriptedLLM([{"facts": [
        fact("민지의 언니는 2026년 5월 4일 주에 부산에서 결혼했다.", kind="world", occurred_start="2026-05-04",
             occurred_end="2026-05-11", where="부산", who=["민지의 언니"], entities=["민지", "부산"],
             message_ids=["m1"]),
        fact("민지는 언니의 결혼식 때문에 2026년 5월 4일 주에 부산에 갔다.", kind="world", occurred_start="2026-05-04",
             occurred_end="2026-05-11", where="부산", who=["민지", " 민지 "], why="언니의 결혼식",
             entities=["민지", "부산"], message_ids=["m1"], causes=[{"fact": 0, "relation": "caused_by"}]),
        fact("어시스턴트는 2026년 5월 12일에 민지에게 다음 주에 사진 정리를 도와주겠다고 했다.", kind="experience",
             occurred_start="2026-05-12T15:01:00+09:00", who=["민지"], entities=["민지"], message_ids=["m2"]),
    ]}])
    facts = extract_facts(llm, MINJI)

    assert [f.kind for f in facts] == ["world", "world", "experience"]
    trip = facts[1]
    assert trip == ExtractedFact(
        text="민지는 언니의 결혼식 때문에 2026년 5월 4일 주에 부산에 갔다.", kind="world",
        occurred_start="2026-05-04", occurred_end="2026-05-11", where="부산", who=["민지"], why="언니의 결혼식",
        entities=["민지", "부산"], message_ids=["m1"], causes=[(0, "caused_by")], language="ko",
    )
    assert facts[2].message_ids == ["m2"] and facts[2].occurred_start == "2026-05-12T15:01:00+09:00"

    (request,) = llm.requests
    assert request.operation == "extract" and request.json_schema == SCHEMA
    assert request.system is not None
    for rule in ("self-contained", "pronouns", "relative dates", "language it was said in", "Never translate",
                 "speculation", "small talk", "EARLIER facts", "부산", "Caroline"):
        assert rule in request.system
    content = request.messages[0]["content"]
    assert '<item id="m1" speaker="민지" time="2026-05-12T15:00:00+09:00">지난주에 부산 갔다 왔어!' in content
    assert '<item id="m2" speaker="assistant" time="2026-05-12T15:01:00+09:00">' in content


def test_english_extraction_keeps_the_language_and_reads_documents() -> None:
    llm = ScriptedLLM([{"facts": [
        fact("Caroline came out to her friend Jo.", who=["Caroline", "Jo"], entities=["Caroline", "Jo"],
             message_ids=["c3"]),
        fact("Caroline went to a LGBTQ support group on 7 May 2023 because her friend Jo told her about it.",
             kind="world", occurred_start="2023-05-07", occurred_end="2023-05-08", who=["Caroline"],
             why="Jo told her about it", entities=["Caroline", "Jo", "LGBTQ support group"],
             message_ids=["c1", "c3"], causes=[{"fact": 0, "relation": "caused_by"}]),
    ]}])
    facts = extract_facts(llm, CAROLINE)
    assert [f.text for f in facts][1].startswith("Caroline went to a LGBTQ support group on 7 May 2023")
    assert facts[1].message_ids == ["c1", "c3"] and facts[1].causes == [(0, "caused_by")]
    assert {f.language for f in facts} == {"en"} and facts[0].kind == "world"
    assert items_in(llm.requests[0]) == [(item.id, item.text) for item in CAROLINE]

    document = ScriptedLLM([{"facts": [fact("The Busan office opens in March 2027.", kind="world")]}])
    (opening,) = extract_facts(document, [SourceItem(None, None, "The Busan office opens in March 2027.")])
    assert opening.message_ids == [] and opening.language == "en"
    assert '<item source="document" time="unknown">The Busan office' in document.requests[0].messages[0]["content"]


def test_small_talk_only_is_not_sent_and_empty_answers_are_fine() -> None:
    llm = ScriptedLLM([{"facts": []}])
    assert extract_facts(llm, [SourceItem("a", "민지", "ㅋㅋ 고마워"), SourceItem("b", "bot", "ok thanks")]) == []
    assert llm.requests == []
    assert extract_facts(llm, MINJI[:1]) == [] and len(llm.requests) == 1  # {"facts": []} is not re-asked


# --- repairs ----------------------------------------------------------------------------------------


def test_message_ids_are_filtered_to_the_chunk() -> None:
    llm = ScriptedLLM([{"facts": [
        fact("Caroline went to a support group on 7 May 2023.", message_ids=["c1", "c9", "c1", 3]),
        fact("Jo told Caroline about the support group.", message_ids=["nope"]),
        fact("Melanie asked Caroline why she went."),
    ]}])
    facts = extract_facts(llm, CAROLINE)
    assert [f.message_ids for f in facts] == [["c1"], ["c1", "c2", "c3"], ["c1", "c2", "c3"]]


def test_causes_only_point_to_earlier_facts_with_known_relations() -> None:
    llm = ScriptedLLM([
        {"facts": [
            fact("Jo told Caroline about the support group."),
            fact("Caroline went to the support group.", causes=[
                {"fact": 0, "relation": "caused_by"}, {"fact": 1, "relation": "caused_by"},
                {"fact": 2, "relation": "enables"}, {"fact": 0, "relation": "inspired"},
                {"fact": True, "relation": "enables"},
                "0",
            ]),
            fact("Caroline felt supported.",
                 causes=[{"fact": 1, "relation": "Caused_By"}, {"fact": -1, "relation": "enables"}]),
        ]},
        {"facts": [fact("민지는 부산에 갔다."),
                   fact("민지는 회의에 못 갔다.", causes=[{"fact": 0, "relation": "prevents"}])]},
    ])
    facts = extract_facts(llm, CAROLINE + [SourceItem("k1", "민지", "부산 가느라 회의는 못 갔어")], chunk_chars=160)
    assert len(llm.requests) == 2
    assert [f.causes for f in facts] == [[], [(0, "caused_by")], [(1, "caused_by")], [], [(3, "prevents")]]


def test_invalid_dates_are_dropped_not_the_fact() -> None:
    llm = ScriptedLLM([{"facts": [
        fact("Caroline went to a support group.", occurred_start="last Saturday", occurred_end="2023-13-45"),
        fact("Jo told Caroline about it.", occurred_start="2023-05-01", occurred_end="2023-04-01"),
        fact("Caroline came out to Jo.", occurred_start="2023-04-20T18:00:00Z", occurred_end=""),
    ]}])
    facts = extract_facts(llm, CAROLINE)
    assert [(f.occurred_start, f.occurred_end) for f in facts] == [
        (None, None), ("2023-05-01", None), ("2023-04-20T18:00:00Z", None)
    ]
    assert len(llm.requests) == 1


# --- re-asking --------------------------------------------------------------------------------------


def test_unparsable_reply_is_re_asked_once_naming_the_problem() -> None:
    llm = ScriptedLLM(["Sure! Caroline went to a support group.",
                       {"facts": [fact("Caroline went to a support group.")]}])
    (only,) = extract_facts(llm, CAROLINE)
    assert only.text == "Caroline went to a support group."
    first, second = llm.requests
    assert [m["role"] for m in second.messages] == ["user", "assistant", "user"]
    assert second.messages[0] == first.messages[0]
    assert second.messages[1]["content"] == "Sure! Caroline went to a support group."
    assert "not a JSON object" in second.messages[2]["content"]
    assert second.operation == "extract" and second.json_schema == SCHEMA


def test_bad_facts_are_re_asked_naming_keys_then_the_good_ones_kept() -> None:
    llm = ScriptedLLM([
        {"facts": [fact("Caroline went to a support group.", kind="event"), {"kind": "world"},
                   fact("Jo told Caroline.", who="Jo")]},
        {"facts": [fact("Caroline went to a support group."), fact("Jo told Caroline about it.", who=["Jo"]),
                   {"text": 42}]},
    ])
    facts = extract_facts(llm, CAROLINE)
    assert [f.text for f in facts] == ["Caroline went to a support group.", "Jo told Caroline about it."]
    follow_up = llm.requests[1].messages[2]["content"]
    for problem in ("facts[0].kind must be world or experience", "facts[1].text is missing",
                    "facts[2].who must be a list of strings"):
        assert problem in follow_up
    assert json.loads(llm.requests[1].messages[1]["content"])["facts"][1] == {"kind": "world"}


def test_a_minority_of_bad_facts_is_dropped_without_re_asking() -> None:
    llm = ScriptedLLM([{"facts": [fact("A fact."), fact("B fact."), {"text": ""}]}])
    assert [f.text for f in extract_facts(llm, CAROLINE)] == ["A fact.", "B fact."]
    assert len(llm.requests) == 1


def test_a_worse_second_reply_keeps_the_first_good_facts() -> None:
    llm = ScriptedLLM([{"facts": [fact("A fact."), {"text": None}, {"who": []}]}, "still not json"])
    assert [f.text for f in extract_facts(llm, CAROLINE)] == ["A fact."]


def test_two_unusable_replies_raise_extraction_error() -> None:
    llm = ScriptedLLM([{"facts": "none"}, {"facts": "still none"}])
    with pytest.raises(ExtractionError, match=r"items c1, c2, c3 failed.*\"facts\" must be a list") as caught:
        extract_facts(llm, CAROLINE)
    assert caught.value.item_ids == ["c1", "c2", "c3"] and isinstance(caught.value, GieokError)
    assert '"facts" must be a list' in llm.requests[1].messages[2]["content"]

    unreadable = ScriptedLLM(["nope", "```json\n{\"facts\": [}\n```"])
    with pytest.raises(ExtractionError, match="the reply is unreadable"):
        extract_facts(unreadable, CAROLINE)
    all_bad = ScriptedLLM([{"facts": [{"who": []}]}, {"facts": [{"text": 1}]}])
    with pytest.raises(ExtractionError, match=r"facts\[0\].text must be a string"):
        extract_facts(all_bad, CAROLINE)


# --- truncation -------------------------------------------------------------------------------------


CUT = '{"facts": [{"text": "Part one happened.", "message_ids": ["p1"]}, {"text": "Part two hap'


@pytest.mark.parametrize("first", [
    ChatResponse(CUT, finish_reason="length"),  # the base marks it truncated; its JSON is cut off
    ChatResponse('{"facts": [{"text": "Only the start."}]}', truncated=True),  # read, but may be missing facts
])
def test_truncated_reply_splits_the_chunk_and_asks_both_halves(first: ChatResponse) -> None:
    items = [SourceItem(f"p{i}", "Dana", sentences(f"P{i}", 4), f"2026-05-0{i}T10:00:00") for i in range(1, 5)]
    llm = ScriptedLLM([first, {"facts": [fact("Dana planned a trip.", message_ids=["p2"])]},
                       {"facts": [fact("Dana booked a hotel.", message_ids=["p3"]),
                                  fact("Dana paid.", causes=[{"fact": 0, "relation": "caused_by"}])]}])
    facts = extract_facts(llm, items, min_chunk_chars=100)
    assert [f.text for f in facts] == ["Dana planned a trip.", "Dana booked a hotel.", "Dana paid."]
    assert facts[2].causes == [(1, "caused_by")]  # indices stay right across the halves
    whole, left, right = llm.requests
    assert [i for i, _ in items_in(whole)] == ["p1", "p2", "p3", "p4"]
    assert items_in(left) == [(item.id, item.text) for item in items[:2]]
    assert items_in(right) == [(item.id, item.text) for item in items[2:]]
    assert 'time="2026-05-03T10:00:00"' in right.messages[0]["content"]


def test_a_long_single_item_is_split_at_a_sentence_boundary() -> None:
    text = sentences("Long", 10)
    llm = ScriptedLLM([ChatResponse(CUT, finish_reason="length"), {"facts": [fact("First half.")]},
                       {"facts": [fact("Second half.")]}])
    facts = extract_facts(llm, [SourceItem("x", "Dana", text)], min_chunk_chars=100)
    assert [f.message_ids for f in facts] == [["x"], ["x"]]
    (_, left), (_, right) = items_in(llm.requests[1]) + items_in(llm.requests[2])
    assert f"{left} {right}" == text and left.endswith("detail.") and right.startswith("Long sentence number 5 ")


def test_truncation_at_the_minimum_size_keeps_the_complete_facts() -> None:
    fenced = ChatResponse("```json\n" + CUT, finish_reason="length")
    llm = ScriptedLLM([fenced])
    items = [SourceItem("p1", "Dana", "Part one happened."), SourceItem("p2", "Dana", "Part two happened too.")]
    (kept,) = extract_facts(llm, items)  # 40 characters: far under min_chunk_chars
    assert kept.text == "Part one happened." and kept.message_ids == ["p1"]
    assert len(llm.requests) == 1

    nothing = ScriptedLLM([ChatResponse('{"facts": [{"text": "Part o', finish_reason="length")])
    with pytest.raises(ExtractionError, match=r"items p1, p2 failed: the reply was cut off at max_tokens=4096"):
        extract_facts(nothing, items)


def test_a_truncated_re_ask_splits_too() -> None:
    items = [SourceItem(f"p{i}", "Dana", sentences(f"P{i}", 3)) for i in range(1, 3)]
    llm = ScriptedLLM(["not json", ChatResponse(CUT, finish_reason="length"),
                       {"facts": [fact("Left.")]}, {"facts": [fact("Right.")]}])
    assert [f.text for f in extract_facts(llm, items, min_chunk_chars=50)] == ["Left.", "Right."]
    assert [len(r.messages) for r in llm.requests] == [1, 3, 1, 1]


# --- chunking and errors ----------------------------------------------------------------------------


def test_many_messages_are_chunked_within_chunk_chars() -> None:
    items = [SourceItem(f"m{i}", "민지" if i % 2 else "assistant", f"메시지 {i}: " + "부산 여행 계획 " * 25)
             for i in range(12)]
    llm = ScriptedLLM([{"facts": [fact("민지는 부산 여행을 계획했다.")]}] * 4)
    facts = extract_facts(llm, items, chunk_chars=700)
    sent = [items_in(request) for request in llm.requests]
    assert [len(chunk) for chunk in sent] == [3, 3, 3, 3]
    assert all(sum(len(text) for _, text in chunk) <= 700 for chunk in sent)
    assert [i for chunk in sent for i, _ in chunk] == [f"m{i}" for i in range(12)]
    assert [f.message_ids for f in facts] == [[f"m{i}" for i in range(k, k + 3)] for k in (0, 3, 6, 9)]
    assert {f.language for f in facts} == {"ko"}


def test_an_item_longer_than_chunk_chars_is_cut_between_sentences() -> None:
    text = sentences("Busan", 12)  # about 870 characters
    llm = ScriptedLLM([{"facts": []}] * 4)
    extract_facts(llm, [SourceItem("big", "Dana", text), SourceItem("next", "Dana", "Then I flew home.")],
                  chunk_chars=300)
    pieces = [piece for request in llm.requests for piece in items_in(request)]
    assert all(len(piece) <= 300 and piece.endswith(".") for _, piece in pieces)
    assert " ".join(piece for _, piece in pieces) == text + " Then I flew home."
    assert {i for i, _ in pieces} == {"big", "next"}


@pytest.mark.parametrize("error", [LLMUnavailableError("down"), LLMAuthError("bad key"),
                                   LLMRateLimitError("slow down", retry_after=1.0)])
def test_transport_errors_propagate(error: Exception) -> None:
    llm = ScriptedLLM([error])
    with pytest.raises(type(error)):
        extract_facts(llm, CAROLINE)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(InputError, match="chunk_chars"):
        extract_facts(ScriptedLLM(), CAROLINE, chunk_chars=0)
    with pytest.raises(InputError, match=r"items\[0\] must be a SourceItem"):
        extract_facts(ScriptedLLM(), [{"text": "hi"}])  # type: ignore[list-item]
