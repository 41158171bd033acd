"""Reading BEAM chats (``../shared/bench/beam-100k/<i>/``) into the LoCoMo harness's shapes.

A chat is a list of batches; a batch is a session whose date is the time anchor of its first message
(``"March-15-2024"``). Messages keep their chat-local integer id as the turn id. A question's evidence is
its ``source_chat_ids`` (a list, or a dict of lists) or, where absent, the ``chat_id: N`` strings of its
``conversation_references``; abstention questions have none and are skipped. "Now" is the last batch's date.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from _locomo_data import Conversation, Question, Turn

DEFAULT_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "beam-100k"
ABILITIES = ("contradiction_resolution", "event_ordering", "information_extraction", "instruction_following",
             "knowledge_update", "multi_session_reasoning", "preference_following", "summarization",
             "temporal_reasoning")
_MARKER = re.compile(r"\s*->->\s*[\d,\s]+$")  # the generator's "->-> 1,1" position marks, not text a user wrote


def _ints(value: Any) -> Iterator[int]:
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, str) and value.strip().isdigit():
        yield int(value)
    elif isinstance(value, list):
        for item in value:
            yield from _ints(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _ints(item)


def evidence_of(question: dict[str, Any], known: set[int]) -> list[str]:
    ids = list(_ints(question.get("source_chat_ids", [])))
    if not ids:
        refs = question.get("conversation_references", [])
        ids = [int(n) for ref in refs if isinstance(ref, str) for n in re.findall(r"chat_id:\s*(\d+)", ref)]
    out: list[str] = []
    for i in ids:
        if i in known and str(i) not in out:
            out.append(str(i))
    return out


def _anchor(batch: dict[str, Any]) -> datetime | None:
    for turn in batch["turns"]:
        for message in turn:
            value = message.get("time_anchor") or batch.get("time_anchor")
            if value:
                return datetime.strptime(value, "%B-%d-%Y")
    return None


def load(directory: str | Path = DEFAULT_DIR) -> list[Conversation]:
    root = Path(directory)
    chats = sorted((p for p in root.iterdir() if (p / "chat.json").exists()), key=lambda p: int(p.name))
    out: list[Conversation] = []
    for folder in chats:
        batches = json.loads((folder / "chat.json").read_text(encoding="utf-8"))
        turns: list[Turn] = []
        when = datetime(2024, 1, 1)
        for batch in batches:
            when = _anchor(batch) or when
            for n, message in enumerate(m for turn in batch["turns"] for m in turn):
                # one minute apart inside a session, so the order of messages survives in their timestamps
                at = when + timedelta(minutes=n)
                text = _MARKER.sub("", message["content"]).strip()
                turns.append(Turn(str(message["id"]), message["role"], text, at.isoformat()))
        known = {int(t.id) for t in turns}
        questions: list[Question] = []
        probing = json.loads((folder / "probing_questions.json").read_text(encoding="utf-8"))
        for ability, items in probing.items():
            for item in items:
                evidence = evidence_of(item, known)
                if evidence and ability in ABILITIES:
                    questions.append(Question(item["question"], evidence, ability))
        out.append(Conversation(f"beam-{folder.name}", turns, questions, when.isoformat()))
    return out
