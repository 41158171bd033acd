"""The documentation site builds with ``mkdocs build --strict``: every page in the nav, every
relative link and anchor resolving, every ``::: gieok...`` object found. Offline, a few seconds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    home = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "기억" in home
    reference = (tmp_path / "site" / "reference" / "python-api" / "index.html").read_text(encoding="utf-8")
    assert "recall" in reference and "Memory" in reference
    assert (tmp_path / "site" / "ui" / "recall-ko.png").exists()
