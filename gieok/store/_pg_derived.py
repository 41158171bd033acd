"""Observations, mental models, the durable job queue and LLM metering (mixed into PostgresStore).

Same semantics and record types as :mod:`gieok.store._derived`. The job queue is where a server
needs more than SQLite's single writer: many worker processes claim from one table, so a claim is
one ``UPDATE ... WHERE id = (SELECT ... FOR UPDATE SKIP LOCKED) RETURNING``, and two workers never
take the same job even at the same instant; a job whose worker died is reclaimed once its claim is
older than the lease. ``enqueue_job(unique=True)`` takes a transaction-level advisory lock on
(bank, kind), so two processes cannot both queue "the" consolidation job of a bank.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from gieok.store._derived import JobRow, MentalModelRow, ObservationRow
from gieok.store._pg_connect import ints

__all__ = ["PgDerivedQueries"]

_JOB_COLUMNS = "id, bank_id, kind, payload, status, attempts, run_after, last_error, created_at, updated_at"


def _job(r: Any) -> JobRow:
    return JobRow(int(r[0]), int(r[1]), str(r[2]), r[3], str(r[4]), int(r[5]), float(r[6]), r[7], float(r[8]),
                  float(r[9]))


def _model(r: Any) -> MentalModelRow:
    return MentalModelRow(int(r[0]), int(r[1]), str(r[2]), str(r[3]), r[4], r[5], r[6], float(r[7]))


class PgDerivedQueries:
    def _conn(self) -> Any: ...
    def _require_write(self) -> Any: ...
    def clear_models_citing(self, bank_id: int, memory_ids: set[str]) -> int:
        raise NotImplementedError  # provided by PgLifecycleQueries

    # -- observations ------------------------------------------------------------------------
    def _observation_rows(self, where: str, params: Sequence[Any]) -> list[ObservationRow]:
        rows = self._conn().execute(
            "SELECT o.id, o.bank_id, o.entity_id, o.topic, o.text, o.history, o.believed_at, o.created_at, "
            "o.updated_at, o.tokens, ARRAY(SELECT f.fact_id FROM observation_facts f WHERE f.observation_id = o.id "
            f"ORDER BY f.fact_id) FROM observations o WHERE {where}", tuple(params)).fetchall()
        return [ObservationRow(int(r[0]), int(r[1]), r[2], str(r[3]), str(r[4]), [int(x) for x in r[10]], r[5],
                               r[6], float(r[7]), float(r[8]), int(r[9])) for r in rows]

    def get_observations(self, bank_id: int, ids: Sequence[int]) -> list[ObservationRow]:
        if not ids:
            return []
        return self._observation_rows("o.bank_id = %s AND o.id = ANY(%s::bigint[]) ORDER BY o.id",
                                      (bank_id, ints(ids)))

    def observations_of_bank(self, bank_id: int, topic: str | None = None) -> list[ObservationRow]:
        if topic is not None:
            return self._observation_rows("o.bank_id = %s AND o.topic = %s ORDER BY o.id", (bank_id, topic))
        return self._observation_rows("o.bank_id = %s ORDER BY o.id", (bank_id,))

    def save_observation(self, bank_id: int, observation_id: int | None, *, entity_id: int | None, topic: str,
                         text: str, fact_ids: Sequence[int], history: list[dict[str, Any]], believed_at: float | None,
                         embedding: np.ndarray | None, terms: Sequence[str], tokens: int) -> int:
        conn = self._require_write()
        now = time.time()
        blob = np.asarray(embedding, dtype=np.float32).tobytes() if embedding is not None else None
        values = (entity_id, topic, text, blob, " ".join(terms), int(tokens), json.dumps(history, ensure_ascii=False),
                  believed_at)
        if observation_id is None:
            observation_id = int(conn.execute(
                "INSERT INTO observations (bank_id, entity_id, topic, text, embedding, terms, tokens, history, "
                "believed_at, created_at, updated_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s::json, %s, %s, %s) "
                "RETURNING id", (bank_id, *values, now, now)).fetchone()[0])
        else:
            conn.execute(
                "UPDATE observations SET entity_id = %s, topic = %s, text = %s, embedding = %s, terms = %s, tokens = %s, "
                "history = %s::json, believed_at = %s, updated_at = %s WHERE id = %s", (*values, now, observation_id))
            conn.execute("DELETE FROM observation_facts WHERE observation_id = %s", (observation_id,))
        if fact_ids:
            conn.execute("INSERT INTO observation_facts (observation_id, fact_id) SELECT %s, f FROM "
                         "unnest(%s::bigint[]) AS f ON CONFLICT DO NOTHING", (observation_id, ints(fact_ids)))
        return observation_id

    def delete_observations(self, bank_id: int, ids: Sequence[int]) -> int:
        if not ids:
            return 0
        conn = self._require_write()
        self.clear_models_citing(bank_id, {f"o-{i}" for i in ids})
        conn.execute("UPDATE facts SET consolidated_at = NULL WHERE id IN (SELECT fact_id FROM observation_facts "
                     "WHERE observation_id = ANY(%s::bigint[]))", (ints(ids),))
        return int(conn.execute("DELETE FROM observations WHERE bank_id = %s AND id = ANY(%s::bigint[])",
                                (bank_id, ints(ids))).rowcount)

    def observations_of_facts(self, fact_ids: Sequence[int]) -> list[int]:
        if not fact_ids:
            return []
        return [int(r[0]) for r in self._conn().execute(
            "SELECT DISTINCT observation_id FROM observation_facts WHERE fact_id = ANY(%s::bigint[]) "
            "ORDER BY observation_id", (ints(fact_ids),))]

    def observation_vectors(self, bank_id: int) -> tuple[list[int], np.ndarray | None]:
        rows = self._conn().execute(
            "SELECT id, embedding FROM observations WHERE bank_id = %s AND embedding IS NOT NULL ORDER BY id",
            (bank_id,)).fetchall()
        if not rows:
            return [], None
        return [int(r[0]) for r in rows], np.stack([np.frombuffer(bytes(r[1]), dtype=np.float32) for r in rows])

    def observation_terms(self, bank_id: int) -> list[tuple[int, str]]:
        return [(int(r[0]), str(r[1])) for r in self._conn().execute(
            "SELECT id, terms FROM observations WHERE bank_id = %s ORDER BY id", (bank_id,))]

    def unconsolidated_facts(self, bank_id: int, limit: int) -> list[int]:
        """Facts not yet consolidated, oldest said first; facts that failed alone are skipped."""
        rows = self._conn().execute(
            "SELECT id FROM facts WHERE bank_id = %s AND consolidated_at IS NULL AND NOT consolidation_failed "
            "AND valid_to IS NULL ORDER BY COALESCE(mentioned_at, created_at), id LIMIT %s", (bank_id, limit)).fetchall()
        return [int(r[0]) for r in rows]

    def mark_consolidated(self, fact_ids: Sequence[int], at: float, failed: bool = False) -> None:
        conn = self._require_write()
        if not fact_ids:
            return
        if failed:
            conn.execute("UPDATE facts SET consolidation_failed = TRUE WHERE id = ANY(%s::bigint[])", (ints(fact_ids),))
        else:
            conn.execute("UPDATE facts SET consolidated_at = %s WHERE id = ANY(%s::bigint[])",
                         (float(at), ints(fact_ids)))

    # -- jobs --------------------------------------------------------------------------------
    def enqueue_job(self, bank_id: int, kind: str, payload: dict[str, Any] | None = None,
                    run_after: float | None = None, unique: bool = True) -> int | None:
        """Queue a job; with ``unique`` a queued job of the same kind for the bank is reused."""
        conn = self._require_write()
        now = time.time()
        if unique:
            conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (f"gieok.job:{bank_id}:{kind}",))
            row = conn.execute("SELECT id FROM jobs WHERE bank_id = %s AND kind = %s AND status = 'queued' "
                               "ORDER BY id LIMIT 1", (bank_id, kind)).fetchone()
            if row:
                return int(row[0])
        return int(conn.execute(
            "INSERT INTO jobs (bank_id, kind, payload, run_after, created_at, updated_at) "
            "VALUES (%s, %s, %s::json, %s, %s, %s) RETURNING id",
            (bank_id, kind, json.dumps(payload or {}), run_after if run_after is not None else now, now, now),
        ).fetchone()[0])

    def claim_job(self, worker: str, now: float, lease: float, kinds: Sequence[str] | None = None,
                  bank_id: int | None = None) -> JobRow | None:
        conn = self._require_write()
        filters = ""
        params: list[Any] = [now, now - lease]
        if kinds:
            filters += " AND kind = ANY(%s::text[])"
            params.append(list(kinds))
        if bank_id is not None:
            filters += " AND bank_id = %s"
            params.append(bank_id)
        row = conn.execute(
            "UPDATE jobs SET status = 'running', claimed_at = %s, claimed_by = %s, attempts = attempts + 1, "
            "updated_at = %s WHERE id = (SELECT id FROM jobs WHERE ((status = 'queued' AND run_after <= %s) "
            f"OR (status = 'running' AND claimed_at < %s)){filters} ORDER BY run_after, id LIMIT 1 "
            f"FOR UPDATE SKIP LOCKED) RETURNING {_JOB_COLUMNS}", (now, worker, now, *params)).fetchone()
        return _job(row) if row else None

    def finish_job(self, job_id: int, *, error: str | None = None, retry_at: float | None = None) -> None:
        conn = self._require_write()
        now = time.time()
        if error is None:
            conn.execute("UPDATE jobs SET status = 'done', last_error = NULL, updated_at = %s WHERE id = %s",
                         (now, job_id))
        elif retry_at is not None:
            conn.execute("UPDATE jobs SET status = 'queued', last_error = %s, run_after = %s, updated_at = %s "
                         "WHERE id = %s", (error[:500], retry_at, now, job_id))
        else:
            conn.execute("UPDATE jobs SET status = 'failed', last_error = %s, updated_at = %s WHERE id = %s",
                         (error[:500], now, job_id))

    def list_jobs(self, bank_id: int | None = None, status: str | None = None, limit: int = 100) -> list[JobRow]:
        filters = "TRUE"
        params: list[Any] = []
        if bank_id is not None:
            filters += " AND bank_id = %s"
            params.append(bank_id)
        if status is not None:
            filters += " AND status = %s"
            params.append(status)
        rows = self._conn().execute(f"SELECT {_JOB_COLUMNS} FROM jobs WHERE {filters} ORDER BY id DESC LIMIT %s",
                                    (*params, limit)).fetchall()
        return [_job(r) for r in rows]

    def prune_jobs(self, older_than: float) -> int:
        return int(self._require_write().execute(
            "DELETE FROM jobs WHERE status = 'done' AND updated_at < %s", (older_than,)).rowcount)

    # -- mental models -----------------------------------------------------------------------
    def save_mental_model(self, bank_id: int, name: str, question: str) -> int:
        return int(self._require_write().execute(
            "INSERT INTO mental_models (bank_id, name, question, created_at) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (bank_id, name) DO UPDATE SET question = EXCLUDED.question, answer = NULL, "
            "based_on = '[]', refreshed_at = NULL RETURNING id", (bank_id, name, question, time.time())).fetchone()[0])

    def set_mental_model_answer(self, model_id: int, answer: str, based_on: Sequence[str], at: float) -> None:
        self._require_write().execute(
            "UPDATE mental_models SET answer = %s, based_on = %s::json, refreshed_at = %s WHERE id = %s",
            (answer, json.dumps(list(based_on)), at, model_id))

    def mental_models(self, bank_id: int) -> list[MentalModelRow]:
        rows = self._conn().execute(
            "SELECT id, bank_id, name, question, answer, based_on, refreshed_at, created_at FROM mental_models "
            "WHERE bank_id = %s ORDER BY name COLLATE \"C\"", (bank_id,)).fetchall()
        return [_model(r) for r in rows]

    def delete_mental_model(self, bank_id: int, name: str) -> int:
        return int(self._require_write().execute(
            "DELETE FROM mental_models WHERE bank_id = %s AND name = %s", (bank_id, name)).rowcount)

    # -- LLM metering ------------------------------------------------------------------------
    def add_llm_usage(self, bank_id: int, day: str, operation: str, provider: str, model: str, calls: int,
                      input_tokens: int, output_tokens: int, cost_usd: float) -> None:
        self._require_write().execute(
            "INSERT INTO llm_usage AS u (bank_id, day, operation, provider, model, calls, input_tokens, output_tokens, "
            "cost_usd) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (bank_id, day, operation, provider, model) "
            "DO UPDATE SET calls = u.calls + EXCLUDED.calls, input_tokens = u.input_tokens + EXCLUDED.input_tokens, "
            "output_tokens = u.output_tokens + EXCLUDED.output_tokens, cost_usd = u.cost_usd + EXCLUDED.cost_usd",
            (bank_id, day, operation, provider, model, int(calls), int(input_tokens), int(output_tokens),
             float(cost_usd)))

    def llm_usage(self, bank_id: int) -> list[dict[str, Any]]:
        cur = self._conn().execute(
            "SELECT day, operation, provider, model, calls, input_tokens, output_tokens, cost_usd FROM llm_usage "
            "WHERE bank_id = %s ORDER BY day COLLATE \"C\", operation COLLATE \"C\"", (bank_id,))
        names = [d.name for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]

    def llm_spend(self, bank_id: int) -> float:
        return float(self._conn().execute(
            "SELECT COALESCE(SUM(cost_usd), 0) FROM llm_usage WHERE bank_id = %s", (bank_id,)).fetchone()[0])
