"""Maintenance jobs: decay (strength by forgetting curve, archive below a threshold) and TTL purge.

Decay never runs on the recall hot path: recall only reads ``strength`` (a mild multiplier) and
skips archived facts. This pass recomputes each unarchived fact's strength from its decay class,
the age of the statement and when it was last recalled (``gieok.lifecycle.decay_strength``), and
archives non-pinned facts that fell below ``archive_below``. Archived facts stay in the database
and in ``history``; ``recall(as_of=...)`` before the archive date still sees them.

Purge erases facts whose ``expires_at`` passed (recall already hides them from that instant) with
the same cascade as ``forget``.
"""

from __future__ import annotations

from typing import Any

from gieok.engine.context import JobContext
from gieok.lifecycle import decay_strength

__all__ = ["run_decay", "run_purge"]

_DAY = 86400.0
_BATCH = 2000


def run_decay(ctx: JobContext) -> dict[str, Any]:
    store, bank, now = ctx.store, ctx.bank, ctx.now
    threshold = float(ctx.settings.archive_below)
    after, seen, archived = 0, 0, 0
    faded: list[int] = []
    while True:
        rows = store.versions.decay_rows(bank.id, after, _BATCH)
        if not rows:
            break
        updates = []
        for fact_id, decay_class, pinned, mentioned_at, created_at, recalls, last_recalled in rows:
            said = mentioned_at if mentioned_at is not None else created_at
            age_days = max(0.0, now - said) / _DAY
            since_recall = max(0.0, now - last_recalled) / _DAY if last_recalled is not None else None
            strength = 1.0 if pinned else decay_strength(decay_class, age_days, recalls, since_recall)
            archive = now if (not pinned and strength < threshold) else None
            archived += archive is not None
            if archive is not None:
                faded.append(fact_id)
            updates.append((fact_id, round(strength, 6), archive))
        with store.write():
            store.versions.set_strengths(updates)
        seen += len(rows)
        after = rows[-1][0]
    stale = store.observations.of_facts(faded)
    if stale:  # an observation must not keep quoting what faded: rebuild it from what is left
        with store.write():
            store.observations.delete(bank.id, stale)
            store.jobs.enqueue(bank.id, "consolidate", run_after=now)
    return {"facts": seen, "archived": archived, "observations_rebuilt": len(stale)}


def run_purge(ctx: JobContext) -> dict[str, Any]:
    store, bank = ctx.store, ctx.bank
    expired = store.versions.expired(bank.id, ctx.now)
    if not expired:
        return {"purged": 0}
    with store.write():
        counts = store.erasure.erase(bank.id, bank.dim, expired)
        store.search.compact(bank.id)
        store.audit.add([{"bank": bank.name, "operation": "purge", "type": "ttl", "action": "deleted",
                          "count": counts["facts"]}])
    return {"purged": counts["facts"]}

