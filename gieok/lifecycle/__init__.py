"""Memory lifecycle: how long a memory lasts and when a newer one replaces it.

Deterministic — no LLM, no embeddings; Korean and English alike (Kiwi lemmas from ``gieok.text``).

* **Decay** (``_decay``): ``classify_memory(text, speaker)`` gives a ``MemoryClass`` — pinned,
  stable or transient, with an importance and the cue that decided — and ``decay_strength``
  the forgetting curve of each class (pinned never fades; stable half-life a year, transient two
  weeks; each recall stretches the half-life). ``ARCHIVE_BELOW`` is where a memory may be archived.
* **Supersede** (``_supersede``): ``detect_update(old, new)`` says whether the later statement
  updates the earlier one — a correction ("아니, 금요일 말고 월요일"), a change of state ("삼성
  다니다가 카카오로 옮겼어", "I switched from almond milk to oat milk") or the same frame with
  another key value ("회의는 3시야" → "회의 4시로 옮겼어"), or a change of state on a topic the old
  statement is about although no value is shared ("LG전자 다녀" → "나 회사 그만뒀어"; the topic
  table is ``_topics``). ``extract_values`` lists the key values (weekdays, dates, times, numbers,
  proper nouns) it compares.

Before any rule, vetoes (``_guards``): the two statements must be about the same holder
(``_holders``: "민지 생일" is not "엄마 생일", "my sister's birthday" not "my birthday"), not be two
events (``_events``: two dinners do not replace each other unless the new one corrects the old),
and the change must be asserted (not denied, planned, rumoured, a one-off, or someone else's).

The engine calls ``detect_update`` only on pairs it already found similar (shared entity, close
vectors), so the function is built to be precise: it answers None unless the two statements share
their frame and a value really changed, or the new one says explicitly what it replaces.
"""

from gieok.lifecycle._decay import (
    ARCHIVE_BELOW,
    DECAY_CLASSES,
    DEFAULT_IMPORTANCE,
    HALF_LIFE_DAYS,
    MAX_STRETCH,
    RECALL_STRETCH,
    STABLE_HALF_LIFE_DAYS,
    TRANSIENT_HALF_LIFE_DAYS,
    MemoryClass,
    classify_memory,
    decay_strength,
    should_archive,
)
from gieok.lifecycle._decay_cues import DecayClass
from gieok.lifecycle._supersede import UpdateKind, UpdateVerdict, detect_update, says_a_change
from gieok.lifecycle._values import extract_values

__all__ = [
    "ARCHIVE_BELOW",
    "DECAY_CLASSES",
    "DEFAULT_IMPORTANCE",
    "HALF_LIFE_DAYS",
    "MAX_STRETCH",
    "RECALL_STRETCH",
    "STABLE_HALF_LIFE_DAYS",
    "TRANSIENT_HALF_LIFE_DAYS",
    "DecayClass",
    "MemoryClass",
    "UpdateKind",
    "UpdateVerdict",
    "classify_memory",
    "decay_strength",
    "detect_update",
    "extract_values",
    "says_a_change",
    "should_archive",
]
