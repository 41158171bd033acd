"""One shared kiwipiepy analyzer per process.

Loading Kiwi's model takes a second or two, so it is created lazily, once, and shared by every
component (keyword terms, sentence split, entity extraction, dates).
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any

_lock = threading.Lock()
_kiwi: Any = None

HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")


def has_hangul(text: str) -> bool:
    return HANGUL.search(text) is not None


def get_kiwi() -> Any:
    """The process-wide ``kiwipiepy.Kiwi`` instance (thread-safe lazy creation)."""
    global _kiwi
    if _kiwi is None:
        with _lock:
            if _kiwi is None:
                from kiwipiepy import Kiwi

                _kiwi = Kiwi()
    return _kiwi


@lru_cache(maxsize=8192)
def analyze(text: str) -> tuple[tuple[str, str, str, int, int], ...]:
    """Kiwi tokens as ``(form, tag, lemma, start, end)``; cached because the same text is analysed
    by several components during one retain."""
    tokens = get_kiwi().tokenize(text)
    out = []
    for t in tokens:
        lemma = getattr(t, "lemma", None) or t.form
        out.append((t.form, t.tag, lemma, t.start, t.start + t.len))
    return tuple(out)
