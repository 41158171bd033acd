"""Thread pools that do not oversubscribe the machine.

The e5 engine (OpenMP), OpenBLAS / MKL under numpy and Kiwi each start a pool of their own, by
default one thread per core of the *machine*, spinning while they wait. On a small shared machine a
busy core then turns a 40 ms recall into seconds (measured: p95 1.7 s with the default OpenMP
settings and two competing processes on 2 cores; 0.1 s with these). So, once, before any of those
libraries loads (``import gieok`` runs this first):

* ``OMP_NUM_THREADS`` — the e5 engine's threads — is the ``threads`` setting (``GIEOK_THREADS``),
  or when it is 0 (the default) the number of cores this process may run on (its CPU affinity,
  which containers and ``taskset`` narrow), at most :data:`MAX_AUTO_THREADS`;
* ``OMP_WAIT_POLICY=PASSIVE``: idle OpenMP threads sleep instead of spinning on a core another
  process needs;
* ``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS`` = 1: numpy's work here is small matrix products,
  where a pool costs more than it gains.

A variable already set in the environment is left as it is: the operator's choice wins.
"""

from __future__ import annotations

import os

__all__ = ["MAX_AUTO_THREADS", "available_cores", "configure_threads", "effective_threads"]

MAX_AUTO_THREADS = 4


def available_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def _wanted(threads: int | None) -> int:
    if threads is None:
        raw = os.environ.get("GIEOK_THREADS", "0").strip() or "0"
        threads = int(raw) if raw.isdigit() else 0
    return int(threads) if threads and threads > 0 else min(available_cores(), MAX_AUTO_THREADS)


def configure_threads(threads: int | None = None) -> int:
    """Set the pool sizes (see the module docstring) where the environment has not; returns the e5
    engine's thread count. Effective for a library only if it has not loaded yet."""
    os.environ.setdefault("OMP_NUM_THREADS", str(_wanted(threads)))
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("MKL_NUM_THREADS", "1")
    return effective_threads()


def effective_threads() -> int:
    raw = os.environ.get("OMP_NUM_THREADS", "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else available_cores()
