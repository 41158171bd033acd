"""Observations, mental models, the durable job queue and LLM metering, written once for both stores.

A job is claimed inside the write transaction: the oldest due job (or one whose worker died, its
claim older than the lease) is selected, then marked running. On SQLite the single writer makes
that safe; on PostgreSQL, where many worker processes claim from one table, the select takes the
row ``FOR UPDATE SKIP LOCKED``, so two workers never take the same job even at the same instant.
``enqueue_job(unique=True)`` checks for a queued job of the same kind before inserting one; on
PostgreSQL it first takes a transaction-level advisory lock on (bank, kind), so two processes cannot
both queue "the" consolidation job of a bank. A job's payload names the facts it works on
(``fact_ids``), so erasing a fact drops it from queued jobs too (see :mod:`gieok.store._lifecycle`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gieok.ids import observation_memory_id
from gieok.store._dialect import StoreQueries

__all__ = ["DerivedQueries", "JobRow", "MentalModelRow", "ObservationRow"]


@dataclass(frozen=True)
class ObservationRow:
    id: int
    bank_id: int
    entity_id: int | None
    topic: str
    text: str
    fact_ids: list[int]
    history: list[dict[str, Any]]
    believed_at: float | None
    created_at: float
    updated_at: float
    tokens: int


@dataclass(frozen=True)
class JobRow:
    id: int
    bank_id: int
    kind: str
    payload: dict[str, Any]
    status: str
    attempts: int
    run_after: float
    last_error: str | None
    created_at: float
    updated_at: float
    result: dict[str, Any] | None = None  # what the handler returned, once done


@dataclass(frozen=True)
class MentalModelRow:
    id: int
    bank_id: int
    name: str
    question: str
    answer: str | None
    based_on: list[str]
    refreshed_at: float | None
    created_at: float


_JOB_COLUMNS = "id, bank_id, kind, payload, status, attempts, run_after, last_error, created_at, updated_at, result"
_OBSERVATION_COLUMNS = "id, bank_id, entity_id, topic, text, history, believed_at, created_at, updated_at, tokens"


class DerivedQueries(StoreQueries):
    """Observations, jobs, mental models and LLM metering."""

    # -- observations ------------------------------------------------------------------------
    def _observations(self, rows: Sequence[Any]) -> list[ObservationRow]:
        """Records for observation rows (``_OBSERVATION_COLUMNS``), each with the facts it rests on."""
        support: dict[int, list[int]] = {}
        for ids_in, part in self._dialect.in_parts([r[0] for r in rows]):
            for observation_id, fact_id in self._conn().execute(
                f"SELECT observation_id, fact_id FROM observation_facts WHERE observation_id {ids_in} "
                "ORDER BY observation_id, fact_id", part,
            ):
                support.setdefault(int(observation_id), []).append(int(fact_id))
        return [ObservationRow(int(r[0]), int(r[1]), r[2], str(r[3]), str(r[4]), support.get(int(r[0]), []),
                               self._dialect.from_json(r[5]), r[6], float(r[7]), float(r[8]), int(r[9]))
                for r in rows]

    def get_observations(self, bank_id: int, ids: Sequence[int]) -> list[ObservationRow]:
        rows: list[Any] = []
        for ids_in, part in self._dialect.in_parts(ids):
            rows += self._conn().execute(
                f"SELECT {_OBSERVATION_COLUMNS} FROM observations WHERE bank_id = ? AND id {ids_in}", (bank_id, *part),
            ).fetchall()
        return self._observations(sorted(rows, key=lambda r: int(r[0])))

    def observations_of_bank(self, bank_id: int, topic: str | None = None) -> list[ObservationRow]:
        where, params = (("bank_id = ?", (bank_id,)) if topic is None
                         else ("bank_id = ? AND topic = ?", (bank_id, topic)))
        return self._observations(self._conn().execute(
            f"SELECT {_OBSERVATION_COLUMNS} FROM observations WHERE {where} ORDER BY id", params).fetchall())

    def save_observation(self, bank_id: int, observation_id: int | None, *, entity_id: int | None, topic: str,
                         text: str, fact_ids: Sequence[int], history: list[dict[str, Any]], believed_at: float | None,
                         embedding: np.ndarray | None, terms: Sequence[str], tokens: int) -> int:
        conn = self._require_write()
        now = time.time()
        blob = np.asarray(embedding, dtype=np.float32).tobytes() if embedding is not None else None
        values = (entity_id, topic, text, blob, " ".join(terms), int(tokens), json.dumps(history, ensure_ascii=False),
                  believed_at)
        if observation_id is None:
            observation_id = self._dialect.insert_id(
                conn, "INSERT INTO observations (bank_id, entity_id, topic, text, embedding, terms, tokens, history, "
                "believed_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (bank_id, *values, now, now))
        else:
            conn.execute(
                "UPDATE observations SET entity_id = ?, topic = ?, text = ?, embedding = ?, terms = ?, tokens = ?, "
                "history = ?, believed_at = ?, updated_at = ? WHERE id = ?", (*values, now, observation_id))
            conn.execute("DELETE FROM observation_facts WHERE observation_id = ?", (observation_id,))
        conn.executemany("INSERT INTO observation_facts (observation_id, fact_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
                         [(observation_id, int(f)) for f in fact_ids])
        return observation_id

    def delete_observations(self, bank_id: int, ids: Sequence[int]) -> int:
        if not ids:
            return 0
        conn = self._require_write()
        self.clear_models_citing(bank_id, {observation_memory_id(i) for i in ids})
        deleted = 0
        for ids_in, part in self._dialect.in_parts(ids):
            conn.execute("UPDATE facts SET consolidated_at = NULL WHERE id IN (SELECT fact_id FROM observation_facts "
                         f"WHERE observation_id {ids_in})", part)
            deleted += conn.execute(f"DELETE FROM observations WHERE bank_id = ? AND id {ids_in}",
                                    (bank_id, *part)).rowcount
        return int(deleted)

    def observations_of_facts(self, fact_ids: Sequence[int]) -> list[int]:
        out: set[int] = set()
        for ids_in, part in self._dialect.in_parts(fact_ids):
            out |= {int(r[0]) for r in self._conn().execute(
                f"SELECT DISTINCT observation_id FROM observation_facts WHERE fact_id {ids_in}", part)}
        return sorted(out)

    def observation_vectors(self, bank_id: int) -> tuple[list[int], np.ndarray | None]:
        # in the (bank_id, topic) index's order: the ranking breaks ties by position
        rows = self._conn().execute(
            "SELECT id, embedding FROM observations WHERE bank_id = ? AND embedding IS NOT NULL "
            f"ORDER BY topic{self._dialect.bytewise}, id", (bank_id,)).fetchall()
        if not rows:
            return [], None
        return [int(r[0]) for r in rows], np.stack([np.frombuffer(bytes(r[1]), dtype=np.float32) for r in rows])

    def observation_terms(self, bank_id: int) -> list[tuple[int, str]]:
        return [(int(r[0]), str(r[1])) for r in self._conn().execute(
            "SELECT id, terms FROM observations WHERE bank_id = ? ORDER BY id", (bank_id,))]

    def unconsolidated_facts(self, bank_id: int, limit: int) -> list[int]:
        """Facts not yet consolidated, oldest said first; facts that failed alone are skipped."""
        rows = self._conn().execute(
            "SELECT id FROM facts WHERE bank_id = ? AND consolidated_at IS NULL AND consolidation_failed = FALSE "
            "AND valid_to IS NULL ORDER BY COALESCE(mentioned_at, created_at), id LIMIT ?", (bank_id, limit)).fetchall()
        return [int(r[0]) for r in rows]

    def mark_consolidated(self, fact_ids: Sequence[int], at: float, failed: bool = False) -> None:
        conn = self._require_write()
        for ids_in, part in self._dialect.in_parts(fact_ids):
            if failed:
                conn.execute(f"UPDATE facts SET consolidation_failed = TRUE WHERE id {ids_in}", part)
            else:
                conn.execute(f"UPDATE facts SET consolidated_at = ? WHERE id {ids_in}", (float(at), *part))

    # -- jobs --------------------------------------------------------------------------------
    def _job(self, r: Any) -> JobRow:
        return JobRow(int(r[0]), int(r[1]), str(r[2]), self._dialect.from_json(r[3]), str(r[4]), int(r[5]),
                      float(r[6]), r[7], float(r[8]), float(r[9]),
                      self._dialect.from_json(r[10]) if r[10] is not None else None)

    def enqueue_job(self, bank_id: int, kind: str, payload: dict[str, Any] | None = None,
                    run_after: float | None = None, unique: bool = True) -> int | None:
        """Queue a job; with ``unique`` a queued job of the same kind for the bank is reused."""
        conn = self._require_write()
        now = time.time()
        if unique:
            self._dialect.lock(conn, f"gieok.job:{bank_id}:{kind}")
            row = conn.execute("SELECT id FROM jobs WHERE bank_id = ? AND kind = ? AND status = 'queued' "
                               "ORDER BY run_after, id LIMIT 1", (bank_id, kind)).fetchone()
            if row:
                return int(row[0])
        return self._dialect.insert_id(
            conn, "INSERT INTO jobs (bank_id, kind, payload, run_after, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (bank_id, kind, json.dumps(payload or {}), run_after if run_after is not None else now, now, now))

    def claim_job(self, worker: str, now: float, lease: float, kinds: Sequence[str] | None = None,
                  bank_id: int | None = None) -> JobRow | None:
        conn = self._require_write()
        filters = ""
        params: list[Any] = []
        if kinds:
            kinds_in, params = self._dialect.in_all(kinds, text=True)
            filters += f" AND kind {kinds_in}"
        if bank_id is not None:
            filters += " AND bank_id = ?"
            params.append(bank_id)
        row = conn.execute(
            "SELECT id FROM jobs WHERE ((status = 'queued' AND run_after <= ?) "
            "OR (status = 'running' AND claimed_at < ?))"
            f"{filters} ORDER BY run_after, id LIMIT 1{self._dialect.skip_locked}",
            (now, now - lease, *params)).fetchone()
        if row is None:
            return None
        conn.execute("UPDATE jobs SET status = 'running', claimed_at = ?, claimed_by = ?, attempts = attempts + 1, "
                     "updated_at = ? WHERE id = ?", (now, worker, now, row[0]))
        return self._job(conn.execute(f"SELECT {_JOB_COLUMNS} FROM jobs WHERE id = ?", (row[0],)).fetchone())

    def finish_job(self, job_id: int, *, error: str | None = None, retry_at: float | None = None,
                   result: dict[str, Any] | None = None) -> None:
        conn = self._require_write()
        now = time.time()
        if error is None:
            conn.execute("UPDATE jobs SET status = 'done', last_error = NULL, result = ?, updated_at = ? WHERE id = ?",
                         (json.dumps(result, ensure_ascii=False) if result is not None else None, now, job_id))
        elif retry_at is not None:
            conn.execute("UPDATE jobs SET status = 'queued', last_error = ?, run_after = ?, updated_at = ? "
                         "WHERE id = ?", (error[:500], retry_at, now, job_id))
        else:
            conn.execute("UPDATE jobs SET status = 'failed', last_error = ?, updated_at = ? WHERE id = ?",
                         (error[:500], now, job_id))

    def get_job(self, job_id: int) -> JobRow | None:
        row = self._conn().execute(f"SELECT {_JOB_COLUMNS} FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return self._job(row) if row else None

    def list_jobs(self, bank_id: int | None = None, status: str | None = None, limit: int = 100) -> list[JobRow]:
        filters = "1 = 1"
        params: list[Any] = []
        if bank_id is not None:
            filters += " AND bank_id = ?"
            params.append(bank_id)
        if status is not None:
            filters += " AND status = ?"
            params.append(status)
        rows = self._conn().execute(f"SELECT {_JOB_COLUMNS} FROM jobs WHERE {filters} ORDER BY id DESC LIMIT ?",
                                    (*params, limit)).fetchall()
        return [self._job(r) for r in rows]

    def prune_jobs(self, older_than: float) -> int:
        return int(self._require_write().execute(
            "DELETE FROM jobs WHERE status = 'done' AND updated_at < ?", (older_than,)).rowcount)

    # -- mental models -----------------------------------------------------------------------
    def _model(self, r: Any) -> MentalModelRow:
        return MentalModelRow(int(r[0]), int(r[1]), str(r[2]), str(r[3]), r[4], self._dialect.from_json(r[5]), r[6],
                              float(r[7]))

    def save_mental_model(self, bank_id: int, name: str, question: str) -> int:
        conn = self._require_write()
        conn.execute("INSERT INTO mental_models (bank_id, name, question, created_at) VALUES (?, ?, ?, ?) "
                     "ON CONFLICT (bank_id, name) DO UPDATE SET question = excluded.question, answer = NULL, "
                     "based_on = '[]', refreshed_at = NULL", (bank_id, name, question, time.time()))
        return int(conn.execute("SELECT id FROM mental_models WHERE bank_id = ? AND name = ?",
                                (bank_id, name)).fetchone()[0])

    def set_mental_model_answer(self, model_id: int, answer: str, based_on: Sequence[str], at: float) -> None:
        self._require_write().execute(
            "UPDATE mental_models SET answer = ?, based_on = ?, refreshed_at = ? WHERE id = ?",
            (answer, json.dumps(list(based_on)), at, model_id))

    def mental_models(self, bank_id: int) -> list[MentalModelRow]:
        rows = self._conn().execute(
            "SELECT id, bank_id, name, question, answer, based_on, refreshed_at, created_at FROM mental_models "
            f"WHERE bank_id = ? ORDER BY name{self._dialect.bytewise}", (bank_id,)).fetchall()
        return [self._model(r) for r in rows]

    def delete_mental_model(self, bank_id: int, name: str) -> int:
        return int(self._require_write().execute(
            "DELETE FROM mental_models WHERE bank_id = ? AND name = ?", (bank_id, name)).rowcount)

    # -- LLM metering ------------------------------------------------------------------------
    def add_llm_usage(self, bank_id: int, day: str, operation: str, provider: str, model: str, calls: int,
                      input_tokens: int, output_tokens: int, cost_usd: float) -> None:
        self._require_write().execute(
            "INSERT INTO llm_usage AS u (bank_id, day, operation, provider, model, calls, input_tokens, output_tokens, "
            "cost_usd) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (bank_id, day, operation, provider, model) "
            "DO UPDATE SET calls = u.calls + excluded.calls, input_tokens = u.input_tokens + excluded.input_tokens, "
            "output_tokens = u.output_tokens + excluded.output_tokens, cost_usd = u.cost_usd + excluded.cost_usd",
            (bank_id, day, operation, provider, model, int(calls), int(input_tokens), int(output_tokens),
             float(cost_usd)))

    def llm_usage(self, bank_id: int) -> list[dict[str, Any]]:
        bytewise = self._dialect.bytewise
        cur = self._conn().execute(
            "SELECT day, operation, provider, model, calls, input_tokens, output_tokens, cost_usd FROM llm_usage "
            f"WHERE bank_id = ? ORDER BY day{bytewise}, operation{bytewise}", (bank_id,))
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]

    def llm_spend(self, bank_id: int) -> float:
        return float(self._conn().execute(
            "SELECT COALESCE(SUM(cost_usd), 0) FROM llm_usage WHERE bank_id = ?", (bank_id,)).fetchone()[0])
