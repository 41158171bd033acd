"""Retain and recall, and the commands that list, show and delete what a bank holds."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from gieok.cli._common import echo_json, open_memory, scope_arguments, scope_line, scope_options, trust_option
from gieok.errors import FileFormatError
from gieok.ids import parse_memory_id
from gieok.records import format_location

__all__ = ["register"]


def register(cli: click.Group) -> None:
    """Add retain, recall, banks, sources, entities, show and delete-bank to ``cli``."""
    for command in (retain, recall, banks, sources, entities, show, delete_bank):
        cli.add_command(command)


# binary formats people hand to `gieok retain`, by their first bytes
_BINARY_FORMATS = ((b"%PDF", "a PDF"), (b"PK\x03\x04", "a zip archive (docx, xlsx, ...)"),
                   (b"\xd0\xcf\x11\xe0", "an old Office file"), (b"\x89PNG", "a PNG image"),
                   (b"\xff\xd8\xff", "a JPEG image"))


def _read_text_file(path: Path) -> str:
    """The file's UTF-8 text, or a FileFormatError that says what to do instead."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise FileFormatError(f"{path}: no such file; give a text, JSON or JSONL file, or - for stdin") from None
    except IsADirectoryError:
        raise FileFormatError(f"{path}: is a folder; give one file (or retain its files one by one)") from None
    except PermissionError:
        raise FileFormatError(f"{path}: cannot be read (permission denied)") from None
    for magic, kind in _BINARY_FORMATS:
        if data.startswith(magic):
            raise FileFormatError(f"{path}: is {kind}, which `gieok retain` does not read: use `gieok ingest BANK "
                                  f"{path.name}` (PDF, DOCX, HTML, Markdown; pip install 'gieok[documents]')")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FileFormatError(f"{path}: not UTF-8 text (a binary file, or another encoding: convert it with "
                              "`iconv -t UTF-8`)") from None


def _read_messages(raw: str, name: str) -> list[dict[str, Any]]:
    stripped = raw.lstrip()
    try:
        if name.endswith(".jsonl"):
            return [json.loads(line) for line in raw.splitlines() if line.strip()]
        data = json.loads(stripped)
    except json.JSONDecodeError as exc:
        raise FileFormatError(
            f"{name}: not valid JSON ({exc}); give a JSON list of messages, JSONL, or use --text") from None
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        data = data["messages"]
    if not isinstance(data, list):
        raise FileFormatError(f"{name}: expected a list of messages or {{\"messages\": [...]}}")
    return data


@click.command()
@click.argument("bank")
@click.argument("file", type=click.Path(allow_dash=True), default="-")
@click.option("--text", "as_text", is_flag=True, help="treat the input as a document, even if it is JSON")
@click.option("--document-id", default=None, help="source id; re-retaining it re-processes only changed chunks")
@click.option("--timestamp", default=None, help="ISO 8601 time of the document or of messages without one")
@click.option("--decay-class", type=click.Choice(["pinned", "stable", "transient"]), default=None,
              help="override the decay class of every fact retained (default: from each fact's wording)")
@click.option("--ttl", type=float, default=None, help="seconds until these facts expire and are purged")
@scope_options()
@click.option("--metadata", default=None, help='a JSON object kept with the source, e.g. \'{"channel": "slack"}\'')
@trust_option("default: each message by its speaker, a text by document")
@click.option("--json", "as_json", is_flag=True, help="print the result as JSON")
@click.pass_context
def retain(ctx: click.Context, /, bank: str, file: str, as_text: bool, document_id: str | None,
           timestamp: str | None, decay_class: str | None, ttl: float | None, metadata: str | None,
           trust: str | None, as_json: bool, **scope: Any) -> None:
    """Retain messages (JSON list / JSONL file) or a document (text file or stdin) into BANK."""
    try:
        meta = json.loads(metadata) if metadata is not None else None
    except json.JSONDecodeError as exc:
        raise FileFormatError(f"--metadata is not JSON ({exc}): give an object, e.g. '{{\"channel\": \"slack\"}}'") \
            from None
    scoped = scope_arguments(scope)
    if file == "-":
        raw, name = sys.stdin.read(), "<stdin>"
    else:
        path = Path(file)
        raw, name = _read_text_file(path), path.name
        if document_id is None and (as_text or path.suffix not in (".json", ".jsonl")):
            document_id = path.name
    is_messages = not as_text and (name.endswith((".json", ".jsonl")) or raw.lstrip().startswith(("[", "{")))
    mem = open_memory(ctx)
    from rich.progress import Progress

    with Progress(transient=True, disable=as_json or not sys.stderr.isatty()) as progress:
        task = progress.add_task("embedding facts", total=None)
        messages = _read_messages(raw, name) if is_messages else None
        result = mem.retain(bank, messages, text=None if is_messages else raw, document_id=document_id,
                            timestamp=timestamp, progress=lambda n: progress.advance(task, n),
                            on_total=lambda n: progress.update(task, total=n), decay_class=decay_class, ttl=ttl,
                            metadata=meta, trust=trust, **scoped)
    if as_json:
        echo_json({**result.to_dict(), **{k: v for k, v in scoped.items() if v is not None}})
    else:
        click.echo(f"retained {result.source_id} into {result.bank}: {result.facts_added} facts added, "
                   f"{result.facts_removed} removed, {result.chunks_skipped}/{result.chunks_total} chunks unchanged"
                   + _held_note(result.quarantined, bank))


def _held_note(held: int, bank: str) -> str:
    return f"; {held} held back as instructions (gieok quarantine {bank})" if held else ""


def explain_lines(explanation: dict[str, Any]) -> str:
    """A memory's explanation in a few words: the ranker's score and the features that moved it most
    (``+0.41 cosine_z``), then the multipliers; under ``fusion=rrf`` the fused score."""
    parts = explanation.get("contributions")
    if parts:
        top = [f"{value:+.2f} {name}" for name, value in list(parts.items())[:4] if name != "bias"]
        lines = [f"ranker {explanation['ranker']:+.2f}", *top]
    else:
        lines = [f"fused {explanation['fused']:.4f}"] if explanation.get("fused") is not None else []
    lines += [f"×{value:.3f} {name}" for name, value in explanation.get("multipliers", {}).items()]
    return "\n".join(lines)


@click.command()
@click.argument("bank")
@click.argument("query")
@click.option("--max-tokens", type=int, default=None, help="token budget for the memories returned")
@click.option("--limit", type=int, default=None, help="at most this many memories")
@click.option("--now", default=None, help="reference time for the question (ISO 8601); default: now")
@click.option("--as-of", default=None, help="answer as the bank stood at this time (ISO 8601)")
@click.option("--explain", is_flag=True, help="show each channel's rank and the features that moved the score most")
@scope_options(recall=True)
@click.option("--json", "as_json", is_flag=True, help="print the result as JSON")
@click.pass_context
def recall(ctx: click.Context, /, bank: str, query: str, max_tokens: int | None, limit: int | None,
           now: str | None, as_of: str | None, explain: bool, as_json: bool, **scope: Any) -> None:
    """Recall the memories of BANK that QUERY needs, best first."""
    result = open_memory(ctx).recall(bank, query, max_tokens=max_tokens, limit=limit, now=now, explain=explain,
                                     as_of=as_of, **scope_arguments(scope))
    if as_json:
        echo_json(result.to_dict())
        return
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    span = f", time range {result.time_range[0].date()} – {result.time_range[1].date()}" if result.time_range else ""
    table = Table(title=escape(f"{query}  ({result.total_tokens} tokens{span})"))
    for column in ("#", "id", "score", "memory", "sources", "channels (rank)"):
        table.add_column(column)
    for i, m in enumerate(result.memories, start=1):
        if explain and m.explanation:
            channels = "\n".join(f"{name} #{hit.rank} ({hit.score:.3g})" for name, hit in m.channels.items())
            channels += "\n" + explain_lines(m.explanation)
        else:
            channels = ", ".join(f"{name} #{hit.rank}" for name, hit in m.channels.items())
        text = m.text + (f"\n(replaces {', '.join(m.supersedes)})" if m.supersedes else "")
        text += f"\n(replaced by {m.superseded_by})" if m.superseded_by else ""
        where = format_location(m.location)  # an ingested document's page or heading path
        cited = f"{m.source_id}, {where}" if where else ", ".join(m.source_ids)
        cited += f"\n{scope_line(m)}" if scope_line(m) else ""
        cited += f"\ntrust: {m.trust}" if m.trust != "user" else ""
        table.add_row(str(i), m.id, f"{m.score:.4f}", escape(text), escape(cited), channels)
    Console().print(table)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
def banks(ctx: click.Context, as_json: bool) -> None:
    """List the banks in the database."""
    rows = open_memory(ctx).banks()
    if as_json:
        echo_json([{"name": b.name, "embedder": b.embedder, "dim": b.dim, "created_at": b.created_at.isoformat(),
                     "sources": b.sources, "facts": b.facts} for b in rows])
        return
    for b in rows:
        click.echo(f"{b.name}\t{b.sources} sources\t{b.facts} facts\t{b.embedder}")


@click.command()
@click.argument("bank")
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
def sources(ctx: click.Context, bank: str, as_json: bool) -> None:
    """List the sources (conversations, documents) retained into BANK."""
    rows = open_memory(ctx).sources(bank)
    if as_json:
        echo_json([{"id": s.id, "kind": s.kind, "created_at": s.created_at.isoformat(),
                     "updated_at": s.updated_at.isoformat(), "metadata": s.metadata} for s in rows])
        return
    for s in rows:
        click.echo(f"{s.id}\t{s.kind}\t{s.updated_at.isoformat()}")


@click.command()
@click.argument("bank")
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
def entities(ctx: click.Context, bank: str, as_json: bool) -> None:
    """List the people, places and things BANK knows, most named first (names `forget --entity` takes)."""
    rows = open_memory(ctx).entities(bank)
    if as_json:
        echo_json([{"name": e.name, "kind": e.kind, "aliases": e.aliases, "facts": e.facts,
                    "last_seen": e.last_seen.isoformat() if e.last_seen else None} for e in rows])
        return
    if not rows:
        click.echo(f"{bank} knows no names yet")
    for e in rows:
        aka = f"  (also {', '.join(e.aliases)})" if e.aliases else ""
        click.echo(f"{e.name}\t{e.kind}\t{e.facts} facts{aka}")


@click.command()
@click.argument("bank")
@click.argument("item_id")
@click.option("--json", "as_json", is_flag=True, help="print as JSON")
@click.pass_context
def show(ctx: click.Context, bank: str, item_id: str, as_json: bool) -> None:
    """Show one memory (id like f-12 or o-3) or one source (its id) of BANK, verbatim."""
    mem = open_memory(ctx)
    if parse_memory_id(item_id) is not None:
        m = mem.get(bank, item_id)
        if as_json:
            echo_json(m.to_dict())
        else:
            click.echo(f"{m.id} [{m.kind}] {m.speaker or ''} {m.mentioned_at or ''}\n{m.text}\n"
                       f"sources: {', '.join(m.source_ids)}")
        return
    s = mem.source(bank, item_id)
    if as_json:
        echo_json({"id": s.id, "kind": s.kind, "text": s.text, "metadata": s.metadata,
                    "messages": [message.__dict__ for message in s.messages]})
    elif s.kind == "document":
        click.echo(s.text or "")
    else:
        for message in s.messages:
            click.echo(f"[{message.id}] {message.timestamp or ''} {message.speaker}: {message.text}")


@click.command("delete-bank")
@click.argument("bank")
@click.option("--yes", is_flag=True, help="do not ask for confirmation")
@click.option("--json", "as_json", is_flag=True, help="print the counts as JSON")
@click.pass_context
def delete_bank(ctx: click.Context, bank: str, yes: bool, as_json: bool) -> None:
    """Delete BANK and everything derived from it."""
    if not yes:
        click.confirm(f"delete bank {bank!r} and everything in it?", abort=True)
    counts = open_memory(ctx).banks.delete(bank).to_dict()
    if as_json:
        echo_json(counts)
    else:
        click.echo(f"deleted {bank}: " + ", ".join(f"{n} {k}" for k, n in counts.items()))
