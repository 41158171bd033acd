"""Docs that cannot drift: the README's generated blocks match the code, and it names the commands."""

from __future__ import annotations

from pathlib import Path

from gieok._docs import render
from gieok.cli import cli
from gieok.settings import SETTINGS

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_generated_blocks_are_current() -> None:
    text = README.read_text(encoding="utf-8")
    assert render(text) == text, "README is stale: run `python -m gieok._docs README.md`"


def test_readme_documents_every_command_and_setting() -> None:
    text = README.read_text(encoding="utf-8")
    for name in cli.commands:
        assert f"gieok {name}" in text, name
    for setting in SETTINGS:
        assert f"`{setting.name}`" in text and setting.env in text, setting.name
    assert "make demo" in text and "make test" in text
