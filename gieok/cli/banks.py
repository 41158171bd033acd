"""``gieok bank export | import | clone | rename``: banks you can take with you (Memory.export_bank,
import_bank, clone_bank, rename_bank; the file format is docs/guide/portability.md).

``FILE`` may be ``-`` for standard output (export) or standard input (import).
"""

from __future__ import annotations

import sys
from typing import Any

import click

from gieok.cli._common import echo_json, open_memory

__all__ = ["register"]


def register(cli: click.Group) -> None:
    """Add the ``bank`` group to ``cli``."""
    cli.add_command(bank)


@click.group()
def bank() -> None:
    """Move banks: export to a file, import from one, clone, rename."""


@bank.command("export")
@click.argument("name", metavar="BANK")
@click.argument("file")
@click.option("--with-vectors", is_flag=True, help="add every vector (base64 float32, with the embedder id)")
@click.option("--json", "as_json", is_flag=True, help="print a JSON summary")
@click.pass_context
def export_command(ctx: click.Context, /, name: str, file: str, with_vectors: bool, as_json: bool) -> None:
    """Write BANK to FILE as a gieok bank file (JSON Lines): its settings, sources, messages, facts with
    their lifecycle, graph, observations, mental models, profile, sessions and held statements."""
    mem = open_memory(ctx)
    if file == "-":
        lines = mem.export_bank(name, sys.stdout.buffer, with_vectors=with_vectors)
        sys.stdout.flush()
    else:
        lines = mem.export_bank(name, file, with_vectors=with_vectors)
    summary = {"bank": name, "file": file, "lines": lines, "with_vectors": with_vectors}
    if as_json:
        echo_json(summary)
    elif file != "-":
        click.echo(f"exported {name} to {file} ({lines} lines{', with vectors' if with_vectors else ''})")


@bank.command("import")
@click.argument("file")
@click.option("--as", "new_name", default=None, metavar="NAME", help="the bank to import into (default: the file's)")
@click.option("--json", "as_json", is_flag=True, help="print a JSON summary")
@click.pass_context
def import_command(ctx: click.Context, /, file: str, new_name: str | None, as_json: bool) -> None:
    """Import a bank file. Checked line by line before anything is written; importing the same file
    twice changes nothing; vectors of another embedder are embedded again."""
    mem = open_memory(ctx)
    from rich.progress import Progress

    with Progress(transient=True, disable=as_json or not sys.stderr.isatty()) as progress:
        task = progress.add_task("importing", total=None)
        source: Any = sys.stdin.buffer if file == "-" else file
        result = mem.import_bank(source, new_name,
                                 progress=lambda done, total: progress.update(task, completed=done, total=total))
    if as_json:
        echo_json(result.to_dict())
    elif result.unchanged:
        click.echo(f"{file} was imported into {result.bank} already: nothing changed")
    else:
        click.echo(f"imported {file} into {result.bank}: {_counts(result.counts)}"
                   + (f"; {result.reembedded} embedded again" if result.reembedded else ""))


@bank.command("clone")
@click.argument("name", metavar="BANK")
@click.argument("new", metavar="NEW")
@click.option("--json", "as_json", is_flag=True, help="print a JSON summary")
@click.pass_context
def clone_command(ctx: click.Context, /, name: str, new: str, as_json: bool) -> None:
    """Copy BANK to a new bank NEW, independent of it from then on."""
    result = open_memory(ctx).clone_bank(name, new)
    if as_json:
        echo_json(result.to_dict())
    else:
        click.echo(f"cloned {name} to {result.bank}: {_counts(result.counts)}")


@bank.command("rename")
@click.argument("name", metavar="BANK")
@click.argument("new", metavar="NEW")
@click.option("--json", "as_json", is_flag=True, help="print a JSON summary")
@click.pass_context
def rename_command(ctx: click.Context, /, name: str, new: str, as_json: bool) -> None:
    """Rename BANK to NEW (an existing name is refused)."""
    info = open_memory(ctx).rename_bank(name, new)
    if as_json:
        echo_json({"bank": info.name, "renamed_from": name, "sources": info.sources, "facts": info.facts})
    else:
        click.echo(f"renamed {name} to {info.name}")


def _counts(counts: dict[str, int]) -> str:
    shown = [(k, counts.get(k, 0)) for k in ("source", "message", "fact", "entity", "observation", "mental_model")]
    return ", ".join(f"{n} {k.replace('_', ' ')}s" for k, n in shown)
