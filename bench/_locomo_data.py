"""Reading LoCoMo-format files and scoring evidence recall (shared by the benchmark scripts)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


@dataclass
class Turn:
    id: str
    speaker: str
    text: str
    timestamp: str


@dataclass
class Question:
    question: str
    evidence: list[str]
    category: int | str  # LoCoMo: 1-4 (see CATEGORIES); BEAM: the ability name


@dataclass
class Conversation:
    id: str
    turns: list[Turn]
    questions: list[Question]
    now: str


def _session_time(value: str) -> datetime:
    value = value.strip()
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%d %H:%M"):
        try:
            return datetime.strptime(value, fmt)
        except ValueError:
            continue
    return datetime.fromisoformat(value)


def _clean_evidence(raw: Sequence[str], known: set[str]) -> list[str]:
    out: list[str] = []
    for item in raw:
        for part in re.split(r"[;,\s]+", str(item)):
            part = part.strip()
            if not part:
                continue
            part = re.sub(r"^D:(\d+)", r"D\1", part)
            m = re.match(r"^D(\d+):0*(\d+)$", part)
            if not m:
                continue
            part = f"D{int(m.group(1))}:{int(m.group(2))}"
            if part in known and part not in out:
                out.append(part)
    return out


def load(path: str | Path) -> list[Conversation]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    conversations = []
    for sample in data:
        conv = sample["conversation"]
        sessions = sorted(
            (int(k.split("_")[1]), k) for k in conv if re.fullmatch(r"session_\d+", k) and conv[k]
        )
        turns: list[Turn] = []
        last = None
        for _, key in sessions:
            when = _session_time(conv[f"{key}_date_time"])
            last = when
            for turn in conv[key]:
                text = turn["text"]
                if turn.get("blip_caption"):
                    text = f"{text} [shares a photo: {turn['blip_caption']}]"
                turns.append(Turn(turn["dia_id"], turn["speaker"], text, when.isoformat()))
        known = {t.id for t in turns}
        questions = []
        for qa in sample["qa"]:
            category = int(qa.get("category", 0))
            if category not in CATEGORIES:
                continue
            evidence = _clean_evidence(qa.get("evidence", []), known)
            if evidence:
                questions.append(Question(qa["question"], evidence, category))
        conversations.append(Conversation(sample["sample_id"], turns, questions, (last or datetime.now()).isoformat()))
    return conversations


def recall_at(ranked_sources: Sequence[Sequence[str]], evidence: Sequence[str], k: int) -> float:
    """Fraction of the evidence turns covered by the sources of the top-k results."""
    covered = {s for sources in ranked_sources[:k] for s in sources}
    return sum(1 for e in evidence if e in covered) / len(evidence)


def ndcg_at(ranked_sources: Sequence[Sequence[str]], evidence: Sequence[str], k: int) -> float:
    wanted = set(evidence)
    seen: set[str] = set()
    dcg = 0.0
    for rank, sources in enumerate(ranked_sources[:k], start=1):
        new = (set(sources) & wanted) - seen
        if new:
            dcg += 1.0 / math.log2(rank + 1)
            seen |= new
    ideal = sum(1.0 / math.log2(r + 1) for r in range(1, min(len(wanted), k) + 1))
    return dcg / ideal if ideal else 0.0
