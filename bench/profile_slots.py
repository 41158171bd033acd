"""Profile slots: does gieok know a person's birthday, allergies, job, city and family — and their
earlier values — and does recall put the message that says so first?

    python bench/profile_slots.py [--data bench/data/profile_slots.json] [--embedder e5-small] [--db PATH] [--json]

The set (bench/data/profile_slots.json, written for this benchmark by someone who had not seen the
slot rules; its first half, ko-p1..3 and en-p1..3, was later read to widen them, the second half is
held out: ``--samples``): twelve conversations (six Korean, six English) between a
user and an assistant or a friend, with values that change (a move, a new job, a corrected
birthday), a second person's own facts, family members with names and denials; 204 questions about
one slot of one person, 31 of them about an earlier value and 18 about a slot never stated.

Per question:

* **lookup** — ``Memory.lookup(bank, slot, entity)`` with the question's slot and person (the
  relative, or the other person by name; the user themselves is the default): right when the current
  value (for a question about the past: an earlier value) matches the reference answer or one of its
  aliases, or, for a slot never stated, when nothing is returned;
* **from the question** — the same, but the slot and person read from the question text the way the
  profile recall channel reads them (``gieok.extract.slot_question``: the slot, and the relative or
  the person the question names);
* **R@1 / R@5** — ``Memory.recall(bank, question)``: the best memory (top five) comes from an evidence
  message, with the profile channel and without it (``channels`` minus ``profile``), over the
  questions that have an answer.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import unicodedata
from collections import defaultdict
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _embed_cache import DiskCachedEmbedder  # noqa: E402

from gieok import Memory  # noqa: E402
from gieok.engine.slots import Slot  # noqa: E402
from gieok.extract.slot_question import slot_question  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parent / "data" / "profile_slots.json"
WITHOUT_PROFILE = "semantic,keyword,graph,temporal"


def _norm(text: str) -> str:
    return re.sub(r"[\s.,!?'\"’]+", "", unicodedata.normalize("NFKC", text).lower())


def _matches(value: str | None, answers: list[str]) -> bool:
    if not value:
        return False
    got = _norm(value)
    return any(a and (a in got or got in a) for a in (_norm(x) for x in answers))


def _answers(q: dict[str, Any]) -> list[list[str]]:
    """Each reference value with its aliases (a multi-valued slot has several values)."""
    answer, aliases = q["answer"], q.get("answer_aliases") or []
    if isinstance(answer, list):
        return [[a, *(aliases[i] if i < len(aliases) else [])] for i, a in enumerate(answer)]
    return [[answer, *aliases]] if answer is not None else []


def _right(found: Slot | None, q: dict[str, Any]) -> bool:
    wanted = _answers(q)
    if not wanted:
        return found is None or not (found.previous() if q.get("asks") == "previous" else found.values)
    if found is None:
        return False
    values = [s.value for s in found.previous()] if q.get("asks") == "previous" else found.values
    return all(any(_matches(v, options) for v in values) for options in wanted)


def _entity(q: dict[str, Any]) -> str | None:
    if q.get("relation"):
        return str(q["relation"])
    return None if q["person"] == q.get("asker") else str(q["person"])


def _retain(mem: Memory, conv: dict[str, Any]) -> None:
    messages = []
    for session in conv["sessions"]:
        start = datetime.fromisoformat(session["date"])
        for i, turn in enumerate(session["turns"]):
            messages.append({"id": turn["id"], "speaker": turn["speaker"], "text": turn["text"],
                             "timestamp": (start + timedelta(minutes=i)).isoformat()})
    mem.retain(conv["id"], messages=messages, document_id=conv["id"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--embedder", default="e5-small")
    parser.add_argument("--db", default=None, help="keep the gieok database here (default: a temp file)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--misses", action="store_true", help="print each lookup that was wrong, with what it found")
    parser.add_argument("--samples", default=None,
                        help="comma-separated conversation ids (the README reports ko-p4..6 and en-p4..6, held out)")
    args = parser.parse_args()
    from rich.console import Console
    from rich.table import Table

    console = Console(stderr=args.json)
    data = json.loads(Path(args.data).read_text(encoding="utf-8"))
    if args.samples:
        data = [c for c in data if c["id"] in set(args.samples.split(","))]
    tmp = tempfile.TemporaryDirectory()
    db = args.db or str(Path(tmp.name) / "profile.db")
    stats: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    embedder = DiskCachedEmbedder(args.embedder)
    with Memory(db, embedder=embedder, refresh_on_recall=False) as mem, \
            Memory(db, embedder=embedder, refresh_on_recall=False, channels=WITHOUT_PROFILE) as plain:
        for conv in data:
            if conv["id"] not in {b.name for b in mem.banks()}:
                _retain(mem, conv)
            for q in conv["questions"]:
                buckets = ("all", conv["language"], q["slot"], q.get("asks", "current"))
                looked = mem.lookup(conv["id"], q["slot"], _entity(q))
                asked = slot_question(q["q"])
                parsed = None if asked is None else mem.lookup(conv["id"], asked.slot, asked.person or asked.relation)
                rows = {"lookup": _right(looked, q), "from the question": _right(parsed, q)}
                if args.misses and not rows["lookup"]:
                    found = [(s.value, s.negated) for s in looked.history] if looked else None
                    console.print(f"[red]miss[/red] {conv['id']} {q['slot']}/{_entity(q) or 'self'} "
                                  f"{q.get('asks', 'current')}: {q['q']!r} want {q['answer']!r} got {found}",
                                  soft_wrap=True)
                if _answers(q):
                    evidence = set(q["evidence"])
                    for name, memory in (("with profile", mem), ("without profile", plain)):
                        top = memory.recall(conv["id"], q["q"], limit=5).memories
                        rows[f"R@1 {name}"] = bool(top) and bool(set(top[0].source_ids) & evidence)
                        rows[f"R@5 {name}"] = any(set(m.source_ids) & evidence for m in top)
                for bucket in buckets:
                    for name, ok in rows.items():
                        stats[bucket][name].append(float(ok))
    columns = ["lookup", "from the question", "R@1 with profile", "R@1 without profile", "R@5 with profile",
               "R@5 without profile"]
    rows_out = {b: {c: (round(sum(v) / len(v), 3), len(v)) for c, v in m.items()} for b, m in stats.items()}
    if args.json:
        print(json.dumps({"data": args.data, "embedder": args.embedder, "rows": rows_out}, ensure_ascii=False,
                         indent=1))
        return
    table = Table(title=f"Profile slots ({args.embedder}) on {Path(args.data).name}")
    table.add_column("questions")
    table.add_column("n", justify="right")
    for c in columns:
        table.add_column(c, justify="right")
    order = ["all", "ko", "en", "current", "previous"] + sorted(b for b in rows_out
                                                                if b not in ("all", "ko", "en", "current", "previous"))
    for bucket in order:
        if bucket in rows_out:
            r = rows_out[bucket]
            table.add_row(bucket, str(r["lookup"][1]), *(f"{r[c][0]:.3f}" if c in r else "-" for c in columns))
    console.print(table)


if __name__ == "__main__":
    main()
