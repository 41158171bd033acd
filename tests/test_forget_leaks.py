"""Erasure that holds under attack (issue #13): every form of an erased text leaves the store.
Each case in Korean and English."""

from __future__ import annotations

import json
from pathlib import Path

from gieok import Memory
from gieok.text.terms import keyword_terms

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


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
