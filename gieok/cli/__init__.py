"""The ``gieok`` command: a thin adapter over :class:`gieok.Memory`.

Every command calls the library and prints a table, or JSON with ``--json``. Typed errors
(:class:`gieok.errors.GieokError`) raised by any command become a one-line message on stderr and
exit code 2; set ``GIEOK_RAISE_ERRORS=1`` to see the traceback instead.

Commands are registered from one table, not by import side effect. Each module named in
``COMMAND_MODULES`` exposes ``register(cli: click.Group) -> None`` and adds its commands to the
group it is given; it takes its shared helpers from :mod:`gieok.cli._common` and never imports this
package back. Adding an adapter is one line in the table, wherever its module lives::

    COMMAND_MODULES = (
        ...,
        "gieok.server.cli",  # gieok serve: register(cli) adds the command
    )
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterable
from typing import Any

import click

from gieok.cli._common import GlobalOptions, accept_global_options, parse_sets
from gieok.errors import GieokError

__all__ = ["COMMAND_MODULES", "cli", "main", "register_commands"]

COMMAND_MODULES: tuple[str, ...] = (
    "gieok.cli.memories",    # retain, recall, banks, sources, entities, show, delete-bank
    "gieok.cli.documents",   # ingest
    "gieok.cli.imports",     # import kakaotalk | chatgpt | jsonl
    "gieok.cli.lifecycle",   # history, forget, verify-erased, jobs, maintain
    "gieok.cli.reflection",  # reflect, models, observations
    "gieok.cli.shaping",     # disposition, directives
    "gieok.cli.sessions",    # session add / show
    "gieok.cli.profile",     # profile, lookup
    "gieok.cli.quarantine",  # quarantine (list, --release, --dismiss)
    "gieok.cli.llm",         # llm
    "gieok.cli.banks",       # bank export | import | clone | rename
    "gieok.cli.demo",        # demo
    "gieok.cli.hooks",       # hooks claude-code | session-start | prompt | stop
    "gieok.server.cli",      # serve, mcp, keys
    "gieok.workers.cli",     # worker
)


class GieokGroup(click.Group):
    """The root group: a typed gieok error from any command below it is one line and exit code 2, and
    every command below it takes the group's options after its name too (:func:`accept_global_options`,
    applied when the command is looked up, so commands registered late get them as well)."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        return accept_global_options(command) if command is not None else None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except GieokError as exc:
            if os.environ.get("GIEOK_RAISE_ERRORS"):
                raise
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)


@click.group(cls=GieokGroup)
@click.option("--db", envvar="GIEOK_DB", default="gieok.db", show_default=True, help="the SQLite file ($GIEOK_DB)")
@click.option("--database", envvar="GIEOK_DATABASE", default=None,
              help="a PostgreSQL URL instead of the SQLite file ($GIEOK_DATABASE)")
@click.option("--embedder", default=None, help="embedder for new banks ($GIEOK_EMBEDDER; default e5-small)")
@click.option("--set", "settings", multiple=True, metavar="NAME=VALUE", help="any setting (see README)")
@click.version_option(package_name="gieok")
@click.pass_context
def cli(ctx: click.Context, db: str, database: str | None, embedder: str | None, settings: tuple[str, ...]) -> None:
    """gieok (기억): long-term memory for AI agents, on one SQLite file.

    The options above also go after any command: `gieok jobs --db x.db` is `gieok --db x.db jobs`."""
    db_given = ctx.get_parameter_source("db") != click.core.ParameterSource.DEFAULT
    ctx.obj = GlobalOptions(db=db, db_given=db_given, embedder=embedder, settings=parse_sets(settings),
                            database=database)


def register_commands(group: click.Group, modules: Iterable[str] = COMMAND_MODULES) -> None:
    """Let each module in ``modules`` add its commands to ``group``; a name taken twice is an error."""
    for name in modules:
        register = getattr(importlib.import_module(name), "register", None)
        if not callable(register):
            raise TypeError(f"{name} has no register(cli) function; a command module must define one")
        before = dict(group.commands)
        register(group)
        replaced = sorted(command for command, obj in before.items() if group.commands.get(command) is not obj)
        if replaced:
            raise ValueError(f"{name} registered commands that already exist: {', '.join(replaced)}")


register_commands(cli)


def main() -> None:
    cli(prog_name="gieok")
