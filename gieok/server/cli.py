"""``gieok serve`` (the HTTP API, with MCP at /mcp), ``gieok mcp`` (MCP over stdio) and ``gieok keys``.

Registered from :data:`gieok.cli.COMMAND_MODULES`; like every command module it takes its helpers
from :mod:`gieok.cli._common` and calls :class:`gieok.Memory` (``memory.keys``), never the engine.
"""

from __future__ import annotations

import ipaddress
import logging
from dataclasses import asdict
from typing import Any

import click

from gieok.cli._common import echo_json, open_memory
from gieok.records import KEY_ROLES, ApiKey

__all__ = ["register", "is_loopback"]

log = logging.getLogger("gieok.server")


def register(cli: click.Group) -> None:
    """Add serve, mcp and keys to ``cli``."""
    cli.add_command(serve)
    cli.add_command(mcp)
    cli.add_command(keys)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name other than localhost may resolve anywhere


def _server_modules() -> Any:
    try:
        import uvicorn

        from gieok.server import app
    except ImportError as exc:
        raise click.ClickException(f"the server needs its extra ({exc.name} is missing): "
                                   "pip install 'gieok[server]'") from None
    return uvicorn, app


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="interface to listen on")
@click.option("--port", default=8765, show_default=True, type=int)
@click.option("--insecure-no-auth", is_flag=True,
              help="serve a non-loopback host without API keys (anyone who can reach it reads every bank)")
@click.option("--no-worker", is_flag=True, help="do not run queued jobs here (separate workers run them)")
@click.option("--no-mcp", is_flag=True, help="do not serve the MCP tools at /mcp")
@click.option("--public-docs", is_flag=True,
              help="serve /docs, /redoc and /openapi.json without a key (by default they want one once keys exist)")
@click.option("--public-metrics", is_flag=True,
              help="serve /metrics without a key, e.g. to a Prometheus scraper (by default it wants one once keys "
                   "exist)")
@click.option("--log-level", default="info", show_default=True,
              type=click.Choice(["critical", "error", "warning", "info", "debug"]))
@click.pass_context
def serve(ctx: click.Context, host: str, port: int, insecure_no_auth: bool, no_worker: bool, no_mcp: bool,
          public_docs: bool, public_metrics: bool, log_level: str) -> None:
    """Serve the HTTP API (/v1, /docs, /metrics) and MCP (/mcp) on one SQLite file or PostgreSQL."""
    uvicorn, app = _server_modules()
    memory = open_memory(ctx)
    in_force = memory.keys.count()
    if not in_force and not is_loopback(host) and not insecure_no_auth:
        raise click.ClickException(
            f"refusing to serve {host} without API keys: create one with `gieok keys create --bank NAME --role write` "
            "(same --db/--database), or pass --insecure-no-auth to serve every bank to anyone who can connect")
    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not in_force:
        log.warning("no API keys: every bank is open to anyone who can reach %s:%s "
                    "(`gieok keys create` turns keys on)", host, port)
    application = app.create_app(memory, worker=not no_worker, mcp=not no_mcp, host=host, public_docs=public_docs,
                                 public_metrics=public_metrics)
    click.echo(f"gieok serving {memory.path} on http://{host}:{port} (docs at /docs)", err=True)
    uvicorn.run(application, host=host, port=port, log_level=log_level)


@click.command()
@click.option("--bank", default=None, help="the one bank the tools use (they then take no bank argument)")
@click.pass_context
def mcp(ctx: click.Context, bank: str | None) -> None:
    """Serve the memory as MCP tools over stdio (for Claude Desktop, Claude Code, Cursor)."""
    try:
        from gieok.server import mcp as _mcp
    except ImportError as exc:
        raise click.ClickException(f"MCP needs the server extra ({exc.name} is missing): "
                                   "pip install 'gieok[server]'") from None
    logging.basicConfig(level=logging.WARNING)  # stdout is the protocol: logs go to stderr only
    _mcp.run_stdio(open_memory(ctx), bank=bank)


@click.group()
def keys() -> None:
    """API keys of `gieok serve`: create (shown once), list, revoke."""


@keys.command("create")
@click.option("--bank", "banks", multiple=True, help="a bank the key may use (repeat for more; admin: all banks)")
@click.option("--role", type=click.Choice(list(KEY_ROLES)), default="write", show_default=True,
              help="read: recall, reflect, inspect; write: also retain and forget; admin: every bank, keys")
@click.option("--name", default=None, help="a note to tell keys apart, e.g. 'laptop'")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def create(ctx: click.Context, banks: tuple[str, ...], role: str, name: str | None, as_json: bool) -> None:
    """Create a key; it is printed once, alone on the last line (only its digest is stored)."""
    record, key = open_memory(ctx).keys.create(role=role, banks=list(banks), name=name)
    if as_json:
        echo_json({**_key_json(record), "key": key})
        return
    scope = "every bank" if role == "admin" else ", ".join(record.banks)
    click.echo(f"key {record.id} ({role}, {scope}); keep it now, it is not shown again:", err=True)
    click.echo(key)


@keys.command("list")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def list_keys(ctx: click.Context, as_json: bool) -> None:
    """Every key: id, prefix, role, banks, last use; never the key."""
    found = open_memory(ctx).keys.list()
    if as_json:
        echo_json([_key_json(k) for k in found])
        return
    if not found:
        click.echo("no keys (the server runs without them on loopback)")
    for k in found:
        state = f"revoked {k.revoked_at:%Y-%m-%d}" if k.revoked_at else \
            f"last used {k.last_used_at:%Y-%m-%d %H:%M}" if k.last_used_at else "never used"
        banks = "every bank" if k.role == "admin" else ", ".join(k.banks)
        click.echo(f"{k.id:>4}  {k.prefix}…  {k.role:<5}  {banks}  {k.name or ''}  ({state})")


@keys.command("revoke")
@click.argument("key_id", type=int)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def revoke(ctx: click.Context, key_id: int, as_json: bool) -> None:
    """Revoke key KEY_ID (from `gieok keys list`); requests with it are refused at once."""
    record = open_memory(ctx).keys.revoke(key_id)
    if as_json:
        echo_json(_key_json(record))
    else:
        click.echo(f"key {record.id} ({record.prefix}…) revoked")


def _key_json(record: ApiKey) -> dict[str, Any]:
    return {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in asdict(record).items()}

