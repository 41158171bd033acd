"""Importers: KakaoTalk (PC and phone layouts, Korean and English), ChatGPT's conversations.json and
OpenAI JSONL — speakers and times kept, bad lines named with their numbers and nothing half-imported,
a re-import adds only what is new."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from gieok import Memory
from gieok.cli import cli
from gieok.errors import FileFormatError, InputError
from gieok.importers import parse_export

KAKAO_PC_KO = """민지 님과 카카오톡 대화
저장한 날짜 : 2024-12-10 09:00:00

--------------- 2024년 12월 9일 월요일 ---------------
민지님이 들어왔습니다.
[민지] [오후 2:30] 나 다음 달에 부산으로 이사 가
[나] [오후 2:31] 진짜? 어디로?
해운대 근처야?
[민지] [오후 2:32] 사진
[민지] [오전 12:05] 응 해운대 쪽이야
--------------- 2024년 12월 10일 화요일 ---------------
[나] [오전 9:00] 이사 날짜는 1월 18일이지?
"""

KAKAO_PC_EN = """Talk_2024.12.10 09:00-1.txt
Date Saved : 2024-12-10 09:00:00

--------------- Monday, December 9, 2024 ---------------
[Tom] [2:30 PM] I'm moving to Denver next month
[Me] [2:31 PM] Where in Denver?
[Tom] [12:05 AM] Near Washington Park
[Tom] [12:06 PM] Emoticons
"""

KAKAO_PHONE = """2024년 12월 9일 오후 2:30, 민지 : 내일 저녁 7시에 강남역에서 봐
2024. 12. 9. 오후 2:31, 지호 : 좋아, 내가 예약할게
December 9, 2024 at 2:32 PM, Tom : My sister Ana is a nurse in Busan
12/9/24, 14:33, Ana : I work night shifts
2024년 12월 9일 오후 2:35, 민지님이 나갔습니다.
"""


def test_kakaotalk_pc_export_in_korean_keeps_speakers_times_and_multiline_messages() -> None:
    parsed = parse_export(KAKAO_PC_KO, "kakaotalk", "민지.txt")
    [chat] = parsed.conversations
    assert chat.title == "민지 님과 카카오톡 대화"
    assert [(m["speaker"], m["text"], m["timestamp"]) for m in chat.messages] == [
        ("민지", "나 다음 달에 부산으로 이사 가", "2024-12-09T14:30:00+09:00"),
        ("나", "진짜? 어디로?\n해운대 근처야?", "2024-12-09T14:31:00+09:00"),
        ("민지", "응 해운대 쪽이야", "2024-12-09T00:05:00+09:00"),
        ("나", "이사 날짜는 1월 18일이지?", "2024-12-10T09:00:00+09:00"),
    ]
    assert parsed.bad == [] and parsed.skipped == 4  # two date lines, the join notice, the photo


def test_kakaotalk_pc_export_in_english_in_another_time_zone() -> None:
    parsed = parse_export(KAKAO_PC_EN, "kakaotalk", "tom.txt", timezone="America/Denver")
    [chat] = parsed.conversations
    assert [(m["speaker"], m["timestamp"]) for m in chat.messages] == [
        ("Tom", "2024-12-09T14:30:00-07:00"), ("Me", "2024-12-09T14:31:00-07:00"), ("Tom", "2024-12-09T00:05:00-07:00")]
    assert parsed.skipped == 2  # the date line and the emoticon


def test_kakaotalk_phone_layouts_korean_and_english() -> None:
    parsed = parse_export(KAKAO_PHONE, "kakaotalk", "phone.txt")
    [chat] = parsed.conversations
    assert [(m["speaker"], m["timestamp"][:16]) for m in chat.messages] == [
        ("민지", "2024-12-09T14:30"), ("지호", "2024-12-09T14:31"), ("Tom", "2024-12-09T14:32"),
        ("Ana", "2024-12-09T14:33")]
    assert chat.messages[2]["text"] == "My sister Ana is a nurse in Busan"
    assert parsed.skipped == 1  # the leave notice
    ids = [m["id"] for m in chat.messages]
    again = parse_export(KAKAO_PHONE, "kakaotalk", "x").conversations[0].messages
    assert len(set(ids)) == 4 and ids == [m["id"] for m in again]  # stable across runs


def test_bad_lines_stop_the_import_with_their_numbers_and_nothing_is_stored(mem: Memory, tmp_path: Path) -> None:
    broken = KAKAO_PHONE.replace("2024. 12. 9. 오후 2:31", "2024. 13. 9. 오후 2:31").replace(
        "12/9/24, 14:33", "12/9/24, 25:33")
    path = tmp_path / "broken.txt"
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(FileFormatError) as refused:
        mem.import_chat("chat", path, "kakaotalk")
    message = str(refused.value)
    assert "line 2" in message and "line 4" in message and "skip_bad" in message
    assert mem.banks() == []
    result = mem.import_chat("chat", path, "kakaotalk", skip_bad=True)
    assert result.messages == 2 and [b.split(":")[0] for b in result.bad_lines] == ["line 2", "line 4"]
    assert {s.id for s in mem.sources("chat")} == {"kakaotalk:broken.txt"}


def test_not_an_export_is_refused_with_what_it_should_be(mem: Memory, tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("그냥 메모야\nJust some notes\n", encoding="utf-8")
    with pytest.raises(FileFormatError, match="KakaoTalk"):
        mem.import_chat("chat", path, "kakaotalk")
    with pytest.raises(InputError, match="time zone"):
        mem.import_chat("chat", path, "kakaotalk", timezone="Mars/Olympus")
    with pytest.raises(InputError, match="kakaotalk"):
        mem.import_chat("chat", path, "whatsapp")
    assert mem.banks() == []


def test_import_then_recall_and_a_longer_export_adds_only_the_new_messages(mem: Memory, tmp_path: Path) -> None:
    path = tmp_path / "민지.txt"
    first, _, last = KAKAO_PC_KO.rpartition("--------------- 2024년 12월 10일")
    path.write_text(first, encoding="utf-8")
    result = mem.import_chat("민지", path, "kakaotalk")
    assert result.conversations == 1 and result.messages == 3 and result.facts_added >= 2
    found = mem.recall("민지", "민지 어디로 이사 가?", limit=3).memories
    assert "부산" in found[0].text and found[0].speaker == "민지"
    assert found[0].mentioned_at == datetime(2024, 12, 9, 5, 30, tzinfo=timezone.utc)
    path.write_text(KAKAO_PC_KO, encoding="utf-8")
    again = mem.import_chat("민지", path, "kakaotalk")
    assert again.messages == 4 and again.facts_added == 1
    assert "1월 18일" in mem.recall("민지", "이사 날짜 언제야?", limit=1).memories[0].text


def _node(node_id: str, parent: str | None, children: list[str], role: str | None, text: str = "",
          at: float | None = None) -> dict[str, object]:
    message = None if role is None else {"id": node_id, "author": {"role": role}, "create_time": at,
                                         "content": {"content_type": "text", "parts": [text]}}
    return {"id": node_id, "parent": parent, "children": children, "message": message}


def _chatgpt_export() -> list[dict[str, object]]:
    edited = {  # the user edited the question: the branch ending at current_node is the one kept
        "root": _node("root", None, ["sys"], None),
        "sys": _node("sys", "root", ["q1", "q1b"], "system", "You are ChatGPT."),
        "q1": _node("q1", "sys", ["a1"], "user", "I live in Austin. What's a good bakery?", 1733700000),
        "a1": _node("a1", "q1", [], "assistant", "Try Easy Tiger on 6th Street.", 1733700010),
        "q1b": _node("q1b", "sys", ["a1b"], "user", "I live in Seattle now. What's a good bakery?", 1733700100),
        "a1b": _node("a1b", "q1b", [], "assistant", "Try Sea Wolf Bakers in Fremont.", 1733700110),
    }
    korean = {
        "r": _node("r", None, ["u"], None),
        "u": _node("u", "r", ["a"], "user", "나 땅콩 알레르기 있어. 간식 추천해 줘.", 1733800000),
        "a": _node("a", "u", [], "assistant", "땅콩이 없는 쌀과자나 과일을 추천해요.", 1733800005),
    }
    return [{"id": "c-en", "title": "Bakery", "create_time": 1733700000, "mapping": edited, "current_node": "a1b"},
            {"conversation_id": "c-ko", "title": "간식", "mapping": korean, "current_node": "a"},
            {"title": "broken", "mapping": "not a tree"}]


def test_chatgpt_export_keeps_the_branch_last_shown_and_names_a_bad_conversation(mem: Memory, tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(_chatgpt_export(), ensure_ascii=False), encoding="utf-8")
    parsed = parse_export(path.read_text(encoding="utf-8"), "chatgpt", path.name)
    english, korean = parsed.conversations
    assert [m["text"] for m in english.messages] == ["I live in Seattle now. What's a good bakery?",
                                                     "Try Sea Wolf Bakers in Fremont."]
    assert english.messages[0]["role"] == "user" and english.messages[0]["timestamp"].startswith("2024-12-08T23:21")
    assert korean.document_id == "chatgpt:c-ko" and korean.messages[0]["text"].startswith("나 땅콩")
    assert [b.line for b in parsed.bad] == [3] and "conversation 3" in parsed.bad[0].reason
    with pytest.raises(FileFormatError, match="conversation 3"):
        mem.import_chat("me", path, "chatgpt")
    result = mem.import_chat("me", path, "chatgpt", skip_bad=True)
    assert result.conversations == 2 and sorted(result.source_ids) == ["chatgpt:c-en", "chatgpt:c-ko"]
    assert "Seattle" in mem.recall("me", "Where do I live?", limit=1).memories[0].text
    assert not any("Austin" in m.text for m in mem.recall("me", "Austin bakery Easy Tiger", limit=10).memories)
    assert "땅콩" in mem.recall("me", "나 무슨 알레르기 있어?", limit=1).memories[0].text


def test_jsonl_messages_and_conversations_with_bad_line_numbers(mem: Memory, tmp_path: Path) -> None:
    lines = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "My daughter Hana starts school in March."},
        {"role": "assistant", "content": [{"type": "text", "text": "하나가 3월에 입학하는군요, 축하드려요."}]},
        "{not json",
        {"role": "narrator", "content": "x"},
        {"messages": [{"role": "user", "content": "우리 강아지 이름은 콩이야."},
                      {"role": "assistant", "content": "콩이, 귀여운 이름이네요!"}]},
    ]
    path = tmp_path / "chat.jsonl"
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x, ensure_ascii=False) for x in lines),
                    encoding="utf-8")
    parsed = parse_export(path.read_text(encoding="utf-8"), "jsonl", path.name)
    assert [b.line for b in parsed.bad] == [4, 5] and parsed.skipped == 1
    single, per_line = parsed.conversations
    assert [m["role"] for m in single.messages] == ["user", "assistant"]
    assert per_line.document_id == "jsonl:chat.jsonl:6" and len(per_line.messages) == 2
    with pytest.raises(FileFormatError, match="line 4"):
        mem.import_chat("fam", path, "jsonl")
    assert mem.banks() == []
    mem.import_chat("fam", path, "jsonl", skip_bad=True)
    assert "Hana" in mem.recall("fam", "When does Hana start school?", limit=1).memories[0].text
    assert "콩이" in mem.recall("fam", "강아지 이름이 뭐야?", limit=1).memories[0].text


def test_cli_import_prints_json_and_refuses_bad_lines_with_exit_code_2(db_path: str, fake_embedder: object,
                                                                       tmp_path: Path) -> None:
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text(KAKAO_PC_EN, encoding="utf-8")
    bad.write_text(KAKAO_PC_EN.replace("[2:31 PM]", "[13:31 PM]"), encoding="utf-8")
    runner = CliRunner()
    base = ["--db", db_path, "--embedder", "fake", "import", "kakaotalk"]
    done = runner.invoke(cli, [*base, "tom", str(good), "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["messages"] == 3
    refused = runner.invoke(cli, [*base, "tom2", str(bad)])
    assert refused.exit_code == 2 and "line 6" in refused.output and "--skip-bad" in refused.output


def test_http_import_of_a_kakaotalk_export_and_a_bad_one(mem: Memory) -> None:
    from fastapi.testclient import TestClient

    from gieok.server.app import create_app

    with TestClient(create_app(mem, worker=False)) as client:
        done = client.post("/v1/banks/민지/imports/kakaotalk?name=민지.txt", content=KAKAO_PC_KO.encode("utf-8"))
        assert done.status_code == 200, done.text
        assert done.json()["source_ids"] == ["kakaotalk:민지.txt"] and done.json()["messages"] == 4
        bad = client.post("/v1/banks/tom/imports/kakaotalk", content=KAKAO_PC_EN.replace("[2:31 PM]", "[13:31 PM]"))
        assert bad.status_code == 422 and "line 6" in bad.json()["detail"] and "Traceback" not in bad.text
        unknown = client.post("/v1/banks/tom/imports/whatsapp", content=b"x")
        assert unknown.status_code == 422 and "kakaotalk" in unknown.json()["detail"]
    assert [b.name for b in mem.banks()] == ["민지"]


def test_a_named_assistant_keeps_the_assistants_trust(mem: Memory, tmp_path: Path) -> None:
    """An OpenAI export's ``name`` names a person only on the user's side: an assistant called "Hana"
    is still the assistant (its trust level is not the user's), a named user is that user."""
    lines = [{"role": "user", "name": "민지", "content": "저 다음 달에 판교로 이사 가요."},
             {"role": "assistant", "name": "Hana", "content": "Noted: you move to Pangyo next month."}]
    path = tmp_path / "named.jsonl"
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines), encoding="utf-8")
    mem.import_chat("named", path, "jsonl")
    by_text = {m.text: m for m in mem.recall("named", "판교 이사 Pangyo move", limit=5).memories}
    assert by_text["저 다음 달에 판교로 이사 가요."].speaker == "민지"
    assert by_text["저 다음 달에 판교로 이사 가요."].trust == "user"
    assistant = by_text["Noted: you move to Pangyo next month."]
    assert assistant.speaker == "assistant" and assistant.trust == "assistant"
