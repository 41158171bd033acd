"""Entity kinds on a blind split: the learned head against the rules it replaced.

Each item of ``bench/data/entity_blind.jsonl`` (written by a helper who never saw the training set
or the code; see bench/data/README.md) is a text, a span in it and the span's kind (person / place /
org / thing / none). Three readers answer:

* **head** — the learned head on the span itself (``gieok.entities._kind_model``);
* **extractor** — what retain keeps today: ``extract_mentions`` on the text, the kind of the mention
  covering the span, ``none`` when no mention covers it (the head judging each candidate);
* **rules** — the same, with the extractor of ``--rules-commit`` (the suffix, particle and title rules
  before the head replaced them), run from ``git archive`` of that commit in a subprocess. The rules
  had a fifth answer, ``unknown`` (a kept entity of no kind, which the engine treated as person-like).

Per language (ko, en, mixed): accuracy, precision / recall per kind, "places called people" (gold
place, answered person) and "non-names kept as entities" (gold none, answered anything else).
``--data`` measures another file (the training set, to compare); ``--json`` writes the figures.
Never train or tune on the blind file.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gieok.entities import extract_mentions  # noqa: E402
from gieok.entities._kind_model import KIND_OPTIONS, kind_model, span_at  # noqa: E402

DATA = ROOT / "bench" / "data" / "entity_blind.jsonl"
RULES_COMMIT = "ba429f3"  # main before the head: the kinds came from rules in gieok/entities/
LANGS = ("ko", "en", "mixed")

# Run inside the old tree: the kind of the mention covering each span, or none.
_COVERING = """
import json, sys
from gieok.entities import extract_mentions
out = []
for line in sys.stdin:
    item = json.loads(line)
    text = item["text"]; start = text.find(item["span"]); end = start + len(item["span"])
    kinds = [m.kind for m in extract_mentions(text) if m.start < end and m.end > start]
    out.append(kinds[0] if kinds else "none")
print(json.dumps(out))
"""


def load(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def head_kinds(items: list[dict[str, str]]) -> list[str]:
    model = kind_model()
    return [model.judge(it["text"], *span_at(it["text"], it["span"])).kind for it in items]


def extractor_kinds(items: list[dict[str, str]]) -> list[str]:
    out = []
    for it in items:
        start, end = span_at(it["text"], it["span"])
        kinds = [m.kind for m in extract_mentions(it["text"]) if m.start < end and m.end > start]
        out.append(kinds[0] if kinds else "none")
    return out


def rules_kinds(items: list[dict[str, str]], commit: str) -> list[str]:
    with tempfile.TemporaryDirectory() as tree:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "gieok"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tree], input=archive, check=True)
        lines = "".join(json.dumps(it, ensure_ascii=False) + "\n" for it in items)
        done = subprocess.run([sys.executable, "-c", _COVERING], input=lines, capture_output=True, text=True,
                              check=True, cwd=tree, env={"PYTHONPATH": tree, "PATH": "/usr/bin:/bin"})
    return list(json.loads(done.stdout))


def figures(items: list[dict[str, str]], predicted: list[str]) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    for lang in (*LANGS, "all"):
        rows = [(it["kind"], p) for it, p in zip(items, predicted) if lang in ("all", it["lang"])]
        if not rows:
            continue
        places = [p for g, p in rows if g == "place"]
        nones = [p for g, p in rows if g == "none"]
        per_kind = {}
        for kind in KIND_OPTIONS:
            tp = sum(g == p == kind for g, p in rows)
            said, gold = sum(p == kind for _, p in rows), sum(g == kind for g, _ in rows)
            per_kind[kind] = {"precision": round(tp / max(said, 1), 3), "recall": round(tp / max(gold, 1), 3)}
        out[lang] = {"n": len(rows), "accuracy": round(sum(g == p for g, p in rows) / len(rows), 3),
                     "places_called_people": round(places.count("person") / max(len(places), 1), 3),
                     "non_names_kept": round(sum(p != "none" for p in nones) / max(len(nones), 1), 3),
                     "unknown": round(sum(p == "unknown" for _, p in rows) / len(rows), 3), "kinds": per_kind}
    return out


def show(name: str, table: dict[str, dict[str, object]]) -> None:
    print(name)
    for lang, row in table.items():
        print(f"  {lang:5} n={row['n']:4}  accuracy {row['accuracy']:.3f}  places called people "
              f"{row['places_called_people']:.3f}  non-names kept {row['non_names_kept']:.3f}  "
              f"unknown {row['unknown']:.3f}")
        kinds = row["kinds"]
        assert isinstance(kinds, dict)
        print("        " + " · ".join(f"{k} P {v['precision']:.2f} R {v['recall']:.2f}" for k, v in kinds.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--rules-commit", default=RULES_COMMIT)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    items = load(args.data)
    print(f"{len(items)} spans of {args.data.name}")
    results = {"head": figures(items, head_kinds(items)),
               "extractor": figures(items, extractor_kinds(items)),
               f"rules@{args.rules_commit}": figures(items, rules_kinds(items, args.rules_commit))}
    for name, table in results.items():
        show(name, table)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
