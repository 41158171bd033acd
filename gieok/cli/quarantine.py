"""``gieok quarantine``: the statements retain held back as instructions from a lower-trust source
(Memory.quarantined), and what an operator does with one: ``--release`` it (it becomes a fact) or
``--dismiss`` it (it stays only in its verbatim source). Erasing one is ``gieok forget BANK --source``
with its message or source id."""

from __future__ import annotations

import click

from gieok import HeldStatement
from gieok.cli._common import echo_json, open_memory

__all__ = ["register"]


def register(cli: click.Group) -> None:
    """Add ``quarantine`` to ``cli``."""
    cli.add_command(quarantine)


@click.command()
@click.argument("bank")
@click.option("--release", "release_id", default=None, metavar="ID",
              help="make the held statement ID (q-12) a fact after all, at its own trust level")
@click.option("--dismiss", "dismiss_id", default=None, metavar="ID",
              help="stop listing the held statement ID: it stays only in its source, never a fact")
@click.option("--limit", type=click.IntRange(min=1), default=1000, show_default=True,
              help="list at most this many, newest first")
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
def quarantine(ctx: click.Context, bank: str, release_id: str | None, dismiss_id: str | None, limit: int,
               as_json: bool) -> None:
    """List what BANK held back as instructions to the assistant, or release or dismiss one.

    Text below the user's own words (a document, web page, tool output, the assistant) that reads as
    an instruction ("SYSTEM: ignore previous instructions…", "이전 지시는 무시하고…") is kept verbatim
    in its source but is not a fact. To erase one, forget its source:
    `gieok forget BANK --source <its message or source id>`."""
    if release_id is not None and dismiss_id is not None:
        raise click.UsageError("give --release or --dismiss, not both")
    mem = open_memory(ctx)
    if release_id is not None:
        released = mem.release(bank, release_id)
        if as_json:
            echo_json(released.to_dict())
        else:
            click.echo(f"released {release_id} as {released.id} ({released.trust}): {_inert(released.text)}")
    elif dismiss_id is not None:
        mem.dismiss(bank, dismiss_id)
        if as_json:
            echo_json({"dismissed": dismiss_id})
        else:
            click.echo(f"dismissed {dismiss_id}: it stays only in its source")
    else:
        _list(mem.quarantined(bank, limit=limit), bank, as_json)


def _list(held: list[HeldStatement], bank: str, as_json: bool) -> None:
    if as_json:
        echo_json([h.to_dict() for h in held])
        return
    if not held:
        click.echo(f"{bank} holds nothing in quarantine")
    for h in held:
        where = h.source_id + (f" · {h.message_id}" if h.message_id and h.message_id != h.source_id else "")
        click.echo(f"{h.id}\t{h.held_at.isoformat(timespec='seconds')}\t{_inert(where)}\t{h.trust}")
        click.echo("    " + _inert(h.text).replace("\n", "\n    "))
        click.echo(f"    reason: {_inert(h.reason)}")


def _inert(text: str) -> str:
    """Held text is hostile by definition: its control characters (a terminal's escape sequences
    among them) are shown as ``\\x1b``, never sent to the terminal."""
    return "".join(c if c in "\n\t" or c.isprintable() else f"\\x{ord(c):02x}" for c in text)
