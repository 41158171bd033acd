"""``python tests/worker_child.py ARGS``: the gieok CLI in a child process with the tests' fake
embedder registered (as ``fake``), for tests and benches that run real ``gieok worker`` processes.
``WORKER_CHILD_EMBED_SLEEP`` (seconds) makes each document embedding that slow, so a job is still running
when the test signals the process; ``WORKER_CHILD_REEMBED_BATCH`` makes a reembed's batches that small,
so a test can kill the worker between two of them."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conftest import FakeEmbedder  # noqa: E402

from gieok.cli import main  # noqa: E402
from gieok.engine.jobs import reembed  # noqa: E402
from gieok.providers import registry  # noqa: E402


class SlowFakeEmbedder(FakeEmbedder):
    def embed_batch(self, texts: list[str], kind: str) -> np.ndarray:  # type: ignore[override]
        if kind == "document":  # the worker's warm-up embeds a query: it stays fast
            time.sleep(float(os.environ.get("WORKER_CHILD_EMBED_SLEEP", "0")))
        return super().embed_batch(texts, kind)


if __name__ == "__main__":
    registry.register("embedder", "fake", SlowFakeEmbedder, replace=True)
    reembed.BATCH = int(os.environ.get("WORKER_CHILD_REEMBED_BATCH", reembed.BATCH))
    main()
