"""Thread pools are sized from the cores this process may use, idle threads sleep, and what the
operator set in the environment wins (gieok/_threads.py). Each case runs in a fresh interpreter:
the pool sizes are read once, when gieok is imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

_PROBE = ("import json, os, gieok; print(json.dumps({k: os.environ.get(k) for k in "
          "('OMP_NUM_THREADS', 'OMP_WAIT_POLICY', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS')}))")
_POOL_VARS = ("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "GIEOK_THREADS")


def _probe(env: dict[str, str], cpus: set[int] | None = None) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if k not in _POOL_VARS}
    clean.update(env)
    setup = (lambda: os.sched_setaffinity(0, cpus)) if cpus is not None else None
    out = subprocess.run([sys.executable, "-c", _PROBE], env=clean, capture_output=True, text=True, check=True,
                         preexec_fn=setup)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_defaults_follow_the_usable_cores_and_let_idle_threads_sleep() -> None:
    cores = len(os.sched_getaffinity(0))
    found = _probe({})
    assert found == {"OMP_NUM_THREADS": str(min(cores, 4)), "OMP_WAIT_POLICY": "PASSIVE",
                     "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="CPU affinity is Linux-only")
def test_a_process_pinned_to_one_core_uses_one_thread() -> None:
    assert _probe({}, cpus={sorted(os.sched_getaffinity(0))[0]})["OMP_NUM_THREADS"] == "1"


def test_the_threads_setting_and_the_operators_variables_win() -> None:
    assert _probe({"GIEOK_THREADS": "3"})["OMP_NUM_THREADS"] == "3"
    assert _probe({"GIEOK_THREADS": "0"})["OMP_NUM_THREADS"] == str(min(len(os.sched_getaffinity(0)), 4))
    chosen = _probe({"OMP_NUM_THREADS": "7", "OMP_WAIT_POLICY": "ACTIVE", "GIEOK_THREADS": "2"})
    assert chosen["OMP_NUM_THREADS"] == "7" and chosen["OMP_WAIT_POLICY"] == "ACTIVE"


def test_the_threads_setting_is_a_documented_setting() -> None:
    from gieok.settings import resolve_settings

    assert resolve_settings({}).threads == 0
    assert resolve_settings({"threads": "2"}).threads == 2
