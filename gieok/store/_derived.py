"""Observations, mental models, the durable job queue and LLM metering (mixed into SQLiteStore).

Jobs are claimed with one ``UPDATE ... RETURNING`` inside the write transaction, so two workers on
the same file never take the same job; a job whose worker died is reclaimed once its claim is older
than the lease. A job's payload names the facts it works on (``fact_ids``), so erasing a fact drops
it from queued jobs too.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["DerivedQueries", "ObservationRow", "JobRow", "MentalModelRow"]


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


def _marks(n: int) -> str:
    return ",".join("?" * n)


class DerivedQueries:
    def _conn(self) -> Any: ...
    def _require_write(self) -> Any: ...
    def clear_models_citing(self, bank_id: int, memory_ids: set[str]) -> int: ...

    # -- observations ------------------------------------------------------------------------
    def _observation_rows(self, where: str, params: Sequence[Any]) -> list[ObservationRow]:
        rows = self._conn().execute(
            "SELECT id, bank_id, entity_id, topic, text, history, believed_at, created_at, updated_at, tokens "
            f"FROM observations WHERE {where}", tuple(params)).fetchall()
        out = []
        for r in rows:
            facts = [int(x[0]) for x in self._conn().execute(
                "SELECT fact_id FROM observation_facts WHERE observation_id = ? ORDER BY fact_id", (r[0],))]
            out.append(ObservationRow(int(r[0]), int(r[1]), r[2], str(r[3]), str(r[4]), facts, json.loads(r[5]),
                                      r[6], float(r[7]), float(r[8]), int(r[9])))
        return out

    def get_observations(self, bank_id: int, ids: Sequence[int]) -> list[ObservationRow]:
        if not ids:
            return []
        return self._observation_rows(f"bank_id = ? AND id IN ({_marks(len(ids))})", (bank_id, *ids))

    def observations_of_bank(self, bank_id: int, topic: str | None = None) -> list[ObservationRow]:
        if topic is not None:
            return self._observation_rows("bank_id = ? AND topic = ? ORDER BY id", (bank_id, topic))
        return self._observation_rows("bank_id = ? ORDER BY id", (bank_id,))

    def save_observation(self, bank_id: int, observation_id: int | None, *, entity_id: int | None, topic: str,
                         text: str, fact_ids: Sequence[int], history: list[dict[str, Any]], believed_at: float | None,
                         embedding: np.ndarray | None, terms: Sequence[str], tokens: int) -> int:
        conn = self._require_write()
        now = time.time()
        blob = np.asarray(embedding, dtype=np.float32).tobytes() if embedding is not None else None
        values = (entity_id, topic, text, blob, " ".join(terms), tokens, json.dumps(history, ensure_ascii=False),
                  believed_at)
        if observation_id is None:
            cur = conn.execute(
                "INSERT INTO observations (bank_id, entity_id, topic, text, embedding, terms, tokens, history, "
                "believed_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (bank_id, *values, now, now))
            observation_id = int(cur.lastrowid)
        else:
            conn.execute(
                "UPDATE observations SET entity_id = ?, topic = ?, text = ?, embedding = ?, terms = ?, tokens = ?, "
                "history = ?, believed_at = ?, updated_at = ? WHERE id = ?", (*values, now, observation_id))
            conn.execute("DELETE FROM observation_facts WHERE observation_id = ?", (observation_id,))
        conn.executemany("INSERT OR IGNORE INTO observation_facts (observation_id, fact_id) VALUES (?, ?)",
                         [(observation_id, int(f)) for f in fact_ids])
        return observation_id

    def delete_observations(self, bank_id: int, ids: Sequence[int]) -> int:
        if not ids:
            return 0
        conn = self._require_write()
        self.clear_models_citing(bank_id, {f"o-{i}" for i in ids})
        conn.execute(f"UPDATE facts SET consolidated_at = NULL WHERE id IN (SELECT fact_id FROM observation_facts "
                     f"WHERE observation_id IN ({_marks(len(ids))}))", tuple(ids))
        return int(conn.execute(f"DELETE FROM observations WHERE bank_id = ? AND id IN ({_marks(len(ids))})",
                                (bank_id, *ids)).rowcount)

    def observations_of_facts(self, fact_ids: Sequence[int]) -> list[int]:
        out: set[int] = set()
        ids = list(fact_ids)
        for i in range(0, len(ids), 500):
            part = ids[i : i + 500]
            out |= {int(r[0]) for r in self._conn().execute(
                f"SELECT DISTINCT observation_id FROM observation_facts WHERE fact_id IN ({_marks(len(part))})", part)}
        return sorted(out)

    def observation_vectors(self, bank_id: int) -> tuple[list[int], np.ndarray | None]:
        rows = self._conn().execute(
            "SELECT id, embedding FROM observations WHERE bank_id = ? AND embedding IS NOT NULL", (bank_id,)).fetchall()
        if not rows:
            return [], None
        return [int(r[0]) for r in rows], np.stack([np.frombuffer(r[1], dtype=np.float32) for r in rows])

    def observation_terms(self, bank_id: int) -> list[tuple[int, str]]:
        return [(int(r[0]), str(r[1])) for r in self._conn().execute(
            "SELECT id, terms FROM observations WHERE bank_id = ?", (bank_id,))]

    def unconsolidated_facts(self, bank_id: int, limit: int) -> list[int]:
        """Facts not yet consolidated, oldest said first; facts that failed alone are skipped."""
        rows = self._conn().execute(
            "SELECT id FROM facts WHERE bank_id = ? AND consolidated_at IS NULL AND consolidation_failed = 0 "
            "AND valid_to IS NULL ORDER BY COALESCE(mentioned_at, created_at), id LIMIT ?", (bank_id, limit)).fetchall()
        return [int(r[0]) for r in rows]

    def mark_consolidated(self, fact_ids: Sequence[int], at: float, failed: bool = False) -> None:
        conn = self._require_write()
        for i in range(0, len(fact_ids), 500):
            part = list(fact_ids[i : i + 500])
            if failed:
                conn.execute(f"UPDATE facts SET consolidation_failed = 1 WHERE id IN ({_marks(len(part))})", part)
            else:
                conn.execute(f"UPDATE facts SET consolidated_at = ? WHERE id IN ({_marks(len(part))})", (at, *part))

    # -- jobs --------------------------------------------------------------------------------
    def _job(self, r: Any) -> JobRow:
        return JobRow(int(r[0]), int(r[1]), str(r[2]), json.loads(r[3]), str(r[4]), int(r[5]), float(r[6]), r[7],
                      float(r[8]), float(r[9]))

    _JOB_COLUMNS = "id, bank_id, kind, payload, status, attempts, run_after, last_error, created_at, updated_at"

    def enqueue_job(self, bank_id: int, kind: str, payload: dict[str, Any] | None = None,
                    run_after: float | None = None, unique: bool = True) -> int | None:
        """Queue a job; with ``unique`` a queued job of the same kind for the bank is reused."""
        conn = self._require_write()
        now = time.time()
        if unique:
            row = conn.execute("SELECT id FROM jobs WHERE bank_id = ? AND kind = ? AND status = 'queued'",
                               (bank_id, kind)).fetchone()
            if row:
                return int(row[0])
        cur = conn.execute(
            "INSERT INTO jobs (bank_id, kind, payload, run_after, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
            (bank_id, kind, json.dumps(payload or {}), run_after if run_after is not None else now, now, now))
        return int(cur.lastrowid)

    def claim_job(self, worker: str, now: float, lease: float, kinds: Sequence[str] | None = None,
                  bank_id: int | None = None) -> JobRow | None:
        conn = self._require_write()
        filters, params = "", []
        if kinds:
            filters += f" AND kind IN ({_marks(len(kinds))})"
            params += list(kinds)
        if bank_id is not None:
            filters += " AND bank_id = ?"
            params.append(bank_id)
        row = conn.execute(
            "SELECT id FROM jobs WHERE ((status = 'queued' AND run_after <= ?) OR (status = 'running' AND claimed_at < ?))"
            f"{filters} ORDER BY run_after, id LIMIT 1", (now, now - lease, *params)).fetchone()
        if row is None:
            return None
        conn.execute("UPDATE jobs SET status = 'running', claimed_at = ?, claimed_by = ?, attempts = attempts + 1, "
                     "updated_at = ? WHERE id = ?", (now, worker, now, row[0]))
        got = conn.execute(f"SELECT {self._JOB_COLUMNS} FROM jobs WHERE id = ?", (row[0],)).fetchone()
        return self._job(got)

    def finish_job(self, job_id: int, *, error: str | None = None, retry_at: float | None = None) -> None:
        conn = self._require_write()
        now = time.time()
        if error is None:
            conn.execute("UPDATE jobs SET status = 'done', last_error = NULL, updated_at = ? WHERE id = ?", (now, job_id))
        elif retry_at is not None:
            conn.execute("UPDATE jobs SET status = 'queued', last_error = ?, run_after = ?, updated_at = ? WHERE id = ?",
                         (error[:500], retry_at, now, job_id))
        else:
            conn.execute("UPDATE jobs SET status = 'failed', last_error = ?, updated_at = ? WHERE id = ?",
                         (error[:500], now, job_id))

    def list_jobs(self, bank_id: int | None = None, status: str | None = None, limit: int = 100) -> list[JobRow]:
        filters, params = "1 = 1", []
        if bank_id is not None:
            filters += " AND bank_id = ?"
            params.append(bank_id)
        if status is not None:
            filters += " AND status = ?"
            params.append(status)
        rows = self._conn().execute(f"SELECT {self._JOB_COLUMNS} FROM jobs WHERE {filters} ORDER BY id DESC LIMIT ?",
                                    (*params, limit)).fetchall()
        return [self._job(r) for r in rows]

    def prune_jobs(self, older_than: float) -> int:
        return int(self._require_write().execute(
            "DELETE FROM jobs WHERE status = 'done' AND updated_at < ?", (older_than,)).rowcount)

    # -- mental models -----------------------------------------------------------------------
    def _model(self, r: Any) -> MentalModelRow:
        return MentalModelRow(int(r[0]), int(r[1]), str(r[2]), str(r[3]), r[4], json.loads(r[5]), r[6], float(r[7]))

    def save_mental_model(self, bank_id: int, name: str, question: str) -> int:
        conn = self._require_write()
        conn.execute("INSERT INTO mental_models (bank_id, name, question, created_at) VALUES (?, ?, ?, ?) "
                     "ON CONFLICT (bank_id, name) DO UPDATE SET question = excluded.question, answer = NULL, "
                     "based_on = '[]', refreshed_at = NULL", (bank_id, name, question, time.time()))
        return int(conn.execute("SELECT id FROM mental_models WHERE bank_id = ? AND name = ?", (bank_id, name)).fetchone()[0])

    def set_mental_model_answer(self, model_id: int, answer: str, based_on: Sequence[str], at: float) -> None:
        self._require_write().execute(
            "UPDATE mental_models SET answer = ?, based_on = ?, refreshed_at = ? WHERE id = ?",
            (answer, json.dumps(list(based_on)), at, model_id))

    def mental_models(self, bank_id: int) -> list[MentalModelRow]:
        rows = self._conn().execute(
            "SELECT id, bank_id, name, question, answer, based_on, refreshed_at, created_at FROM mental_models "
            "WHERE bank_id = ? ORDER BY name", (bank_id,)).fetchall()
        return [self._model(r) for r in rows]

    def delete_mental_model(self, bank_id: int, name: str) -> int:
        return int(self._require_write().execute(
            "DELETE FROM mental_models WHERE bank_id = ? AND name = ?", (bank_id, name)).rowcount)

    # -- LLM metering ------------------------------------------------------------------------
    def add_llm_usage(self, bank_id: int, day: str, operation: str, provider: str, model: str, calls: int,
                      input_tokens: int, output_tokens: int, cost_usd: float) -> None:
        self._require_write().execute(
            "INSERT INTO llm_usage (bank_id, day, operation, provider, model, calls, input_tokens, output_tokens, "
            "cost_usd) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (bank_id, day, operation, provider, model) "
            "DO UPDATE SET calls = calls + excluded.calls, input_tokens = input_tokens + excluded.input_tokens, "
            "output_tokens = output_tokens + excluded.output_tokens, cost_usd = cost_usd + excluded.cost_usd",
            (bank_id, day, operation, provider, model, calls, input_tokens, output_tokens, cost_usd))

    def llm_usage(self, bank_id: int) -> list[dict[str, Any]]:
        cur = self._conn().execute(
            "SELECT day, operation, provider, model, calls, input_tokens, output_tokens, cost_usd FROM llm_usage "
            "WHERE bank_id = ? ORDER BY day, operation", (bank_id,))
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]

    def llm_spend(self, bank_id: int) -> float:
        return float(self._conn().execute(
            "SELECT COALESCE(SUM(cost_usd), 0) FROM llm_usage WHERE bank_id = ?", (bank_id,)).fetchone()[0])
