"""Cold start: where the seconds go before a new process answers its first recall.

    python bench/coldstart.py [--repeat 3] [--json]

Every figure is a fresh Python process (the median of ``--repeat`` runs), on a small bank built
first (twelve Korean and English messages, real default embedder):

* ``import gieok`` — the import alone;
* **the first recall, by stage**: import, ``Memory(path)``, the embedder's model load (the first
  query embedding), Kiwi's load (the first Korean analysis), then the first recall itself with both
  already loaded, and a second (warm) recall for comparison;
* **the first recall, as a user meets it**: import, open and one recall, nothing loaded before;
* **CLI commands that do not embed** (``gieok --help``, ``gieok banks --json``) and one that does
  (``gieok recall``), each a whole process as a shell runs it;
* **the server**: seconds from launching ``gieok serve`` until ``/health`` answers, until ``/ready``
  answers 200 (when the server has that route), and the first recall over HTTP right after.

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

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
BANK = "cold"
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

STAGES = r"""
import json, sys, time
t0 = time.perf_counter()
import gieok
t1 = time.perf_counter()
mem = gieok.Memory(sys.argv[1])
t2 = time.perf_counter()
if sys.argv[2] == "staged":
    mem.engine.embedder().embed_query("warm")  # the same instance the bank's recall uses
    t3 = time.perf_counter()
    from gieok.text.korean import analyze
    analyze("한국어 형태소 분석기 적재")
    t4 = time.perf_counter()
else:
    t3 = t4 = t2
mem.recall("cold", "민지는 어디 살아?")
t5 = time.perf_counter()
mem.recall("cold", "What does Sam's sister do?")
t6 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "open": t2 - t1, "embedder load": t3 - t2, "kiwi load": t4 - t3,
                  "first recall": t5 - t4, "warm recall": t6 - t5, "total to first answer": t5 - t0}))
"""


def _build(db: str) -> None:
    code = ("import sys, gieok\nmem = gieok.Memory(sys.argv[1])\n"
            f"mem.retain({BANK!r}, [{{'speaker': s, 'text': t}} for s, t in {MESSAGES!r}])\nmem.close()\n")
    subprocess.run([PYTHON, "-c", code, db], check=True, cwd=ROOT)


def _timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def _stages(db: str, mode: str, repeat: int) -> dict[str, float]:
    runs = []
    for _ in range(repeat):
        out = subprocess.run([PYTHON, "-c", STAGES, db, mode], check=True, cwd=ROOT, capture_output=True, text=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(db: str) -> dict[str, float | None]:
    import httpx

    port = _free_port()
    start = time.perf_counter()
    proc = subprocess.Popen([PYTHON, "-m", "gieok", "--db", db, "serve", "--port", str(port), "--insecure-no-auth"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    health = ready = None
    try:
        with httpx.Client(timeout=60) as client:
            while time.perf_counter() - start < 120:
                try:
                    if health is None and client.get(f"{base}/health").status_code == 200:
                        health = time.perf_counter() - start
                    if health is not None:
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
            client.post(f"{base}/v1/banks/{BANK}/recall", json={"query": "민지는 어디 살아?"}).raise_for_status()
            first = time.perf_counter() - t
    finally:
        proc.terminate()
        proc.wait(30)
    return {"health": health, "ready": ready, "first recall over HTTP": first}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "cold.db")
        _build(db)
        med = statistics.median
        result = {
            "load average (1, 5, 15 min)": [round(x, 2) for x in load],
            "import gieok": med(_timed([PYTHON, "-c", "import gieok"]) for _ in range(args.repeat)),
            "staged": _stages(db, "staged", args.repeat),
            "as met": _stages(db, "plain", args.repeat),
            "cli": {
                "gieok --help": med(_timed([PYTHON, "-m", "gieok", "--help"]) for _ in range(args.repeat)),
                "gieok banks --json": med(_timed([PYTHON, "-m", "gieok", "--db", db, "banks", "--json"])
                                          for _ in range(args.repeat)),
                "gieok recall": med(_timed([PYTHON, "-m", "gieok", "--db", db, "recall", BANK, "민지는 어디 살아?"])
                                    for _ in range(args.repeat)),
            },
            "serve": _serve(db),
        }
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
        return 0
    print(f"load average {result['load average (1, 5, 15 min)']}  (2-core machine; medians of {args.repeat} runs)")
    print(f"\nimport gieok                      {result['import gieok']:.2f} s")
    print("\nfirst recall in a new process, by stage")
    for k, v in result["staged"].items():
        print(f"  {k:<30}  {v:.2f} s")
    print(f"\nfirst recall as a user meets it   {result['as met']['total to first answer']:.2f} s "
          f"(target ≤ 1.5 s; warm recall {result['as met']['warm recall'] * 1000:.0f} ms)")
    print("\nCLI (whole process)")
    for k, v in result["cli"].items():
        print(f"  {k:<30}  {v:.2f} s")
    print("\ngieok serve")
    for k, v in result["serve"].items():
        print(f"  {k:<30}  " + ("-" if v is None else f"{v:.2f} s"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
