"""Supersede: does gieok close a statement only when a later one really replaces it?

    python bench/supersede.py [--data bench/data/supersede_pairs.json] [--engine] [--show-errors]
                              [--locomo [PATH]] [--knowledge [PATH]] [--synthetic N]
                              [--embedder e5-small] [--json]

**Pairs** (always): bench/data/supersede_pairs.json (see bench/data/README.md) holds (old, new) pairs
of statements by one speaker, labelled ``update`` (new replaces old) or not, split into ``tune``
(looked at while writing the rules), ``held-out`` (its errors were printed once, before the holder and
event rules were written, and not looked at since) and ``fresh`` (100 pairs from new templates,
written after the rules were frozen and never used to change them) and ``fresh-2`` (168 pairs written
blind by a helper who read neither the rules nor the other pairs, added on 2026-12-04 after every
rule above: the figure to trust).
``detect_update(old, new)`` is asked on each pair; a verdict at or above the engine's
``MIN_CONFIDENCE`` counts as "closes". Precision = right closures / closures, recall = right
closures / true updates, per half, per language and per category. ``--engine`` asks the whole
retain path as well: each pair is retained as two messages of one speaker a week apart into its own
bank (real embedder), and a pair "closes" when the first fact gets ``valid_to``.

**Closures on real chats**: ``--locomo`` retains the public LoCoMo slice as bench/locomo.py does (one
bank per conversation), ``--knowledge`` the knowledge-update set as bench/knowledge_update.py does
(one source per session), ``--synthetic N`` a generated chat of N messages (bench/_synthetic.py, the
perf benchmark's text: nothing in it updates anything on purpose); each prints how many facts were
closed and every closed pair — the old statement, the one that closed it and the reason — so a
person can check them.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _embed_cache import DiskCachedEmbedder
from rich.console import Console
from rich.table import Table

from gieok import Memory
from gieok.engine.retain.supersede import MIN_CONFIDENCE
from gieok.lifecycle import detect_update

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE / "data" / "supersede_pairs.json"
LOCOMO = HERE.parent.parent / "shared" / "bench" / "locomo-public.json"
KNOWLEDGE = HERE / "data" / "knowledge_update.json"
SPLITS = ("tune", "held-out", "fresh", "fresh-2")


@dataclass(frozen=True)
class Pair:
    id: str
    split: str
    language: str
    category: str
    old: str
    new: str
    update: bool


def load_pairs(path: str | Path) -> list[Pair]:
    rows = json.loads(Path(path).read_text(encoding="utf-8"))
    pairs = [Pair(r["id"], r["split"], r["language"], r["category"], r["old"], r["new"], bool(r["update"]))
             for r in rows]
    unknown = {p.split for p in pairs} - set(SPLITS)
    if unknown:
        raise SystemExit(f"unknown split(s) {sorted(unknown)} in {path}: use {', '.join(SPLITS)}")
    return pairs


# -- pairs -----------------------------------------------------------------------------------------
def detector_closes(pair: Pair) -> tuple[bool, str]:
    verdict = detect_update(pair.old, pair.new)
    if verdict is None or verdict.confidence < MIN_CONFIDENCE:
        return False, ""
    return True, verdict.reason


def engine_closes(pairs: Sequence[Pair], embedder: str, console: Console) -> dict[str, tuple[bool, str]]:
    """Each pair as two messages of one speaker, a week apart, in its own bank."""
    out: dict[str, tuple[bool, str]] = {}
    with tempfile.TemporaryDirectory() as tmp, Memory(str(Path(tmp) / "pairs.db"), embedder=embedder) as mem:
        for index, pair in enumerate(pairs):
            bank = f"pair-{index}"
            for n, (text, when) in enumerate(((pair.old, "2026-03-02T10:00:00+09:00"),
                                              (pair.new, "2026-03-09T10:00:00+09:00"))):
                mem.retain(bank, messages=[{"id": f"{bank}-{n}", "speaker": "user", "text": text, "timestamp": when}],
                           document_id=f"{bank}-s{n}")
            closed = _closures(mem, bank)
            out[pair.id] = (bool(closed), closed[0][2] if closed else "")
        console.print(f"engine: {len(pairs)} pairs retained with {embedder}")
    return out


def _closures(mem: Memory, bank: str) -> list[tuple[str, str, str]]:
    row = mem.store.banks.get(bank)
    if row is None:
        return []
    facts = {f.id: f for f in mem.store.facts.get(row.id, list(mem.store.facts.ids(row.id)))}
    reasons = _reasons(mem, [f.id for f in facts.values() if f.superseded_by is not None])
    return [(f.text, facts[f.superseded_by].text if f.superseded_by in facts else "?", reasons.get(f.id, ""))
            for f in facts.values() if f.superseded_by is not None]


def _reasons(mem: Memory, fact_ids: Sequence[int]) -> dict[int, str]:
    path = getattr(mem.store, "path", None)
    if not fact_ids or path is None:
        return {}
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        marks = ",".join("?" * len(fact_ids))
        return dict(conn.execute(f"SELECT id, supersede_reason FROM facts WHERE id IN ({marks})", list(fact_ids)))


def score(pairs: Sequence[Pair], closes: dict[str, tuple[bool, str]]) -> dict[str, float]:
    tp = sum(1 for p in pairs if p.update and closes[p.id][0])
    fp = sum(1 for p in pairs if not p.update and closes[p.id][0])
    fn = sum(1 for p in pairs if p.update and not closes[p.id][0])
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return {"n": len(pairs), "updates": tp + fn, "closed": tp + fp, "tp": tp, "fp": fp, "fn": fn,
            "precision": round(precision, 3), "recall": round(recall, 3)}


def pair_report(console: Console, pairs: Sequence[Pair], closes: dict[str, tuple[bool, str]], title: str,
                shown: Sequence[str]) -> dict[str, Any]:
    table = Table(title=title)
    for column in ("slice", "pairs", "updates", "closed", "false closures", "missed", "precision", "recall"):
        table.add_column(column, justify="left" if column == "slice" else "right")
    results: dict[str, Any] = {}
    groups: dict[str, list[Pair]] = defaultdict(list)
    for p in pairs:
        groups[p.split].append(p)
        groups[f"{p.split} / {p.language}"].append(p)
    for split in SPLITS:
        for key in (split, f"{split} / ko", f"{split} / en"):
            if not groups.get(key):
                continue
            s = score(groups[key], closes)
            results[key] = s
            table.add_row(key, str(s["n"]), str(s["updates"]), str(s["closed"]), str(s["fp"]), str(s["fn"]),
                          f"{s['precision']:.3f}", f"{s['recall']:.3f}")
    console.print(table)
    by_category = Table(title=f"{title}: by category (both halves)")
    for column in ("category", "pairs", "updates", "false closures", "missed"):
        by_category.add_column(column, justify="left" if column == "category" else "right")
    categories: dict[str, list[Pair]] = defaultdict(list)
    for p in pairs:
        categories[p.category].append(p)
    for category, members in sorted(categories.items()):
        s = score(members, closes)
        by_category.add_row(category, str(s["n"]), str(s["updates"]), str(s["fp"]), str(s["fn"]))
    console.print(by_category)
    if shown:  # the tune half only unless asked: the held-out half is not for tuning
        for p in pairs:
            if p.split not in shown:
                continue
            closed, reason = closes[p.id]
            if closed != p.update:
                label = "FALSE CLOSURE" if closed else "MISSED"
                console.print(f"[bold]{label}[/bold] {p.id} [{p.split}, {p.category}] {p.old!r} → {p.new!r}"
                              + (f"  ({reason})" if reason else ""))
    return results


# -- closures on real chats ------------------------------------------------------------------------
@dataclass(frozen=True)
class ChatTurn:
    id: str
    speaker: str
    text: str
    timestamp: str


def locomo_chats(path: str | Path) -> list[tuple[str, list[list[ChatTurn]]]]:
    from _locomo_data import load

    return [(c.id, [[ChatTurn(t.id, t.speaker, t.text, t.timestamp) for t in c.turns]]) for c in load(path)]


def knowledge_chats(path: str | Path) -> list[tuple[str, list[list[ChatTurn]]]]:
    from knowledge_update import load as load_knowledge

    return [(c.id, [[ChatTurn(t.id, t.speaker, t.text, t.timestamp) for t in s.turns] for s in c.sessions])
            for c in load_knowledge(path)]


def synthetic_chats(n: int) -> list[tuple[str, list[list[ChatTurn]]]]:
    from _synthetic import KST, SyntheticText

    messages = SyntheticText(seed=0).conversation(n, prefix="m", start=datetime(2026, 1, 5, 9, 0, tzinfo=KST))
    sessions = [messages[i:i + 50] for i in range(0, len(messages), 50)]
    return [("synthetic", [[ChatTurn(m.id, m.speaker, m.text, m.timestamp) for m in s] for s in sessions])]


def closures_report(console: Console, name: str, chats: Iterable[tuple[str, list[list[ChatTurn]]]],
                    embedder: str) -> dict[str, Any]:
    total = closed = 0
    listed: list[dict[str, str]] = []
    reasons: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp, \
            Memory(str(Path(tmp) / f"{name}.db"), embedder=DiskCachedEmbedder(embedder)) as mem:
        for bank, sessions in chats:
            for index, session in enumerate(sessions):
                mem.retain(bank, messages=[{"id": t.id, "speaker": t.speaker, "text": t.text,
                                            "timestamp": t.timestamp} for t in session],
                           document_id=f"{bank}-session-{index}")
            row = mem.store.banks.get(bank)
            assert row is not None
            facts = {f.id: f for f in mem.store.facts.get(row.id, list(mem.store.facts.ids(row.id)))}
            total += len(facts)
            old = sorted((f for f in facts.values() if f.superseded_by is not None), key=lambda f: f.id)
            why = _reasons(mem, [f.id for f in old])
            closed += len(old)
            for f in old:
                newer = facts.get(f.superseded_by or -1)
                reason = why.get(f.id, "")
                reasons[reason.split(":")[0]] += 1
                listed.append({"bank": bank, "speaker": f.speaker or "", "old": f.text,
                               "new": newer.text if newer else "?", "reason": reason})
    console.print(f"[bold]{name}[/bold]: {closed} of {total} facts closed")
    for i, c in enumerate(listed, start=1):
        console.print(f"{i:3d}. [{c['bank']}, {c['speaker']}] {c['reason']}\n     old: {c['old'][:300]}\n"
                      f"     new: {c['new'][:300]}")
    return {"facts": total, "closed": closed, "closures": listed, "by_rule": dict(reasons)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--engine", action="store_true", help="also run every pair through retain (real embedder)")
    parser.add_argument("--embedder", default="e5-small")
    parser.add_argument("--show-errors", nargs="?", const="tune", default=None,
                        choices=("tune", "held-out", "fresh", "all"),
                        help="list false closures and missed updates of the tune split (or held-out, fresh, all)")
    parser.add_argument("--locomo", nargs="?", const=str(LOCOMO), default=None, metavar="PATH",
                        help="count and list the closures on the LoCoMo public slice")
    parser.add_argument("--knowledge", nargs="?", const=str(KNOWLEDGE), default=None, metavar="PATH",
                        help="count and list the closures on the knowledge-update set")
    parser.add_argument("--synthetic", type=int, default=0, metavar="N",
                        help="count and list the closures in a generated chat of N messages")
    parser.add_argument("--no-pairs", action="store_true", help="skip the pair set")
    parser.add_argument("--json", action="store_true", help="print a machine-readable dict on stdout")
    args = parser.parse_args()
    console = Console(stderr=args.json)
    out: dict[str, Any] = {}
    if not args.no_pairs:
        pairs = load_pairs(args.data)
        counts = Counter((p.split, p.language, p.update) for p in pairs)
        console.print(f"{len(pairs)} pairs from {args.data}: "
                      + ", ".join(f"{s} {lang} {'update' if u else 'no update'} {n}"
                                  for (s, lang, u), n in sorted(counts.items())))
        shown = SPLITS if args.show_errors == "all" else (args.show_errors,) if args.show_errors else ()
        detector = {p.id: detector_closes(p) for p in pairs}
        out["detector"] = pair_report(console, pairs, detector, "detect_update (MIN_CONFIDENCE "
                                      f"{MIN_CONFIDENCE})", shown)
        if args.engine:
            engine = engine_closes(pairs, args.embedder, console)
            out["engine"] = pair_report(console, pairs, engine, f"retain end to end ({args.embedder})",
                                        shown)
    if args.locomo:
        out["locomo"] = closures_report(console, "LoCoMo public slice", locomo_chats(args.locomo), args.embedder)
    if args.knowledge:
        out["knowledge"] = closures_report(console, "knowledge-update set", knowledge_chats(args.knowledge),
                                           args.embedder)
    if args.synthetic:
        out["synthetic"] = closures_report(console, f"synthetic chat, {args.synthetic} messages",
                                           synthetic_chats(args.synthetic), args.embedder)
    if args.json:
        print(json.dumps(out, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
