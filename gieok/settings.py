"""Settings in one declarative table: name, default, type, help.

The same table drives ``Memory(**settings)`` keyword arguments, ``GIEOK_<NAME>`` environment
variables, the CLI's ``--set name=value`` option and the settings section of the README (a test fails
when they drift). Unknown names are refused, never ignored.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gieok.errors import ConfigError

__all__ = ["REMOVED", "Setting", "SETTINGS", "Settings", "resolve_settings"]


@dataclass(frozen=True)
class Setting:
    name: str
    default: Any
    type: type
    help: str
    bounds: tuple[float, float] | None = None  # inclusive range a number must fall in, where one makes sense
    choices: tuple[str, ...] | None = None  # the only values a text setting may take

    @property
    def env(self) -> str:
        return "GIEOK_" + self.name.upper()


SETTINGS: tuple[Setting, ...] = (
    Setting("embedder", "e5-small", str,
            "embedder provider for new banks (`e5-small`, `use-multilingual`, or a plugin)"),
    Setting("fusion", "learned", str,
            "how recall orders its candidates: `learned` (the ranker trained on labelled conversations, shipped "
            "in the package) or `rrf` (plain Reciprocal Rank Fusion of the channels, k = 20, equal weights: the "
            "fixed formula, to compare against)", choices=("learned", "rrf")),
    Setting("candidates", 100, int, "how many candidates each recall channel contributes before fusion"),
    Setting("channels", "semantic,keyword,graph,temporal,profile", str,
            "recall channels to run, a comma list (turn one off to measure what it adds)"),
    Setting("graph_seeds", 5, int,
            "best hits of each of the semantic and keyword channels that seed the graph channel"),
    Setting("keyword_context_weight", 0.3, float,
            "BM25 weight of the terms of the message a fact answers, relative to the fact's own terms"),
    Setting("reranker", "", str, "reranker provider for the fused top-N: empty (off), `http` or `onnx`"),
    Setting("reranker_url", "", str, "base URL of an HTTP `/rerank` server (Cohere, Jina, TEI, vLLM protocol)"),
    Setting("reranker_model", "", str, "model name sent to the HTTP reranker"),
    Setting("reranker_model_dir", "", str, "folder with `model.onnx` and `tokenizer.json` of an ONNX cross-encoder"),
    Setting("rerank_top", 30, int, "how many fused memories the reranker reorders"),
    Setting("ann_min_vectors", 20_000, int,
            "a bank with at least this many facts is searched through an approximate vector index (SQLite: "
            "k-means clusters, trained when the bank reaches this size; PostgreSQL: the HNSW index); "
            "smaller banks are scanned exactly", bounds=(64, 1_000_000_000)),
    Setting("ivf_probes", 32, int,
            "SQLite: how many of a large bank's vector clusters one search reads (more = nearer the exact "
            "result, slower; a bank trained at n facts has 2·√n clusters)", bounds=(1, 4096)),
    Setting("hnsw_ef_search", 100, int,
            "PostgreSQL: pgvector's hnsw.ef_search for a large bank's search (candidates kept while walking "
            "the graph; more = nearer the exact result, slower); iterative scans fill a bank's k rows",
            bounds=(10, 1000)),
    Setting("keyword_max_postings", 5_000, int,
            "postings one keyword (BM25) search reads in full: past it, common words are scored only in the "
            "facts holding a rarer query word, or in the newest facts (exact whenever provably the same); "
            "0 scores every posting", bounds=(0, 1_000_000_000)),
    Setting("decision_model", "learned", str,
            "decision-model provider for the engine's judgments (instruction-like text, …): `learned` (the small "
            "heads shipped in the package, offline) or `llm` (the bank's LLM, metered; `learned` where a bank has "
            "none), or a plugin; a bank's own choice (Memory.configure_decisions) comes first"),
    Setting("default_limit", 20, int, "memories returned by recall when neither limit nor max_tokens is given"),
    Setting("max_fact_chars", 600, int, "a message longer than this is split into sentence-group facts"),
    Setting("chunk_chars", 1500, int, "target size of a document chunk, in characters"),
    Setting("max_retain_chars", 2_000_000, int,
            "a message or document longer than this (characters) is refused up front: split it or raise this"),
    Setting("max_document_bytes", 50_000_000, int,
            "ingest refuses a file larger than this (bytes) before reading it: split it or raise this"),
    Setting("max_document_unpacked_bytes", 200_000_000, int,
            "ingest refuses a DOCX whose zip entries unpack to more than this (bytes), before parsing it"),
    Setting("observation_candidates", 3, int, "at most this many observations compete in one recall"),
    Setting("llm", "", str,
            "LLM provider for extraction, consolidation and reflect: empty (offline), `openai`, `anthropic`"),
    Setting("llm_model", "", str,
            "model name for the LLM provider (e.g. gpt-4o-mini, claude-3-5-haiku-latest, llama3.1)"),
    Setting("llm_base_url", "", str,
            "base URL of an OpenAI-compatible server (vLLM, Ollama, llama.cpp, LM Studio), "
            "e.g. http://localhost:11434/v1"),
    Setting("llm_api_key_env", "", str,
            "name of the environment variable holding the API key (default OPENAI_API_KEY / ANTHROPIC_API_KEY)"),
    Setting("llm_spend_limit_usd", 0.0, float,
            "per-bank ceiling on estimated LLM spend; background LLM work stops there (0 = none)"),
    Setting("llm_extraction", True, bool,
            "with an LLM configured, retain extracts narrative facts with it (deterministic on failure)"),
    Setting("refresh_on_recall", True, bool,
            "a recalled memory's decay clock restarts (memories in use do not fade); off for read-only audits"),
    Setting("archive_below", 0.05, float, "the decay pass archives a fact whose strength falls below this"),
    Setting("context_vectors", True, bool,
            "at retain, give each reply a second vector with the message it answers (better recall; "
            "about twice the embedding work for a conversation)"),
    Setting("supersede", True, bool, "at retain, detect statements that update older ones and close the old version"),
    Setting("threads", 0, int,
            "threads of the e5 engine (OpenMP); 0 = the cores this process may use, at most 4. Read when gieok is "
            "imported (set GIEOK_THREADS, or OMP_NUM_THREADS, before); idle threads sleep (OMP_WAIT_POLICY=PASSIVE)"),
    Setting("fingerprint_key_file", "", str,
            "file holding the audit fingerprint key (created, mode 0600, when missing); default: `<database>.key` "
            "beside a SQLite file, none on PostgreSQL (no fingerprints unless this or GIEOK_FINGERPRINT_KEY is set)"),
    Setting("server_max_body_bytes", 4_194_304, int,
            "the largest request body `gieok serve` accepts (bytes); a larger one gets 413 and nothing is stored"),
    Setting("job_lease_seconds", 60.0, float,
            "a claimed job's lease, renewed by its worker's heartbeat (every third of it); a job whose lease ran "
            "out (its worker died) is claimed again"),
    Setting("job_max_attempts", 3, int, "a job that keeps failing is marked failed after this many runs"),
    Setting("job_backoff_seconds", 30.0, float,
            "the first retry's delay; each further one doubles it, up to an hour (an LLM's Retry-After wins)"),
)
_BY_NAME = {s.name: s for s in SETTINGS}
_BOOLEANS = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}


def _coerce(setting: Setting, value: Any, origin: str) -> Any:
    parsed = _parse(setting, value, origin)
    if setting.bounds is not None and not setting.bounds[0] <= parsed <= setting.bounds[1]:
        low, high = setting.bounds
        raise ConfigError(f"setting {setting.name!r} from {origin} must be between {low} and {high}, got {value!r}")
    if setting.choices is not None and parsed not in setting.choices:
        raise ConfigError(f"setting {setting.name!r} from {origin} must be one of {', '.join(setting.choices)}, "
                          f"got {value!r}")
    return parsed


def _parse(setting: Setting, value: Any, origin: str) -> Any:
    if isinstance(value, setting.type) and not (setting.type is int and isinstance(value, bool)):
        return value
    try:
        if setting.type is bool and isinstance(value, str) and value.strip().lower() in _BOOLEANS:
            return _BOOLEANS[value.strip().lower()]
        if setting.type is bool:
            raise ValueError(value)
        if setting.type is float and isinstance(value, int):
            return float(value)
        if isinstance(value, str):
            return setting.type(value.strip())
    except ValueError:
        pass
    raise ConfigError(f"setting {setting.name!r} from {origin} must be {setting.type.__name__}, got {value!r}")


@dataclass(frozen=True)
class Settings:
    values: Mapping[str, Any]

    def __getattr__(self, name: str) -> Any:
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(name) from None


# settings recall's learned ranker replaced (issue #35): refused with the reason, as unknown ones are
_RANKER = "recall's learned ranker replaced it (docs/concepts/recall.md); remove it from your settings"
REMOVED: dict[str, str] = {name: _RANKER for name in (
    "rrf_k", "weighted_relevance", "weighted_importance", "weighted_recency", "weighted_recency_days",
    "semantic_weight", "keyword_weight", "korean_keyword_weight", "graph_weight", "temporal_weight", "profile_weight",
    "superseded_weight", "same_message_weight", "other_speaker_weight", "question_weight", "recency_half_life_days",
    "present_recency", "observation_weight")}


def resolve_settings(overrides: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None) -> Settings:
    """Defaults, then ``GIEOK_*`` environment variables, then explicit overrides."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    for setting in SETTINGS:
        values[setting.name] = setting.default
        if setting.env in env:
            values[setting.name] = _coerce(setting, env[setting.env], f"${setting.env}")
    for name, value in (overrides or {}).items():
        if name in REMOVED:
            raise ConfigError(f"setting {name!r} no longer exists: {REMOVED[name]}")
        if name not in _BY_NAME:
            raise ConfigError(f"unknown setting {name!r}: known settings are {', '.join(sorted(_BY_NAME))}")
        values[name] = _coerce(_BY_NAME[name], value, "arguments")
    return Settings(values)
