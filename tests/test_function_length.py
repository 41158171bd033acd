"""Functions that fit on a screen: none in the library is over 80 lines, so a reader holds one in
their head (``recall._rank`` was 130, gathering, fusing, scoring, reranking and filling the budget
in one; ``create_app`` and ``mount_ui`` were over 300, every route a closure, before the routers)."""

from __future__ import annotations

import ast
from pathlib import Path

import gieok

MAX_LINES = 80


def test_no_function_is_over_80_lines() -> None:
    root = Path(gieok.__file__).parent
    long = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                where = (path.relative_to(root).as_posix(), node.name)
                if lines > MAX_LINES:
                    long.append(f"{where[0]}:{node.lineno} {node.name} ({lines} lines)")
    assert not long, "split these into functions a reader can hold in their head:\n" + "\n".join(long)
