"""Every ```python block in the docs and the README runs, each as its own test, in a temp directory,
with the deterministic fake embedder standing in for the bundled ones and the network closed.

A block is marked in the Markdown by an HTML comment on the line just before it (blank lines between
are allowed):

* ``<!-- example: not run — needs an OpenAI-compatible server -->`` — it cannot run here; the reason
  must be given. The block must still compile, so a marked block cannot rot into invalid Python.
* ``<!-- example: continues -->`` — a fragment continuing the previous block on the same page: it runs
  after that block (and whatever that one continues) in the same namespace.

An unmarked block that raises fails its test, with the page and line in the test id.
"""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import FakeEmbedder

from gieok.providers import registry

ROOT = Path(__file__).resolve().parent.parent
PAGES = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]

_FENCE = re.compile(r"^```python\s*$")
_MARKER = re.compile(r"^<!--\s*example:\s*(.*?)\s*-->$")
_NOT_RUN = re.compile(r"^not run\s*(?:[—–:-]+\s*)?(.*)$")


@dataclass(frozen=True)
class Block:
    page: str
    line: int  # 1-based line of the opening fence
    code: str
    marker: str | None  # the text of a preceding ``<!-- example: … -->``, if any
    previous: Block | None  # the block before it on the same page

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def continues(self) -> bool:
        return self.marker == "continues"

    @property
    def not_run(self) -> str | None:
        """The reason a block is not run ('' when the marker gives none); None for a block that runs."""
        match = _NOT_RUN.match(self.marker or "")
        return match.group(1).strip() if match else None


def _marker_before(lines: list[str], index: int) -> str | None:
    for line in reversed(lines[:index]):
        if line.strip():
            match = _MARKER.match(line.strip())
            return match.group(1) if match else None
    return None


def blocks_of(page: str, text: str) -> list[Block]:
    lines = text.splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        if _FENCE.match(lines[index]):
            end = next(i for i in range(index + 1, len(lines)) if lines[i].startswith("```"))
            code = "\n".join(lines[index + 1 : end]) + "\n"
            previous = found[-1] if found else None
            found.append(Block(page, index + 1, code, _marker_before(lines, index), previous))
            index = end
        index += 1
    return found


BLOCKS = [block for path in PAGES for block in blocks_of(str(path.relative_to(ROOT)), path.read_text("utf-8"))]


def _chain(block: Block) -> list[Block]:
    """The block and the blocks it continues, first one first."""
    chain = [block]
    while chain[0].continues:
        if chain[0].previous is None:
            raise AssertionError(f"{chain[0].id} is marked 'continues' but is the first block on its page")
        chain.insert(0, chain[0].previous)
    return chain


class _MultilingualFakeEmbedder(FakeEmbedder):
    """Stands in for ``use-multilingual``, so an example moving a bank to it has one to move to."""

    model_id = "use-multilingual"


@pytest.fixture
def example_sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A temp working directory, the fake embedder as the default one (``GIEOK_EMBEDDER=fake``, so
    ``Memory("x.db")`` needs no model) and in place of ``use-multilingual``, no network and no stdin."""
    registry.available("embedder")  # load the built-ins first, so they cannot replace the fakes later
    saved = registry._factories[("embedder", "use-multilingual")]
    registry.register("embedder", "fake", FakeEmbedder, replace=True)
    registry.register("embedder", "use-multilingual", _MultilingualFakeEmbedder, replace=True)
    monkeypatch.setenv("GIEOK_EMBEDDER", "fake")

    def refuse_connect(sock: socket.socket, address: Any) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            raise OSError(f"docs examples run without network (tried {address!r}): mark the block not run")
        real_connect(sock, address)

    real_connect = socket.socket.connect
    monkeypatch.setattr(socket.socket, "connect", refuse_connect)
    monkeypatch.setattr("builtins.input", _no_input)
    monkeypatch.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        registry.unregister("embedder", "fake")
        registry.register("embedder", "use-multilingual", saved, replace=True)


def _no_input(prompt: str = "") -> str:
    raise RuntimeError("a docs example asked for input(): mark the block not run")


def _close_all(namespace: dict[str, Any]) -> None:
    """Close what an example left open (a Memory without ``with``), so no ResourceWarning leaks."""
    from gieok import Memory

    for value in namespace.values():
        if isinstance(value, Memory):
            value.close()


def run_example(block: Block) -> None:
    """Run ``block`` after the blocks it continues; skip it when marked not run (a reason required)."""
    chain = _chain(block)
    for part in chain:
        compile(part.code, part.id, "exec")  # even a block that is not run must be valid Python
    if block.not_run is not None:
        assert block.not_run, f"{block.id}: a block marked 'not run' must say why: <!-- example: not run — … -->"
        pytest.skip(f"not run: {block.not_run}")
    reasons = [(part.id, part.not_run) for part in chain if part.not_run is not None]
    assert not reasons, f"{block.id} continues a block that is not run ({reasons}): mark it not run too"
    namespace: dict[str, Any] = {"__name__": "__docs_example__"}
    try:
        for part in chain:
            exec(compile(part.code, part.id, "exec"), namespace)
    finally:
        _close_all(namespace)


@pytest.mark.parametrize("block", BLOCKS, ids=[block.id for block in BLOCKS])
def test_docs_example_runs(block: Block, example_sandbox: Path) -> None:
    run_example(block)


def test_markers_are_read() -> None:
    page = (
        "text\n\n```python\nx = 1\n```\n<!-- example: continues -->\n```python\ny = x\n```\n"
        "<!-- example: not run — needs a PostgreSQL DSN -->\n\n```python\nz\n```\n"
        "<!-- example: not run -->\n```python\nw\n```\n"
    )
    first, second, third, fourth = blocks_of("page.md", page)
    assert (first.line, first.marker, first.not_run) == (3, None, None)
    assert second.continues and second.previous is first and _chain(second) == [first, second]
    assert third.not_run == "needs a PostgreSQL DSN" and not third.continues
    assert fourth.not_run == ""  # the runner fails on this one: a reason is required


def test_the_docs_have_examples() -> None:
    assert len(BLOCKS) >= 10 and any(block.page == "README.md" for block in BLOCKS)


def test_a_continuing_block_shares_its_namespace_and_a_reasonless_skip_fails(example_sandbox: Path) -> None:
    page = (
        "```python\nfrom gieok import Memory\nmem = Memory('a.db')\n```\n<!-- example: continues -->\n"
        "```python\nmem.retain('alice', text='나 땅콩 알레르기 있어.')\n"
        "assert mem.recall('alice', '땅콩').memories\n```\n"
        "<!-- example: not run -->\n```python\nx = 1\n```\n"
        "```python\nraise ValueError('wrong example')\n```\n"
    )
    first, second, reasonless, wrong = blocks_of("page.md", page)
    run_example(second)
    assert (example_sandbox / "a.db").exists()
    with pytest.raises(AssertionError, match="must say why"):
        run_example(reasonless)
    with pytest.raises(ValueError, match="wrong example"):
        run_example(wrong)
