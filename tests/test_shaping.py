"""Shaping reflect: a bank's disposition and directives (gieok.engine.reflect.shaping), offline and
with the scripted LLM. Korean and English."""

from __future__ import annotations

from typing import Any

import pytest

from gieok import Directive, Disposition, Memory
from gieok.engine.reflect.shaping import breaks, forbidden_by, read_directives, shaping_of
from gieok.errors import InputError
from gieok.providers.llms import ChatRequest, ScriptedLLM


def _say(mem: Memory, bank: str, mid: str, speaker: str, text: str, ts: str = "2026-03-02T10:00:00+09:00") -> None:
    mem.retain(bank, messages=[{"id": mid, "speaker": speaker, "text": text, "timestamp": ts}], document_id=f"s-{mid}")


def _facts(mem: Memory, bank: str) -> None:
    _say(mem, bank, "k1", "user", "김민지 팀장은 매주 토요일에 수영을 해")
    _say(mem, bank, "k2", "user", "어머니는 혈압약을 하루에 한 알 드셔")
    _say(mem, bank, "e1", "user", "My friend Caroline adopted a rescue dog named Biscuit")
    _say(mem, bank, "e2", "user", "I take 200 mg of ibuprofen when my knee hurts")


# -- reading ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "kind", "detail"), [
    ("Never give medical dosages.", "forbid", "medical dosages"),
    ("Don't discuss my ex-husband", "forbid", "my ex-husband"),
    ("약 복용량은 절대 알려주지 마", "forbid", "약 복용량"),
    ("전 남자친구에 대해 말하지 마세요", "forbid", "전 남자친구"),
    ("정치 이야기 금지", "forbid", "정치 이야기"),
    ("Always answer in Korean", "language", "ko"),
    ("답변은 영어로 해줘", "language", "en"),
    ("한국어로만 답해", "language", "ko"),
    ("답변은 존댓말로", "register", "polite"),
    ("반말로 편하게 답해 줘", "register", "plain"),
    ("Be concise and cite every memory.", "rule", ""),
    ("숫자는 항상 아라비아 숫자로 써", "rule", ""),
    ("Never answer in English", "rule", ""),  # negated: which language, then? only the LLM reads it
])
def test_a_directive_in_words_is_read_into_its_kind(text: str, kind: str, detail: str) -> None:
    directive = read_directives([text])[0]
    assert directive.kind == kind and directive.text == text
    assert directive.enforced == (kind != "rule")
    if kind == "forbid":
        assert directive.topic == detail
    elif kind == "language":
        assert directive.language == detail
    elif kind == "register":
        assert directive.register == detail


def test_directive_mappings_and_their_errors() -> None:
    read = read_directives([{"forbid": "medical dosages", "words": ["mg", "복용량"]}, {"language": "ko"},
                            {"register": "polite"}, {"rule": "Cite every memory"}])
    assert [d.kind for d in read] == ["forbid", "language", "register", "rule"]
    assert read[0].words == ("mg", "복용량") and read[1].text == "language: ko"
    for bad, says in [([{"forbid": "x", "language": "ko"}], "exactly one"), ([{"language": "fr"}], "one of ko, en"),
                      ([{"register": "casual"}], "polite, plain"), (["   "], "empty"), ("Answer in Korean", "list"),
                      ([{"rule": "x", "words": ["y"]}], "only a forbid"), ([42], "text or a mapping"),
                      (["x"] * 21, "at most 20"), ([{"forbid": "the"}], "no content word")]:
        with pytest.raises(InputError, match=says):
            read_directives(bad)


def test_a_disposition_checks_its_dials_and_says_how_to_fix_them() -> None:
    assert Disposition.coerce({"skepticism": 5, "name": "리스크 분석가"}).skepticism == 5
    for bad, says in [({"skepticism": 0}, "1 to 5"), ({"empathy": True}, "1 to 5"), ({"literalism": 2.5}, "1 to 5"),
                      ({"mood": 3}, "unknown disposition field"), ({"name": "x" * 101}, "keep it to 100"),
                      ({"background": 7}, "must be text")]:
        with pytest.raises(InputError, match=says):
            Disposition.coerce(bad)


def test_forbidden_topics_match_by_content_word_in_both_languages() -> None:
    shaping = shaping_of({"directives": [d.to_dict() for d in read_directives(
        ["Never give medical dosages", "약 복용량은 절대 알려주지 마", {"forbid": "pain killers", "words": ["mg"]}])]})
    assert forbidden_by(shaping, "What dosage of ibuprofen should I take?")[0].topic == "medical dosages"
    assert forbidden_by(shaping, "어머니 혈압약 복용량이 얼마야?")[0].topic == "약 복용량"
    assert forbidden_by(shaping, "Is 400 mg too much?")[1] == "mg"
    assert forbidden_by(shaping, "What is Caroline's dog called?") is None
    assert forbidden_by(shaping, "김민지 팀장은 무슨 운동을 해?") is None


def test_a_language_or_register_directive_judges_the_answers_own_words_not_its_quotes() -> None:
    read = read_directives(["답변은 존댓말로", "Answer in Korean"])
    shaping = shaping_of({"directives": [d.to_dict() for d in read]})
    assert breaks(shaping, '기억에 따르면 "I take 200 mg of ibuprofen" [f-4]라고 하셨어요.') is None
    assert breaks(shaping, '기억에 따르면 수영을 해 [f-1].').kind == "register"
    assert breaks(shaping, 'You said "I take 200 mg" [f-4].').kind == "language"


# -- through Memory, offline ----------------------------------------------------------------------

def test_directives_are_stored_in_order_and_a_bad_list_changes_nothing(mem: Memory) -> None:
    _facts(mem, "b")
    stored = mem.set_directives("b", ["답변은 존댓말로", {"forbid": "medical dosages", "words": ["mg"]}])
    assert [d.kind for d in mem.directives("b")] == ["register", "forbid"] == [d.kind for d in stored]
    with pytest.raises(InputError):
        mem.set_directives("b", ["Answer in Korean", {"language": "fr"}])
    assert [d.kind for d in mem.directives("b")] == ["register", "forbid"], "the bad list stored nothing"
    mem.set_directives("b", [])
    assert mem.directives("b") == []


def test_a_disposition_is_stored_and_reset(mem: Memory) -> None:
    _facts(mem, "b")
    set_to = mem.set_disposition("b", {"skepticism": 5, "name": "Risk analyst"}, empathy=2,
                                 background="Twenty years in credit risk")
    assert mem.disposition("b") == set_to == Disposition(5, 3, 2, "Risk analyst", "Twenty years in credit risk")
    assert mem.set_disposition("b") == Disposition() and mem.disposition("b").neutral
    with pytest.raises(InputError, match="1 to 5"):
        mem.set_disposition("b", skepticism=9)


@pytest.mark.parametrize(("question", "lang"), [("어머니는 혈압약을 얼마나 드셔?", "ko"),
                                                ("How many mg of ibuprofen do I take?", "en")])
def test_a_forbidden_topic_is_refused_offline_naming_the_directive(mem: Memory, question: str, lang: str) -> None:
    _facts(mem, "b")
    assert mem.reflect("b", question).supported, "answered before the directive"
    mem.set_directives("b", ["Never give medical dosages", "약 복용량은 절대 알려주지 마",
                             {"forbid": "dose", "words": ["mg"]}])
    result = mem.reflect("b", question)
    assert not result.supported and result.refusal == "directive" and result.based_on == []
    assert result.language == lang and ("지침" if lang == "ko" else "directive") in result.answer
    step = next(s for s in result.steps if s["action"] == "directive")
    assert step["checked"] == "question" and step["directive"] in result.answer
    assert result.directives == [d.text for d in mem.directives("b")]
    assert mem.reflect("b", "What is Caroline's dog called?").supported, "other questions still answer"


def test_an_offline_answer_speaks_the_required_language(mem: Memory) -> None:
    _facts(mem, "b")
    mem.set_directives("b", ["Answer in English"])
    found = mem.reflect("b", "김민지 팀장은 무슨 운동을 해?")
    assert found.supported and found.answer.startswith("From memory:") and "수영" in found.answer
    assert found.language == "en"
    refused = mem.reflect("b", "박서준 과장은 어디 살아?")
    assert not refused.supported and refused.answer.startswith("That's not in memory")
    mem.set_directives("b", ["한국어로만 답해"])
    assert mem.reflect("b", "What is the name of Caroline's dog?").answer.startswith("기억에 따르면:")


@pytest.mark.parametrize(("question", "answer", "speaker"), [
    ("지호 동생은 어느 학교 다녀?", "지호 동생은 대전에 있는 카이스트 대학원에 다닌대", "지현"),
    ("What does Tom bake for his daughter's birthday?", "Tom bakes a chocolate cake for his daughter every year.",
     "Gina"),
])
def test_a_literal_disposition_takes_no_paraphrase(mem: Memory, question: str, answer: str, speaker: str) -> None:
    _say(mem, "b", "p1", speaker, answer)
    _say(mem, "b", "p2", speaker, "날씨가 좋았어. The weather was nice.")
    neutral = mem.reflect("b", question)
    assert neutral.supported and any(s["action"] in ("top memory", "semantic gate") for s in neutral.steps)
    mem.set_disposition("b", literalism=5)
    literal = mem.reflect("b", question)
    assert not literal.supported and not any(s["action"] in ("top memory", "semantic gate") for s in literal.steps)
    assert literal.disposition == Disposition(literalism=5).to_dict()


@pytest.mark.parametrize(("question", "closing"), [("박서준 과장은 어디 살아?", "미안해요"),
                                                   ("What car does Caroline drive?", "Sorry")])
def test_an_empathetic_disposition_refuses_kindly_the_same_way_every_time(mem: Memory, question: str,
                                                                          closing: str) -> None:
    _facts(mem, "b")
    assert closing not in mem.reflect("b", question).answer
    mem.set_disposition("b", empathy=5)
    first, second = mem.reflect("b", question), mem.reflect("b", question)
    assert closing in first.answer and first.answer == second.answer and not first.supported


# -- with the scripted LLM ------------------------------------------------------------------------

def _llm_bank(db_path: str, replies: list[Any]) -> tuple[Memory, ScriptedLLM]:
    llm = ScriptedLLM(replies)
    mem = Memory(db_path, embedder="fake", llm=llm)
    mem.configure_llm("b", enabled=False)
    _facts(mem, "b")
    mem.configure_llm("b", enabled=True)
    return mem, llm


def test_a_forbidden_question_never_reaches_the_llm(db_path: str, fake_embedder: Any) -> None:
    mem, llm = _llm_bank(db_path, [])
    with mem:
        mem.set_directives("b", ["약 복용량은 절대 알려주지 마"])
        result = mem.reflect("b", "어머니 혈압약 복용량이 얼마야?")
    assert llm.requests == [] and result.refusal == "directive" and "약 복용량" in result.answer


def test_the_prompt_carries_the_disposition_and_directives_and_the_answer_records_them(db_path: str,
                                                                                      fake_embedder: Any) -> None:
    mem, llm = _llm_bank(db_path, [{"action": "recall", "query": "Caroline dog"},
                                   {"action": "answer", "answer": 'Her dog is "a rescue dog named Biscuit" [f-3].',
                                    "cited": ["f-3"]}])
    with mem:
        mem.set_disposition("b", skepticism=5, empathy=1, name="Risk analyst", background="Credit risk, 20 years")
        mem.set_directives("b", ["Answer in English", "Cite every memory you use."])
        result = mem.reflect("b", "What is Caroline's dog called?")
    system = llm.requests[0].system or ""
    assert "You answer as Risk analyst. Background: Credit risk, 20 years" in system
    assert "skepticism 5/5" in system and "empathy 1/5" in system
    assert "1. Answer in English\n2. Cite every memory you use." in system
    assert result.supported and result.mode == "llm"
    assert result.disposition == {"skepticism": 5, "literalism": 3, "empathy": 1, "name": "Risk analyst",
                                  "background": "Credit risk, 20 years"}
    assert result.directives == ["Answer in English", "Cite every memory you use."]


def test_an_llm_answer_breaking_the_register_is_sent_back_once_then_refused(db_path: str, fake_embedder: Any) -> None:
    plain = {"action": "answer", "cited": ["f-1"],
             "answer": '김민지 팀장은 "매주 토요일에 수영을 해" [f-1]. 수영 좋아해.'}
    polite = {"action": "answer", "cited": ["f-1"],
              "answer": '김민지 팀장님은 "매주 토요일에 수영을 해" [f-1]라고 하셨어요.'}
    recall = {"action": "recall", "query": "김민지 운동"}
    mem, llm = _llm_bank(db_path, [recall, plain, polite, recall, plain, plain])
    with mem:
        mem.set_directives("b", ["답변은 존댓말로"])
        fixed = mem.reflect("b", "김민지 팀장은 무슨 운동을 해?")
        refused = mem.reflect("b", "김민지 팀장은 무슨 운동을 해?")
    assert fixed.supported and fixed.answer.endswith("하셨어요.")
    assert any(s.get("sent_back") for s in fixed.steps)
    assert "답변은 존댓말로" in llm.requests[2].messages[-1]["content"], "the model was told which rule it broke"
    assert not refused.supported and refused.refusal == "directive" and "존댓말" in refused.answer


def _two_voices(request: ChatRequest) -> dict[str, Any]:
    """A fake LLM whose voice follows the disposition in its prompt (the same prompt, the same answer)."""
    if not any("[f-" in m["content"] for m in request.messages):
        return {"action": "recall", "query": "Caroline dog"}
    system = request.system or ""
    if "skepticism 5/5" in system:
        return {"action": "answer", "cited": ["f-3"],
                "answer": 'Memory states only that Caroline "adopted a rescue dog named Biscuit" [f-3]; nothing more.'}
    return {"action": "answer", "cited": ["f-3"],
            "answer": 'Caroline "adopted a rescue dog named Biscuit" [f-3] — lucky Biscuit!'}


def test_two_banks_with_different_dispositions_answer_in_two_consistent_voices(db_path: str,
                                                                              fake_embedder: Any) -> None:
    llm = ScriptedLLM([_two_voices] * 12)
    with Memory(db_path, embedder="fake", llm=llm) as mem:
        for bank in ("analyst", "scout"):
            mem.configure_llm(bank, enabled=False)
            _facts(mem, bank)
            mem.configure_llm(bank, enabled=True)
        mem.set_disposition("analyst", skepticism=5, name="Cautious risk analyst")
        mem.set_disposition("scout", skepticism=1, empathy=5, name="Growth-stock scout")
        answers = {bank: [mem.reflect(bank, "What is Caroline's dog called?") for _ in range(2)]
                   for bank in ("analyst", "scout")}
    analyst, scout = answers["analyst"], answers["scout"]
    assert analyst[0].answer == analyst[1].answer and scout[0].answer == scout[1].answer, "consistent"
    assert analyst[0].answer != scout[0].answer and "nothing more" in analyst[0].answer
    assert all(r.supported and "Biscuit" in r.based_on[0]["text"] for r in (*analyst, *scout)), "both rest on the fact"
    assert analyst[0].disposition["name"] == "Cautious risk analyst"
    assert scout[0].disposition["name"] == "Growth-stock scout"


def test_directive_is_exported(mem: Memory) -> None:
    assert isinstance(read_directives(["Answer in Korean"])[0], Directive)


# -- the CLI --------------------------------------------------------------------------------------

def test_the_cli_sets_and_shows_a_disposition_and_directives(db_path: str, fake_embedder: Any) -> None:
    import json

    from click.testing import CliRunner

    from gieok.cli import cli

    runner = CliRunner()

    def run(*args: str, code: int = 0) -> str:
        result = runner.invoke(cli, ["--db", db_path, "--embedder", "fake", *args])
        assert result.exit_code == code, result.output
        return result.output

    with Memory(db_path, embedder="fake") as mem:
        _facts(mem, "b")
    assert "(neutral)" in run("disposition", "b")
    shown = json.loads(run("disposition", "b", "--skepticism", "5", "--name", "리스크 분석가", "--json"))
    assert shown == {"skepticism": 5, "literalism": 3, "empathy": 3, "name": "리스크 분석가", "background": ""}
    assert "리스크 분석가: skepticism 5" in run("disposition", "b")
    assert "1<=x<=5" in run("disposition", "b", "--empathy", "9", code=2)
    out = run("directives", "b", "답변은 존댓말로", '{"forbid": "dosages", "words": ["mg"]}', "Be brief",
              "--forbid", "정치")
    assert out.splitlines() == ["1. [register, enforced in code] 답변은 존댓말로",
                                "2. [forbid, enforced in code] dosages", "3. [rule, LLM prompt only] Be brief",
                                "4. [forbid, enforced in code] 정치"]
    assert [d["kind"] for d in json.loads(run("directives", "b", "--json"))] == ["register", "forbid", "rule", "forbid"]
    assert "not valid JSON" in run("directives", "b", "{oops", code=2)
    refused = json.loads(run("reflect", "b", "How many mg of ibuprofen do I take?", "--json"))
    assert refused["refusal"] == "directive" and refused["directives"][1] == "dosages"
    assert run("directives", "b", "--clear") == "no directives\n"
    assert "(neutral)" in run("disposition", "b", "--reset")


# -- HTTP, the Python client and MCP --------------------------------------------------------------

def test_http_and_the_client_set_and_read_the_shaping(mem: Memory) -> None:
    from server_harness import serving

    from gieok.client import Client
    from gieok.server.app import create_app

    _facts(mem, "b")
    with serving(create_app(mem, worker=False, mcp=False)) as url, Client(url) as client:
        assert client.disposition("b") == Disposition()
        set_to = client.set_disposition("b", {"skepticism": 2}, name="성장주 스카우트", empathy=5)
        assert set_to == Disposition(2, 3, 5, "성장주 스카우트", "") == mem.disposition("b")
        read = client.set_directives("b", ["답변은 존댓말로", {"forbid": "dosages", "words": ["mg"]}, "Be brief"])
        assert read == mem.directives("b") == client.directives("b")
        assert [d.enforced for d in read] == [True, True, False]
        with pytest.raises(InputError, match="one of ko, en"):
            client.set_directives("b", [{"language": "fr"}])
        with pytest.raises(InputError):
            client.set_disposition("b", skepticism=7)
        assert client.directives("b") == read, "a refused list stored nothing"
        refused = client.reflect("b", "How many mg of ibuprofen do I take?")
        assert refused.refusal == "directive" and refused.disposition == set_to.to_dict()
        again = client.set_directives("b", [Directive("dosages", "forbid", topic="dosages", words=("mg",))])
        assert again[0].words == ("mg",) and again[0].kind == "forbid"


def test_an_agent_reads_and_sets_the_shaping_over_mcp(mem: Memory) -> None:
    import anyio
    from mcp import Client as MCPClient

    from gieok.server.mcp import build_mcp

    _facts(mem, "b")

    async def main() -> None:
        async with MCPClient(build_mcp(mem)) as client:
            shaped = (await client.call_tool("set_shaping", {
                "bank": "b", "disposition": {"literalism": 5, "name": "Literal reader"},
                "directives": ["약 복용량은 절대 알려주지 마", {"language": "en"}]})).structured_content
            assert shaped["disposition"]["literalism"] == 5
            assert [d["kind"] for d in shaped["directives"]] == ["forbid", "language"]
            read = (await client.call_tool("shaping", {"bank": "b"})).structured_content
            assert read == shaped
            bad = await client.call_tool("set_shaping", {"bank": "b", "disposition": {"mood": 3}})
            assert bad.is_error and "unknown disposition field" in bad.content[0].text
    anyio.run(main)
    assert mem.disposition("b").name == "Literal reader"


# -- the web UI -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("lang", "title"), [("ko", "숙고의 답변 방식"), ("en", "How reflect answers")])
def test_the_bank_page_shows_and_sets_the_shaping(mem: Memory, lang: str, title: str) -> None:
    import re

    from fastapi.testclient import TestClient

    from gieok.server.app import create_app

    _facts(mem, "b")
    with TestClient(create_app(mem, mcp=False, worker=False)) as http:
        page = http.get(f"/ui/b/b?lang={lang}").text
        assert title in page and 'action="/ui/b/b/shaping"' in page
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)  # type: ignore[union-attr]
        form = {"skepticism": "5", "literalism": "3", "empathy": "1", "name": "<b>분석가</b>", "background": "",
                "directives": "답변은 존댓말로\nNever give medical dosages\n", "csrf": csrf}
        assert http.post("/ui/b/b/shaping", data={**form, "csrf": "0" * 64}).status_code == 403
        bad = http.post("/ui/b/b/shaping", data={**form, "skepticism": "9"})
        assert bad.status_code in (403, 422) and mem.disposition("b").neutral, "a bad form stored nothing"
        bad = http.post("/ui/b/b/shaping", data={**form, "skepticism": "9", "csrf": csrf})
        assert bad.status_code == 422 and mem.disposition("b").neutral and mem.directives("b") == []
        saved = http.post("/ui/b/b/shaping", data=form)
        assert saved.status_code == 200 and "&lt;b&gt;분석가&lt;/b&gt;" in saved.text, "escaped"
        assert mem.disposition("b") == Disposition(5, 3, 1, "<b>분석가</b>", "")
        assert [d.kind for d in mem.directives("b")] == ["register", "forbid"]
