"""Erasure that holds under attack (issue #13, items 1-5): every form of an erased text leaves the
store — entity names, keys and counts, keyword terms, observation history, retain payloads, the
file and its WAL right after ``forget`` returns — and the proof catches a leak planted behind the
engine's back. Each case in Korean and English. ``leaks`` below is the check the proof is judged
by: it opens the file with the standard library and looks at every value of every table."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import gieok.engine.forget.run as forget_module
from gieok import Memory
from gieok.providers.llms import ScriptedLLM
from gieok.text.terms import keyword_terms

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def leaks(path: str, markers: list[str]) -> dict[str, list[str]]:
    """Marker → "table.column" where it still is (case-insensitive, JSON escapes too), read with
    the standard library, not the engine."""
    found: dict[str, list[str]] = {}
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'")]
        for table in tables:
            columns = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
            for column in columns:
                for (value,) in conn.execute(f'SELECT "{column}" FROM "{table}"'):
                    if isinstance(value, bytes):
                        value = value.decode("utf-8", "replace")
                    if not isinstance(value, str):
                        continue
                    for marker in markers:
                        if marker.casefold() in value.casefold() or json.dumps(marker)[1:-1] in value:
                            found.setdefault(marker, []).append(f"{table}.{column}")
    return found


def file_leaks(path: str, markers: list[str]) -> list[str]:
    """Markers whose UTF-8 bytes are in the file, its -wal or its -shm."""
    blobs = [Path(path + s).read_bytes() for s in ("", "-wal", "-shm") if Path(path + s).exists()]
    return [m for m in markers if any(m.encode("utf-8") in b for b in blobs)]


# -- 1. entity names, keys and counts ---------------------------------------------------------------

KO_KEEP = {"id": "k1", "speaker": "alice", "text": "민지는 요즘 테니스를 배워",
           "timestamp": "2026-03-01T10:00:00+09:00"}
KO_ERASE = {"id": "k2", "speaker": "alice", "text": "김민지 팀장은 Caroline Brightwater랑 속초 등대에서 만났어",
            "timestamp": "2026-03-02T10:00:00+09:00"}
KO_MARKERS = ["김민지", "팀장", "속초", "등대", "Brightwater"]
EN_KEEP = {"id": "e1", "speaker": "alice", "text": "I met Caroline at the gym on Sunday",
           "timestamp": "2026-03-01T10:00:00+00:00"}
EN_ERASE = {"id": "e2", "speaker": "alice",
            "text": "Caroline Brightwater and Dr. Okonkwo drove to Tintagel Harbour for the Quillfeather launch",
            "timestamp": "2026-03-02T10:00:00+00:00"}
EN_MARKERS = ["Brightwater", "Okonkwo", "Tintagel", "Quillfeather"]
CASES = [pytest.param(KO_KEEP, KO_ERASE, KO_MARKERS, "민지", id="korean"),
         pytest.param(EN_KEEP, EN_ERASE, EN_MARKERS, "Caroline", id="english")]


def _two_sources(mem: Memory, keep: dict[str, str], erase: dict[str, str]) -> None:
    mem.retain("b", messages=[keep], document_id="keep")
    mem.retain("b", messages=[erase], document_id="erase")
    mem.run_jobs()  # consolidation: observations about every entity


@pytest.mark.parametrize(("keep", "erase", "markers", "survivor"), CASES)
def test_names_only_the_erased_message_gave_leave_the_entity_graph(mem: Memory, db_path: str, keep: dict[str, str],
                                                                   erase: dict[str, str], markers: list[str],
                                                                   survivor: str) -> None:
    _two_sources(mem, keep, erase)
    assert set(leaks(db_path, markers)) == set(markers)
    result = mem.forget("b", source_id="erase", verify=True)
    assert result.proof is not None and result.proof.clean, result.proof
    assert leaks(db_path, markers) == {}
    # the person the remaining message names is still there, under the name it uses
    entities = mem.entities("b")
    assert [e.name for e in entities] == [survivor] and entities[0].aliases == []
    mem.run_jobs()  # observations are rebuilt from what remains, without the erased names
    assert mem.observations("b") and leaks(db_path, markers) == {}
    assert mem.verify_erased(markers).clean


@pytest.mark.parametrize(("keep", "erase", "markers", "survivor"), CASES)
def test_forgetting_an_entity_scrubs_it_from_the_others_counts(mem: Memory, db_path: str, keep: dict[str, str],
                                                              erase: dict[str, str], markers: list[str],
                                                              survivor: str) -> None:
    _two_sources(mem, keep, erase)
    name = "속초" if survivor == "민지" else "Tintagel Harbour"
    result = mem.forget("b", entity=name, verify=True)
    assert result.proof is not None and result.proof.clean, result.proof
    with sqlite3.connect(db_path) as conn:
        keys = [r[0] for r in conn.execute("SELECT key FROM context_degrees")]
        counts = [json.loads(r[0]) for r in conn.execute("SELECT cooccurring FROM entities")]
    assert not [k for k in keys if name.casefold() in k] and not [c for c in counts if name.casefold() in c]


def test_a_name_another_message_still_says_is_kept(mem: Memory, db_path: str) -> None:
    mem.retain("b", messages=[KO_KEEP, {"id": "k3", "speaker": "alice", "text": "속초에 또 가고 싶다",
                                        "timestamp": "2026-03-01T11:00:00+09:00"}], document_id="keep")
    mem.retain("b", messages=[KO_ERASE], document_id="erase")
    result = mem.forget("b", source_id="erase", verify=True)
    assert result.proof is not None and result.proof.clean, result.proof  # 속초 is still said: no leak
    assert "속초" in leaks(db_path, ["속초"]) and "김민지" not in leaks(db_path, ["김민지"])


# -- 2. the proof looks for every derived form, and catches a planted leak ---------------------------

def _plant(store: Any, sql: str, params: tuple[Any, ...]) -> None:
    with store.write():
        store._require_write().execute(sql, params)


PLANTS: dict[str, Callable[[Any, str], None]] = {
    # an erased name written back as an entity, in lower case, as the graph stores names
    "entity name": lambda store, name: _plant(
        store, "INSERT INTO entities (bank_id, canonical_name) VALUES (1, ?)", (name.casefold(),)),
    "context degree": lambda store, name: _plant(
        store, "INSERT INTO context_degrees (bank_id, key, degree) VALUES (1, ?, 1)", (name.casefold(),)),
    # the keyword index's own spelling (a stem or a morpheme), in the FTS table
    "fts term": lambda store, name: _plant(
        store, "INSERT INTO fts_bank_1 (rowid, terms, context) VALUES (999, ?, '')",
        (" ".join(keyword_terms(name)),)),
    # JSON-escaped inside a job payload (json.dumps writes Hangul as \\uXXXX)
    "json escape": lambda store, name: _plant(
        store, "INSERT INTO jobs (bank_id, kind, payload, run_after, created_at, updated_at) "
        "VALUES (1, 'x', ?, 0, 0, 0)", (json.dumps({"note": name}),)),
    "observation history": lambda store, name: _plant(
        store, "INSERT INTO observations (bank_id, topic, text, history, created_at, updated_at) "
        "VALUES (1, 'planted', 'planted', ?, 0, 0)", (json.dumps([{"previous": f"said: {name}"}]),)),
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
@pytest.mark.parametrize(("keep", "erase", "markers", "survivor"), CASES)
def test_the_proof_catches_a_leak_planted_behind_the_engines_back(mem: Memory, monkeypatch: pytest.MonkeyPatch,
                                                                  plant: str, keep: dict[str, str],
                                                                  erase: dict[str, str], markers: list[str],
                                                                  survivor: str) -> None:
    mem.retain("b", messages=[keep], document_id="keep")
    mem.run_jobs()
    mem.retain("b", messages=[erase], document_id="erase")
    real = forget_module.prove_erased

    def planted_first(store: Any, forms: Any, **kwargs: Any) -> Any:
        PLANTS[plant](store, markers[-1])
        return real(store, forms, **kwargs)

    monkeypatch.setattr(forget_module, "prove_erased", planted_first)
    result = mem.forget("b", source_id="erase", verify=True)
    assert result.proof is not None and not result.proof.clean
    assert all(markers[-1] not in json.dumps(f, ensure_ascii=False) for f in result.proof.found)


@pytest.mark.parametrize(("keep", "erase", "markers", "survivor"), CASES)
def test_words_the_remaining_facts_share_do_not_make_the_proof_fail(mem: Memory, keep: dict[str, str],
                                                                    erase: dict[str, str], markers: list[str],
                                                                    survivor: str) -> None:
    mem.retain("b", messages=[keep], document_id="keep")
    shared = {**erase, "text": keep["text"] + " " + erase["text"]}  # every word of ``keep`` erased too
    mem.retain("b", messages=[shared], document_id="erase")
    result = mem.forget("b", source_id="erase", verify=True)
    assert result.proof is not None and result.proof.clean, result.proof
    assert result.proof.probed >= len(markers)


# -- 3. a superseded version's text in observation history, and answers built on it -----------------

VERSIONS = [pytest.param("쿼츠마루 보고서 마감은 금요일이야", "아니, 쿼츠마루 보고서 마감은 월요일로 바뀌었어",
                         "금요일", id="korean"),
            pytest.param("The Zorblax report deadline is Friday",
                         "Actually the Zorblax report deadline moved to Monday", "Friday", id="english")]


@pytest.mark.parametrize(("old", "new", "marker"), VERSIONS)
def test_a_superseded_facts_text_leaves_observation_history(mem: Memory, db_path: str, old: str, new: str,
                                                            marker: str) -> None:
    mem.retain("b", messages=[{"id": "v1", "speaker": "bob", "text": old, "timestamp": "2026-04-01T09:00:00+00:00"}])
    mem.run_jobs()
    mem.retain("b", messages=[{"id": "v2", "speaker": "bob", "text": new, "timestamp": "2026-04-02T09:00:00+00:00"}])
    mem.run_jobs()
    assert "observations.history" in leaks(db_path, [marker])[marker]  # the old version, quoted
    old_id = mem.history("b", mem.recall("b", new).memories[0].id)[0].id
    result = mem.forget("b", memory_id=old_id, verify=True)
    assert result.proof is not None and result.proof.clean, result.proof
    assert leaks(db_path, [marker]) == {}
    mem.run_jobs()  # rebuilt from the version that remains
    assert [o.text for o in mem.observations("b") if new in o.text] and leaks(db_path, [marker]) == {}


@pytest.mark.parametrize(("old", "new", "marker"), VERSIONS)
def test_a_mental_model_answer_quoting_erased_evidence_is_cleared(mem: Memory, db_path: str, old: str, new: str,
                                                                  marker: str) -> None:
    mem.retain("b", messages=[{"id": "v1", "speaker": "bob", "text": old, "timestamp": "2026-04-01T09:00:00+00:00"}],
               document_id="s1")
    question = "보고서 마감은 언제야?" if marker == "금요일" else "When is the Zorblax report deadline?"
    mem.models.add("b", "deadline", question)
    mem.run_jobs()
    model = mem.models.get("b", "deadline")
    assert model.answer and marker in model.answer
    # the answer now cites something else, but still says what the erased fact said
    with mem.store.write():
        mem.store._require_write().execute("UPDATE mental_models SET based_on = '[\"f-999\"]'")
    result = mem.forget("b", source_id="s1", verify=True)
    assert result.proof is not None and result.proof.clean, result.proof
    assert mem.models.get("b", "deadline").answer is None and leaks(db_path, [marker]) == {}


# -- 4. the bytes are gone when forget returns: file and WAL, even under kill -9 ----------------------

_CHILD = r"""
import os, signal, sys
sys.path.insert(0, {tests!r})
from conftest import FakeEmbedder
from gieok import Memory
from gieok.providers import registry
registry.register("embedder", "fake", FakeEmbedder, replace=True)
mem = Memory({path!r}, embedder="fake")
mem.retain("b", messages=[{{"id": "k", "speaker": "alice", "text": "the weather was fine and 날씨가 좋았어"}}],
           document_id="keep")
mem.retain("b", messages=[{{"id": "e", "speaker": "alice", "text": {text!r}}}], document_id="erase")
mem.run_jobs()
if {op!r} == "forget":
    mem.forget("b", source_id="erase")
else:
    mem.banks.delete("b")
if {how!r} == "sigkill":
    os.kill(os.getpid(), signal.SIGKILL)
os._exit(0)
"""


KO_VAULT = ("내 금고 비밀번호 힌트는 쥐라기호랑이칠칠, 박서연 대리만 알아", ["쥐라기호랑이칠칠", "박서연"])
EN_VAULT = ("My vault hint is Zebraquartz Marigoldia, only Quillon Vantrell knows",
            ["Zebraquartz", "Marigoldia", "Vantrell"])


# each case starts a Python that loads Kiwi (~6 s): both languages, both ways to die, both operations
@pytest.mark.parametrize(("text", "markers", "op", "how"), [
    pytest.param(*KO_VAULT, "forget", "sigkill", id="korean-forget-sigkill"),
    pytest.param(*EN_VAULT, "forget", "sigkill", id="english-forget-sigkill"),
    pytest.param(*EN_VAULT, "forget", "os_exit", id="english-forget-os_exit"),
    pytest.param(*KO_VAULT, "delete_bank", "sigkill", id="korean-delete_bank-sigkill"),
])
def test_a_plain_forget_leaves_nothing_in_the_file_or_wal_even_if_killed_at_once(tmp_path: Path, op: str, how: str,
                                                                                 text: str, markers: list[str]) -> None:
    path = str(tmp_path / "killed.db")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    script = _CHILD.format(tests=str(TESTS), path=path, text=text, how=how, op=op)
    child = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert child.returncode == (-signal.SIGKILL if how == "sigkill" else 0), child.stderr
    assert Path(path).exists()
    assert file_leaks(path, markers) == []
    if op == "forget":
        assert file_leaks(path, ["날씨가"]) == ["날씨가"]  # the scan does see text that was kept


# -- retain payloads: a submitted retain's job kept the messages it wrote ----------------------------

@pytest.mark.parametrize(("text", "marker"), [
    pytest.param("박서연 대리의 사물함 번호는 일곱이야", "박서연", id="korean"),
    pytest.param("Quillon Vantrell keeps the spare key", "Vantrell", id="english")])
def test_a_submitted_retains_payload_goes_with_its_source(mem: Memory, db_path: str, text: str, marker: str) -> None:
    mem.submit_retain("b", messages=[{"id": "q1", "speaker": "alice", "text": text}], document_id="queued")
    mem.run_jobs()
    assert marker in leaks(db_path, [marker])
    result = mem.forget("b", source_id="queued", verify=True)
    assert result.proof is not None and result.proof.clean, result.proof
    assert leaks(db_path, [marker]) == {}


# -- the keyword index drops an erased term instead of masking it --------------------------------------

def test_the_keyword_index_keeps_no_erased_term_once_a_bank_is_emptied(mem: Memory) -> None:
    # plain FTS5 hides a deleted row's terms behind tombstones; once the deletes were merged into one
    # segment, ``optimize`` has nothing left to merge and the terms stayed in the file for good
    sessions = json.loads((ROOT / "bench" / "data" / "korean_multisession.json").read_text("utf-8"))[0]
    conversation = sessions["conversation"]
    keys = [k for k in conversation if k.startswith("session_") and not k.endswith("date_time")]
    terms: set[str] = set()
    for key in keys:
        turns = conversation[key]
        mem.retain("b", messages=[{"id": t["dia_id"], "speaker": t["speaker"], "text": t["text"]} for t in turns],
                   document_id=key)
        terms |= {term for t in turns for term in keyword_terms(t["text"]) if len(term.encode("utf-8")) >= 6}
    for key in keys:
        mem.forget("b", source_id=key)
    blocks = b"".join(bytes(r[0]) for r in mem.store._conn().execute("SELECT block FROM fts_bank_1_data") if r[0])
    assert len(terms) > 400 and sorted(t for t in terms if t.encode("utf-8") in blocks) == []


# -- 5. a failed retain leaves no new, empty bank -------------------------------------------------------

FAILING = [pytest.param("내일 부산에서 민지를 만나", id="korean"),
           pytest.param("Tomorrow I meet Jo in Leeds", id="english")]


def _broken_embedder(fake_embedder: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(texts: list[str], kind: str) -> Any:
        raise RuntimeError("the embedder fell over")

    monkeypatch.setattr(fake_embedder, "embed_batch", fail)


@pytest.mark.parametrize("text", FAILING)
def test_a_failed_retain_into_a_new_bank_leaves_no_bank(db_path: str, fake_embedder: Any,
                                                        monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    # the LLM fails in a way extraction cannot fall back from (a provider bug, not an LLMError)
    llm = ScriptedLLM([RuntimeError("provider bug")])
    with Memory(db_path, embedder="fake", llm=llm) as mem:
        with pytest.raises(RuntimeError, match="provider bug"):
            mem.retain("fresh", messages=[{"id": "m1", "speaker": "alice", "text": text}])
        assert [b.name for b in mem.banks()] == []
        _broken_embedder(fake_embedder, monkeypatch)  # or the embedder fails after the LLM answered nothing
        with pytest.raises(RuntimeError, match="fell over"):
            mem.retain("fresh", messages=[{"id": "m1", "speaker": "alice", "text": text}])
        assert [b.name for b in mem.banks()] == []


@pytest.mark.parametrize("text", FAILING)
def test_a_failed_retain_that_paid_for_llm_calls_keeps_the_spend(db_path: str, fake_embedder: Any,
                                                                 monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    llm = ScriptedLLM([{"facts": [{"text": text, "kind": "world"}]}])  # answered and metered
    _broken_embedder(fake_embedder, monkeypatch)  # then the retain fails
    with Memory(db_path, embedder="fake", llm=llm) as mem:
        with pytest.raises(RuntimeError, match="fell over"):
            mem.retain("fresh", messages=[{"id": "m1", "speaker": "alice", "text": text}])
        assert len(llm.requests) == 1
        assert [b.name for b in mem.banks()] == ["fresh"] and mem.banks()[0].facts == 0
        assert mem.llm_usage("fresh").rows and mem.sources("fresh") == []


@pytest.mark.parametrize("text", FAILING)
def test_a_failed_retain_into_an_existing_empty_bank_keeps_the_bank(db_path: str, fake_embedder: Any,
                                                                    monkeypatch: pytest.MonkeyPatch,
                                                                    text: str) -> None:
    llm = ScriptedLLM([RuntimeError("provider bug")])
    with Memory(db_path, embedder="fake", llm=llm) as mem:
        mem.configure_llm("kept", spend_limit_usd=5.0)  # an empty bank the caller made on purpose
        with pytest.raises(RuntimeError):
            mem.retain("kept", messages=[{"id": "m1", "speaker": "alice", "text": text}])
        assert [b.name for b in mem.banks()] == ["kept"]
