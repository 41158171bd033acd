"""Erasure benchmark: does anything of an erased source survive, and does the proof notice a leak?

    python bench/erasure.py [--fake] [--no-sweep] [--json]

A scripted bank (:data:`SESSIONS`), Korean and English, with everything erasure has to reach: an
entity merge (민지 → 김민지 and Caroline → Caroline Brightwater, said only in what is erased),
titles, places and codewords, consolidation (observations about every entity), two mental models,
a superseded version whose text the observation history quotes, and a retain submitted in the
background (its job payload is a copy of the messages). :data:`MARKERS` are the names, places and
codewords that occur only in the erased sources.

1. **Plain forget** of the erased sources (no ``verify``), and **delete_bank** in a second copy:
   how many markers are still in the bytes of the database file, its ``-wal`` and ``-shm``, read
   while the ``Memory`` is still open (so nothing is owed to closing it); expected 0 of N. Also the
   markers an engine-independent scan (the standard ``sqlite3`` module, every value of every table,
   case-insensitive, JSON escapes too) finds.
2. **Proof**: ``forget(..., verify=True)`` on a fresh copy must say clean (no false alarm), and with a
   leak planted per marker — written back behind the engine's back, between the erasure and the proof,
   each into another table and spelling (a lower-cased entity name, a context-degree key, the keyword
   index's own stem or morpheme in the FTS table, an observation's history, a JSON-escaped job payload,
   a mental-model answer) — it must report that table: caught k of N.
3. **Gaps** (issue #32), each in Korean and English on a fresh file: ``forget`` of a source whose
   retain is still queued (the job must not write it afterwards); ``forget(entity=..., verify=True)``
   where one fact names the entity only by a short form the extractor does not link (every fact
   naming it must go, and a proof may never be clean with one left); a corrected message (same id,
   new text) whose old value a supersede reason quoted. Held k of 6.
4. **Sweep** (``--no-sweep`` skips it): every session of a real conversation (the Korean
   multisession set's first conversation, the knowledge-update set's first English one) retained as
   its own source, then forgotten one by one with ``verify=True``: how many proofs came back clean.
   Nothing is planted there, so a proof that is not clean is a false alarm — a form flagged that
   what remains says legitimately.

The default embedder is the bundled e5-small (offline); ``--fake`` uses a hashed bag-of-terms
embedder (deterministic, fast; the graph, consolidation and supersede paths do not depend on it).
Run against another checkout with ``PYTHONPATH=/that/checkout`` (the planted-leak step then patches
whichever proof function that checkout's ``forget`` calls).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if importlib.util.find_spec("gieok") is None:  # runnable from a checkout without installing the package
    sys.path.insert(0, str(HERE.parent))

from _hash_embedder import hash_embedder  # noqa: E402
from _locomo_data import load  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

import gieok.engine.forget.run as forget_module  # noqa: E402
from gieok import Memory  # noqa: E402
from gieok.text.terms import keyword_terms  # noqa: E402

FAKE_EMBEDDER = "erasure-fake-hash"
BANK = "user"


def _say(mid: str, speaker: str, text: str, ts: str) -> dict[str, str]:
    return {"id": mid, "speaker": speaker, "text": text, "timestamp": ts}


# (source id, erased?, messages); retained in this order, consolidation run after each
SESSIONS: list[tuple[str, bool, list[dict[str, str]]]] = [
    ("keep-ko", False, [
        _say("k1", "alice", "민지는 요즘 테니스를 배워", "2026-03-01T10:00:00+09:00"),
        _say("k2", "alice", "민지랑 다음 주에 부산 가기로 했어", "2026-03-01T10:01:00+09:00"),
        _say("k3", "alice", "나는 주말마다 한강에서 자전거를 타", "2026-03-01T10:02:00+09:00")]),
    ("keep-en", False, [
        _say("k4", "alice", "I met Caroline at the gym on Sunday", "2026-03-01T11:00:00+00:00"),
        _say("k5", "alice", "Caroline recommended a book about sailing", "2026-03-01T11:01:00+00:00"),
        _say("k6", "alice", "My brother lives in Leeds", "2026-03-01T11:02:00+00:00")]),
    ("erase-ko", True, [
        _say("x1", "alice", "김민지 팀장은 속초 등대 근처 카페 해무리에서 박서연 대리를 만났어",
             "2026-03-02T10:00:00+09:00"),
        _say("x2", "alice", "박서연 대리의 금고 암호는 쥐라기호랑이칠칠이야", "2026-03-02T10:01:00+09:00")]),
    ("erase-en", True, [
        _say("x3", "alice", "Caroline Brightwater and Dr. Okonkwo drove to Tintagel Harbour",
             "2026-03-02T11:00:00+00:00"),
        _say("x4", "alice", "The launch code Caroline gave Okonkwo is Zebraquartz Marigoldia",
             "2026-03-02T11:01:00+00:00")]),
    ("old-ko", True, [_say("v1", "bob", "쿼츠마루 보고서 마감은 금요일이고 담당은 윤하람이야",
                           "2026-04-01T09:00:00+09:00")]),
    ("old-en", True, [_say("v2", "bob", "The Zorblax audit is due Friday and Pemberly owns it",
                           "2026-04-01T09:00:00+00:00")]),
    ("new-ko", False, [_say("v3", "bob", "아니, 쿼츠마루 보고서 마감은 월요일로 바뀌었어",
                            "2026-04-02T09:00:00+09:00")]),
    ("new-en", False, [_say("v4", "bob", "Actually the Zorblax audit moved to Monday", "2026-04-02T09:00:00+00:00")]),
]
SUBMITTED = ("async-ko", [_say("y1", "alice", "박서연 대리의 사물함 번호는 칠백칠이야", "2026-03-03T10:00:00+09:00")])
MODELS = [("minji", "민지는 어떤 사람이야?"), ("caroline", "Who is Caroline?")]
MARKERS = ["김민지", "박서연", "속초", "해무리", "쥐라기호랑이칠칠", "윤하람",
           "Brightwater", "Okonkwo", "Tintagel", "Zebraquartz", "Marigoldia", "Pemberly"]
ERASED = [s for s, erased, _ in SESSIONS if erased] + [SUBMITTED[0]]


# -- what is left ----------------------------------------------------------------------------------
def in_file(path: str, markers: list[str]) -> list[str]:
    blobs = [Path(path + s).read_bytes() for s in ("", "-wal", "-shm") if Path(path + s).exists()]
    return [m for m in markers if any(m.encode("utf-8") in b for b in blobs)]


def in_tables(path: str, markers: list[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                     "AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'").fetchall():
            for column in [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]:
                for (value,) in conn.execute(f'SELECT "{column}" FROM "{table}"'):
                    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
                    if not isinstance(text, str):
                        continue
                    for m in markers:
                        if m.casefold() in text.casefold() or json.dumps(m)[1:-1] in text:
                            found.setdefault(m, []).append(f"{table}.{column}")
    return found


# -- the scenario ------------------------------------------------------------------------------------
def build(path: str, embedder: str) -> float:
    started = time.perf_counter()
    with Memory(path, embedder=embedder) as mem:
        for i, (source, _erased, messages) in enumerate(SESSIONS):
            mem.retain(BANK, messages=messages, document_id=source)
            if i == 1:
                for name, question in MODELS:
                    mem.models.add(BANK, name, question, refresh=False)
                mem.submit_retain(BANK, messages=SUBMITTED[1], document_id=SUBMITTED[0])
            mem.run_jobs()
    return time.perf_counter() - started


def _plant(store: Any, sql: str, params: tuple[Any, ...]) -> None:
    with store.write():
        store._require_write().execute(sql, params)


# (table the proof must name, how to write the marker there)
PLANTS: list[tuple[str, Callable[[Any, str], None]]] = [
    ("entities", lambda s, m: _plant(s, "INSERT INTO entities (bank_id, canonical_name) VALUES (1, ?)",
                                     (m.casefold(),))),
    ("context_degrees", lambda s, m: _plant(s, "INSERT INTO context_degrees (bank_id, key, degree) VALUES (1, ?, 1) "
                                            "ON CONFLICT DO NOTHING",
                                            (m.casefold(),))),
    ("fts_bank_1_content", lambda s, m: _plant(s, "INSERT INTO fts_bank_1 (rowid, terms, context) "
                                                  "VALUES (99999, ?, '')", (" ".join(keyword_terms(m)),))),
    ("observations", lambda s, m: _plant(s, "INSERT INTO observations (bank_id, topic, text, history, created_at, "
                                            "updated_at) VALUES (1, 'planted', 'planted', ?, 0, 0)",
                                         (json.dumps([{"previous": f"{m} said so"}], ensure_ascii=False),))),
    ("jobs", lambda s, m: _plant(s, "INSERT INTO jobs (bank_id, kind, payload, run_after, created_at, updated_at) "
                                    "VALUES (1, 'planted', ?, 0, 0, 0)", (json.dumps({"note": m}),))),
    ("mental_models", lambda s, m: _plant(s, "UPDATE mental_models SET answer = ?", (f"It was {m}.",))),
]


@contextmanager
def planted(marker: str, plant: Callable[[Any, str], None]) -> Iterator[None]:
    """Write ``marker`` back between the erasure and its proof (whichever proof this checkout has)."""
    name = "prove_erased" if hasattr(forget_module, "prove_erased") else "verify_erased"
    real = getattr(forget_module, name)

    def wrapper(store: Any, *args: Any, **kwargs: Any) -> Any:
        plant(store, marker)
        return real(store, *args, **kwargs)

    setattr(forget_module, name, wrapper)
    try:
        yield
    finally:
        setattr(forget_module, name, real)


def sources_of(marker: str) -> list[str]:
    """The erased sources that say ``marker`` (all must go before it is gone)."""
    return [source for source, erased, messages in [*SESSIONS, (SUBMITTED[0], True, SUBMITTED[1])]
            if erased and any(marker in m["text"] for m in messages)]


def run_scenario(base: str, embedder: str, workdir: Path) -> dict[str, Any]:
    def copy(name: str) -> str:
        target = str(workdir / f"{name}.db")
        shutil.copyfile(base, target)
        return target

    before_file = in_file(base, MARKERS)
    before_tables = in_tables(base, MARKERS)
    out: dict[str, Any] = {"markers": len(MARKERS), "before_file": len(before_file),
                           "before_tables": len(before_tables)}
    path = copy("plain")
    with Memory(path, embedder=embedder) as mem:
        started = time.perf_counter()
        for source in ERASED:
            mem.forget(BANK, source_id=source)
        out["plain_seconds"] = (time.perf_counter() - started) / len(ERASED)
        out["plain_file"] = in_file(path, MARKERS)  # the Memory still open: nothing owed to close()
        out["plain_tables"] = sorted(in_tables(path, MARKERS))
        out["kept_after_forget"] = in_file(path, ["민지", "Caroline", "월요일", "Monday"])
        mem.run_jobs()  # observations and answers rebuilt from what remains
        out["plain_tables_after_jobs"] = sorted(in_tables(path, MARKERS))
    path = copy("delete_bank")
    with Memory(path, embedder=embedder) as mem:
        mem.banks.delete(BANK)
        out["delete_bank_file"] = in_file(path, MARKERS)
    path = copy("verify")
    with Memory(path, embedder=embedder) as mem:
        started = time.perf_counter()
        proofs = [mem.forget(BANK, source_id=source, verify=True).proof for source in ERASED]
        out["verify_seconds"] = (time.perf_counter() - started) / len(ERASED)
        out["proofs_clean"] = sum(1 for p in proofs if p is not None and p.clean)
        out["proofs"] = len(proofs)
        out["verify_file"] = in_file(path, MARKERS)
    caught: list[str] = []
    missed: list[str] = []
    for i, marker in enumerate(MARKERS):
        table, plant = PLANTS[i % len(PLANTS)]
        path = copy(f"planted-{i}")
        *first, last = sources_of(marker)
        with Memory(path, embedder=embedder) as mem:
            for source in first:
                mem.forget(BANK, source_id=source)
            with planted(marker, plant):
                proof = mem.forget(BANK, source_id=last, verify=True).proof
        named = {f.get("table") for f in proof.found} if proof is not None else set()
        (caught if proof is not None and not proof.clean and table in named else missed).append(
            f"{marker} → {table}")
    out["planted_caught"], out["planted_missed"] = caught, missed
    return out


# -- gaps: queued retains, entities named by a short form, corrected messages ------------------------
GAP_QUEUED = [("잔지바르쿡스", "내 사물함 비밀번호는 잔지바르쿡스 4417이야"),
              ("Zanzibarquux", "My locker code is Zanzibarquux 4417")]
GAP_ENTITY = [("김민지", ["김민지 팀장은 회의에 늦었어.", "#민지 생일 파티 준비 중이야."], "민지"),
              ("Caroline Pennyworthia-Smythe", ["Caroline Pennyworthia-Smythe is my landlord.",
                                                "Pennyworthia-Smythe raised the rent again."], "Pennyworthia")]
GAP_CORRECTED = [("퀵소트빌", ["I live in Springfield.", "I moved to 퀵소트빌 last week.",
                              "I moved to 하버턴 last week."]),
                 ("Quixoteville", ["I live in Springfield.", "I moved to Quixoteville last week.",
                                   "I moved to Harborton last week."])]


def gaps(embedder: str, workdir: Path) -> dict[str, Any]:
    held: list[str] = []
    failed: list[str] = []
    for i, (marker, text) in enumerate(GAP_QUEUED):
        path = str(workdir / f"gap-queued-{i}.db")
        with Memory(path, embedder=embedder) as mem:
            mem.submit_retain(BANK, messages=[_say("q1", "alice", text, "2026-03-01T10:00:00+00:00")],
                              document_id="queued")
            try:
                mem.forget(BANK, source_id="queued")
                answered = "forgot"
            except Exception as exc:  # what main answered: SourceNotFoundError, and the job wrote it later
                answered = type(exc).__name__
            mem.run_jobs()
            mem.engine.store.erasure.checkpoint()
            left = in_file(path, [marker]) or list(in_tables(path, [marker]))
        (failed if left or answered != "forgot" else held).append(f"queued {marker}: {answered}, left {len(left)}")
    for i, (entity, texts, short) in enumerate(GAP_ENTITY):
        path = str(workdir / f"gap-entity-{i}.db")
        with Memory(path, embedder=embedder) as mem:
            mem.retain(BANK, messages=[_say(f"m{j}", "alice", t, "2026-03-01T10:00:00+00:00")
                                       for j, t in enumerate(texts)], document_id="chat")
            proof = mem.forget(BANK, entity=entity, verify=True).proof
            left = list(in_tables(path, [short]))
        clean = proof is not None and proof.clean
        (held if clean and not left else failed).append(f"entity {entity}: left in {left}, proof clean {clean}")
    for i, (marker, texts) in enumerate(GAP_CORRECTED):
        path = str(workdir / f"gap-corrected-{i}.db")
        with Memory(path, embedder=embedder) as mem:
            for j, (mid, t) in enumerate(zip(["m1", "m2", "m2"], texts)):
                mem.retain(BANK, messages=[_say(mid, "alice", t, f"2026-0{j + 1}-01T10:00:00+00:00")],
                           document_id="chat")
            left = in_tables(path, [marker]).get(marker, [])
        (failed if left else held).append(f"corrected {marker}: left in {left}")
    return {"held": held, "failed": failed}


# -- sweep: forget every session of real conversations, count false alarms ----------------------------
def sweep(embedder: str, workdir: Path) -> dict[str, Any]:
    conversations = [load(HERE / "data" / "korean_multisession.json")[0],
                     next(c for c in load(HERE / "data" / "knowledge_update.json")
                          if not any("\uac00" <= ch <= "\ud7a3" for t in c.turns[:5] for ch in t.text))]
    out: dict[str, Any] = {"sessions": 0, "clean": 0, "flagged": [], "seconds": 0.0}
    for conv in conversations:
        path = str(workdir / f"sweep-{conv.id}.db")
        sessions: dict[str, list[dict[str, str]]] = {}
        for turn in conv.turns:
            session = turn.id.split(":")[0]
            sessions.setdefault(session, []).append(_say(turn.id, turn.speaker, turn.text, turn.timestamp))
        with Memory(path, embedder=embedder) as mem:
            for session, messages in sessions.items():
                mem.retain(conv.id, messages=messages, document_id=f"{conv.id}-{session}")
            mem.run_jobs()
            started = time.perf_counter()
            for session in sessions:
                proof = mem.forget(conv.id, source_id=f"{conv.id}-{session}", verify=True).proof
                out["sessions"] += 1
                if proof is not None and proof.clean:
                    out["clean"] += 1
                else:
                    out["flagged"].append({"source": f"{conv.id}-{session}",
                                           "found": proof.found if proof is not None else None})
                mem.run_jobs()  # observations rebuilt between erasures, as a running bank would
            out["seconds"] += time.perf_counter() - started
    out["seconds_per_forget"] = out["seconds"] / max(out["sessions"], 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fake", action="store_true", help="a hashed bag-of-terms embedder instead of e5-small")
    parser.add_argument("--embedder", default="e5-small")
    parser.add_argument("--no-sweep", action="store_true", help="skip the false-alarm sweep over real conversations")
    parser.add_argument("--json", action="store_true", help="print a machine-readable dict on stdout")
    args = parser.parse_args()
    console = Console(stderr=args.json)
    embedder = args.embedder
    if args.fake:
        embedder = hash_embedder(FAKE_EMBEDDER)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        base = str(workdir / "base.db")
        console.print(f"building the scenario ({len(SESSIONS) + 1} sources, {len(MARKERS)} markers, "
                      f"embedder {embedder})")
        built = build(base, embedder)
        result = run_scenario(base, embedder, workdir)
        result["build_seconds"] = built
        result["embedder"] = embedder
        result["gaps"] = gaps(embedder, workdir)
        if not args.no_sweep:
            console.print("sweep: forgetting every session of two real conversations, with proof")
            result["sweep"] = sweep(embedder, workdir)
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
        return
    n = result["markers"]
    table = Table(title=f"Erasure ({embedder}): {n} markers in {len(ERASED)} erased sources")
    table.add_column("check")
    table.add_column("result", justify="right")
    table.add_row("markers in tables before erasing (sanity)", f"{result['before_tables']} of {n}")
    table.add_row("left in file + -wal + -shm after plain forget (Memory open)", f"{len(result['plain_file'])} of {n}")
    table.add_row("left in any table after plain forget (stdlib scan)", f"{len(result['plain_tables'])} of {n}")
    table.add_row("… after the next run_jobs (observations rebuilt)",
                  f"{len(result['plain_tables_after_jobs'])} of {n}")
    table.add_row("left in file + -wal + -shm after delete_bank", f"{len(result['delete_bank_file'])} of {n}")
    table.add_row("left in file + -wal + -shm after forget(verify=True)", f"{len(result['verify_file'])} of {n}")
    table.add_row("proofs clean (forget, verify=True)", f"{result['proofs_clean']} of {result['proofs']}")
    table.add_row("planted leaks the proof reported, at the right table",
                  f"{len(result['planted_caught'])} of {n}")
    table.add_row("seconds per forget: plain / verify",
                  f"{result['plain_seconds']:.2f} / {result['verify_seconds']:.2f}")
    g = result["gaps"]
    table.add_row("gaps held: queued retain, entity by a short form, corrected message (ko + en)",
                  f"{len(g['held'])} of {len(g['held']) + len(g['failed'])}")
    if "sweep" in result:
        s = result["sweep"]
        table.add_row("sweep: proofs clean over real sessions (no false alarm)", f"{s['clean']} of {s['sessions']}")
        table.add_row("sweep: seconds per forget with proof", f"{s['seconds_per_forget']:.2f}")
    console.print(table)
    for key in ("plain_file", "plain_tables", "plain_tables_after_jobs", "delete_bank_file", "verify_file"):
        if result[key]:
            console.print(f"[red]{key}[/red]: {', '.join(result[key])}")
    if result["gaps"]["failed"]:
        console.print(f"[red]gaps[/red]: {'; '.join(result['gaps']['failed'])}")
    if result["planted_missed"]:
        console.print(f"[red]planted and missed[/red]: {'; '.join(result['planted_missed'])}")
    if "sweep" in result and result["sweep"]["flagged"]:
        console.print(f"[red]false alarms[/red]: {json.dumps(result['sweep']['flagged'], ensure_ascii=False)}")


if __name__ == "__main__":
    main()
