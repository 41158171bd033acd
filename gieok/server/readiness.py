"""Live and ready: ``/health`` answers as soon as the server does, ``/ready`` once it has warmed up.

A new server process would otherwise spend its first requests loading what they need — the engine's
modules, the embedder and Kiwi, the Korean morpheme analyser, about two seconds on a small machine
(docs/benchmarks/coldstart.md). So the server's lifespan starts :meth:`Readiness.start`, which runs
the warm-up (:meth:`gieok.Memory.warm_up`) in a background thread, and ``/ready`` answers 503 until
it has finished, 200 after: a load balancer or an orchestrator's readiness probe sends traffic only
to a warm server, while its liveness probe (``/health``) never waits on the models.

A warm-up that fails (a model that cannot load) leaves ``/ready`` at 503 with the error, logged once:
the requests that need that model would fail the same way.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["Readiness"]

log = logging.getLogger("gieok.server")


class Readiness:
    """Whether the server has warmed up. ``warm_up`` is what to run (None: ready at once)."""

    def __init__(self, warm_up: Callable[[], object] | None) -> None:
        self._warm_up = warm_up
        self._lock = threading.Lock()
        self._started: float | None = None
        self._seconds: float | None = 0.0 if warm_up is None else None
        self._error: str | None = None
        self._done = threading.Event()
        if warm_up is None:
            self._done.set()

    def start(self) -> None:
        """Run the warm-up in a background thread (once: later calls do nothing)."""
        with self._lock:
            if self._started is not None or self._warm_up is None:
                return
            self._started = time.monotonic()
        threading.Thread(target=self._run, name="gieok-warm-up", daemon=True).start()

    def _run(self) -> None:
        assert self._warm_up is not None and self._started is not None
        try:
            self._warm_up()
        except Exception as exc:  # reported by /ready and logged; the server keeps answering
            self._error = f"{type(exc).__name__}: {exc}"
            log.exception("warm-up failed: /ready stays 503")
        else:
            log.info("ready: warmed up in %.1f s (the engine, the embedder and the Korean analyser loaded)",
                     time.monotonic() - self._started)
        finally:
            self._seconds = time.monotonic() - self._started
            self._done.set()

    @property
    def ready(self) -> bool:
        return self._done.is_set() and self._error is None

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the warm-up has finished (or ``timeout`` seconds); whether the server is ready."""
        self._done.wait(timeout)
        return self.ready

    def report(self) -> dict[str, Any]:
        """What ``/ready`` tells: ``ready``, ``state`` (``starting`` before the warm-up began,
        ``warming``, ``ready`` or ``failed``), the warm-up's ``seconds`` so far or in all, and the
        ``warm_up_error`` if it failed."""
        if self._done.is_set():
            state = "failed" if self._error is not None else "ready"
            seconds = self._seconds
        elif self._started is None:
            state, seconds = "starting", None
        else:
            state, seconds = "warming", time.monotonic() - self._started
        return {"ready": state == "ready", "state": state,
                "seconds": None if seconds is None else round(seconds, 3), "warm_up_error": self._error}

    def detail(self) -> str:
        """Why the server is not ready yet, and what to do, in one sentence."""
        report = self.report()
        if report["state"] == "failed":
            return ("the warm-up failed (warm_up_error; the server's log has the traceback): requests that "
                    "need those models fail the same way until the cause is fixed and the server restarted")
        if report["state"] == "starting":
            return "the server has not started warming up yet: retry in a moment"
        return (f"warming up: loading the engine, the embedder and the Korean analyser "
                f"({report['seconds']:.1f} s so far, about 2 s in all on a small machine); retry in a moment")
