"""One shared kiwipiepy analyzer per process.

Loading Kiwi takes a second or two (measured on the 2-core machine: about 0.7-1 s to construct it,
then about 1-1.3 s more in its first analysis, which builds what the constructor left to first use),
so it is created lazily, once, and shared by every component (keyword terms, sentence split, entity
extraction, dates). :func:`get_kiwi` hands out only an instance that has analysed once, under one
lock, so two threads never load it twice or use it half-built; :func:`warm_up` loads it ahead of the
first request (``gieok serve`` and ``gieok worker`` call it through ``Memory.warm_up``).

Kiwi holds the GIL for the whole load: a thread loading it in the background stalls the process's
other Python threads meanwhile, so loading it in a thread overlaps only with work that releases the
GIL (see docs/benchmarks/coldstart.md). Its multi-word dictionary (``load_multi_dict``) stays on,
though loading without it is faster: it changes analyses the learned heads were trained on.
"""

from __future__ import annotations

import re
import threading
import time
from functools import lru_cache
from typing import Any

_lock = threading.Lock()
_kiwi: Any = None

HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")


def has_hangul(text: str) -> bool:
    return HANGUL.search(text) is not None


def get_kiwi() -> Any:
    """The process-wide ``kiwipiepy.Kiwi`` instance, loaded on first use (thread-safe: one thread
    loads it, the others wait for it)."""
    global _kiwi
    if _kiwi is None:
        with _lock:
            if _kiwi is None:
                from kiwipiepy import Kiwi

                kiwi = Kiwi()
                # Both steps hold the GIL for about a second each: pause between them so that the
                # process's other threads (a server answering /health) get a turn.
                time.sleep(_PAUSE_SECONDS)
                kiwi.tokenize(_FIRST_ANALYSIS)  # builds what the constructor defers, before anyone shares it
                _kiwi = kiwi
    return _kiwi


_FIRST_ANALYSIS = "형태소 분석기를 미리 준비합니다."
_PAUSE_SECONDS = 0.05


def loaded() -> bool:
    """Whether this process has loaded Kiwi yet."""
    return _kiwi is not None


def warm_up() -> None:
    """Load Kiwi now rather than in the first request that analyses Korean."""
    get_kiwi()


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
