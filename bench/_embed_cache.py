"""An embedder that keeps its vectors in a SQLite file, so a benchmark re-run does not re-encode its corpus.

The wrapped embedder's ``model_id`` and ``dim`` are kept, so a bank built through the cache is the bank the
real embedder would have built; only the encoding is skipped for texts seen before.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from pathlib import Path

import numpy as np

from gieok.providers import create
from gieok.providers.embedders import Embedder, Kind

CACHE_DIR = Path(os.environ.get("GIEOK_BENCH_CACHE", Path.home() / ".cache" / "gieok-bench"))


class DiskCachedEmbedder(Embedder):
    def __init__(self, name: str, directory: Path = CACHE_DIR) -> None:
        super().__init__()
        self.inner = create("embedder", name)
        self.model_id, self.dim, self.batch_size = self.inner.model_id, self.inner.dim, self.inner.batch_size
        directory.mkdir(parents=True, exist_ok=True)
        # two benchmark processes may share the file: wait for the other's write instead of failing
        self._db = sqlite3.connect(directory / f"{name}.sqlite", check_same_thread=False, timeout=120)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS v (k TEXT PRIMARY KEY, vec BLOB)")
        self._lock = threading.Lock()

    def embed_batch(self, texts: list[str], kind: Kind) -> np.ndarray:
        keys = [hashlib.sha256(f"{kind}\0{t}".encode()).hexdigest() for t in texts]
        with self._lock:
            found = dict(self._db.execute(f"SELECT k, vec FROM v WHERE k IN ({','.join('?' * len(keys))})", keys))
        missing = [i for i, k in enumerate(keys) if k not in found]
        if missing:
            fresh = np.asarray(self.inner.embed_batch([texts[i] for i in missing], kind), dtype=np.float32)
            with self._lock:
                self._db.executemany("INSERT OR REPLACE INTO v VALUES (?, ?)",
                                     [(keys[i], fresh[j].tobytes()) for j, i in enumerate(missing)])
                self._db.commit()
            for j, i in enumerate(missing):
                found[keys[i]] = fresh[j].tobytes()
        return np.stack([np.frombuffer(found[k], dtype=np.float32) for k in keys])
