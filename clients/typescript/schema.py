"""Write ``openapi.json``, the server's OpenAPI schema that the TypeScript client's types come from.

Run from the repository root: ``python clients/typescript/schema.py`` (then ``npm run generate`` in
this folder turns it into ``src/schema.d.ts``). ``tests/test_typescript_client.py`` fails when the
committed file differs from what the server answers today, so the client's types cannot drift.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from gieok._docs import openapi_schema

__all__ = ["SCHEMA_FILE", "main", "openapi_schema", "render"]

HERE = Path(__file__).resolve().parent
SCHEMA_FILE = HERE / "openapi.json"


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> None:
    target = Path(argv[0]) if argv else SCHEMA_FILE
    target.write_text(render(openapi_schema()), encoding="utf-8")
    print(f"wrote {target}")


if __name__ == "__main__":
    main(sys.argv[1:])
