"""What every command module shares: the global options, opening :class:`Memory`, ``--json`` output.

Command modules (here and in other packages, e.g. a future ``gieok/server/cli.py``) import these
helpers from this module, never from the :mod:`gieok.cli` package, so registering a module cannot
import the package back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import click

from gieok.errors import ScopeError

if TYPE_CHECKING:  # the engine is imported when a command opens a Memory, not to print --help
    from gieok.memory import Memory

__all__ = ["TRUST_LEVELS", "GlobalOptions", "accept_global_options", "echo_json", "global_options", "open_memory",
           "parse_sets", "trust_option"]

# Memory's trust levels (gieok.engine.retain.doubt.TRUST_LEVELS; a test pins the two together), offered
# as a choice so a typo fails before any file is read
TRUST_LEVELS = ("user", "assistant", "document", "web", "tool")


@dataclass(frozen=True)
class GlobalOptions:
    """The root group's options, kept on the click context for every command below it."""

    db: str
    db_given: bool  # --db or $GIEOK_DB named the file (the demo uses a throw-away one otherwise)
    embedder: str | None
    settings: dict[str, Any] = field(default_factory=dict)  # --set name=value, checked by Memory
    database: str | None = None  # a PostgreSQL URL instead of the SQLite file


def parse_sets(values: Sequence[str]) -> dict[str, str]:
    """``--set name=value`` options as a dict (Memory checks the names and values)."""
    out = {}
    for item in values:
        if "=" not in item:
            raise click.BadParameter(f"{item!r}: use --set name=value", param_hint="--set")
        name, value = item.split("=", 1)
        out[name.strip()] = value
    return out


# The root group's options, offered again after any command (``gieok jobs --db x`` as well as
# ``gieok --db x jobs``): each given after the command lands in ctx.meta, which click shares with
# every context of the call, and global_options() lays it over the root's value.
_AFTER_COMMAND: tuple[tuple[str, dict[str, Any]], ...] = (
    ("--db", {"help": "the SQLite file ($GIEOK_DB; also before the command)"}),
    ("--database", {"help": "a PostgreSQL URL instead of the SQLite file ($GIEOK_DATABASE)"}),
    ("--embedder", {"help": "embedder for new banks (also before the command)"}),
    ("--set", {"multiple": True, "metavar": "NAME=VALUE", "help": "any setting (also before the command)"}),
)


def _remember(ctx: click.Context, param: click.Parameter, value: Any) -> None:
    if value is not None and value != ():
        key = f"gieok.{param.name}"
        ctx.meta[key] = (*ctx.meta.get(key, ()), *value) if param.multiple else value


def accept_global_options(command: click.Command) -> click.Command:
    """Let ``command`` (and every command of a group, recursively) take the root group's options after
    its name. An option a command defines itself keeps its meaning there (``gieok reembed --embedder``
    names the target); the global one then goes before the command. Idempotent."""
    taken = {opt for param in command.params for opt in param.opts}
    for flag, extra in _AFTER_COMMAND:
        if flag not in taken:
            command.params.append(click.Option([flag, f"gieok_after_{flag[2:]}"], default=None, expose_value=False,
                                               callback=_remember, **extra))
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            accept_global_options(sub)
    return command


def global_options(ctx: click.Context) -> GlobalOptions:
    """The root group's options with those given after the command laid over them; an embedder named
    twice (``--embedder`` and ``--set embedder=``) differently is a usage error."""
    root = ctx.find_object(GlobalOptions)
    if root is None:  # a command invoked without the root group: a programming error
        raise RuntimeError("gieok command invoked outside the gieok group (no GlobalOptions on the context)")
    meta = ctx.meta
    settings = {**root.settings, **parse_sets(meta.get("gieok.gieok_after_set", ()))}
    embedder = meta.get("gieok.gieok_after_embedder", root.embedder)
    named = settings.pop("embedder", None)
    if named is not None and embedder is not None and named != embedder:
        raise click.UsageError(f"two embedders given: --embedder {embedder} and --set embedder={named}; keep one")
    db = meta.get("gieok.gieok_after_db")
    return GlobalOptions(db=db or root.db, db_given=root.db_given or db is not None, embedder=embedder or named,
                         settings=settings, database=meta.get("gieok.gieok_after_database", root.database))


def open_memory(ctx: click.Context) -> Memory:
    """The Memory the global options name (before or after the command): ``--database`` a PostgreSQL
    store, else the SQLite file ``--db``; closed when the command's context closes."""
    from gieok.memory import Memory

    options = global_options(ctx)
    if options.database:
        mem = Memory(database=options.database, embedder=options.embedder, **options.settings)
    else:
        mem = Memory(options.db, embedder=options.embedder, **options.settings)
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
