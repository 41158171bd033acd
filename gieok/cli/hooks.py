"""``gieok hooks``: Claude Code's hooks wired to gieok (thin over :mod:`gieok.integrations.claude_code`).

``gieok hooks claude-code`` prints the ``.claude/settings.json`` snippet; the snippet calls
``gieok hooks session-start``, ``gieok hooks prompt`` and ``gieok hooks stop``, which read the
event's JSON on stdin and print Claude Code's JSON output. A hook must never stand in the user's way:
a failure is one line on stderr and exit code 1 (Claude Code shows it and goes on), never exit code 2,
which would block the prompt.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from gieok._lazy import lazy_module
from gieok.cli._common import echo_json, global_options, open_memory
from gieok.errors import GieokError

if TYPE_CHECKING:
    from gieok.integrations import claude_code
else:  # imported when a hook runs, not when `gieok --help` lists the commands
    claude_code = lazy_module("gieok.integrations.claude_code")

__all__ = ["register"]

_BANK = click.option("--bank", default="claude-code", show_default=True, help="the bank the hooks read and write")
_USER = click.option("--user", "user_id", default=None, help="whose memories: recall sees this user's and shared ones")


def register(cli: click.Group) -> None:
    """Add the hooks group to ``cli``."""
    cli.add_command(hooks)


@click.group()
def hooks() -> None:
    """Memory for coding agents through their hooks (Claude Code)."""


def _gieok_command(ctx: click.Context) -> list[str]:
    """How the hooks call this gieok again: this Python, this database (absolute: hooks run in the project's
    directory). A PostgreSQL URL is not written into the settings file: the hooks read $GIEOK_DATABASE."""
    options = global_options(ctx)
    command = [sys.executable, "-m", "gieok"]
    return command if options.database else [*command, "--db", os.path.abspath(options.db)]


@hooks.command("claude-code")
@_BANK
@_USER
@click.pass_context
def claude_code_settings(ctx: click.Context, bank: str, user_id: str | None) -> None:
    """Print the hooks for .claude/settings.json: session start → context, prompt → gated recall, stop → retain."""
    scope = ["--bank", bank, *(["--user", user_id] if user_id else [])]

    def hook(name: str, timeout: int) -> list[dict[str, Any]]:
        command = shlex.join([*_gieok_command(ctx), "hooks", name, *scope])
        return [{"hooks": [{"type": "command", "command": command, "timeout": timeout}]}]

    echo_json({"hooks": {"SessionStart": hook("session-start", 30), "UserPromptSubmit": hook("prompt", 30),
                         "Stop": hook("stop", 30)}})


def _run_hook(ctx: click.Context, handle: Callable[[dict[str, Any]], Any]) -> None:
    try:
        payload = json.loads(sys.stdin.read() or "{}")
        if not isinstance(payload, dict):
            raise ValueError("the hook's stdin is not a JSON object")
        output = handle(payload)
    except (GieokError, ValueError, OSError) as exc:
        if os.environ.get("GIEOK_RAISE_ERRORS"):
            raise
        click.echo(f"gieok hook: {type(exc).__name__}: {exc}", err=True)
        ctx.exit(1)
    if output is not None:
        click.echo(json.dumps(output, ensure_ascii=False))


@hooks.command("session-start")
@_BANK
@_USER
@click.pass_context
def session_start(ctx: click.Context, bank: str, user_id: str | None) -> None:
    """SessionStart hook: print the user's profile (and a resumed session's last turns) as context."""
    _run_hook(ctx, lambda p: claude_code.session_start(open_memory(ctx), bank, p, user_id=user_id))


@hooks.command("prompt")
@_BANK
@_USER
@click.option("--max-tokens", default=1500, show_default=True, type=click.IntRange(min=50),
              help="the memories' token budget")
@click.pass_context
def prompt(ctx: click.Context, bank: str, user_id: str | None, max_tokens: int) -> None:
    """UserPromptSubmit hook: recall for the prompt (unless it is small talk) and print it as context."""
    _run_hook(ctx, lambda p: claude_code.prompt_submit(open_memory(ctx), bank, p, user_id=user_id,
                                                       max_tokens=max_tokens))


@hooks.command("stop")
@_BANK
@_USER
@click.option("--drain/--no-drain", default=True, show_default=True,
              help="start `gieok jobs --run` in the background to write the turn (--no-drain: leave it to a worker)")
@click.pass_context
def stop(ctx: click.Context, bank: str, user_id: str | None, drain: bool) -> None:
    """Stop hook: queue the turn that just ended for retain (submit_retain) and return at once."""
    def handle(payload: dict[str, Any]) -> None:
        operation = claude_code.stop(open_memory(ctx), bank, payload, user_id=user_id)
        if operation is not None and drain:
            # detached, so Claude Code is not kept waiting while the turn is embedded and written
            subprocess.Popen([*_gieok_command(ctx), "jobs", "--run"], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    _run_hook(ctx, handle)
