"""Docs that cannot drift: the generated tables on the docs pages match the code, the docs name every
command and setting."""

from __future__ import annotations

from pathlib import Path

import pytest

from gieok._docs import PAGES, render, render_pages
from gieok.cli import cli
from gieok.settings import SETTINGS

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _docs_text() -> str:
    return "\n".join(path.read_text(encoding="utf-8") for path in sorted(DOCS.rglob("*.md")))


def test_generated_blocks_on_the_docs_pages_are_current() -> None:
    stale = [str(path.relative_to(ROOT)) for path, (text, rendered) in render_pages(ROOT).items() if text != rendered]
    assert not stale, f"stale generated tables in {stale}: run `python -m gieok._docs`"


def test_a_stale_block_is_caught_and_a_missing_one_refused() -> None:
    page = DOCS / "reference" / "cli.md"
    text = page.read_text(encoding="utf-8")
    stale = text.replace("| `gieok recall` |", "| `gieok recall-old` |")
    assert stale != text and render(stale, ["cli"]) == text
    with pytest.raises(ValueError, match="BEGIN settings"):
        render("# 설정 (settings)\n", ["settings"])


def test_every_block_lives_on_its_page() -> None:
    for name, page in PAGES.items():
        assert f"<!-- BEGIN {name} -->" in (ROOT / page).read_text(encoding="utf-8"), (name, page)


def test_docs_document_every_command_and_setting() -> None:
    text = _docs_text()
    for name in cli.commands:
        assert f"gieok {name}" in text, name
    for setting in SETTINGS:
        assert f"`{setting.name}`" in text and setting.env in text, setting.name

