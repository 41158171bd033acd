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

from gieok.errors import ScopeError
from gieok.memory import Memory

__all__ = ["TRUST_LEVELS", "GlobalOptions", "echo_json", "global_options", "open_memory", "store_options",
           "trust_option"]

# Memory's trust levels (gieok.engine.quarantine.TRUST_LEVELS; a test pins the two together), offered
# as a choice so a typo fails before any file is read
TRUST_LEVELS = ("user", "assistant", "document", "web", "tool")


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


def scope_options(*, recall: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--user``, ``--agent``, ``--session`` and ``--tag`` (repeatable) on a command; with ``recall``
    also ``--no-shared`` and ``--weight DIMENSION=W`` (see Memory.recall). The command takes them as
    ``**scope`` and hands :func:`scope_arguments` of them to Memory."""
    options = [
        click.option("--user", "user_id", default=None, help="the user the memories belong to"),
        click.option("--agent", "agent_id", default=None, help="the agent the memories belong to"),
        click.option("--session", "session_id", default=None, help="the conversation session"),
        click.option("--tag", "tags", multiple=True, help="a tag (repeat for more; recall: memories with every one)"),
    ]
    if recall:
        options += [
            click.option("--no-shared", "no_shared", is_flag=True,
                         help="with --user: leave out shared memories (those retained without a user)"),
            click.option("--weight", "weights", multiple=True, metavar="DIMENSION=W",
                         help="weigh instead of filter, e.g. --weight session=1.2 (user, agent, session, tags)"),
        ]

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            command = option(command)
        return command
    return decorate


def scope_arguments(scope: dict[str, Any]) -> dict[str, Any]:
    """The scope options of a command as Memory's keyword arguments."""
    out: dict[str, Any] = {"user_id": scope["user_id"], "agent_id": scope["agent_id"],
                           "session_id": scope["session_id"], "tags": list(scope["tags"]) or None}
    if "weights" in scope:
        weights: dict[str, float] = {}
        for given in scope["weights"]:
            name, _, value = given.partition("=")
            try:
                weights[name.strip()] = float(value)
            except ValueError:
                raise ScopeError(f"--weight {given!r}: give DIMENSION=NUMBER, e.g. --weight session=1.2") from None
        out.update(include_shared=not scope["no_shared"], scopes=weights or None)
    return out


def scope_line(memory: Any) -> str:
    """A recalled memory's scope in one line ("user u-1 · session s-2 · #work"), or ""."""
    parts = [f"{name} {value}" for name, value in (("user", memory.user_id), ("agent", memory.agent_id),
                                                     ("session", memory.session_id)) if value]
    return " · ".join(parts + [f"#{tag}" for tag in memory.tags])


def trust_option(default_help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--trust LEVEL`` on a command that retains: how much the source is believed (Memory's ``trust=``)."""
    return click.option("--trust", type=click.Choice(TRUST_LEVELS), default=None,
                        help="how much the source is believed: user (the user's own words), assistant, document, "
                             f"web or tool; {default_help}. Instruction-like text below user is held back "
                             "(see `gieok quarantine`)")
