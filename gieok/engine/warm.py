"""Warming a process up: loading, before the first request, what that request would otherwise load.

A new process pays three loads on its first retain or recall: the engine's own modules (imported on
first use behind the facade, about 0.4 s: their patterns compile at import), the bank's embedder (the
default e5-small loads memory-mapped, a few hundredths of a second) and Kiwi, the Korean morpheme
analyser (one to two seconds: see :mod:`gieok.text.korean`); recall's learned ranker is read from
its JSON once as well. :func:`warm_up` does all of it, so
``gieok serve`` can report ready (``/ready``) and ``gieok worker`` can claim its first job without
spending a request's or a job's time on them. It changes nothing stored and is safe to call again
(each load happens once per process).
"""

from __future__ import annotations

import importlib

from gieok.engine.context import Engine
from gieok.engine.recall.rank_model import ranker
from gieok.text import korean

__all__ = ["WARMED_MODULES", "warm_up"]

# the engine's verbs, whose imports carry the components' compiled patterns and learned heads
WARMED_MODULES = ("gieok.engine.recall.run", "gieok.engine.retain.run", "gieok.engine.reflect.run",
                  "gieok.engine.jobs.queue")


def warm_up(engine: Engine) -> None:
    """Import the engine's verbs, load ``engine``'s default embedder (one query embedded) and Kiwi."""
    for name in WARMED_MODULES:
        importlib.import_module(name)
    engine.embedder().embed_query("warm-up 준비")
    korean.warm_up()
    ranker()
