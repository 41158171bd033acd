"""Answers built from memory: reflect, the consolidated observations, and mental models."""

from __future__ import annotations

from typing import Any

import click

from gieok.cli._common import echo_json, open_memory, scope_arguments, scope_options

__all__ = ["register"]


def register(cli: click.Group) -> None:
    """Add reflect, observations and the models group to ``cli``."""
    for command in (reflect, observations, models):
        cli.add_command(command)


@click.command()
@click.argument("bank")
@click.argument("question")
@click.option("--now", default=None, help="reference time for the question (ISO 8601); default: now")
@scope_options(recall=True)
@click.option("--json", "as_json", is_flag=True, help="print the answer, its evidence and the steps as JSON")
@click.pass_context
def reflect(ctx: click.Context, /, bank: str, question: str, now: str | None, as_json: bool, **scope: Any) -> None:
    """Answer QUESTION only from BANK's memories, with verified quotes, or say it is not in memory."""
    result = open_memory(ctx).reflect(bank, question, now=now, **scope_arguments(scope))
    if as_json:
        echo_json(result.to_dict())
        return
    click.echo(result.answer)
    for item in result.based_on:
        where = f" ({item['citation']})" if item.get("citation") else ""
        click.echo(f"  [{item['id']}]{where} {item['text']}" if item["text"] else f"  [{item['id']}]{where}")
    if result.dropped_quotes:
        click.echo(f"  (dropped {len(result.dropped_quotes)} unverified quote(s))")


@click.group()
def models() -> None:
    """Mental models: standing questions whose answers are kept current in the background."""


@models.command("add")
@click.argument("bank")
@click.argument("name")
@click.argument("question")
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
def models_add(ctx: click.Context, bank: str, name: str, question: str, as_json: bool) -> None:
    """Add (or replace) mental model NAME asking QUESTION, and answer it now."""
    model = open_memory(ctx).models.add(bank, name, question)
    echo_json(model.to_dict()) if as_json else click.echo(f"{model.name}: {model.answer}")


@models.command("list")
@click.argument("bank")
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
def models_list(ctx: click.Context, bank: str, as_json: bool) -> None:
    """List BANK's mental models with their current answers."""
    rows = open_memory(ctx).models.list(bank)
    if as_json:
        echo_json([m.to_dict() for m in rows])
        return
    for m in rows:
        click.echo(f"{m.name}  ({m.question})  refreshed {m.refreshed_at or 'never'}\n  {m.answer}")


@models.command("delete")
@click.argument("bank")
@click.argument("name")
@click.pass_context
def models_delete(ctx: click.Context, bank: str, name: str) -> None:
    """Delete mental model NAME of BANK."""
    open_memory(ctx).models.delete(bank, name)
    click.echo(f"deleted mental model {name}")




@click.command()
@click.argument("bank")
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
def observations(ctx: click.Context, bank: str, as_json: bool) -> None:
    """BANK's consolidated observations and the memories supporting each."""
    rows = open_memory(ctx).observations(bank)
    if as_json:
        echo_json([o.to_dict() for o in rows])
        return
    for o in rows:
        click.echo(f"{o.id}  {o.text}\n  based on {', '.join(o.based_on)}")
