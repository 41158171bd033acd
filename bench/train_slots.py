"""Train the learned profile-slot model (gieok/extract/slot_model.py) and report it.

    python bench/train_slots.py [--folds 5] [--blind bench/data/profile_blind.jsonl] [--out gieok/data/slots.npz]
    python bench/train_slots.py --measure    # the shipped model on the blind split only (make bench-slots)

Training data: ``bench/data/profile_train_*.jsonl`` (written for this model by helpers who never saw
the rules; see bench/data/README.md). Cross-validation over items (folds fixed by item id) chooses
the slot head's bar for precision (F0.5 of the facts a lookup would use: the speaker's and their
relatives'); the model is then trained on every training item and shipped. The blind split is read
only to report, never to choose anything. Deterministic: same data, same weights.

A fact is right when its slot, its holder (the speaker, which relative, or someone else) and its value
(case, spaces and punctuation aside) are the reference's, and it is denied exactly when the reference
is. Facts about someone else are left out of precision and recall: lookup never uses them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _sparse import design, fit_softmax  # noqa: E402

from gieok.extract.slot_model import (  # noqa: E402
    HOLDERS,
    RELATIONS,
    SLOTS,
    SlotModel,
    _Head,
    asked,
    candidates,
    holder_features,
    negation_features,
    slot_features,
    tokens,
)
from gieok.text.sentences import split_sentences  # noqa: E402

DATA = sorted((ROOT / "bench" / "data").glob("profile_train_*.jsonl"))
BLIND = ROOT / "bench" / "data" / "profile_blind.jsonl"
OUT = ROOT / "gieok" / "data" / "slots.npz"
NONE_SHARE = 0.25  # of the runs that are no value, the share the slot head trains on
STEPS = 250
BARS = [round(x, 2) for x in np.arange(0.2, 0.96, 0.05)]


def load(paths: Iterable[Path]) -> list[dict[str, Any]]:
    items = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                item = json.loads(line)
                item.setdefault("context", "")
                item.setdefault("speaker_role", "user")
                item["slots"] = _one_convention(item["slots"])
                items.append(item)
    return items


_POSSESSIVE = re.compile(r"^(?:my|our|우리|울|제|내|저희)\s+", re.IGNORECASE)


def _kin_word(value: str) -> str:
    """A relative named by kinship alone, "my twin sister" or "울 언니", is the kinship words: the
    writers were asked for the words as written and some kept the possessive."""
    return _POSSESSIVE.sub("", value)


def _one_convention(facts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The writers' conventions made one: a relative's name is a family member of the speaker
    ("어머니 성함은 이순자예요": family 이순자, not the mother's name slot), and a relative named by
    kinship alone is the kinship words."""
    out: list[dict[str, Any]] = []
    for fact in facts:
        fact = dict(fact)
        holder = fact.get("holder")
        if fact.get("slot") == "name" and holder not in (None, "self", "other"):
            fact.update(slot="family", holder="self")
        if fact.get("slot") == "family" and fact.get("value"):
            fact["value"] = _kin_word(fact["value"])
        if not any(f.get("slot") == fact.get("slot") and f.get("value") == fact.get("value") for f in out):
            out.append(fact)
    return out


def _norm(text: str) -> str:
    return re.sub(r"[\s.,!?'\"’~]+", "", unicodedata.normalize("NFKC", text).lower())


def _holder(fact: dict[str, Any]) -> str:
    holder = str(fact.get("holder") or "other")
    if fact["slot"] == "family":
        return "self" if holder != "other" else "other"
    if holder in ("self", "other"):
        return holder
    return RELATIONS.get(holder, holder)


def _holder_class(fact: dict[str, Any]) -> int:
    holder = str(fact.get("holder") or "other")
    if fact["slot"] == "family":
        return HOLDERS.index("other" if holder == "other" else "relative")
    return HOLDERS.index(holder if holder in ("self", "other") else "relative")


Rows = tuple[list[dict[str, float]], list[int], list[dict[str, float]], list[int], list[dict[str, float]], list[int],
             int, int]


def examples(item: dict[str, Any]) -> Rows:
    """The three heads' rows of one item, and how many of its facts line up with token runs."""
    text, context, role = item["text"], item["context"], item["speaker_role"]
    turn = asked(context)
    slot_rows, slot_y, holder_rows, holder_y, neg_rows, neg_y = [], [], [], [], [], []
    facts = [f for f in item["slots"] if f.get("slot") in SLOTS and f.get("value")]
    aligned = 0
    for s_start, s_end in split_sentences(text):
        sentence = text[s_start:s_end]
        toks = tokens(sentence)
        spans = candidates(toks)
        gold: dict[tuple[int, int], dict[str, Any]] = {}
        for fact in facts:
            for m in re.finditer(re.escape(fact["value"]), sentence):
                i = next((k for k, t in enumerate(toks) if t.start == m.start()), None)
                j = next((k + 1 for k, t in enumerate(toks) if t.end == m.end()), None)
                if i is not None and j is not None and (i, j) in spans:
                    gold[(i, j)] = fact
        aligned += len({id(f) for f in gold.values()})
        for i, j in spans:
            fact = gold.get((i, j))
            slot_rows.append(slot_features(toks, i, j, sentence, turn, role))
            slot_y.append(0 if fact is None else 1 + SLOTS.index(fact["slot"]))
        for (i, j), fact in gold.items():
            holder_rows.append(holder_features(toks, i, j, fact["slot"], role, turn))
            holder_y.append(_holder_class(fact))
            neg_rows.append(negation_features(toks, i, j, fact["slot"], sentence))
            neg_y.append(int(bool(fact.get("negated"))))
    return slot_rows, slot_y, holder_rows, holder_y, neg_rows, neg_y, aligned, len(facts)


def train(rows_of: list[Rows]) -> SlotModel:
    """The three heads, trained on the rows of the given items (from :func:`examples`)."""
    heads = []
    for part, classes, l2, balance in ((0, 1 + len(SLOTS), 3e-5, 0.3), (2, len(HOLDERS), 1e-4, 0.2),
                                       (4, 2, 1e-4, 0.5)):
        rows = [r for item in rows_of for r in item[part]]
        y = np.asarray([v for item in rows_of for v in item[part + 1]], dtype=np.int64)
        if part == 0:  # most runs are no value: train on a fixed share of them, and say so in the bias
            keep = (y > 0) | (np.random.default_rng(7).random(len(y)) < NONE_SHARE)
            rows, y = [r for r, k in zip(rows, keep, strict=True) if k], y[keep]
        x, vocabulary = design(rows, min_count=2)
        w, b = fit_softmax(x, y, classes, l2, steps=STEPS, balance=balance)
        if part == 0:
            b[0] += np.log(1 / NONE_SHARE)
        heads.append(_Head(vocabulary, w, b))
    return SlotModel(heads[0], heads[1], heads[2], threshold=0.0)


def predicted(model: SlotModel, item: dict[str, Any]) -> list[tuple[float, str, str, str, bool]]:
    """(probability, slot, holder, normalised value, denied) of every fact the model reads in ``item``."""
    return [(v.probability, v.slot, v.holder, _norm(v.value), v.negated)
            for v in model.extract(item["text"], item["context"], item["speaker_role"])]


def reference(item: dict[str, Any]) -> list[tuple[str, str, str, bool]]:
    return [(f["slot"], _holder(f), _norm(f["value"]), bool(f.get("negated")))
            for f in item["slots"] if f.get("slot") in SLOTS and f.get("value")]


def score(pairs: list[tuple[list[tuple[float, str, str, str, bool]], list[tuple[str, str, str, bool]], str]],
          bar: float) -> dict[str, dict[str, float]]:
    """Precision and recall of the speaker's and relatives' facts, per language and in all."""
    counts: dict[str, Counter[str]] = {}
    for got, want, lang in pairs:
        kept = Counter((s, h, v, n) for p, s, h, v, n in got if p >= bar and h != "other")
        wanted = Counter(w for w in want if w[1] != "other")
        right = sum((kept & wanted).values())
        for key in ("all", lang):
            c = counts.setdefault(key, Counter())
            c["right"] += right
            c["got"] += sum(kept.values())
            c["wanted"] += sum(wanted.values())
            c["items"] += 1
            c["clean"] += int(not wanted and not kept)
            c["empty"] += int(not wanted)
    out = {}
    for key, c in counts.items():
        p = c["right"] / c["got"] if c["got"] else 1.0
        r = c["right"] / c["wanted"] if c["wanted"] else 1.0
        f05 = 1.25 * p * r / (0.25 * p + r) if p + r else 0.0
        out[key] = {"precision": p, "recall": r, "f0.5": f05, "facts": c["wanted"],
                    "no-fact items clean": c["clean"] / c["empty"] if c["empty"] else 1.0}
    return out


def _fold(item_id: str, folds: int) -> int:
    return int(hashlib.sha256(item_id.encode()).hexdigest(), 16) % folds


def table(title: str, figures: dict[str, dict[str, float]]) -> None:
    print(f"\n{title}")
    print(f"{'':8} {'precision':>9} {'recall':>7} {'F0.5':>6} {'facts':>6} {'clean':>6}")
    for key in ("all", "ko", "en", "mixed"):
        if key in figures:
            f = figures[key]
            print(f"{key:8} {f['precision']:9.3f} {f['recall']:7.3f} {f['f0.5']:6.3f} {int(f['facts']):6d} "
                  f"{f['no-fact items clean']:6.3f}")


def save(model: SlotModel, path: Path) -> None:
    arrays: dict[str, np.ndarray] = {"threshold": np.asarray(model.threshold)}
    for name, head in (("slot", model.slot), ("holder", model.holder), ("negated", model.negated)):
        names = sorted(head.vocabulary, key=head.vocabulary.__getitem__)
        arrays[f"{name}_features"] = np.asarray(names)
        arrays[f"{name}_weights"] = head.weights.astype(np.float16)
        arrays[f"{name}_bias"] = head.bias.astype(np.float32)
    np.savez_compressed(path, **arrays)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, nargs="+", default=DATA)
    parser.add_argument("--blind", type=Path, default=BLIND)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--measure", action="store_true", help="only score the shipped model on the blind split")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    if args.measure:
        from gieok.extract.slot_model import slot_model

        shipped = slot_model()
        assert shipped is not None, "gieok/data/slots.npz is missing: make train-slots"
        blind = load([args.blind])
        table(f"blind split ({args.blind.name}, {len(blind)} items), shipped model, bar {shipped.threshold:.2f}",
              score([(predicted(shipped, it), reference(it), it["lang"]) for it in blind], shipped.threshold))
        return
    items = load(args.data)
    print(f"{len(items)} training items from {', '.join(p.name for p in args.data)}")
    rows_of = [examples(item) for item in items]
    aligned = sum(r[6] for r in rows_of)
    total = sum(r[7] for r in rows_of)
    print(f"candidate runs cover {aligned}/{total} reference values ({aligned / max(total, 1):.3f})")

    pairs = []
    for fold in range(args.folds):
        model = train([r for it, r in zip(items, rows_of, strict=True) if _fold(it["id"], args.folds) != fold])
        pairs += [(predicted(model, it), reference(it), it["lang"]) for it in items
                  if _fold(it["id"], args.folds) == fold]
        print(f"fold {fold + 1}/{args.folds} done", flush=True)
    by_bar = {bar: score(pairs, bar) for bar in BARS}
    bar = max(BARS, key=lambda b: (round(by_bar[b]["all"]["f0.5"], 3), b))
    print("bars (cross-validation): " + ", ".join(f"{b:.2f}: P {by_bar[b]['all']['precision']:.3f} "
                                                   f"R {by_bar[b]['all']['recall']:.3f}" for b in BARS))
    table(f"cross-validation, bar {bar:.2f}", by_bar[bar])
    figures: dict[str, Any] = {"bar": bar, "cross_validation": by_bar[bar]}

    model = train(rows_of)
    model = SlotModel(model.slot, model.holder, model.negated, bar)
    save(model, args.out)
    print(f"\nwrote {args.out} ({args.out.stat().st_size // 1024} KB)")
    if args.blind.is_file():
        blind = load([args.blind])
        got = score([(predicted(model, it), reference(it), it["lang"]) for it in blind], bar)
        table(f"blind split ({args.blind.name}, {len(blind)} items): model", got)
        figures["blind_model"] = got
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
