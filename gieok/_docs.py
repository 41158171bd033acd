"""Generated parts of the documentation (settings, limits, CLI commands, redaction types, HTTP routes).

Each table is rendered from the code into the block between ``<!-- BEGIN name -->`` and
``<!-- END name -->`` on the one page named in :data:`PAGES`, so no table is written by hand twice
and none can drift: ``python -m gieok._docs`` rewrites every page under ``docs/`` (run it from the
repository root, or pass the root); ``tests/test_docs.py`` fails when a page differs from what this
module generates.
"""

from __future__ import annotations

import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["PAGES", "blocks", "main", "openapi_schema", "render", "render_pages"]

# block name -> the page (relative to the repository root) that holds it
PAGES: dict[str, str] = {
    "settings": "docs/guide/configuration.md",
    "limits": "docs/guide/configuration.md",
    "cli": "docs/reference/cli.md",
    "redaction-types": "docs/guide/defense.md",
    "http-routes": "docs/reference/http.md",
}


def settings_table() -> str:
    from gieok.settings import SETTINGS

    rows = ["| setting | env var | default | meaning |", "|---|---|---|---|"]
    rows += [f"| `{s.name}` | `{s.env}` | `{s.default}` | {s.help} |" for s in SETTINGS]
    return "\n".join(rows)


def limits_table() -> str:
    from gieok.limits import LIMITS

    rows = ["| limit | value | applies to | past it |", "|---|---|---|---|"]
    rows += [f"| `{item.name}` | `{item.value if item.value < 10_000 else f'{item.value:,}'}` | {item.applies_to} | "
             f"{item.past_it} |" for item in LIMITS]
    return "\n".join(rows)


def cli_table() -> str:
    from gieok.cli import cli

    rows = ["| command | what it does |", "|---|---|"]
    for name, command in sorted(cli.commands.items()):
        rows.append(f"| `gieok {name}` | {(command.help or '').strip().splitlines()[0]} |")
    return "\n".join(rows)


def redaction_table() -> str:
    from gieok.defense import REDACTION_TYPES

    rows = ["| type | what it catches |", "|---|---|"]
    rows += [f"| `{name}` | {description} |" for name, description in REDACTION_TYPES.items()]
    return "\n".join(rows)


def openapi_schema() -> dict[str, Any]:
    """The server's OpenAPI schema: every route of the API (the web UI and MCP are not part of it).
    The docs' route table and the TypeScript client's types (clients/typescript/schema.py) read it."""
    from gieok.memory import Memory
    from gieok.server.app import create_app

    # the schema depends only on the routes, so a throw-away database serves; no worker, no MCP
    with tempfile.TemporaryDirectory() as folder, Memory(str(Path(folder) / "schema.db")) as memory:
        schema: dict[str, Any] = create_app(memory, worker=False, mcp=False, ui=False).openapi()
    return schema


def http_routes_table() -> str:
    """Every route of the server's OpenAPI schema: method, path, tag and summary."""
    schema = openapi_schema()
    rows = ["| method | path | tag | what it does |", "|---|---|---|---|"]
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            tag = ", ".join(operation.get("tags", []))
            summary = _first_sentence(operation.get("description", "")) or operation.get("summary", "")
            summary = summary.replace("|", "\\|")
            rows.append(f"| `{method.upper()}` | `{path}` | {tag} | {summary} |")
    return "\n".join(rows)


def _first_sentence(docstring: str) -> str:
    paragraph = " ".join(docstring.strip().split("\n\n")[0].split())
    end = paragraph.find(". ")
    return paragraph if end < 0 else paragraph[:end + 1]


_TABLES: dict[str, Callable[[], str]] = {
    "settings": settings_table, "limits": limits_table, "cli": cli_table,
    "redaction-types": redaction_table, "http-routes": http_routes_table,
}


def blocks(names: list[str] | None = None) -> dict[str, str]:
    """The generated tables by block name (all of them, or ``names``)."""
    return {name: _TABLES[name]() for name in (names if names is not None else list(_TABLES))}


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- BEGIN {name} -->\n)(?:.*?\n)?(<!-- END {name} -->)", re.DOTALL)


def render(text: str, names: list[str] | None = None) -> str:
    """``text`` with its generated blocks filled in: ``names`` must all be there; without ``names``,
    whichever blocks the text holds."""
    wanted = names if names is not None else [name for name in _TABLES if _pattern(name).search(text)]
    for name, body in blocks(wanted).items():
        pattern = _pattern(name)
        if not pattern.search(text):
            raise ValueError(f"the page has no <!-- BEGIN {name} --> ... <!-- END {name} --> block")

        def fill(m: re.Match[str], body: str = body) -> str:
            return m.group(1) + body + "\n" + m.group(2)

        text = pattern.sub(fill, text)
    return text


def render_pages(root: Path) -> dict[Path, tuple[str, str]]:
    """Each page of :data:`PAGES` under ``root``: (its text now, its text rendered)."""
    by_page: dict[str, list[str]] = {}
    for name, page in PAGES.items():
        by_page.setdefault(page, []).append(name)
    result = {}
    for page, names in by_page.items():
        path = root / page
        text = path.read_text(encoding="utf-8")
        result[path] = (text, render(text, names))
    return result


def main(argv: list[str] | None = None) -> None:
    """Rewrite the generated blocks: of every page under the root given (default: the current
    directory), or of the one Markdown file given."""
    args = sys.argv[1:] if argv is None else argv
    target = Path(args[0] if args else ".")
    if target.suffix == ".md":
        target.write_text(render(target.read_text(encoding="utf-8")), encoding="utf-8")
        return
    for path, (text, rendered) in render_pages(target).items():
        if rendered != text:
            path.write_text(rendered, encoding="utf-8")
            print(f"updated {path}")


if __name__ == "__main__":
    main()
