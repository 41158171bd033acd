"""Scopes benchmark: is a user-filtered recall as fast per result as a bank-wide one, full, and leak-free?

    python bench/scopes.py [--users 10] [--messages 60] [--queries 12] [--json]

One bank holds ``--users`` users' conversations (``--messages`` Korean and English messages each,
drawn from one vocabulary, so every user's facts compete for every query) and a shared handbook
(retained without a user). Each query is recalled bank-wide, for each user (with the shared
memories), and for each user alone (``include_shared=False``), ``limit=10``; the table gives the mean
milliseconds per recall and per memory returned, the mean number returned (a filter applied after a
bank-wide top-k would return fewer: starved) and the memories of another user found (leaks, must be
0). Hashed bag-of-terms embedder (deterministic, no model to load); one process, one thread.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from _hash_embedder import hash_embedder

from gieok import Memory

KO = ["땅콩", "알레르기", "한라산", "등산", "회사", "점심", "커피", "제주", "여행", "필라테스", "민지", "생일", "이사",
      "병원"]
EN = ["peanut", "allergy", "hiking", "office", "lunch", "coffee", "travel", "tennis", "birthday", "Jeju", "moving",
      "doctor"]
QUERIES = ["땅콩 알레르기 있어?", "what did I do for lunch", "한라산 등산 언제 갔어?", "coffee with 민지",
           "제주 여행 계획", "when is my birthday", "필라테스 다녀?", "doctor appointment", "회사 점심 메뉴",
           "tennis on Saturday", "이사 언제 가?", "allergy medicine"]


def _message(rng: random.Random, user: int, i: int) -> dict[str, str]:
    words = rng.sample(KO, 3) + rng.sample(EN, 2)
    rng.shuffle(words)
    day = 1 + (user * 7 + i) % 28
    return {"id": f"u{user}-m{i}", "speaker": f"user{user}", "text": f"{' '.join(words)} {i}",
            "timestamp": f"2026-05-{day:02d}T{9 + i % 10:02d}:00:00+09:00"}


def run(users: int, messages: int, queries: int) -> dict[str, object]:
    rng = random.Random(17)
    embedder = hash_embedder("bench-scopes-hash")
    with tempfile.TemporaryDirectory() as folder, Memory(str(Path(folder) / "scopes.db"), embedder=embedder) as mem:
        started = time.perf_counter()
        for user in range(users):
            mem.retain("bench", [_message(rng, user, i) for i in range(messages)], document_id=f"chat-{user}",
                       user_id=f"u-{user}")
        mem.retain("bench", text="\n\n".join(f"사내 규정 {i}: {' '.join(rng.sample(KO + EN, 6))}" for i in range(40)),
                   document_id="handbook")
        mem.run_jobs("bench")
        retain_s = time.perf_counter() - started
        rows: dict[str, dict[str, list[float]]] = {k: {"ms": [], "n": [], "leaks": []}
                                                   for k in ("bank-wide", "user + shared", "user only")}
        for query in QUERIES[:queries]:
            for label, calls in (("bank-wide", [{}]),
                                 ("user + shared", [{"user_id": f"u-{u}"} for u in range(users)]),
                                 ("user only", [{"user_id": f"u-{u}", "include_shared": False} for u in range(users)])):
                for kwargs in calls:
                    t = time.perf_counter()
                    found = mem.recall("bench", query, limit=10, now="2026-06-01", **kwargs).memories  # type: ignore[arg-type]
                    rows[label]["ms"].append((time.perf_counter() - t) * 1000)
                    rows[label]["n"].append(len(found))
                    allowed = {kwargs.get("user_id"), None} if kwargs.get("include_shared", True) else \
                        {kwargs.get("user_id")}
                    rows[label]["leaks"].append(sum(1 for m in found if kwargs and m.user_id not in allowed))
    table = {label: {"recalls": len(r["ms"]), "mean_ms": round(statistics.mean(r["ms"]), 2),
                     "ms_per_memory": round(sum(r["ms"]) / max(1.0, sum(r["n"])), 2),
                     "mean_returned": round(statistics.mean(r["n"]), 2), "leaks": int(sum(r["leaks"]))}
             for label, r in rows.items()}
    return {"users": users, "messages_per_user": messages, "facts": users * messages, "retain_s": round(retain_s, 1),
            "results": table}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--messages", type=int, default=60)
    parser.add_argument("--queries", type=int, default=12)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = run(args.users, args.messages, args.queries)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return
    print(f"{report['users']} users × {report['messages_per_user']} messages + a shared handbook "
          f"(retained and consolidated in {report['retain_s']} s)")
    print("| recall | recalls | mean ms | ms per memory | memories returned (limit 10) | leaks |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, row in report["results"].items():  # type: ignore[attr-defined]
        print(f"| {label} | {row['recalls']} | {row['mean_ms']} | {row['ms_per_memory']} | {row['mean_returned']} "
              f"| {row['leaks']} |")


if __name__ == "__main__":
    main()
