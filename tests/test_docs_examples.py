"""Every ```python block in the docs and the README runs, each as its own test, in a temp directory,
with the deterministic fake embedder standing in for the bundled ones and the network closed.

A block is marked in the Markdown by an HTML comment on the line just before it (blank lines between
are allowed):

* ``<!-- example: not run — needs an OpenAI-compatible server -->`` — it cannot run here; the reason
  must be given. The block must still compile, so a marked block cannot rot into invalid Python.
* ``<!-- example: continues -->`` — a fragment continuing the previous block on the same page: it runs
  after that block (and whatever that one continues) in the same namespace.
* ``<!-- example: with a gieok server -->`` — it talks to a server: the test starts a real one (uvicorn
  on a free loopback port, a fresh SQLite database, the fake embedder) and the block's
  ``http://127.0.0.1:8765`` and ``gk_...`` become that server's address and an admin key of it.
* ``<!-- example: with sample files -->`` — it reads files a user would have: the test writes
  ``SAMPLE_FILES`` (a four-page ``policy.pdf`` in Korean and English, a ``refund.md``) into its folder.
* ``<!-- example: with PostgreSQL -->`` — it opens a PostgreSQL store: the block's
  ``postgresql://gieok@db/gieok`` becomes a fresh schema of the tests' throw-away server (pg_server.py).
* ``<!-- example: with a fake LLM server -->`` — it calls an OpenAI- or Anthropic-style chat server:
  the test starts ``FakeLLMServer`` (tests/fake_llm.py) with canned replies queued, the block's
  ``http://localhost:<port>/v1`` becomes its address, and ``input()`` types a few Korean and English
  lines, then ``quit``.

An unmarked block that raises fails its test, with the page and line in the test id.
"""

from __future__ import annotations

import asyncio
import gc
import re
import socket
import warnings
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import FakeEmbedder
from fake_llm import FakeLLMServer
from pdf_fixture import make_pdf
from pg_server import pg_dsn_factory  # noqa: F401  (a fixture, asked for by the blocks that need it)
from server_harness import serving

from gieok.providers import registry

ROOT = Path(__file__).resolve().parent.parent
PAGES = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]

_FENCE = re.compile(r"^```python\s*$")
_MARKER = re.compile(r"^<!--\s*example:\s*(.*?)\s*-->$")
_NOT_RUN = re.compile(r"^not run\s*(?:[—–:-]+\s*)?(.*)$")
WITH_SERVER, WITH_LLM, WITH_FILES = "with a gieok server", "with a fake LLM server", "with sample files"
WITH_POSTGRES = "with PostgreSQL"
_LLM_URL = re.compile(r"http://localhost:\d+/v1")
# what ``input()`` types in a block run with a fake LLM server: a person saying two things, then leaving
TYPED = ["나 땅콩 알레르기 있어.", "Can I eat peanut cookies?", "quit"]
# the files a block marked "with sample files" finds in its folder
SAMPLE_FILES: dict[str, bytes] = {
    "policy.pdf": make_pdf([["Shipping policy", "Orders ship within two business days."],
                            ["배송 안내", "주문은 영업일 기준 이틀 안에 출고됩니다."],
                            ["Returns", "Items can be returned within 14 days of delivery."],
                            ["도서 산간 배송", "제주 배송은 이틀 더 걸립니다."]]),
    "refund.md": "# 환불 및 교환 정책\n\n수령 후 14일 안에 환불할 수 있습니다.\n\n## 예외\n\n"
                 "할인율이 50% 이상인 상품은 환불되지 않습니다.\n".encode(),
}
# what the fake LLM server answers, in order, for a page's example; other pages get chat replies
LLM_REPLIES: dict[str, list[str | dict[str, Any]]] = {
    "docs/guide/providers.md": [
        {"facts": [{"text": "앨리스는 땅콩 알레르기가 있다.", "kind": "world"},
                   {"text": "Alice moved to Busan last week.", "kind": "experience"}]},  # retain's extraction
        {"action": "answer", "cited": [], "answer": "Peanuts."},  # reflect: cites nothing, so is not trusted
    ],
    "docs/guide/frameworks.md": ["제주라서 이틀 더 걸려요. It takes two more days to Jeju."],  # the agent's one turn
}
CHAT_REPLY = "알겠어요, 기억해 둘게요. Noted: I'll keep that in mind."
# loopback ports a running block may connect to (the servers the test started for it)
_OPEN_PORTS: set[int] = set()


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
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not _to_open_port(address):
            raise OSError(f"docs examples run without network (tried {address!r}): mark the block not run")
        real_connect(sock, address)

    real_connect = socket.socket.connect
    monkeypatch.setattr(socket.socket, "connect", refuse_connect)
    monkeypatch.setattr("builtins.input", _no_input)
    monkeypatch.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        _OPEN_PORTS.clear()
        registry.unregister("embedder", "fake")
        registry.register("embedder", "use-multilingual", saved, replace=True)


def _to_open_port(address: Any) -> bool:
    host, port = address[0], address[1]
    return host in ("127.0.0.1", "::1", "localhost") and port in _OPEN_PORTS


@contextmanager
def services(block: Block, sandbox: Path, request: pytest.FixtureRequest) -> Iterator[dict[str, str]]:
    """The servers ``block`` (or a block it continues) is marked to run with; yields what to replace
    in its code (an example's address and key → the running server's)."""
    markers = {part.marker for part in _chain(block)}
    replace: dict[str, str] = {}
    llm: FakeLLMServer | None = None
    with ExitStack() as stack:
        if WITH_POSTGRES in markers:  # the fixture starts the server on first use and stops it at the end
            replace[re.escape("postgresql://gieok@db/gieok")] = request.getfixturevalue("pg_dsn_factory")()
        if WITH_FILES in markers:
            for name, content in SAMPLE_FILES.items():
                (sandbox / name).write_bytes(content)
        if WITH_SERVER in markers:
            replace.update(stack.enter_context(_gieok_server(sandbox)))
        if WITH_LLM in markers:
            llm = stack.enter_context(FakeLLMServer())
            for reply in LLM_REPLIES.get(block.page, [CHAT_REPLY] * (len(TYPED) - 1)):
                llm.queue_json(reply) if isinstance(reply, dict) else llm.queue(reply)
            replace[_LLM_URL.pattern] = llm.base_url
            _OPEN_PORTS.add(int(llm.base_url.split(":")[2].split("/")[0]))
            typed = iter(TYPED)
            request.getfixturevalue("monkeypatch").setattr("builtins.input", lambda prompt="": next(typed))
        yield replace
        # the example called the LLM as the page says it does: every queued reply was asked for
        assert llm is None or llm.pending == 0, f"{block.id}: {llm.pending} LLM replies never asked for"


@contextmanager
def _gieok_server(sandbox: Path) -> Iterator[dict[str, str]]:
    from gieok import Memory
    from gieok.server.app import create_app

    with Memory(str(sandbox / "server.db"), embedder="fake") as mem:
        _, secret = mem.keys.create(role="admin", name="docs examples")
        with serving(create_app(mem, mcp=False, ui=False, poll_seconds=0.05)) as url:
            _OPEN_PORTS.add(int(url.rsplit(":", 1)[1]))
            yield {re.escape("http://127.0.0.1:8765"): url, re.escape("gk_..."): secret}


def _rewritten(code: str, replace: dict[str, str]) -> str:
    for pattern, value in replace.items():
        code = re.sub(pattern, lambda _, new=value: new, code)  # as is: no backslash escapes
    return code


def _no_input(prompt: str = "") -> str:
    raise RuntimeError("a docs example asked for input(): mark the block not run")


def _close_all(namespace: dict[str, Any]) -> None:
    """Close what an example left open (a Memory or a Client without ``with``), so no ResourceWarning leaks."""
    from gieok import Client, Memory

    for value in namespace.values():
        if isinstance(value, (Memory, Client)):
            value.close()
    # an example that ran an event loop of its own (the Agents SDK's Runner.run_sync) may leave the
    # thread's loop open, and its self-pipe socket then warns in whichever test the collector meets it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            loop = asyncio.get_event_loop_policy().get_event_loop()
        except RuntimeError:
            return
    if not loop.is_running() and not loop.is_closed():
        loop.close()
    asyncio.set_event_loop(None)
    gc.collect()  # what the example dropped is collected now, in its own test


def run_example(block: Block, replace: dict[str, str] | None = None) -> None:
    """Run ``block`` after the blocks it continues; skip it when marked not run (a reason required).
    ``replace`` maps patterns of the code to what they become (a running server's address)."""
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
            exec(compile(_rewritten(part.code, replace or {}), part.id, "exec"), namespace)
    finally:
        _close_all(namespace)


@pytest.mark.parametrize("block", BLOCKS, ids=[block.id for block in BLOCKS])
def test_docs_example_runs(block: Block, example_sandbox: Path, request: pytest.FixtureRequest) -> None:
    if block.not_run is not None:
        run_example(block)  # compiles it and skips it, saying why
    with services(block, example_sandbox, request) as replace:
        run_example(block, replace)


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


def test_every_marker_is_one_the_runner_knows() -> None:
    known = {"continues", WITH_SERVER, WITH_LLM, WITH_FILES, WITH_POSTGRES}
    unknown = [(block.id, block.marker) for block in BLOCKS
               if block.marker is not None and block.marker not in known and block.not_run is None]
    assert not unknown, f"markers the runner does not know (a typo runs the block with nothing started): {unknown}"
