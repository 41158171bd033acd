"""Knowledge update: does recall put the current version of a changed fact first, and the old one as of then?

    python bench/knowledge_update.py [--data bench/data/knowledge_update.json] [--embedder e5-small]
                                     [--fake] [--baseline] [--json]

Data: bench/data/knowledge_update.json (see bench/data/KNOWLEDGE_UPDATE.md), LoCoMo-shaped with
per-question ``type`` ("current" | "past" | "control"), ``fact``, ``as_of`` (past questions) and
``old_evidence`` (current questions). One bank per conversation; each session is retained as its own
source (``document_id`` = "session_<n>") in time order, every turn stamped with its session's time.

Each question is asked with ``recall(bank, question, limit=5, now=..., as_of=...)``: a past question at
``now = as_of``, the others at the last session's time + 1 day with ``as_of=None``. If ``recall`` has
no ``as_of`` parameter yet, the run says so and asks without it.

Metrics (top 5; a memory "holds" a version when its ``source_ids`` meet that version's turns):
* R@1, R@5: a memory holding the evidence is ranked first / in the top 5.
* stale@5 (current questions): a superseded version (``old_evidence``) is in the top 5 and ranked
  above every memory holding the current one (or the current one is not in the top 5 at all).
* leak@5 (past questions): a version stated after ``as_of`` (the fact's other versions, taken from
  its current question) is in the top 5 above the one that held at ``as_of``.
``--baseline`` adds plain dense retrieval over the turns (bench/locomo.py's helper, same embedder);
it has no notion of time, so it sees every version whatever ``as_of`` is.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _hash_embedder import hash_embedder
from _locomo_data import Conversation, Turn
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from gieok import Memory

DEFAULT_DATA = Path(__file__).resolve().parent / "data" / "knowledge_update.json"
K = 5
TYPES = ("current", "past", "control")
FAKE_EMBEDDER = "ku-fake-hash"
# a ranker maps (question, now, as_of) to the source ids of its ranked results, best first
Ranker = Callable[["Question"], list[list[str]]]


# -- data ----------------------------------------------------------------------------------------
@dataclass
class Question:
    conversation: str
    language: str
    index: int
    question: str
    answer: str
    type: str
    fact: str
    evidence: list[str]
    old_evidence: list[str] = field(default_factory=list)
    later_evidence: list[str] = field(default_factory=list)  # past questions: versions stated after as_of
    as_of: str | None = None
    now: str = ""
    addition: bool = False


@dataclass
class Session:
    id: str
    timestamp: str
    turns: list[Turn]


@dataclass
class KUConversation:
    id: str
    language: str
    sessions: list[Session]
    questions: list[Question]

    @property
    def turns(self) -> list[Turn]:
        return [t for s in self.sessions for t in s.turns]


def _time(value: str) -> datetime:
    when = datetime.fromisoformat(value)
    if when.tzinfo is None:
        raise ValueError(f"timestamp {value!r} has no timezone")
    return when


def load(path: str | Path) -> list[KUConversation]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    out = []
    for sample in data:
        conv = sample["conversation"]
        numbers = sorted(int(k.split("_")[1]) for k in conv if k.startswith("session_") and k.count("_") == 1)
        sessions = []
        for n in numbers:
            ts = _time(conv[f"session_{n}_date_time"]).isoformat()
            turns = [Turn(t["dia_id"], t["speaker"], t["text"], ts) for t in conv[f"session_{n}"]]
            sessions.append(Session(f"session_{n}", ts, turns))
        sessions.sort(key=lambda s: _time(s.timestamp))
        when = {t.id: _time(t.timestamp) for s in sessions for t in s.turns}
        if len(when) != sum(len(s.turns) for s in sessions):
            raise ValueError(f"{sample['sample_id']}: duplicate dia_id")
        language = sample.get("language") or ("ko" if "-ko-" in sample["sample_id"] else "en")
        now_current = (max(when.values()) + timedelta(days=1)).isoformat()
        versions: dict[str, list[str]] = {}
        questions = []
        for i, qa in enumerate(sample["qa"]):
            qtype = qa.get("type", "control")
            if qtype not in TYPES:
                raise ValueError(f"{sample['sample_id']} question {i}: type {qtype!r}")
            for turn_id in [*qa["evidence"], *qa.get("old_evidence", [])]:
                if turn_id not in when:
                    raise ValueError(f"{sample['sample_id']} question {i}: unknown turn {turn_id}")
            q = Question(sample["sample_id"], language, i, qa["question"], qa.get("answer", ""), qtype,
                         qa.get("fact", f"q{i}"), list(qa["evidence"]), list(qa.get("old_evidence", [])),
                         as_of=qa.get("as_of"), addition=bool(qa.get("addition")))
            if qtype == "past":
                if not q.as_of:
                    raise ValueError(f"{sample['sample_id']} question {i}: a past question needs as_of")
                q.now = _time(q.as_of).isoformat()
            else:
                q.now = now_current
            if qtype == "current":
                versions[q.fact] = q.evidence + q.old_evidence
            questions.append(q)
        for q in questions:
            if q.type == "past" and q.as_of:
                cutoff = _time(q.as_of)
                q.later_evidence = [t for t in versions.get(q.fact, []) if when[t] > cutoff]
        out.append(KUConversation(sample["sample_id"], language, sessions, questions))
    return out


# -- scoring -------------------------------------------------------------------------------------
def first_rank(ranked: Sequence[Sequence[str]], wanted: Sequence[str], k: int = K) -> int | None:
    ids = set(wanted)
    for rank, sources in enumerate(ranked[:k]):
        if ids & set(sources):
            return rank
    return None


def above(other: int | None, target: int | None) -> bool:
    """True when ``other`` is in the top k and ranked strictly before ``target`` (or target is absent)."""
    return other is not None and (target is None or other < target)


def score(q: Question, ranked: list[list[str]]) -> dict[str, Any]:
    rank = first_rank(ranked, q.evidence)
    row: dict[str, Any] = {"rank": rank, "R@1": float(rank == 0), f"R@{K}": float(rank is not None)}
    if q.type == "current":
        old = first_rank(ranked, q.old_evidence)
        row.update(old_rank=old, **{f"stale@{K}": float(above(old, rank)), f"old_in@{K}": float(old is not None)})
    elif q.type == "past" and q.later_evidence:
        later = first_rank(ranked, q.later_evidence)
        row.update(later_rank=later, **{f"leak@{K}": float(above(later, rank))})
    return row


# -- systems -------------------------------------------------------------------------------------
class GieokRanker:
    """Asks ``mem.recall`` with ``as_of``; falls back (once, with a note) if recall has no such parameter."""

    def __init__(self, mem: Memory, bank: str, state: dict[str, Any], console: Console) -> None:
        self.mem, self.bank, self.state, self.console = mem, bank, state, console

    def __call__(self, q: Question) -> list[list[str]]:
        if self.state.get("as_of", True):
            try:
                result = self.mem.recall(self.bank, q.question, limit=K, now=q.now, as_of=q.as_of)  # type: ignore[call-arg]
                self.state["as_of"] = True
                return [list(m.source_ids) for m in result.memories]
            except TypeError as exc:
                if "as_of" not in str(exc):
                    raise
                self.state["as_of"] = False
                self.console.print("[yellow]note: Memory.recall() does not accept as_of yet "
                                   f"({exc}); asking every question without it (now= only).[/yellow]")
        result = self.mem.recall(self.bank, q.question, limit=K, now=q.now)
        return [list(m.source_ids) for m in result.memories]


def dense_baselines(conv: KUConversation, embedder: str, which: Sequence[str],
                    console: Console) -> dict[str, Ranker]:
    # bench/locomo.py's baselines: BM25, dense and hybrid RRF over "speaker: text" of every turn
    try:
        from locomo import baselines
    except ImportError as exc:  # only when bench/locomo.py is missing or broken
        console.print(f"[yellow]note: bench/locomo.py baselines not importable ({exc}); skipping them[/yellow]")
        return {}
    rankers = baselines(Conversation(conv.id, conv.turns, [], conv.sessions[-1].timestamp), embedder)

    def by_question(rank: Callable[[str], list[list[str]]]) -> Ranker:
        return lambda q: rank(q.question)

    return {name: by_question(rankers[name]) for name in which if name in rankers}


# -- report --------------------------------------------------------------------------------------
def slices(q: Question) -> list[str]:
    return [f"{lang}/{typ}" for lang in ("all", q.language) for typ in ("all", q.type)]


def aggregate(rows: list[tuple[Question, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    buckets: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for q, row in rows:
        for key in slices(q):
            for metric, value in row.items():
                if isinstance(value, float):
                    buckets[key][metric].append(value)
    out: dict[str, dict[str, Any]] = {}
    for key, metrics in buckets.items():
        out[key] = {"n": len(metrics["R@1"]), **{m: round(sum(v) / len(v), 4) for m, v in metrics.items()}}
    return out


SLICE_ORDER = [f"{lang}/{typ}" for lang in ("all", "ko", "en") for typ in ("all", *TYPES)]


def print_tables(console: Console, results: dict[str, dict[str, dict[str, Any]]], title: str) -> None:
    systems = list(results)
    table = Table(title=title)
    table.add_column("slice")
    table.add_column("n", justify="right")
    for name in systems:
        table.add_column(f"{name} R@1", justify="right")
        table.add_column(f"{name} R@{K}", justify="right")
        table.add_column(f"{name} stale/leak", justify="right")
    first = results[systems[0]]
    for key in SLICE_ORDER:
        if key not in first:
            continue
        cells = [key, str(first[key]["n"])]
        for name in systems:
            m = results[name].get(key, {})
            extra = m.get(f"stale@{K}", m.get(f"leak@{K}")) if key.endswith(("/current", "/past")) else None
            cells += [f"{m['R@1']:.3f}" if m else "-", f"{m[f'R@{K}']:.3f}" if m else "-",
                      f"{extra:.3f}" if extra is not None else ""]
        table.add_row(*cells)
    console.print(table)
    console.print(f"stale/leak: on current rows stale@{K} (a superseded version ranked above the current one), "
                  f"on past rows leak@{K} (a version stated after as_of ranked above the one that held then); "
                  "lower is better.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--embedder", default="e5-small")
    parser.add_argument("--fake", action="store_true",
                        help="use a fast deterministic hashed bag-of-terms embedder instead of --embedder "
                             "(bench/locomo.py has none; checks the pipeline, not retrieval quality)")
    parser.add_argument("--baseline", action="store_true", help="also run plain dense retrieval over the turns")
    parser.add_argument("--all-baselines", action="store_true", help="BM25, dense and hybrid RRF (implies --baseline)")
    parser.add_argument("--lang", choices=("ko", "en"), default=None, help="only conversations in this language")
    parser.add_argument("--limit-conversations", type=int, default=None)
    parser.add_argument("--db", default=None, help="keep the gieok database here (default: a temp file)")
    parser.add_argument("--json", action="store_true", help="print a machine-readable dict on stdout")
    parser.add_argument("--show-misses", action="store_true", help="list gieok's misses and stale answers")
    args = parser.parse_args()

    console = Console(stderr=args.json)
    embedder: str = args.embedder
    if args.fake:
        embedder = hash_embedder(FAKE_EMBEDDER)
    conversations = [c for c in load(args.data) if args.lang in (None, c.language)][: args.limit_conversations]
    questions = [q for c in conversations for q in c.questions]
    n_turns = sum(len(c.turns) for c in conversations)
    console.print(f"{len(conversations)} conversations, {n_turns} turns, {len(questions)} questions "
                  f"({', '.join(f'{sum(q.type == t for q in questions)} {t}' for t in TYPES)}) from {args.data}; "
                  f"embedder {embedder}")
    baseline_names = ["BM25", "dense", "hybrid RRF"] if args.all_baselines else ["dense"] if args.baseline else []

    tmp = tempfile.TemporaryDirectory()
    db = args.db or str(Path(tmp.name) / "knowledge_update.db")
    state: dict[str, Any] = {}
    per_system: dict[str, list[tuple[Question, dict[str, Any]]]] = defaultdict(list)
    recalled: dict[tuple[str, int], list[list[str]]] = {}
    timings: dict[str, float] = defaultdict(float)
    started = time.perf_counter()
    with Memory(db, embedder=embedder) as mem, Progress(console=console) as progress:
        for conv in conversations:
            task = progress.add_task(f"retain {conv.id}", total=len(conv.sessions))
            start = time.perf_counter()
            for session in conv.sessions:
                mem.retain(conv.id, messages=[{"id": t.id, "speaker": t.speaker, "text": t.text,
                                               "timestamp": t.timestamp} for t in session.turns],
                           document_id=session.id)
                progress.advance(task)
            timings["gieok retain"] += time.perf_counter() - start
            rankers: dict[str, Ranker] = {"gieok": GieokRanker(mem, conv.id, state, console)}
            if baseline_names:
                start = time.perf_counter()
                rankers.update(dense_baselines(conv, embedder, baseline_names, console))
                timings["baseline index"] += time.perf_counter() - start
            qtask = progress.add_task(f"questions {conv.id}", total=len(conv.questions) * len(rankers))
            for name, rank in rankers.items():
                start = time.perf_counter()
                for q in conv.questions:
                    ranked = rank(q)[:K]
                    if name == "gieok":
                        recalled[(q.conversation, q.index)] = ranked
                    per_system[name].append((q, score(q, ranked)))
                    progress.advance(qtask)
                timings[f"{name} queries"] += time.perf_counter() - start
        texts = {(c.id, t.id): f"{t.speaker}: {t.text}" for c in conversations for t in c.turns}
    total = time.perf_counter() - started
    tmp.cleanup()

    as_of_used = state.get("as_of", False)
    results = {name: aggregate(rows) for name, rows in per_system.items()}
    title = (f"Knowledge update, top {K} ({len(questions)} questions, embedder {embedder}, "
             f"recall as_of {'on' if as_of_used else 'NOT supported: now= only'})")
    if args.json:
        by_question = {name: {(q.conversation, q.index): row for q, row in rows} for name, rows in per_system.items()}
        print(json.dumps({
            "data": args.data, "embedder": embedder, "k": K, "as_of_supported": as_of_used,
            "conversations": len(conversations), "turns": n_turns,
            "questions": {"all": len(questions), **{t: sum(q.type == t for q in questions) for t in TYPES}},
            "results": results,
            "timings_s": {k: round(v, 2) for k, v in timings.items()} | {"total": round(total, 2)},
            "per_question": [
                {"conversation": q.conversation, "index": q.index, "language": q.language, "type": q.type,
                 "fact": q.fact, "question": q.question, "as_of": q.as_of, "evidence": q.evidence,
                 "old_evidence": q.old_evidence, "later_evidence": q.later_evidence,
                 "gieok_sources": recalled.get((q.conversation, q.index)),
                 **{name: by_question[name][(q.conversation, q.index)] for name in per_system}}
                for q in questions
            ],
        }, ensure_ascii=False, indent=1))
        return
    print_tables(console, results, title)
    if args.show_misses:
        for q, row in per_system["gieok"]:
            stale = row.get(f"stale@{K}") or row.get(f"leak@{K}")
            if row[f"R@{K}"] and not stale:
                continue
            label = "MISS" if not row[f"R@{K}"] else ("STALE" if q.type == "current" else "LEAK")
            console.print(f"[bold]{label}[/bold] {q.conversation} [{q.type}{' as_of ' + q.as_of if q.as_of else ''}] "
                          f"{q.question}  → {q.answer}  "
                          f"(evidence {q.evidence}, old {q.old_evidence or q.later_evidence})")
            for i, sources in enumerate(recalled[(q.conversation, q.index)], start=1):
                shown = "; ".join(texts.get((q.conversation, s), s)[:90] for s in sources[:2])
                console.print(f"    {i}. {sources} {shown}")
    for what, seconds in timings.items():
        console.print(f"{what}: {seconds:.1f} s")
    console.print(f"total: {total:.1f} s")


if __name__ == "__main__":
    main()
