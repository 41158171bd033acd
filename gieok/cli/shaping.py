"""``gieok disposition`` and ``gieok directives``: how a bank's reflect answers (thin over Memory)."""

from __future__ import annotations

import json

import click

from gieok.cli._common import echo_json, open_memory

__all__ = ["register"]


def register(cli: click.Group) -> None:
    """Add disposition and directives to ``cli``."""
    for command in (disposition, directives):
        cli.add_command(command)


@click.command()
@click.argument("bank")
@click.option("--skepticism", type=click.IntRange(1, 5), default=None,
              help="how much evidence an answer needs, 1-5 (3: neutral)")
@click.option("--literalism", type=click.IntRange(1, 5), default=None,
              help="4-5: only memories in the question's own words answer (1-5, 3: neutral)")
@click.option("--empathy", type=click.IntRange(1, 5), default=None,
              help="how the answer treats the asker, 1-5 (3: neutral)")
@click.option("--name", default=None, help="who answers, e.g. 'Cautious risk analyst'")
@click.option("--background", default=None, help="a sentence or two about them")
@click.option("--reset", is_flag=True, help="return the bank to the neutral disposition")
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
def disposition(ctx: click.Context, bank: str, skepticism: int | None, literalism: int | None, empathy: int | None,
                name: str | None, background: str | None, reset: bool, as_json: bool) -> None:
    """Show BANK's disposition, or set it: options not given are neutral (3, no name)."""
    mem = open_memory(ctx)
    given = {"skepticism": skepticism, "literalism": literalism, "empathy": empathy, "name": name,
             "background": background}
    if reset and any(v is not None for v in given.values()):
        raise click.UsageError("--reset takes no other option: reset, or set the dials")
    if reset or any(v is not None for v in given.values()):
        current = mem.set_disposition(bank, {k: v for k, v in given.items() if v is not None})
    else:
        current = mem.disposition(bank)
    if as_json:
        echo_json(current.to_dict())
        return
    click.echo(f"{current.name or '(no name)'}: skepticism {current.skepticism}, literalism {current.literalism}, "
               f"empathy {current.empathy}" + (" (neutral)" if current.neutral else ""))
    if current.background:
        click.echo(f"  {current.background}")


@click.command()
@click.argument("bank")
@click.argument("directive", nargs=-1)
@click.option("--forbid", "forbidden", multiple=True, help="a topic reflect must not answer (repeatable)")
@click.option("--clear", is_flag=True, help="remove every directive")
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
def directives(ctx: click.Context, bank: str, directive: tuple[str, ...], forbidden: tuple[str, ...], clear: bool,
               as_json: bool) -> None:
    """Show BANK's directives, or replace them with DIRECTIVE... in order (text: "Never give medical
    dosages", "답변은 존댓말로"; or a JSON object: '{"forbid": "dosages", "words": ["mg"]}')."""
    mem = open_memory(ctx)
    given: list[str | dict[str, object]] = [_parsed(d) for d in directive] + [{"forbid": f} for f in forbidden]
    if clear and given:
        raise click.UsageError("--clear takes no directive: clear, or give the new list")
    current = mem.set_directives(bank, given) if clear or given else mem.directives(bank)
    if as_json:
        echo_json([d.to_dict() for d in current])
        return
    if not current:
        click.echo("no directives")
    for i, d in enumerate(current, start=1):
        how = "enforced in code" if d.enforced else "LLM prompt only"
        click.echo(f"{i}. [{d.kind}, {how}] {d.text}")


def _parsed(text: str) -> str | dict[str, object]:
    """A directive argument: a JSON object when it looks like one, else the text itself."""
    if text.lstrip().startswith("{"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as error:
            raise click.BadParameter(f"{text!r} is not valid JSON ({error.msg}): quote a JSON object, or give "
                                     "text") from None
        if isinstance(value, dict):
            return value
    return text
