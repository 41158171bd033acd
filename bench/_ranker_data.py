"""The ranker's data sets, each read into the LoCoMo harness's shapes (``_locomo_data.Conversation``).

* ``locomo`` — the public LoCoMo slice (``../shared/bench/locomo-public.json``, categories 1-4);
* ``korean`` — ``bench/data/korean_multisession.json`` (LoCoMo format, Korean);
* ``train_a`` / ``train_b`` — ``bench/data/ranker_train_*.jsonl``, written blind for the ranker;
* ``blind`` — ``bench/data/ranker_blind.jsonl``: read only to report held-out figures, never to train;
* ``beam`` — the BEAM chats (``../shared/bench/beam-100k``), long technical conversations.

The ranker files hold one conversation per line (see bench/data/README.md); their unanswerable
questions (no evidence) are left out, as LoCoMo's adversarial ones are.
"""

from __future__ import annotations

import json
from pathlib import Path

from _beam_data import DEFAULT_DIR as BEAM_DIR
from _beam_data import load as load_beam
from _locomo_data import CATEGORIES, Conversation, Question, Turn
from _locomo_data import load as load_locomo

HERE = Path(__file__).resolve().parent
LOCOMO = HERE.parent.parent / "shared" / "bench" / "locomo-public.json"
SETS = ("locomo", "korean", "train_a", "train_b", "blind", "beam")
TRAINING = ("locomo", "korean", "train_a", "train_b", "beam")  # every set but the blind one


def load_ranker_file(path: Path) -> list[Conversation]:
    """A ``ranker_*.jsonl`` file: sessions of turns with ISO dates; "now" is the last session's date."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        raw = json.loads(line)
        turns = [Turn(t["id"], t["speaker"], t["text"], session["date"])
                 for session in raw["sessions"] for t in session["turns"]]
        known = {t.id for t in turns}
        questions = [Question(q["q"], [e for e in q["evidence"] if e in known], q["category"])
                     for q in raw["questions"] if any(e in known for e in q.get("evidence", []))]
        out.append(Conversation(raw["id"], turns, questions, raw["sessions"][-1]["date"]))
    return out


def load_set(name: str) -> list[Conversation]:
    if name == "locomo":
        return load_locomo(LOCOMO)
    if name == "korean":
        return [Conversation(f"ko-{c.id}", c.turns, c.questions, c.now)
                for c in load_locomo(HERE / "data" / "korean_multisession.json")]
    if name in ("train_a", "train_b", "blind"):
        return load_ranker_file(HERE / "data" / f"ranker_{name}.jsonl")
    if name == "beam":
        return load_beam(BEAM_DIR)
    raise SystemExit(f"unknown set {name!r}: one of {', '.join(SETS)}")


def category_of(question: Question) -> str:
    return CATEGORIES[question.category] if isinstance(question.category, int) else str(question.category)
