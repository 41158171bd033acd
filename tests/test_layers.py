"""The import-layer contract (tools/check_layers.py, run by ``make lint``): the package keeps it, and the
checker catches an adapter reaching into the engine or the store, and an import pointing up."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_layers", ROOT / "tools" / "check_layers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_layers"] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


check_layers = _checker()


def _tree(root: Path, files: dict[str, str]) -> Path:
    """A tiny gieok package: every layer present, plus ``files`` (path -> source)."""
    base = {
        "gieok/__init__.py": "from gieok.memory import Memory\n",
        "gieok/memory.py": "from gieok.engine import keys\nfrom gieok.records import Recall\n",
        "gieok/records.py": "from gieok.errors import GieokError\n",
        "gieok/errors.py": "",
        "gieok/engine/__init__.py": "",
        "gieok/engine/admin/keys.py": "from gieok.store import Store\nfrom gieok.extract import facts\n",
        "gieok/extract/__init__.py": "",
        "gieok/extract/facts.py": "from gieok.providers import embedders\n",
        "gieok/providers/__init__.py": "",
        "gieok/providers/embedders.py": "",
        "gieok/store/__init__.py": "Store = object\n",
        "gieok/server/__init__.py": "",
        "gieok/server/app.py": "from gieok import Memory\nfrom gieok.records import Principal\n",
        "gieok/cli/__init__.py": "",
    }
    for path, source in {**base, **files}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(source, encoding="utf-8")
    return root


def test_the_package_keeps_the_layer_contract() -> None:
    assert check_layers.check(ROOT) == []


def test_a_clean_tree_passes(tmp_path: Path) -> None:
    assert check_layers.check(_tree(tmp_path, {})) == []


@pytest.mark.parametrize(("files", "where", "says"), [
    ({"gieok/server/app.py": "from gieok.engine.admin import keys\n"},
     "gieok/server/app.py:1", "gieok.server.app (adapters) imports gieok.engine.admin.keys (engine)"),
    ({"gieok/cli/keys.py": "from gieok.engine.admin.keys import Principal\n"},
     "gieok/cli/keys.py:1", "import the record from gieok or gieok.records"),
    ({"gieok/server/app.py": "def f():\n    from gieok.store import Store\n"},  # a lazy import counts too
     "gieok/server/app.py:2", "gieok.server.app (adapters) imports gieok.store (store)"),
    ({"gieok/server/app.py": "def count(memory):\n    return memory.engine.store.keys.count_active()\n"},
     "gieok/server/app.py:2", "reaches memory.engine"),
    ({"gieok/server/app.py": "def kind(self):\n    return type(self.memory.store).__name__\n"},
     "gieok/server/app.py:2", "reaches memory.store"),
    ({"gieok/store/__init__.py": "from gieok.engine.admin import keys\nStore = object\n"},
     "gieok/store/__init__.py:1",
     "gieok.store (store) imports gieok.engine.admin.keys (engine): an import pointing up"),
    ({"gieok/extract/facts.py": "from gieok.memory import Memory\n"},
     "gieok/extract/facts.py:1", "gieok.extract.facts (components) imports gieok.memory (facade)"),
    ({"gieok/records.py": "from gieok.extract import facts\n"},
     "gieok/records.py:1", "a shared base module"),
    ({"gieok/extract/facts.py": "from ..engine.admin import keys\n"},  # relative imports are resolved
     "gieok/extract/facts.py:1", "imports gieok.engine.admin.keys (engine)"),
    ({"gieok/newthing.py": ""}, "gieok/newthing.py:1", "is in no layer"),
])
def test_a_planted_violation_is_caught_and_explained(tmp_path: Path, files: dict[str, str], where: str,
                                                     says: str) -> None:
    found = [str(v) for v in check_layers.check(_tree(tmp_path, files))]
    assert len(found) == 1, found
    assert found[0].startswith(where + ": ") and says in found[0]
    assert "Fix:" in found[0] or "add it to LAYERS" in found[0]  # each message says how to fix it


def test_the_command_fails_on_a_violation(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"gieok/workers/pool.py": "from gieok.engine.admin import keys\n",
                            "gieok/workers/__init__.py": ""})
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "check_layers.py"), str(root)],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 1
    assert "gieok/workers/pool.py:1: gieok.workers.pool (adapters) imports gieok.engine.admin.keys" in run.stdout
    assert "1 import(s) break the layer contract" in run.stderr
    clean = subprocess.run([sys.executable, str(ROOT / "tools" / "check_layers.py"), str(ROOT)],
                           capture_output=True, text=True, check=False)
    assert clean.returncode == 0 and clean.stdout == ""


def test_the_lint_target_runs_the_checker() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    lint = makefile.split("\nlint:", 1)[1].split("\n\n", 1)[0]
    assert "tools/check_layers.py" in lint
