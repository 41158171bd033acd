"""Generated parts of the README (settings, limits, CLI commands, redaction types), so the docs cannot drift.

``python -m gieok._docs`` rewrites the blocks between ``<!-- BEGIN name -->`` and ``<!-- END name -->``
markers in README.md; a test fails when the README differs from what this module generates.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

__all__ = ["blocks", "render", "main"]


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


def blocks() -> dict[str, str]:
    return {"settings": settings_table(), "limits": limits_table(), "cli": cli_table(),
            "redaction-types": redaction_table()}


def render(text: str) -> str:
    for name, body in blocks().items():
        pattern = re.compile(rf"(<!-- BEGIN {name} -->\n)(?:.*?\n)?(<!-- END {name} -->)", re.DOTALL)
        if not pattern.search(text):
            raise ValueError(f"README has no <!-- BEGIN {name} --> ... <!-- END {name} --> block")
        def fill(m: re.Match[str], body: str = body) -> str:
            return m.group(1) + body + "\n" + m.group(2)

        text = pattern.sub(fill, text)
    return text


def main() -> None:
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "README.md")
    path.write_text(render(path.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    main()
