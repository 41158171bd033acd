"""Claude Code hooks: `gieok hooks claude-code` prints a settings snippet whose commands exist; the hook
commands read Claude Code's JSON on stdin: session start prints the profile (and a resumed session's
turns), a prompt is recalled for unless it is small talk, stop queues the turn (submit_retain) which a
job run then writes; a failure never exits 2 (that would block the prompt). Korean and English."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import gieok.cli.hooks as hooks_cli
from gieok import Memory
from gieok.cli import cli
from gieok.integrations.claude_code import last_turn


def _hook(db: str, name: str, payload: dict[str, Any] | str, *extra: str, user: str = "minji") -> Any:
    stdin = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    argv = ["--db", db, "--embedder", "fake", "hooks", name, "--bank", "dev", "--user", user, *extra]
    return CliRunner().invoke(cli, argv, input=stdin)


def _transcript(path: Path, *entries: tuple[str, Any]) -> str:
    lines = [{"type": kind, "uuid": f"u{i}", "timestamp": "2026-05-01T10:00:00Z",
              "message": {"role": kind, "content": content}} for i, (kind, content) in enumerate(entries)]
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    return str(path)


def test_the_settings_snippet_calls_existing_commands(db_path: str) -> None:
    done = CliRunner().invoke(cli, ["--db", db_path, "hooks", "claude-code", "--bank", "dev", "--user", "민지"])
    assert done.exit_code == 0, done.output
    settings = json.loads(done.output)["hooks"]
    assert set(settings) == {"SessionStart", "UserPromptSubmit", "Stop"}
    for event, name in (("SessionStart", "session-start"), ("UserPromptSubmit", "prompt"), ("Stop", "stop")):
        argv = shlex.split(settings[event][0]["hooks"][0]["command"])
        assert argv[:5] == [sys.executable, "-m", "gieok", "--db", str(Path(db_path).resolve())]
        assert argv[5:] == ["hooks", name, "--bank", "dev", "--user", "민지"]
        assert name in cli.commands["hooks"].commands  # type: ignore[attr-defined]


def test_a_session_prompts_and_stops(mem: Memory, db_path: str, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[list[str]] = []
    monkeypatch.setattr(hooks_cli.subprocess, "Popen", lambda argv, **kw: started.append(argv))
    base = {"session_id": "s-1", "cwd": str(tmp_path), "transcript_path": str(tmp_path / "t.jsonl")}

    first = _hook(db_path, "session-start", {**base, "hook_event_name": "SessionStart", "source": "startup"})
    assert first.exit_code == 0 and first.output == ""  # nothing remembered yet
    assert _hook(db_path, "prompt", {**base, "hook_event_name": "UserPromptSubmit", "prompt": "hi"}).output == ""

    _transcript(tmp_path / "t.jsonl",
                ("user", "나는 땅콩 알레르기가 있어. 그리고 I deploy with Docker on Fridays."),
                ("assistant", [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]),
                ("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "file"}]),
                ("assistant", [{"type": "text", "text": "알겠어요, 기억할게요."}]))
    stopped = _hook(db_path, "stop", {**base, "hook_event_name": "Stop", "stop_hook_active": False})
    assert stopped.exit_code == 0 and stopped.output == ""
    assert started and started[0][-2:] == ["jobs", "--run"]  # the turn is written in the background
    queued = [j for j in mem.jobs("dev") if j.kind == "retain"]
    assert queued and queued[0].status == "queued"
    mem.run_jobs("dev")
    said = [(m.speaker, m.text) for m in mem.source("dev", "claude-code:s-1").messages]
    assert said == [("user", "나는 땅콩 알레르기가 있어. 그리고 I deploy with Docker on Fridays."),
                    ("assistant", "알겠어요, 기억할게요.")]

    asked = _hook(db_path, "prompt", {**base, "hook_event_name": "UserPromptSubmit",
                                      "prompt": "When do I deploy, and with what?"})
    context = json.loads(asked.output)["hookSpecificOutput"]
    assert context["hookEventName"] == "UserPromptSubmit" and "Docker on Fridays" in context["additionalContext"]
    assert _hook(db_path, "prompt", {**base, "prompt": "ㅋㅋㅋ 고마워!"}).output == ""  # small talk: no recall
    other = _hook(db_path, "prompt", {**base, "prompt": "When do I deploy, and with what?"}, user="tom")
    assert "Docker" not in other.output  # minji's memories are not tom's

    resumed = _hook(db_path, "session-start", {**base, "hook_event_name": "SessionStart", "source": "resume"})
    start = json.loads(resumed.output)["hookSpecificOutput"]
    assert start["hookEventName"] == "SessionStart" and "알겠어요, 기억할게요." in start["additionalContext"]


def test_the_reply_from_the_payload_and_failures_that_never_block(db_path: str, tmp_path: Path,
                                                                  fake_embedder: object) -> None:
    path = _transcript(tmp_path / "t.jsonl", ("user", "Remember: my cat is called Nabi."))
    assert [m["role"] for m in last_turn(path)] == ["user"]
    payload = {"session_id": "s-2", "transcript_path": path, "last_assistant_message": "Nabi, noted!"}
    assert _hook(db_path, "stop", payload, "--no-drain").exit_code == 0
    with Memory(db_path, embedder="fake") as mem:
        mem.run_jobs("dev")
        assert [m.text for m in mem.source("dev", "claude-code:s-2").messages] == \
            ["Remember: my cat is called Nabi.", "Nabi, noted!"]
    bad = _hook(db_path, "stop", "not json")
    assert bad.exit_code == 1 and "gieok hook" in bad.output
    assert _hook(db_path, "stop", {"transcript_path": path}).exit_code == 1  # no session_id: exit 1, not 2
