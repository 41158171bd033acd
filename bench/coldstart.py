"""Cold start: where the seconds go before a new process answers its first recall.

    python bench/coldstart.py [--repeat 3] [--baseline PATH] [--json]

Every figure is a fresh Python process (the median of ``--repeat`` runs), on a small bank built
first (twelve Korean and English messages, real default embedder):

* ``import gieok`` — the import alone;
* **the first recall, by stage**: import, ``Memory(path)``, the engine's modules (imported on first
  use behind the facade), the embedder's model load (the first query embedding), Kiwi's load (the
  first Korean analysis), then the first recall itself with all of it loaded, and a second (warm)
  recall for comparison;
* **the first recall, as a user meets it**: import, open and one recall, nothing loaded before —
  a Korean question (Kiwi loads) and an English one (it does not) — and after ``Memory.warm_up()``;
* **CLI commands that do not embed** (``gieok --help``, ``gieok banks --json``) and one that does
  (``gieok recall``), each a whole process as a shell runs it;
* **the server**: seconds from launching ``gieok serve`` until ``/health`` answers, until ``/ready``
  answers 200 (when the server has that route), the slowest ``/health`` answer in between (Kiwi
  holds the GIL while it loads), and the first recall over HTTP after that.

``--baseline PATH`` measures another checkout of gieok (e.g. ``git worktree add /tmp/before main``)
in the same run, so before and after share the machine's load; its figures print beside these.
The targets (issue #37): the first recall in a new process ≤ 1.5 s, CLI commands that do not embed
≤ 0.5 s. The machine is shared: the load average is printed beside the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
BANK = "cold"
KOREAN, ENGLISH = "민지는 어디 살아?", "What does Sam's sister do?"
MESSAGES = [
    ("민지", "저는 망원동에 살아요. 고양이 두부를 키워요."),
    ("Sam", "I moved to Lisbon last spring and started learning Portuguese."),
    ("민지", "다음 주 금요일에 부산으로 출장 가요."),
    ("Sam", "My sister Ana works as a nurse in Porto."),
    ("민지", "땅콩 알레르기가 있어서 조심해야 해요."),
    ("Sam", "I run every morning before work, usually 5 km."),
    ("민지", "생일은 3월 14일이에요."),
    ("Sam", "My favourite book is Dune."),
    ("민지", "요즘 회사에서 추천 시스템 프로젝트를 맡고 있어요."),
    ("Sam", "We adopted a rescue dog called Biscuit in June."),
    ("민지", "동생 지호는 대전에서 대학원에 다녀요."),
    ("Sam", "I'm allergic to shellfish, so no paella for me."),
]

# One process: argv = db, mode (staged | plain | warmed), first query, second query. Written against
# what every checkout has (mem.engine, gieok.text.korean.analyze), so --baseline runs it unchanged.
STAGES = r"""
import importlib, json, sys, time
t0 = time.perf_counter()
import gieok
t1 = time.perf_counter()
mem = gieok.Memory(sys.argv[1])
t2 = time.perf_counter()
t3 = t4 = t5 = t2
if sys.argv[2] == "staged":
    for name in ("gieok.engine.recall.run", "gieok.engine.retain.run", "gieok.engine.reflect.run"):
        importlib.import_module(name)
    t3 = time.perf_counter()
    mem.engine.embedder().embed_query("warm")  # the same instance the bank's recall uses
    t4 = time.perf_counter()
    from gieok.text.korean import analyze
    analyze("한국어 형태소 분석기 적재")
    t5 = time.perf_counter()
elif sys.argv[2] == "warmed":
    mem.warm_up()
    t3 = t4 = t5 = time.perf_counter()
mem.recall("cold", sys.argv[3])
t6 = time.perf_counter()
mem.recall("cold", sys.argv[4])
t7 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "open": t2 - t1, "engine modules": t3 - t2, "embedder load": t4 - t3,
                  "kiwi load": t5 - t4, "first recall": t6 - t5, "warm recall": t7 - t6,
                  "total to first answer": t6 - t0, "warm-up": t5 - t2}))
"""


def _build(root: Path, db: str) -> None:
    code = ("import sys, gieok\nmem = gieok.Memory(sys.argv[1])\n"
            f"mem.retain({BANK!r}, [{{'speaker': s, 'text': t}} for s, t in {MESSAGES!r}])\n"
            "mem.run_jobs()\nmem.close()\n")  # the consolidation retain queued: not left to the server's worker
    subprocess.run([PYTHON, "-c", code, db], check=True, cwd=root, env=_env(root))


def _env(root: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(root)}


def _timed(root: Path, cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=root, env=_env(root), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def _stages(root: Path, db: str, mode: str, first: str, second: str, repeat: int) -> dict[str, float]:
    runs = []
    for _ in range(repeat):
        out = subprocess.run([PYTHON, "-c", STAGES, db, mode, first, second], check=True, cwd=root, env=_env(root),
                             capture_output=True, text=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(root: Path, db: str) -> dict[str, float | None]:
    import httpx

    port = _free_port()
    start = time.perf_counter()
    proc = subprocess.Popen([PYTHON, "-m", "gieok", "--db", db, "serve", "--port", str(port), "--insecure-no-auth"],
                            cwd=root, env=_env(root), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    health = ready = None
    slowest = 0.0
    try:
        with httpx.Client(timeout=60) as client:
            while time.perf_counter() - start < 120:
                try:
                    asked = time.perf_counter()
                    if client.get(f"{base}/health").status_code == 200:
                        slowest = max(slowest, time.perf_counter() - asked) if health is not None else slowest
                        health = health or time.perf_counter() - start
                        r = client.get(f"{base}/ready")
                        if r.status_code == 404:  # a server without the route: ready means healthy
                            break
                        if r.status_code == 200:
                            ready = time.perf_counter() - start
                            break
                except httpx.TransportError:
                    pass
                time.sleep(0.02)
            t = time.perf_counter()
            client.post(f"{base}/v1/banks/{BANK}/recall", json={"query": KOREAN}).raise_for_status()
            first = time.perf_counter() - t
    finally:
        proc.terminate()
        proc.wait(30)
    return {"health": health, "ready": ready, "slowest /health while warming": slowest if ready else None,
            "first recall over HTTP": first}


def measure(root: Path, repeat: int) -> dict[str, Any]:
    """Every figure of the module docstring, for the checkout at ``root``."""
    med = statistics.median
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "cold.db")
        _build(root, db)
        has_warm_up = "def warm_up" in (root / "gieok" / "memory.py").read_text(encoding="utf-8")
        return {
            "import gieok": med(_timed(root, [PYTHON, "-c", "import gieok"]) for _ in range(repeat)),
            "staged": _stages(root, db, "staged", KOREAN, ENGLISH, repeat),
            "as met, Korean first": _stages(root, db, "plain", KOREAN, ENGLISH, repeat),
            "as met, English first": _stages(root, db, "plain", ENGLISH, KOREAN, repeat),
            "after warm_up()": _stages(root, db, "warmed", KOREAN, ENGLISH, repeat) if has_warm_up else None,
            "cli": {
                "gieok --help": med(_timed(root, [PYTHON, "-m", "gieok", "--help"]) for _ in range(repeat)),
                "gieok banks --json": med(_timed(root, [PYTHON, "-m", "gieok", "--db", db, "banks", "--json"])
                                          for _ in range(repeat)),
                "gieok recall (Korean)": med(_timed(root, [PYTHON, "-m", "gieok", "--db", db, "recall", BANK, KOREAN])
                                             for _ in range(repeat)),
                "gieok recall (English)": med(_timed(root, [PYTHON, "-m", "gieok", "--db", db, "recall", BANK,
                                                            ENGLISH]) for _ in range(repeat)),
            },
            "serve": _serve(root, db),
        }


def _rows(result: dict[str, Any]) -> list[tuple[str, float | None]]:
    rows: list[tuple[str, float | None]] = [("import gieok", result["import gieok"])]
    rows += [(f"by stage: {k}", v) for k, v in result["staged"].items() if k != "warm-up"]
    for key in ("as met, Korean first", "as met, English first"):
        rows.append((f"{key}: to the first answer", result[key]["total to first answer"]))
    warmed = result["after warm_up()"]
    rows += [("warm_up() itself", warmed and warmed["warm-up"]),
             ("first recall after warm_up()", warmed and warmed["first recall"])]
    rows += [(f"cli: {k}", v) for k, v in result["cli"].items()]
    rows += [(f"serve: {k}", v) for k, v in result["serve"].items()]
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", type=Path, default=None,
                        help="another checkout of gieok to measure in the same run (printed beside)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load = [round(x, 2) for x in os.getloadavg()]
    result: dict[str, Any] = {"load average (1, 5, 15 min) at start": load, "this": measure(ROOT, args.repeat)}
    if args.baseline is not None:
        result["baseline"] = measure(args.baseline.resolve(), args.repeat)
    result["load average (1, 5, 15 min) at end"] = [round(x, 2) for x in os.getloadavg()]
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
        return 0
    print(f"load average {load} at start, {result['load average (1, 5, 15 min) at end']} at end "
          f"(2-core machine; medians of {args.repeat} runs; seconds)")
    base = dict(_rows(result["baseline"])) if "baseline" in result else None
    print(f"\n{'':<46}{'this':>8}" + (f"{'baseline':>10}" if base else ""))
    for name, value in _rows(result["this"]):
        line = f"{name:<46}{'-' if value is None else f'{value:.2f}':>8}"
        if base is not None:
            before = base.get(name)
            line += f"{'-' if before is None else f'{before:.2f}':>10}"
        print(line)
    print("\ntargets (issue #37): the first recall in a new process ≤ 1.5 s; CLI commands that do not embed ≤ 0.5 s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
