"""Consolidation triage on the blind split: the learned head against what consolidation did before it.

Reads ``bench/data/triage_blind.jsonl`` (written apart from the training pairs, by another helper;
never used to choose a feature, a weight or a bar) and prints accuracy and per-label precision and
recall, Korean (``ko`` and ``mixed``) and English apart, for:

* **head** — the learned decision model's answer (``gieok.providers.decisions``, task ``triage``),
  as consolidation receives it (a restatement or chatter only above its bar), handed the vectors
  as a bank on ``e5-small`` stores them (the fact's of its embedding text, "speaker: text"; the
  observation's of its statement said by its subject), so the head embeds nothing itself;
* **rules** — consolidation before the head, mapped to the four labels: a message retain keeps no
  fact of (its filler lists and filler model) is ``chatter``; otherwise the fact joins the
  observation when they share a topic — the fact names the observation's subject, or, naming no
  one, is said by it (``user`` for an observation about "사용자" / "the user") — and its text is
  rewritten: ``restates`` if the fact's words are already a statement of it (the text then stays as
  it was), else ``adds``; a fact on another topic is ``unrelated``.

``--split train`` measures the training file instead (an upper bound, not a result).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _embed_cache import DiskCachedEmbedder  # noqa: E402

from gieok import Memory  # noqa: E402
from gieok.engine.speakers import AGENT_SPEAKERS  # noqa: E402
from gieok.entities import extract_mentions  # noqa: E402
from gieok.extract.triage_model import EMBEDDER, LABELS, fact_embed_text, observation_embed_text  # noqa: E402
from gieok.providers.decisions import LearnedDecisions  # noqa: E402

SPLITS = {split: ROOT / "bench" / "data" / f"triage_{split}.jsonl" for split in ("blind", "train")}
_USER = re.compile(r"^\s*(?:사용자|유저|the user|user)\b", re.IGNORECASE)
_PARTICLE = re.compile(r"(?:은|는|이|가|의|씨는|씨의|님은|님의)$")


def subject(observation: str) -> str:
    """Whose observation it is, as consolidation's topic names it: ``user`` or the name it opens with."""
    if _USER.search(observation):
        return "user"
    first = observation.split()[0] if observation.split() else ""
    return _PARTICLE.sub("", re.sub(r"'s$", "", first.strip(",.:")))


def rules(mem: Memory, bank: str, item: dict[str, str]) -> str:
    kept = mem.retain(bank, [{"speaker": item["speaker"], "text": item["fact"]}]).facts_added
    if not kept:
        return "chatter"
    who = subject(item["observation"])
    names = {m.name for m in extract_mentions(item["fact"], item["speaker"], known=[who])}
    speaker = item["speaker"].lower()
    if names:
        same = any(who and (who in n or n in who) for n in names)
    else:
        same = speaker not in AGENT_SPEAKERS and (speaker == who.lower())
    if not same:
        return "unrelated"
    said = " ".join(item["fact"].split()).lower()
    return "restates" if said in item["observation"].lower() else "adds"


def report(name: str, pairs: list[tuple[str, str, str]]) -> None:
    for lang in ("ko", "en"):
        mine = [(gold, guess) for gold, guess, language in pairs if language == lang]
        if not mine:
            continue
        right = sum(g == p for g, p in mine) / len(mine)
        cells = []
        for label in LABELS:
            said = [g for g, p in mine if p == label]
            true = [p for g, p in mine if g == label]
            precision = f"{sum(g == label for g in said) / len(said):.3f}" if said else "  -  "
            recall = f"{sum(p == label for p in true) / len(true):.3f}" if true else "  -  "
            cells.append(f"{label} P {precision} R {recall}")
        print(f"{name:6s} {lang} (n={len(mine)}): accuracy {right:.3f} | " + " | ".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=sorted(SPLITS), default="blind")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = parser.parse_args()
    items = [json.loads(line) for line in SPLITS[args.split].read_text(encoding="utf-8").splitlines() if line.strip()]
    head = LearnedDecisions()
    stored = DiskCachedEmbedder(EMBEDDER)  # the vectors a bank would store, encoded once across runs
    found: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as folder, \
            Memory(str(Path(folder) / "triage.db"), embedder=DiskCachedEmbedder(EMBEDDER)) as mem:
        for n, item in enumerate(items):
            lang = "en" if item["lang"] == "en" else "ko"
            vectors = stored.embed([observation_embed_text(item["observation"]),
                                    fact_embed_text(item["fact"], item["speaker"])], "document")
            decision = head.decide("triage", hints={"vectors": vectors, "embedder": stored.model_id},
                                   observation=item["observation"], fact=item["fact"], speaker=item["speaker"])
            found["head"].append((item["label"], decision.answer, lang))
            found["rules"].append((item["label"], rules(mem, f"t{n}", item), lang))
    assert head._embedder is None, "the head embedded texts itself"
    print(f"consolidation triage on the {args.split} split ({len(items)} pairs)")
    for name in ("head", "rules"):
        report(name, found[name])
    if args.json:
        print(json.dumps({name: [[g, p, lang] for g, p, lang in pairs] for name, pairs in found.items()}))


if __name__ == "__main__":
    main()
