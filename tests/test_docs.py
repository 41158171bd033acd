"""Docs that cannot drift: the generated tables on the docs pages match the code, the docs name every
command and setting, and the README stays short, keeps its quick start and links every page of the docs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gieok._docs import PAGES, render, render_pages
from gieok.cli import cli
from gieok.settings import SETTINGS

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
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


def test_readme_is_short_and_links_every_docs_page() -> None:
    text = README.read_text(encoding="utf-8")
    assert "make demo" in text and "make test" in text
    assert len(text.splitlines()) <= 250
    linked = set(re.findall(r"\]\((docs/[^)#]+\.md)", text))
    pages = {str(path.relative_to(ROOT)) for path in DOCS.rglob("*.md")}
    assert linked <= pages, f"README links to missing pages: {sorted(linked - pages)}"
    assert pages <= linked, f"README does not link {sorted(pages - linked)}: every page one click away"


def _code_blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.DOTALL | re.MULTILINE)


@pytest.mark.slow
def test_the_readme_library_example_runs(tmp_path: Path) -> None:
    example = _code_blocks(README.read_text(encoding="utf-8"), "python")[0]
    assert "from gieok import Memory" in example
    done = subprocess.run([sys.executable, "-c", example], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "나 땅콩 알레르기 있어" in done.stdout and "['m1']" in done.stdout  # recalled, with its message id
    assert done.stdout.strip().splitlines()[-1].startswith("기억에 따르면")  # reflect quoted it


def test_the_readme_mcp_config_parses() -> None:
    (config,) = _code_blocks(README.read_text(encoding="utf-8"), "json")
    server = json.loads(config)["mcpServers"]["gieok"]
    assert server["command"] == "gieok" and server["args"][0] == "mcp" and cli.commands["mcp"]
