"""Micro-batching: concurrent embed calls of one kind share one ``embed_batch`` call.

Leader/follower, so a lone caller waits for nothing. A caller that finds a free slot (fewer than
``parallel`` batches running) leads: it takes its own texts plus whatever other callers have queued
(oldest first, up to ``batch_size`` texts), runs one batch and hands each caller its rows. Callers
that arrive while every slot is busy queue up and sleep on their own event; when a batch ends, its
leader wakes its followers with their vectors and names the oldest caller still queued as the next
leader, who takes the queue as it then is. Only the threads concerned wake (no ``notify_all``
herd), and a slot is never idle while callers wait. ``parallel`` > 1 is for a model that can run
that many batches at once (e5-small: one handle per batch, one core per handle).

``window`` (seconds, default 0) makes a leader sleep before it gathers, so that more callers join;
it adds that much to every batch, a lone caller's included, and is off unless measured to pay.

Errors: an ``Exception`` from the batch reaches every caller of that batch (the same object, as
:meth:`concurrent.futures.Future.result` raises it). A ``BaseException`` (``KeyboardInterrupt``,
``SystemExit``) belongs to the leader's thread alone: the other callers' texts go back to the head
of the queue and the next leader runs them. A caller interrupted while it waits leaves the queue,
or, if it had just been named leader, names the next one, so nobody waits for a caller that left.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

import numpy as np

__all__ = ["Batcher"]


class _Call:
    """One caller's texts, and what it gets back: its vectors, an error, or the lead."""

    __slots__ = ("texts", "wake", "vectors", "error", "lead")

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.wake = threading.Event()
        self.vectors: np.ndarray | None = None
        self.error: Exception | None = None
        self.lead = False

    def outcome(self) -> np.ndarray:
        if self.error is not None:
            raise self.error
        assert self.vectors is not None  # set before wake, with error None
        return self.vectors


class Batcher:
    """Coalesces concurrent :meth:`run` calls into calls of ``embed(texts)`` on their concatenation.

    ``embed`` returns one row per text. ``batch_size`` and ``window`` are read at every batch (a call
    larger than ``batch_size`` still runs, alone: splitting is the caller's business)."""

    def __init__(self, embed: Callable[[list[str]], np.ndarray], batch_size: Callable[[], int],
                 window: Callable[[], float] = lambda: 0.0, parallel: Callable[[], int] = lambda: 1) -> None:
        self._embed = embed
        self._batch_size = batch_size
        self._window = window
        self._parallel = parallel
        self._lock = threading.Lock()
        self._queue: deque[_Call] = deque()
        self._leaders = 0  # batches running, or leaders named and about to run one
        self._leading = threading.local()  # a thread running a batch must not queue behind itself
        self.batches = 0  # batches run, for tests and benchmarks
        self.texts = 0  # texts embedded in them

    def run(self, texts: list[str]) -> np.ndarray:
        """Embed ``texts``, together with whatever other threads are embedding now."""
        if getattr(self._leading, "now", False):
            return self._embed(texts)  # called from inside a batch (an embed_batch that embeds): no wait
        call = _Call(texts)
        with self._lock:
            if self._leaders < max(1, self._parallel()):
                self._leaders += 1
                call.lead = True
            else:
                self._queue.append(call)
        try:
            if not call.lead:
                call.wake.wait()
                if not call.lead:
                    return call.outcome()
            window = self._window()
            if window > 0:
                time.sleep(window)
        except BaseException:
            self._abandon(call)
            raise
        return self._lead(call)

    def _gather(self, leader: _Call) -> list[_Call]:
        """The leader's texts first, then the oldest queued calls while they fit in ``batch_size``."""
        batch = [leader]
        room = self._batch_size() - len(leader.texts)
        with self._lock:
            while self._queue and len(self._queue[0].texts) <= room:
                call = self._queue.popleft()
                room -= len(call.texts)
                batch.append(call)
        return batch

    def _lead(self, leader: _Call) -> np.ndarray:
        batch: list[_Call] = []
        followers: list[_Call] = []
        try:
            batch = self._gather(leader)
            followers = batch[1:]
            texts = [text for call in batch for text in call.texts]
            self._leading.now = True
            try:
                vectors = self._embed(texts)
            finally:
                self._leading.now = False
            with self._lock:
                self.batches += 1
                self.texts += len(texts)
            start = 0
            for call in batch:
                call.vectors = vectors[start : start + len(call.texts)]
                start += len(call.texts)
        except Exception as exc:
            for call in [leader, *followers]:
                call.error = exc
        except BaseException:
            with self._lock:  # the leader's thread was interrupted: another leader runs the rest
                self._queue.extendleft(reversed(followers))
            followers = []
            raise
        finally:
            for call in followers:
                call.wake.set()
            self._pass_lead()
        return leader.outcome()

    def _pass_lead(self) -> None:
        """Name the oldest queued caller leader in this slot, or free the slot."""
        with self._lock:
            if self._queue:
                nxt = self._queue.popleft()
                nxt.lead = True
                nxt.wake.set()
            else:
                self._leaders -= 1

    def _abandon(self, call: _Call) -> None:
        """A caller leaves before leading a batch (interrupted while waiting, or its batch failed)."""
        with self._lock:
            if call in self._queue:
                self._queue.remove(call)
                return
            if not call.lead:
                return  # its batch ran, or is running, without it
        self._pass_lead()
