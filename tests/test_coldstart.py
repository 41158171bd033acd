"""No cold start where it hurts (issue #37): ``import gieok`` and the CLI's command table import none of
the engine (no numpy, no Kiwi, no compiled rule tables), opening a Memory to list banks imports no
retain or recall, and ``Memory.warm_up`` loads the engine, the embedder and Kiwi — once, however many
threads ask — after which Korean and English recall work as before. Each check runs in a fresh
interpreter, since this test process has long imported everything."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# what costs import time (numpy, Kiwi, the stores, the rule tables compiled at import) or is the engine
HEAVY = ("numpy", "kiwipiepy", "fastapi", "httpx", "gieok.memory", "gieok.store", "gieok.engine", "gieok.providers",
         "gieok.temporal", "gieok.defense", "gieok.lifecycle", "gieok.answering", "gieok.extract", "gieok.entities",
         "gieok.text", "gieok.importers", "gieok.integrations")


def _run(code: str, *args: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _heavy(modules: object) -> list[str]:
    assert isinstance(modules, list)
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


def test_import_gieok_imports_no_engine() -> None:
    out = _run("import json, sys\nimport gieok\nbefore = sorted(sys.modules)\n"
               "from gieok import *  # every public name still resolves, on first use\n"
               "print(json.dumps({'before': before, 'memory': gieok.Memory.__module__,"
               " 'recall': gieok.Recall.__module__}))")
    assert _heavy(out["before"]) == []
    assert out["memory"] == "gieok.memory" and out["recall"] == "gieok.records"


def test_the_cli_command_table_imports_no_engine() -> None:
    out = _run("import json, sys\nimport gieok.cli\nprint(json.dumps({'modules': sorted(sys.modules),"
               " 'commands': sorted(gieok.cli.cli.commands)}))")
    assert _heavy(out["modules"]) == []
    assert {"recall", "retain", "banks", "serve", "worker", "import", "hooks"} <= set(out["commands"])


def test_listing_banks_imports_no_retain_recall_or_kiwi(tmp_path: Path) -> None:
    out = _run("import json, sys\nfrom gieok import Memory\nmem = Memory(sys.argv[1])\n"
               "mem.banks.create('민지')\nmem.banks.create('Sam')\nnames = [b.name for b in mem.banks()]\nmem.close()\n"
               "print(json.dumps({'modules': sorted(sys.modules), 'names': names}))", str(tmp_path / "b.db"))
    loaded = set(out["modules"])
    assert sorted(out["names"]) == ["Sam", "민지"]
    assert not loaded & {"kiwipiepy", "gieok.engine.recall.run", "gieok.engine.retain.run", "gieok.temporal",
                         "gieok.engine.reflect.run"}


WARM = r"""
import json, sys, threading
import kiwipiepy
made = []
class Counted(kiwipiepy.Kiwi):
    def __init__(self, *args, **kwargs):
        made.append(1)
        super().__init__(*args, **kwargs)
kiwipiepy.Kiwi = Counted
from gieok import Memory
from gieok.text import korean
mem = Memory(sys.argv[1])
cold = korean.loaded()
threads = [threading.Thread(target=mem.warm_up) for _ in range(3)]
for t in threads: t.start()
for t in threads: t.join()
warm = {"kiwi": korean.loaded(), "made": len(made), "recall": "gieok.engine.recall.run" in sys.modules}
mem.retain("b", [{"speaker": "민지", "text": "저는 망원동에 살아요. 고양이 두부를 키워요."},
                 {"speaker": "Sam", "text": "My sister Ana works as a nurse in Porto."}])
ko = [m.text for m in mem.recall("b", "민지는 어디 살아?").memories]
en = [m.text for m in mem.recall("b", "What does Sam's sister do?").memories]
mem.close()
print(json.dumps({"cold": cold, **warm, "ko": ko, "en": en}, ensure_ascii=False))
"""


def test_warm_up_loads_kiwi_once_and_recall_works_after(tmp_path: Path) -> None:
    out = _run(WARM, str(tmp_path / "w.db"))
    assert out["cold"] is False and out["kiwi"] is True and out["recall"] is True
    assert out["made"] == 1  # three threads warming at once: one Kiwi
    assert any("망원동" in text for text in out["ko"])
    assert any("nurse" in text for text in out["en"])
