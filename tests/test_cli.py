"""The CLI adapter, in-process with click's runner: every command, --json, errors as exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)

from gieok.cli import cli

MESSAGES = [
    {"id": "m1", "speaker": "민지", "text": "다음 주부터 판교 카카오로 출근해",
     "timestamp": "2026-05-04T09:00:00+09:00"},
    {"id": "m2", "speaker": "Mina", "text": "I adopted a cat named Nabi",
     "timestamp": "2026-05-05T09:00:00+09:00"},
]


@pytest.fixture
def run(db_path: str, fake_embedder):
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None, code: int = 0):
        result = runner.invoke(cli, ["--db", db_path, "--embedder", "fake", *args], input=input)
        assert result.exit_code == code, result.output + str(result.exception)
        return result

    return invoke


def test_retain_recall_banks_sources_show(run, tmp_path: Path) -> None:
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(MESSAGES, ensure_ascii=False), encoding="utf-8")
    out = json.loads(run("retain", "minji", str(chat), "--json").output)
    assert out["facts_added"] == 2 and out["source_id"] == "conversation-m1"

    jsonl = tmp_path / "more.jsonl"
    jsonl.write_text(json.dumps({"id": "m3", "speaker": "민지", "text": "주말에 한라산에 올랐어"},
                                ensure_ascii=False) + "\n")
    run("retain", "minji", str(jsonl), "--document-id", "chat-2")
    run("retain", "minji", "--document-id", "notes", "--json",
        input="민지는 필라테스를 좋아한다.\n\nShe hates cilantro.")

    recalled = json.loads(run("recall", "minji", "한라산 오르다", "--json").output)
    top = recalled["memories"][0]
    assert top["source_ids"] == ["m3"] and top["channels"]["keyword"]["rank"] == 1
    assert "한라산" in run("recall", "minji", "한라산").output
    explained = run("recall", "minji", "지난주 한라산", "--explain", "--now", "2026-05-12").output
    assert "ranker" in explained and "time range" in explained
    as_json = json.loads(run("recall", "minji", "한라산", "--explain", "--json").output)
    explanation = as_json["memories"][0]["explanation"]
    assert set(explanation["features"]) >= {"semantic_rr", "keyword_rr", "cosine_z", "age_place"}
    assert sum(explanation["contributions"].values()) == pytest.approx(explanation["ranker"], abs=1e-3)

    banks = json.loads(run("banks", "--json").output)
    assert banks[0]["name"] == "minji" and banks[0]["facts"] == 4
    sources = json.loads(run("sources", "minji", "--json").output)
    assert {s["id"] for s in sources} == {"conversation-m1", "chat-2", "notes"}
    shown = json.loads(run("show", "minji", top["id"], "--json").output)
    assert shown["text"] == "주말에 한라산에 올랐어"
    assert "I adopted a cat named Nabi" in run("show", "minji", "conversation-m1").output
    assert json.loads(run("show", "minji", "notes", "--json").output)["text"].startswith("민지는 필라테스")
    run("jobs", "--run")  # consolidation: observations get ids like o-1, which show reads as memories
    observations = [json.loads(run("show", "minji", f"o-{i}", "--json").output) for i in (1, 2)]
    assert all(o["type"] == "observation" and o["based_on"] for o in observations)

    deleted = json.loads(run("delete-bank", "minji", "--yes", "--json").output)
    assert deleted["facts"] == 4
    assert json.loads(run("banks", "--json").output) == []


def test_errors_are_one_line_and_exit_2(run, tmp_path: Path) -> None:
    result = run("recall", "nobody", "hello", code=2)
    assert "error: no bank has the name given as bank" in result.output
    bad = tmp_path / "bad.json"
    bad.write_text("[{\"id\": 1, ", encoding="utf-8")
    assert "not valid JSON" in run("retain", "x", str(bad), code=2).output
    no_text = tmp_path / "no_text.json"
    no_text.write_text(json.dumps([{"id": "a", "speaker": "b"}]), encoding="utf-8")
    assert "has no text" in run("retain", "x", str(no_text), code=2).output
    assert "unknown setting" in run("--set", "nope=1", "banks", code=2).output


def test_demo_json_runs_offline_with_the_given_embedder(run) -> None:
    outputs = json.loads(run("demo", "--json").output)
    assert len(outputs["recalls"]) >= 4 and all(o["memories"] for o in outputs["recalls"])
    answered, refused = outputs["reflections"]
    assert answered["supported"] and "김민지" in answered["answer"]
    assert not refused["supported"] and "not in memory" in refused["answer"]


def test_history_forget_verify_jobs_and_maintain(run, tmp_path: Path) -> None:
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([
        {"id": "v1", "speaker": "민지", "text": "마감은 금요일이야",
         "timestamp": "2026-05-04T09:00:00+09:00"},
        {"id": "v2", "speaker": "민지", "text": "아니, 금요일 말고 월요일이 마감이야",
         "timestamp": "2026-05-04T09:05:00+09:00"},
        {"id": "v3", "speaker": "Mina", "text": "My gate code is BlueHeronSeven",
         "timestamp": "2026-05-05T09:00:00+09:00"},
    ], ensure_ascii=False), encoding="utf-8")
    run("retain", "minji", str(chat), "--document-id", "chat", "--ttl", "86400")
    current = json.loads(run("recall", "minji", "마감 언제", "--json").output)["memories"]
    newest = next(m for m in current if "월요일" in m["text"])
    assert newest["supersedes"]
    old = [i for i, m in enumerate(current) if m["text"] == "마감은 금요일이야"]
    assert all(current[i]["superseded_by"] == newest["id"] and i > current.index(newest) for i in old)
    assert "replaces" in run("recall", "minji", "마감 언제").output
    assert "replaced by f-" in run("recall", "minji", "마감 금요일").output  # the old version, marked
    versions = json.loads(run("history", "minji", newest["id"], "--json").output)
    assert [v["text"] for v in versions] == ["마감은 금요일이야", "아니, 금요일 말고 월요일이 마감이야"]
    assert "→ now" in run("history", "minji", newest["id"]).output
    past = json.loads(run("recall", "minji", "마감 언제", "--as-of", "2026-05-04T09:01:00+09:00", "--json").output)
    assert any(m["text"] == "마감은 금요일이야" for m in past["memories"])

    assert run("verify-erased", "BlueHeronSeven", "--shallow", code=1).output.startswith("NOT clean")
    erased = json.loads(run("forget", "minji", "--source", "v3", "--verify", "--yes", "--json").output)
    assert erased["erased"]["facts"] == 1 and erased["proof"]["clean"] is True
    assert "clean" in run("verify-erased", "BlueHeronSeven").output
    run("forget", "minji", "--source", "nope", "--yes", code=2)
    run("forget", "minji", code=1, input="n\n")  # declined confirmation deletes nothing

    reports = json.loads(run("maintain", "minji", "--now", "2099-01-01T00:00:00+00:00", "--json").output)
    assert {r["kind"] for r in reports} == {"consolidate", "decay", "purge"}
    assert next(r for r in reports if r["kind"] == "purge")["result"]["purged"] == 2
    jobs = json.loads(run("jobs", "minji", "--json").output)
    assert {j["status"] for j in jobs} == {"done"}
    assert "decay" in run("jobs").output
    assert "0 jobs run" in run("jobs", "--run").output


def test_reflect_models_observations_and_llm_usage(run, tmp_path: Path) -> None:
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([
        {"id": "r1", "speaker": "user", "text": "김민지 팀장은 매주 토요일에 수영을 해",
         "timestamp": "2026-05-04T09:00:00+09:00"},
        {"id": "r2", "speaker": "user", "text": "My friend Caroline adopted a dog named Biscuit",
         "timestamp": "2026-05-05T09:00:00+09:00"},
    ], ensure_ascii=False), encoding="utf-8")
    run("retain", "b", str(chat))
    answer = json.loads(run("reflect", "b", "김민지 팀장은 무슨 운동 해?", "--json").output)
    assert answer["supported"] and "수영" in answer["answer"] and answer["based_on"]
    assert "기억에 없" in run("reflect", "b", "김민지 팀장 생일이 언제야?").output
    assert "Biscuit" in run("reflect", "b", "What is the name of Caroline's dog?").output
    run("jobs", "--run")
    obs = json.loads(run("observations", "b", "--json").output)
    assert obs and all(o["type"] == "observation" and o["based_on"] for o in obs)
    model = json.loads(run("models", "add", "b", "sport", "김민지 팀장은 무슨 운동을 해?", "--json").output)
    assert "수영" in model["answer"]
    assert "sport" in run("models", "list", "b").output
    run("models", "delete", "b", "sport")
    run("models", "delete", "b", "sport", code=2)
    usage = json.loads(run("llm", "b", "--spend-limit", "2.5", "--json").output)
    assert usage["spend_limit_usd"] == 2.5 and usage["spent_usd"] == 0 and usage["rows"] == []
    assert "ceiling $2.5000" in run("llm", "b").output


def test_session_add_and_show(run) -> None:
    added = json.loads(run("session", "add", "b", "chat-1", "나 고양이 털 알레르기 있어.", "--json").output)
    assert added["position"] == 0 and added["source_id"] == "session:chat-1"
    run("session", "add", "b", "chat-1", "Noted, I will remember that.", "--role", "assistant")
    for i in range(6):
        run("session", "add", "b", "chat-1", f"we talked about the weather and the clouds again, part {i}",
            "--max-tokens", "50", "--keep-recent", "2")
    shown = json.loads(run("session", "show", "b", "chat-1", "--max-tokens", "50", "--keep-recent", "2",
                           "--json").output)
    assert "고양이 털 알레르기" in shown["summary"] and len(shown["turns"]) >= 2
    ctx = json.loads(run("session", "show", "b", "chat-1", "--query", "Can I adopt a cat?", "--json").output)
    assert ctx["recalled"] is True and ctx["tokens"] <= 4000
    text = run("session", "show", "b", "chat-1", "--query", "ㅋㅋ 고마워").output
    assert "recall skipped" in text and "[user]" in text
    run("session", "add", "b", "chat-1", "hi 안녕", "--role", "narrator", code=2)


def test_global_options_go_before_or_after_any_command(tmp_path: Path, fake_embedder, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # where a default gieok.db would appear, were an option lost
    runner = CliRunner()
    db = str(tmp_path / "after.db")

    def invoke(*args: str, code: int = 0):
        result = runner.invoke(cli, list(args), env={"GIEOK_DB": None, "GIEOK_DATABASE": None})
        assert result.exit_code == code, result.output + str(result.exception)
        return result

    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(MESSAGES, ensure_ascii=False), encoding="utf-8")
    invoke("retain", "minji", str(chat), "--db", db, "--embedder", "fake", "--json")
    before = json.loads(invoke("--db", db, "--embedder", "fake", "banks", "--json").output)
    after = json.loads(invoke("banks", "--json", "--db", db, "--embedder", "fake").output)
    assert [b["name"] for b in before] == [b["name"] for b in after] == ["minji"]
    assert "consolidate" in invoke("jobs", "--db", db, "--set", "embedder=fake").output  # the retain's job
    assert invoke("jobs", "--db", db).output == invoke("--db", db, "jobs").output
    # groups and their commands take them on either side too
    invoke("session", "add", "minji", "s-1", "내일 부산 가", "--db", db, "--embedder", "fake")
    shown = invoke("session", "--db", db, "show", "minji", "s-1", "--embedder", "fake").output
    assert "부산" in shown
    assert "no keys" in invoke("keys", "list", "--db", db).output
    assert not (tmp_path / "gieok.db").exists()
    # a command's own option keeps its meaning: reembed --embedder names the target
    assert "--embedder ID" in invoke("reembed", "--help").output


def test_the_embedder_as_a_setting(tmp_path: Path, fake_embedder) -> None:
    runner = CliRunner()
    db = str(tmp_path / "set.db")
    note = tmp_path / "note.txt"
    note.write_text("I live in Seoul. 나는 서울에 살아.", encoding="utf-8")
    ok = runner.invoke(cli, ["--db", db, "--set", "embedder=fake", "retain", "en", str(note)])
    assert ok.exit_code == 0, ok.output + str(ok.exception)
    same = runner.invoke(cli, ["--db", db, "--embedder", "fake", "banks", "--set", "embedder=fake"])
    assert same.exit_code == 0, same.output
    clash = runner.invoke(cli, ["--db", db, "--embedder", "hash", "--set", "embedder=fake", "banks"])
    assert clash.exit_code == 2 and "two embedders" in clash.output and "Traceback" not in clash.output


def test_database_before_or_after_the_command(request, fake_embedder, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    dsn = request.getfixturevalue("pg_dsn_factory")()
    runner = CliRunner()
    note = tmp_path / "note.txt"
    note.write_text("민지는 판교에서 일해. Minji works in Pangyo.", encoding="utf-8")
    for args in (["retain", "pg", str(note), "--database", dsn, "--embedder", "fake"],
                 ["--database", dsn, "--embedder", "fake", "banks", "--json"],
                 ["banks", "--json", "--embedder", "fake", "--database", dsn]):
        result = runner.invoke(cli, args, env={"GIEOK_DB": None, "GIEOK_DATABASE": None})
        assert result.exit_code == 0, result.output + str(result.exception)
    assert [b["name"] for b in json.loads(result.output)] == ["pg"]
    assert not (tmp_path / "gieok.db").exists()  # PostgreSQL held it, not a SQLite file
