"""What every command module shares: the global options, opening :class:`Memory`, ``--json`` output.

Command modules (here and in other packages, e.g. a future ``gieok/server/cli.py``) import these
helpers from this module, never from the :mod:`gieok.cli` package, so registering a module cannot
import the package back.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import click

from gieok.memory import Memory

__all__ = ["GlobalOptions", "echo_json", "global_options", "open_memory", "store_options"]


@dataclass(frozen=True)
class GlobalOptions:
    """The root group's options, kept on the click context for every command below it."""

    db: str
    db_given: bool  # --db or $GIEOK_DB named the file (the demo uses a throw-away one otherwise)
    embedder: str | None
    settings: dict[str, Any] = field(default_factory=dict)  # --set name=value, checked by Memory


def global_options(ctx: click.Context) -> GlobalOptions:
    options = ctx.find_object(GlobalOptions)
    if options is None:  # a command invoked without the root group: a programming error
        raise RuntimeError("gieok command invoked outside the gieok group (no GlobalOptions on the context)")
    return options


def store_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--db PATH`` / ``--database postgresql://…`` on a command (``gieok serve --db x.db``), over the
    root group's ``--db``. The command receives neither: :func:`open_memory` reads them."""
    def remember(name: str) -> Callable[[click.Context, click.Parameter, Any], None]:
        def callback(ctx: click.Context, _param: click.Parameter, value: Any) -> None:
            if value is not None:
                ctx.meta[f"gieok.{name}"] = value
        return callback

    command = click.option("--database", default=None, envvar="GIEOK_DATABASE", expose_value=False,
                           callback=remember("database"),
                           help="a PostgreSQL URL instead of the SQLite file ($GIEOK_DATABASE)")(command)
    return click.option("--db", default=None, expose_value=False, callback=remember("db"),
                        help="the SQLite file (overrides the global --db)")(command)


def open_memory(ctx: click.Context) -> Memory:
    """The Memory the options name (a command's --db / --database, else the global --db), closed when
    the command's context closes."""
    options = global_options(ctx)
    database = ctx.meta.get("gieok.database")
    if database:
        from gieok.store.postgres import PostgresStore  # psycopg is needed only here

        mem = Memory(store=PostgresStore(str(database)), embedder=options.embedder, **options.settings)
    else:
        mem = Memory(ctx.meta.get("gieok.db", options.db), embedder=options.embedder, **options.settings)
    ctx.call_on_close(mem.close)
    return mem


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))
