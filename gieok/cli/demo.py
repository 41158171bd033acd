"""``gieok demo``: a bundled bilingual conversation retained and recalled, fully offline."""

from __future__ import annotations

import json
import tempfile
from importlib.resources import files
from pathlib import Path
from typing import Any

import click

from gieok.cli._common import global_options

__all__ = ["demo_data", "register", "run_demo"]


def register(cli: click.Group) -> None:
    """Add demo to ``cli``."""
    cli.add_command(demo)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="print the recalls as JSON")
@click.pass_context
def demo(ctx: click.Context, as_json: bool) -> None:
    """Retain a bundled Korean/English conversation and run a few recalls (offline)."""
    options = global_options(ctx)
    # the demo uses a throw-away database unless --db / $GIEOK_DB names one
    run_demo(options.db if options.db_given else None, embedder=options.embedder, settings=options.settings,
             as_json=as_json)


def demo_data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(files("gieok").joinpath("data/demo.json").read_text(encoding="utf-8"))
    return data


def run_demo(db: str | None = None, *, embedder: str | None = None, settings: dict[str, Any] | None = None,
             as_json: bool = False) -> dict[str, list[dict[str, Any]]]:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from gieok.memory import Memory

    console = Console()
    data = demo_data()
    with tempfile.TemporaryDirectory() as tmp:
        path = db or str(Path(tmp) / "demo.db")
        with Memory(path, embedder=embedder, **(settings or {})) as mem:
            result = mem.retain(data["bank"], data["messages"], document_id="demo-chat")
            if not as_json:
                console.print(f"[bold]retained[/] {len(data['messages'])} messages into bank "
                              f"[cyan]{data['bank']}[/] → {result.facts_added} facts "
                              f"(small talk kept in the source, not made a fact) · db: {path}")
            outputs = []
            for query in data["queries"]:
                recalled = mem.recall(data["bank"], query, limit=3, now=data["now"])
                outputs.append(recalled.to_dict())
                if as_json:
                    continue
                table = Table(title=f"recall: {query}", title_justify="left")
                for column in ("#", "memory", "from", "found by (rank)"):
                    table.add_column(column)
                for i, m in enumerate(recalled.memories, start=1):
                    found = ", ".join(f"{c} #{h.rank}" for c, h in m.channels.items())
                    replaces = f"\n(replaces {', '.join(m.supersedes)})" if m.supersedes else ""
                    replaces += f"\n(replaced by {m.superseded_by})" if m.superseded_by else ""
                    table.add_row(str(i), escape(m.text + replaces), ", ".join(m.source_ids), found)
                console.print(table)
            reflections = []
            for question in data.get("reflect", []):
                answer = mem.reflect(data["bank"], question, now=data["now"])
                reflections.append(answer.to_dict())
                if not as_json:
                    console.print(f"[bold]reflect:[/] {escape(question)}\n  {escape(answer.answer)}")
    output = {"recalls": outputs, "reflections": reflections}
    if as_json:
        print(json.dumps(output, ensure_ascii=False, indent=2))
    return output
