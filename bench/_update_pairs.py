"""An experimental update head for bench/train_updates.py: does a later statement update an earlier
one? A classifier of the *pair*. Not shipped (docs/benchmarks/supersede.md, "A head of the pair").

Logistic regression over two kinds of features of (earlier, later):

* **dense** — the two statements' vectors from the bundled embedder (``e5-small``, passages): their
  cosine, ``a * b`` and ``|a - b|``, standardised with the training mean and spread;
* **lexical** — named, structural features of the pair, never the later statement's own words (a
  head that reads those learns "does the later statement announce a change", and closes facts on
  any other topic): the content words shared and new, what the slot model reads in each (the same
  slot and holder with another value says update; another holder says no), change, correction,
  plan, question, negation and hearsay markers — each also crossed with how close the two are —
  numbers, relatives named, lengths, and who said each.

Trained by ``bench/train_updates.py`` on written pairs (``bench/data/supersede_train.jsonl`` and
``supersede_pairs.json`` tune / held-out / fresh), pairs of statements from different written
items, and consecutive statements of one speaker in real chats; ``--out`` writes the weights with
the bar (the probability from which the answer is yes) as a float16 npz.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from gieok.text.korean import has_hangul
from gieok.text.terms import keyword_terms

__all__ = ["EMBEDDER", "UpdateModel", "dense_features", "lexical_features", "load", "standardised"]

EMBEDDER = "e5-small"
# each block scaled so that one row's squared length is a few units (plain gradient descent trains it):
# some 25 named features are active in a pair, and the dense block has 769 standardised columns
LEXICAL_SCALE = 0.3
DENSE_SCALE = 0.05

_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
_SENTENCE = re.compile(r"[.!?。]+\s|[.!?]$|다\.\s|\n")
# each group a feature of its own: which kind of change the later statement says
_CUES: dict[str, re.Pattern[str]] = {
    "now": re.compile(r"이제|요즘은|지금은|이번에|\b(?:now|these days|currently|nowadays)\b", re.I),
    "move": re.compile(r"이사|옮겼|옮기|이직|전근|발령|전학|\b(?:moved|relocated|transferred|switched jobs?)\b", re.I),
    "stop": re.compile(r"그만|끊었|관뒀|퇴사|접었|안 (?:해|다녀|먹어|마셔)|\b(?:quit|stopped|anymore|no longer|"
                       r"gave up|left|retired)\b", re.I),
    "switch": re.compile(r"바꿨|바뀌|바꾸|갈아탔|대신|\b(?:switched|changed|instead|replaced|swapped|"
                         r"traded)\b", re.I),
    "begin": re.compile(r"시작했|생겼|됐어|되었|됐다|붙었|합격|\b(?:started|became|got|began|joined|new)\b", re.I),
    "correct": re.compile(r"말고|아니고|아니라|잘못|정정|헷갈|\b(?:actually|i meant|correction|not \w+,? but|"
                          r"mistake|wrong|misspoke|scratch that)\b", re.I),
    "past": re.compile(r"었었|았었|예전에|전에는|\b(?:used to|previously|before|formerly|was)\b", re.I),
}
_PLAN = re.compile(r"할까|려고|까 봐|계획|예정|생각 중|고민|싶어|싶다|것 같|수도|\b(?:might|maybe|thinking of|"
                   r"thinking about|plan(?:ning)? to|going to|will|would|want to|hope to|considering)\b", re.I)
_QUESTION = re.compile(r"[?？]\s*$|(?:니|냐|나요|까요|ㄹ까|을까)\s*[.?]*\s*$")
_NEGATION = re.compile(r"(?:^|\s)(?:안|못)\s|않|없|아니|\b(?:not|never|no|don't|doesn't|didn't|isn't|wasn't)\b", re.I)
_HEARSAY = re.compile(r"대요?\b|래요?\b|더라|\b(?:said|says|told me|heard)\b", re.I)
_RELATIVE = re.compile(r"엄마|아빠|어머니|아버지|언니|누나|오빠|형|동생|남편|아내|와이프|남친|여친|아들|딸|할머니|"
                       r"할아버지|친구|동료|팀장|\b(?:mom|dad|mother|father|sister|brother|husband|wife|boyfriend|"
                       r"girlfriend|son|daughter|grandma|grandpa|friend|coworker|boss|partner|roommate)\b", re.I)
_FIRST = re.compile(r"(?:^|\s)(?:나|난|내|저|전|제|저희|우리)(?:\s|$|가|는|도|요)|\b(?:I|I'm|my|me|we|our)\b")


def _bucket(value: float, edges: tuple[float, ...]) -> int:
    return sum(value >= edge for edge in edges)


@lru_cache(maxsize=4096)
def _terms(text: str) -> frozenset[str]:
    return frozenset(t.lower() for t in keyword_terms(text))


@lru_cache(maxsize=4096)
def _slots(text: str) -> tuple[tuple[str, str, str, bool], ...]:
    """(holder, slot, value, negated) the slot model reads in ``text`` (family values left out: they
    name a relative, not a value of one)."""
    from gieok.extract.slot_model import slot_model

    model = slot_model()
    if model is None:  # pragma: no cover - the package ships its weights
        return ()
    return tuple((v.holder, v.slot, v.value.lower(), v.negated) for v in model.extract(text) if v.slot != "family")


def _slot_features(earlier: str, later: str) -> dict[str, float]:
    out: dict[str, float] = {}
    old, new = _slots(earlier), _slots(later)
    out[f"slots_{min(len(old), 1)}{min(len(new), 1)}"] = 1.0
    for holder, slot, value, negated in new:
        for old_holder, old_slot, old_value, _ in old:
            if slot != old_slot:
                continue
            if holder != old_holder:
                out["slot_other_holder"] = 1.0
            elif value == old_value:
                out["slot_negated_same" if negated else "slot_same_value"] = 1.0
            else:
                out["slot_new_value"] = 1.0
                out[f"slot_new_value_{slot}"] = 1.0
    return out


def _markers(text: str, prefix: str) -> dict[str, float]:
    out = {f"{prefix}{name}": 1.0 for name, pattern in _CUES.items() if pattern.search(text)}
    for name, pattern in (("plan", _PLAN), ("question", _QUESTION), ("negation", _NEGATION),
                          ("hearsay", _HEARSAY), ("relative", _RELATIVE), ("first", _FIRST)):
        if pattern.search(text):
            out[f"{prefix}{name}"] = 1.0
    return out


def lexical_features(earlier: str, later: str, earlier_speaker: str, later_speaker: str,
                     cosine: float) -> dict[str, float]:
    """Named features of the pair (``cosine``: of the two statements' vectors; its bucket is crossed
    with the later statement's markers, since a change word says update only about the same topic)."""
    return {name: LEXICAL_SCALE * value for name, value in
            _lexical(earlier, later, earlier_speaker, later_speaker, cosine).items()}


def _lexical(earlier: str, later: str, earlier_speaker: str, later_speaker: str, cosine: float) -> dict[str, float]:
    out: dict[str, float] = {}
    old_terms, new_terms = _terms(earlier), _terms(later)
    shared = old_terms & new_terms
    share = len(shared) / len(new_terms | old_terms) if new_terms | old_terms else 0.0
    close = _bucket(cosine, (0.8, 0.85, 0.88, 0.91))
    out[f"cos_b{close}"] = 1.0
    out[f"share_b{_bucket(share, (0.01, 0.15, 0.3, 0.5))}"] = 1.0
    out[f"shared_n{min(len(shared), 3)}"] = 1.0
    out[f"new_n{min(len(new_terms - old_terms), 6) // 2}"] = 1.0
    new_markers, old_markers = _markers(later, "new_"), _markers(earlier, "old_")
    out.update(new_markers)
    out.update(old_markers)
    related = f"{close}{min(len(shared), 2)}"
    for name in new_markers:
        out[f"{name}&close{related}"] = 1.0
    slots = _slot_features(earlier, later)
    out.update(slots)
    for name in slots:
        out[f"{name}&close{close}"] = 1.0
    old_numbers, new_numbers = set(_NUMBER.findall(earlier)), set(_NUMBER.findall(later))
    if old_numbers and new_numbers:
        out["numbers_differ" if new_numbers - old_numbers else "numbers_same"] = 1.0
    old_relatives = {m.lower() for m in _RELATIVE.findall(earlier)}
    new_relatives = {m.lower() for m in _RELATIVE.findall(later)}
    if old_relatives or new_relatives:
        out["relative_same" if old_relatives == new_relatives else "relative_differs"] = 1.0
    sentences = len(_SENTENCE.findall(later.strip() + " "))
    out[f"sentences_{min(sentences, 3)}"] = 1.0
    out[f"length_b{_bucket(len(later), (40, 80, 160, 320))}"] = 1.0
    out["speaker_same" if earlier_speaker == later_speaker else "speaker_differs"] = 1.0
    out[f"lang_{'ko' if has_hangul(later) else 'en'}"] = 1.0
    return out


def dense_features(earlier_vector: np.ndarray, later_vector: np.ndarray) -> np.ndarray:
    """cosine, ``a * b`` and ``|a - b|``, one row (the vectors are unit length), not yet standardised."""
    a = np.asarray(earlier_vector, dtype=np.float64)
    b = np.asarray(later_vector, dtype=np.float64)
    return np.concatenate([[float(a @ b)], a * b, np.abs(a - b)])


def standardised(dense: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    return np.asarray((dense - mean) / scale * DENSE_SCALE)


@dataclass(frozen=True)
class UpdateModel:
    vocabulary: dict[str, int]
    lexical: np.ndarray  # (features,)
    dense: np.ndarray  # (dense dims,)
    bias: float
    mean: np.ndarray  # dense standardisation
    scale: np.ndarray
    threshold: float  # the probability from which the answer is yes

    def probability(self, earlier: str, later: str, earlier_speaker: str, later_speaker: str,
                    earlier_vector: np.ndarray, later_vector: np.ndarray) -> float:
        """P(``later`` updates ``earlier``)."""
        dense = dense_features(earlier_vector, later_vector)
        z = self.bias + float(standardised(dense, self.mean, self.scale) @ self.dense)
        for name, value in lexical_features(earlier, later, earlier_speaker, later_speaker, float(dense[0])).items():
            column = self.vocabulary.get(name)
            if column is not None:
                z += value * float(self.lexical[column])
        return float(1.0 / (1.0 + np.exp(-z)))

    def save(self, path: str) -> None:
        names = sorted(self.vocabulary, key=self.vocabulary.__getitem__)
        np.savez_compressed(path, names=np.array(names), lexical=self.lexical.astype(np.float16),
                            dense=self.dense.astype(np.float16), bias=np.array([self.bias], dtype=np.float32),
                            mean=self.mean.astype(np.float16), scale=self.scale.astype(np.float16),
                            threshold=np.array([self.threshold], dtype=np.float32))


def load(path: Path) -> UpdateModel:
    """Weights written by :meth:`UpdateModel.save` (float16, as they would ship)."""
    with np.load(path) as data:
        names = [str(n) for n in data["names"]]
        return UpdateModel({n: i for i, n in enumerate(names)}, data["lexical"].astype(np.float64),
                           data["dense"].astype(np.float64), float(data["bias"][0]),
                           data["mean"].astype(np.float64), np.maximum(data["scale"].astype(np.float64), 1e-6),
                           float(data["threshold"][0]))
