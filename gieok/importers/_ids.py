"""Message ids that stay the same when the same export is imported again."""

from __future__ import annotations

import hashlib
from collections import Counter

__all__ = ["StableIds"]


class StableIds:
    """``prefix-<hash>`` of (time, speaker, text), with a counter for a message repeated word for word
    at the same minute: re-importing a longer export of the same chat gives its old messages the same
    ids, so retain skips them."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.seen: Counter[str] = Counter()

    def next(self, timestamp: str, speaker: str, text: str) -> str:
        # surrogatepass: a lone surrogate still gets an id, and retain then refuses the text with a typed error
        digest = hashlib.sha256(f"{timestamp}\x1f{speaker}\x1f{text}".encode("utf-8", "surrogatepass")).hexdigest()[:16]
        self.seen[digest] += 1
        n = self.seen[digest]
        return f"{self.prefix}-{digest}" + (f"-{n}" if n > 1 else "")
