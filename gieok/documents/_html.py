"""HTML into blocks with the standard library's ``html.parser``: the main content, not the page around it.

Navigation, headers, footers, asides, forms, scripts and styles are skipped; when the page has a
``<main>`` (or ``role="main"``) or ``<article>``, only what is inside it is kept. Headings ``h1``–``h6``
become headings, ``p``/``li``/``pre``/``blockquote``/``dt``/``dd`` paragraphs (a list's items one block),
tables rows of cells joined by ``|`` with the first row as header.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from gieok.documents._types import ParsedDocument, RawBlock, build_document

__all__ = ["parse_html"]

_SKIP = frozenset({"script", "style", "noscript", "template", "nav", "header", "footer", "aside", "form", "svg",
                   "button", "select", "iframe", "head"})
_SKIP_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "search"})
_BLOCK = frozenset({"p", "div", "section", "pre", "blockquote", "dt", "dd", "figcaption", "address", "main",
                    "article", "body", "br", "hr"})
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "source", "track",
                   "wbr"})


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[tuple[RawBlock, bool]] = []  # (block, inside main content)
        self.stack: list[tuple[str, str]] = []  # (tag, "skip" | "main" | "")
        self.skip_depth = 0
        self.main_depth = 0
        self.text: list[str] = []
        self.heading: int | None = None
        self.list_items: list[str] | None = None
        self.list_depth = 0
        self.table: list[list[str]] | None = None
        self.cell: list[str] | None = None
        self.saw_main = False

    # -- helpers ---------------------------------------------------------------------------
    def _flush(self) -> None:
        text = " ".join("".join(self.text).split())
        self.text = []
        if not text:
            return
        if self.cell is not None:
            self.cell.append(text)
        elif self.list_items is not None:
            self.list_items.append(text)
        elif self.heading is not None:
            self.blocks.append((RawBlock("heading", text, level=self.heading), self.main_depth > 0))
        else:
            self.blocks.append((RawBlock("paragraph", text), self.main_depth > 0))

    # -- parser callbacks ------------------------------------------------------------------
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        role = (dict(attrs).get("role") or "").lower()
        skipping = tag in _SKIP or role in _SKIP_ROLES or dict(attrs).get("hidden") is not None
        main = tag in ("main", "article") or role == "main"
        if tag not in _VOID:
            self.stack.append((tag, "skip" if skipping else "main" if main else ""))
        if skipping:
            self._flush()
            self.skip_depth += 1
            return
        if self.skip_depth:
            return
        if main:
            self._flush()
            self.main_depth += 1
            self.saw_main = True
        if tag in _HEADINGS:
            self._flush()
            self.heading = _HEADINGS[tag]
        elif tag in ("ul", "ol", "dl"):
            self._flush()
            if self.list_depth == 0 and self.table is None:
                self.list_items = []
            self.list_depth += 1
        elif tag == "li":
            self._flush()
        elif tag == "table":
            self._flush()
            self.table = []
        elif tag == "tr" and self.table is not None:
            self.table.append([])
        elif tag in ("td", "th") and self.table is not None:
            self._flush()
            self.cell = []
        elif tag in _BLOCK:
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID or not any(t == tag for t, _ in self.stack):
            return
        while self.stack:
            open_tag, kind = self.stack.pop()
            self._close(open_tag, kind)
            if open_tag == tag:
                break

    def _close(self, tag: str, kind: str) -> None:
        if kind == "skip":
            self.skip_depth -= 1
            return
        if self.skip_depth:
            return
        if tag in _HEADINGS:
            self._flush()
            self.heading = None
        elif tag in ("td", "th") and self.cell is not None:
            self._flush()
            if self.table:
                self.table[-1].append(" ".join(self.cell))
            self.cell = None
        elif tag == "table" and self.table is not None:
            rows = [" | ".join(cells) for cells in self.table if any(cells)]
            self.table = None
            if rows:
                self.blocks.append((RawBlock("table", "\n".join(rows), rows=rows), self.main_depth > 0))
        elif tag in ("ul", "ol", "dl"):
            self._flush()
            self.list_depth = max(0, self.list_depth - 1)
            if self.list_depth == 0 and self.list_items is not None:
                items, self.list_items = self.list_items, None
                if items:
                    self.blocks.append((RawBlock("list", "\n".join(f"- {i}" for i in items)), self.main_depth > 0))
        elif tag in _BLOCK or tag == "li":
            self._flush()
        if kind == "main":
            self._flush()
            self.main_depth -= 1

    def handle_data(self, data: str) -> None:
        if not self.skip_depth:
            self.text.append(data)


_CHARSET = re.compile(rb"<meta[^>]+charset=[\"']?([A-Za-z0-9_-]+)", re.IGNORECASE)


def decode_html(data: bytes) -> str:
    """The page's text: its declared charset when it names one Python knows, else UTF-8."""
    found = _CHARSET.search(data[:4096])
    if found:
        try:
            return data.decode(found.group(1).decode("ascii"))
        except (LookupError, UnicodeDecodeError):
            pass
    return data.decode("utf-8-sig")


def parse_html(text: str) -> ParsedDocument:
    reader = _Reader()
    reader.feed(text)
    reader.close()
    reader._flush()
    blocks = [b for b, inside in reader.blocks if inside] if reader.saw_main else [b for b, _ in reader.blocks]
    return build_document(blocks, "text/html")
