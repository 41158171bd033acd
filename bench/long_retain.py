"""Retain of long messages (BEAM chats) against the embedder alone, with per-stage time.

    python bench/long_retain.py [--messages 30] [--chat 1] [--dump out.json] [--compare before.json]

The first ``--messages`` messages of one BEAM chat (``../shared/bench/beam-100k/<chat>/``, read by
bench/_beam_data.py; long technical messages, a few KB each, user and assistant in turn) are
retained one message per ``Memory.retain`` call into one conversation of a fresh SQLite bank, with
the real default embedder (``e5-small``, its cache switched off so nothing is a cache hit), after
a warm-up retain into another bank (model, Kiwi and tokenizer loading are not timed).

Right after each retain call, two references are embedded by the same model instance:

* **(a) retain's own texts alone** — exactly the texts that call handed to the embedder (each
  fact's "speaker: text", and a short reply's second, contextual text), embedded again alone;
* **(b) the message alone** — the message's text (``"speaker: text"``) embedded as one document,
  what a caller would pay to embed the message without gieok (e5 reads its first 512 tokens).

Ratio = embedding time ÷ retain time (1.0: retain costs only its embedding). Per-stage time is
exclusive wall time (a Kiwi analysis inside fact building counts as "terms", not twice), taken by
wrapping the library's functions for the run; "other" is everything untimed inside the call.

``--dump`` writes what the run stored (facts, entities, mentions, links, supersedes, profile
slots) to a JSON file; ``--compare`` checks it against an earlier dump — a speed change must leave
these identical. Run both with the same ``PYTHONHASHSEED`` (e.g. 0): the spelling an entity keeps
among its aliases ("SQLAlchemy" / "SQLALCHEMY") can follow Python's per-process string hashing.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sqlite3
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _beam_data import DEFAULT_DIR, load  # noqa: E402

from gieok import Memory  # noqa: E402
from gieok.providers import create  # noqa: E402


class StageTimer:
    """Exclusive wall time per stage: when a timed call runs inside another, the outer clock pauses."""

    def __init__(self) -> None:
        self.total: dict[str, float] = defaultdict(float)
        self._stack: list[list[Any]] = []  # [name, resumed_at]

    def _enter(self, name: str) -> None:
        now = time.perf_counter()
        if self._stack:
            self.total[self._stack[-1][0]] += now - self._stack[-1][1]
        self._stack.append([name, now])

    def _leave(self) -> None:
        end = time.perf_counter()
        name, since = self._stack.pop()
        self.total[name] += end - since
        if self._stack:
            self._stack[-1][1] = end

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*a: Any, **kw: Any) -> Any:
            self._enter(name)
            try:
                return fn(*a, **kw)
            finally:
                self._leave()

        return timed

    def wrap_context(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @contextlib.contextmanager
        def timed(*a: Any, **kw: Any) -> Iterator[Any]:
            self._enter(name)
            try:
                with fn(*a, **kw) as value:
                    yield value
            finally:
                self._leave()

        return timed


# stage -> (module, attribute) wrapped for the run; a name the library no longer has is skipped (its
# time lands in "other")
STAGES = [
    ("screen (validate, redact)", "gieok.engine.retain.run", "screen"),
    ("split into facts", "gieok.engine.retain.plan", "facts_from_text"),
    ("fact build", "gieok.engine.retain.plan", "make_fact"),
    ("terms (Kiwi / Snowball)", "gieok.engine.retain.plan", "keyword_terms"),
    ("time expressions", "gieok.engine.retain.plan", "find_time_expressions"),
    ("token count", "gieok.engine.retain.plan", "count_tokens"),
    ("lifecycle class", "gieok.engine.retain.plan", "classify_memory"),
    ("filler check", "gieok.engine.retain.plan", "_drop_filler"),
    ("mentions (entities)", "gieok.engine.retain.plan", "find_mentions"),
    ("quarantine check", "gieok.engine.retain.run", "hold_instructions"),
    ("entity resolution", "gieok.engine.retain.run", "plan_entities"),
    ("profile slots", "gieok.engine.retain.run", "plan_slots"),
    ("supersede prejudge", "gieok.engine.retain.run", "_prejudge"),
    ("link (in lock)", "gieok.engine.retain.run", "link_new_facts"),
    ("supersede (in lock)", "gieok.engine.retain.run", "supersede_new_facts"),
    ("entities write (in lock)", "gieok.engine.retain.run", "write_entities"),
]


def install(timer: StageTimer, mem: Memory, embedder: Any) -> Callable[[], None]:
    """Wrap every stage for the run; returns the undo."""
    import importlib

    undo: list[Callable[[], None]] = []
    for name, module_name, attribute in STAGES:
        module = importlib.import_module(module_name)
        if not hasattr(module, attribute):
            continue
        original = getattr(module, attribute)
        setattr(module, attribute, timer.wrap(name, original))
        undo.append(lambda m=module, a=attribute, o=original: setattr(m, a, o))
    embed = embedder.embed
    embedder.embed = timer.wrap("embedding", embed)
    undo.append(lambda: setattr(embedder, "embed", embed))
    store = mem.engine.store
    write = store.write
    store.write = timer.wrap_context("write (rest in lock)", write)
    undo.append(lambda: setattr(store, "write", write))

    def restore() -> None:
        for step in reversed(undo):
            step()

    return restore


def snapshot(path: str) -> dict[str, list[Any]]:
    """What the run stored, in a comparable form (ids are assigned in write order, so they compare)."""
    queries = {
        "facts": "SELECT id, text, speaker, message_ids, kind, decay_class, round(importance, 6), occurred_start, "
                 "occurred_end, valid_to, superseded_by, supersede_reason FROM facts ORDER BY id",
        "entities": "SELECT id, canonical_name, kind, aliases, titles FROM entities ORDER BY id",
        "mentions": "SELECT fact_id, entity_id, surface FROM mentions ORDER BY fact_id, entity_id, surface",
        "links": "SELECT from_fact, to_fact, type, round(weight, 5) FROM links ORDER BY from_fact, to_fact, type",
        "profile_slots": "SELECT * FROM profile_slots ORDER BY 1",
    }
    out: dict[str, list[Any]] = {}
    with contextlib.closing(sqlite3.connect(path)) as conn:
        for name, sql in queries.items():
            try:
                rows = conn.execute(sql).fetchall()
            except sqlite3.OperationalError:
                continue
            out[name] = [[v for v in row if not (isinstance(v, float) and v > 1e9 and name == "profile_slots")]
                         for row in rows]
    return json.loads(json.dumps(out))


def _same_row(a: list[Any], b: list[Any]) -> bool:
    """Equal, but for floats within 2e-5 (a link's cosine computed in numpy or in sqlite-vec differs
    in its last float32 bits)."""
    return len(a) == len(b) and all(x == y or (isinstance(x, float) and isinstance(y, float) and abs(x - y) <= 2e-5)
                                    for x, y in zip(a, b))


def compare(now: dict[str, list[Any]], before: dict[str, list[Any]]) -> list[str]:
    problems = []
    for name in sorted(set(now) | set(before)):
        a, b = now.get(name, []), before.get(name, [])
        if len(a) != len(b) or not all(_same_row(x, y) for x, y in zip(a, b)):
            first = next((i for i, (x, y) in enumerate(zip(a, b)) if not _same_row(x, y)), min(len(a), len(b)))
            problems.append(f"{name}: {len(a)} rows now, {len(b)} before; first difference at row {first}: "
                            f"{a[first] if first < len(a) else None} vs {b[first] if first < len(b) else None}")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=30, help="messages retained, one per call (default 30)")
    parser.add_argument("--chat", default="1", help="the BEAM chat (folder name under beam-100k/; default 1)")
    parser.add_argument("--data", default=str(DEFAULT_DIR), help="the beam-100k folder")
    parser.add_argument("--dump", default=None, help="write what was stored to this JSON file")
    parser.add_argument("--compare", default=None, help="check what was stored against this earlier --dump")
    args = parser.parse_args()

    chat = next((c for c in load(args.data) if c.id == f"beam-{args.chat}"), None)
    if chat is None:
        sys.exit(f"no BEAM chat {args.chat!r} under {args.data}: see ../shared/bench/README.md")
    turns = chat.turns[: args.messages]
    sizes = sorted(len(t.text) for t in turns)
    print(f"BEAM chat {args.chat}: {len(turns)} messages, {sum(sizes) / 1000:.0f} KB, median "
          f"{sizes[len(sizes) // 2]:,} chars, longest {sizes[-1]:,}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} (2 cores shared: compare ratios)")

    embedder = create("embedder", "e5-small")
    embedder.cache_size = 0
    handed: list[str] = []
    with tempfile.TemporaryDirectory() as directory:
        path = str(Path(directory) / "long.db")
        with Memory(path, embedder=embedder) as mem:
            mem.retain("warmup", messages=[{"id": "w", "speaker": "user", "text": turns[0].text,
                                            "timestamp": turns[0].timestamp}])
            raw_embed = embedder.embed  # the references below are embedded outside the stage timers
            timer = StageTimer()
            restore = install(timer, mem, embedder)
            inner_embed = embedder.embed

            def recording(texts: Any, kind: Any = "document", **kw: Any) -> Any:
                handed.extend(texts)
                return inner_embed(texts, kind, **kw)

            embedder.embed = recording
            retain_s = alone_a = alone_b = 0.0
            facts = 0
            try:
                for turn in turns:
                    handed.clear()
                    start = time.perf_counter()
                    result = mem.retain("beam", messages=[{"id": turn.id, "speaker": turn.speaker, "text": turn.text,
                                                           "timestamp": turn.timestamp}], document_id="chat")
                    retain_s += time.perf_counter() - start
                    facts += result.facts_added
                    texts = list(handed)
                    start = time.perf_counter()
                    if texts:
                        raw_embed(texts, "document")
                    alone_a += time.perf_counter() - start
                    start = time.perf_counter()
                    raw_embed([f"{turn.speaker}: {turn.text}"], "document")
                    alone_b += time.perf_counter() - start
            finally:
                restore()
        stored = snapshot(path)
    load_after = " ".join(f"{x:.2f}" for x in os.getloadavg())
    report(timer, retain_s, alone_a, alone_b, len(turns), facts, load_after)
    check(stored, args)


def report(timer: StageTimer, retain_s: float, alone_a: float, alone_b: float, messages: int, facts: int,
           load_after: str) -> None:
    timed = sum(timer.total.values())
    print(f"\nretained {messages} messages ({facts} facts) in {retain_s:.1f} s: {retain_s / messages:.2f} s a message")
    print(f"{'stage':<28}{'s total':>9}{'ms/message':>12}{'share':>8}")
    rows = sorted(timer.total.items(), key=lambda kv: -kv[1]) + [("other (untimed)", max(0.0, retain_s - timed))]
    for name, seconds in rows:
        print(f"{name:<28}{seconds:>9.2f}{seconds / messages * 1000:>12.0f}{seconds / retain_s:>8.0%}")
    print(f"\n(a) retain's own embedder texts, embedded alone: {alone_a:.1f} s -> ratio {alone_a / retain_s:.2f}")
    print(f"(b) each message's text embedded alone:          {alone_b:.1f} s -> ratio {alone_b / retain_s:.2f}")
    print("target (issue #37): ratio >= 0.6 against the embedder alone on the same texts")
    print(f"load average after: {load_after}")


def check(stored: dict[str, list[Any]], args: argparse.Namespace) -> None:
    counts = ", ".join(f"{len(rows)} {name}" for name, rows in stored.items())
    print(f"stored: {counts}")
    if args.dump:
        Path(args.dump).write_text(json.dumps(stored, ensure_ascii=False), encoding="utf-8")
        print(f"written to {args.dump}")
    if args.compare:
        problems = compare(stored, json.loads(Path(args.compare).read_text(encoding="utf-8")))
        print(f"against {args.compare}: " + ("identical" if not problems else "DIFFERENT"))
        for problem in problems:
            print("  " + problem)
        if problems:
            sys.exit(1)


if __name__ == "__main__":
    main()
