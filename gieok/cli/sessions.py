"""Working memory from the shell: ``gieok session add`` and ``gieok session show``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from gieok.cli._common import echo_json, open_memory
from gieok.records import SESSION_ROLES

__all__ = ["register"]

F = TypeVar("F", bound=Callable[..., Any])

_SESSION_OPTIONS = [
    click.option("--max-tokens", default=3000, show_default=True, type=click.IntRange(min=50),
                 help="verbatim turns past this many tokens are folded into the summary"),
    click.option("--keep-recent", default=6, show_default=True, type=click.IntRange(min=1),
                 help="turns always kept verbatim"),
    click.option("--user", "user_id", default=None,
                 help="whose session: its turns are that user's memories; its context recalls theirs and shared ones"),
]


def register(cli: click.Group) -> None:
    """Add the session group to ``cli``."""
    cli.add_command(session)


def _with_session_options(func: F) -> F:
    for option in reversed(_SESSION_OPTIONS):
        func = option(func)
    return func


@click.group()
def session() -> None:
    """Working memory: a conversation's recent turns verbatim and a summary of the older ones."""


@session.command("add")
@click.argument("bank")
@click.argument("session_id")
@click.argument("content")
@click.option("--role", type=click.Choice(SESSION_ROLES), default="user", show_default=True, help="who said it")
@_with_session_options
@click.option("--json", "as_json", is_flag=True, help="print the session after the turn as JSON")
@click.pass_context
def session_add(ctx: click.Context, bank: str, session_id: str, content: str, role: str, max_tokens: int,
                keep_recent: int, user_id: str | None, as_json: bool) -> None:
    """Add CONTENT as a turn of SESSION_ID in BANK (also retained to long-term memory)."""
    s = open_memory(ctx).session(bank, session_id, max_tokens=max_tokens, keep_recent=keep_recent, user_id=user_id)
    position = s.add(role, content)
    if as_json:
        echo_json({"position": position, **s.show()})
    else:
        click.echo(f"turn {position} added to {s.source_id}")


@session.command("show")
@click.argument("bank")
@click.argument("session_id")
@click.option("--query", default=None, help="also recall for this turn, within --context-tokens")
@click.option("--context-tokens", default=4000, show_default=True, type=click.IntRange(min=1),
              help="the token budget of the context (session + recalled memories)")
@_with_session_options
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
def session_show(ctx: click.Context, bank: str, session_id: str, query: str | None, context_tokens: int,
                 max_tokens: int, keep_recent: int, user_id: str | None, as_json: bool) -> None:
    """Show SESSION_ID of BANK as chat messages: the summary, then the recent turns."""
    view = open_memory(ctx).session(bank, session_id, max_tokens=max_tokens, keep_recent=keep_recent,
                                    user_id=user_id).show(query, context_tokens)
    if as_json:
        echo_json(view)
        return
    for message in view["messages"]:
        click.echo(f"[{message['role']}] {message['content']}")
    if query is not None:
        click.echo(f"(recall {'ran' if view['recalled'] else 'skipped'}: {view['gate_reason']}; "
                   f"{view['tokens']} tokens)")
