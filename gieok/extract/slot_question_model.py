"""The learned reading of a question about a profile slot: which slot, whose, and whether before now.

"내 생일 언제야?" asks for the speaker's birthday, "언니 이름이 뭐였지?" for the sister's name, "where did
I work before Google?" for an earlier employer, and "생일 쿠폰 언제 나와요?" for no slot at all, though
it says 생일. Cue words cannot tell the last from the first, so three small logistic-regression heads
share one bag of features of the question — character 2-3-grams (Korean needs no word boundaries),
Kiwi lemmas and endings, English words and word pairs, past-time markers (전에, 예전, used to,
before) and the kinship words of :data:`gieok.extract.slot_model.RELATIONS`:

* **slot** — softmax over the eleven slots and ``none``; a slot is answered only when its probability
  reaches the bar chosen on validation folds for precision (a wrong slot puts a wrong memory first);
* **whose** — softmax over ``self`` / ``relative`` / ``named``; the relative is the kinship word the
  question holds, the named person the best span of a fourth head, a scorer over candidate spans
  (Kiwi proper nouns, the head of a Korean word, capitalised runs: "지민 씨는", "Mr. Okafor's");
* **previous** — yes / no.

Trained by ``bench/train_slot_questions.py`` on ``bench/data/slot_questions_train.jsonl`` (written blind
to the code; the blind split is only measured, by ``bench/slot_questions.py``), shipped as
``gieok/data/slot_questions.npz`` and loaded once, numpy only.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import IO

import numpy as np

from gieok.extract.slot_model import RELATIONS
from gieok.text.korean import analyze, has_hangul

__all__ = ["WHOSE", "Candidate", "Reading", "SlotQuestionModel", "candidates", "candidate_features", "features",
           "relations", "slot_question_model"]

WHOSE = ("self", "relative", "named")

_SPACES = re.compile(r"\s+")
_LATIN_WORD = re.compile(r"[a-z][a-z'’\-]*")
# what a question about the past says ("나 전에 어디 살았지?", "where did I work before?")
_PAST_MARKER = re.compile(r"전에|예전|원래|처음에|이전|옛날|그 ?전|었었|였었|before|used to|previous|\bformer|"
                          r"originally|\bold\b|at first|\bwas\b|\bdid\b", re.IGNORECASE)
_KO_WH = frozenset("뭐 무엇 언제 어디 누구 어느 어떤 무슨 몇 얼마".split())
_CONTENT_TAGS = ("NN", "NP", "NR", "VV", "VA", "XR", "SL", "MA", "MM", "VX")
_EN_RELATION = re.compile(r"\b(" + "|".join(sorted((re.escape(w) for w in RELATIONS if not has_hangul(w)),
                                                   key=len, reverse=True)) + r")(?:'s|’s|s)?\b", re.IGNORECASE)
_KO_RELATIONS = sorted((w for w in RELATIONS if has_hangul(w)), key=len, reverse=True)
_POSSESSOR = re.compile(r"(?:\b(?:my|our)|내|제|우리|저희)\s*$", re.IGNORECASE)
# capitalised runs, a title first ("Mr. Okafor"), without a possessive 's
_CAPITALISED = re.compile(r"(?:(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+)?[A-Z][A-Za-z\-]*(?:\s+[A-Z][A-Za-z\-]*)*")
_ENDING_TAGS = ("J", "XS", "VCP", "E", "NNB")
_ALL_HANGUL = re.compile(r"[가-힣]+")
_EOJEOL = re.compile(r"\S+")


@dataclass(frozen=True)
class Candidate:
    """A span of the question that may be a person's name."""

    text: str
    start: int
    end: int
    source: str  # "nnp" (Kiwi proper noun), "head" (a Korean word's leading nouns), "cap" (capitalised run)


@dataclass(frozen=True)
class Reading:
    slot: str | None  # None: the question asks about no slot
    probability: float  # of the slot answered (of "none" when it is None)
    whose: str  # one of WHOSE
    relation: str | None
    person: str | None
    previous: bool


def _normal(question: str) -> str:
    return _SPACES.sub(" ", question).strip()


def relations(question: str) -> list[tuple[int, str]]:
    """(position, relation key) of each kinship word in ``question``: English words whole, Korean ones
    where a word or a Kiwi token starts and ends (so 형 is not read in 형광펜), the longest first (남동생,
    not 동생); one the asker owns ("my wife", "우리 엄마") before the others, so "how many siblings
    does my dad have?" is about the father."""
    text = _normal(question)
    found = [(m.start(), RELATIONS[m.group(1).lower()]) for m in _EN_RELATION.finditer(text)]
    if has_hangul(text):
        tokens = analyze(text)
        words = list(_EOJEOL.finditer(text))
        starts = {t[3] for t in tokens} | {w.start() for w in words}
        ends = {t[4] for t in tokens} | {t[3] for t in tokens} | {w.end() for w in words}
        taken = -1
        for start in sorted(starts):
            if start < taken:
                continue
            word = next((w for w in _KO_RELATIONS if text.startswith(w, start) and start + len(w) in ends), None)
            if word is not None:
                found.append((start, RELATIONS[word]))
                taken = start + len(word)
    return sorted(found, key=lambda f: (not _POSSESSOR.search(text[:f[0]]), f[0]))


def features(question: str) -> dict[str, float]:
    """The named features of ``question`` the slot, whose and previous heads read."""
    text = _normal(question)
    lower = text.lower()
    out: dict[str, float] = {"bias": 1.0}
    padded = f" {lower} "
    for n in (2, 3):
        for i in range(len(padded) - n + 1):
            gram = padded[i:i + n]
            if gram.strip():
                out[f"c:{gram}"] = 1.0
    words = _LATIN_WORD.findall(lower)
    for word in words:
        out[f"w:{word}"] = 1.0
    for first, second in zip(words, words[1:], strict=False):
        out[f"b:{first} {second}"] = 1.0
    if words and not has_hangul(lower[:1]):
        out[f"first:{words[0]}"] = 1.0
    if has_hangul(text):
        _korean_features(text, out)
    for marker in _PAST_MARKER.findall(lower):
        out[f"past:{marker.replace(' ', '')}"] = 1.0
    _whose_features(text, out)
    return out


def _korean_features(text: str, out: dict[str, float]) -> None:
    tokens = analyze(text)
    lemmas = []
    for form, tag, lemma, _s, _e in tokens:
        if tag.startswith(_CONTENT_TAGS):
            out[f"m:{lemma}"] = 1.0
            lemmas.append(lemma)
        elif tag in ("EP", "EF", "EC", "ETM", "JKB", "JX"):
            out[f"e:{tag}:{form}"] = 1.0
    for first, second in zip(lemmas, lemmas[1:], strict=False):
        out[f"mb:{first} {second}"] = 1.0
        if second in _KO_WH:  # what is asked about: 알레르기 in "알레르기 뭐였지?", not in "알레르기 약 뭐였지?"
            out[f"asked:{first}"] = 1.0


def _whose_features(text: str, out: dict[str, float]) -> None:
    found = relations(text)
    if found:
        out["rel"] = 1.0
        out["rel:count"] = float(min(len(found), 3))
        for start, key in found:
            out[f"rel:{key}"] = 1.0
            if _POSSESSOR.search(text[:start]):
                out["rel:owned"] = 1.0
    for candidate in candidates(text):
        out[f"cand:{candidate.source}"] = 1.0
        after = text[candidate.end:candidate.end + 2].strip()
        if after.startswith(("씨", "님", "'s", "’s")):
            out["cand:titled"] = 1.0


def candidates(question: str) -> list[Candidate]:
    """Spans of ``question`` that may name a person, none of them a kinship word."""
    text = _normal(question)
    found: dict[tuple[int, int], Candidate] = {}
    for m in _CAPITALISED.finditer(text):
        words = m.group(0).split()
        start = m.start()
        if start == 0 and len(words) > 1:  # "Where Sarah …" is not a name: offer the run without it too
            found[(m.start(), m.end())] = Candidate(m.group(0), m.start(), m.end(), "cap")
            start = m.start() + len(words[0]) + 1
        found[(start, m.end())] = Candidate(text[start:m.end()], start, m.end(), "cap")
    if has_hangul(text):
        _korean_candidates(text, found)
    return [c for c in sorted(found.values(), key=lambda c: (c.start, c.end))
            if len(c.text) >= 2 and c.text.lower() not in RELATIONS]


def _korean_candidates(text: str, found: dict[tuple[int, int], Candidate]) -> None:
    tokens = analyze(text)
    run: tuple[int, int] | None = None  # adjacent proper nouns are one name: 박 + 소연
    for _form, tag, _l, start, end in (*tokens, ("", "", "", -1, -1)):
        if tag == "NNP" and has_hangul(text[start:end]):
            run = (run[0], end) if run is not None and run[1] == start else (start, end)
            continue
        if run is not None:
            found[run] = Candidate(text[run[0]:run[1]], run[0], run[1], "nnp")
            run = None
    for word in _EOJEOL.finditer(text):  # a word before its particle: "하은" of 하은이, which Kiwi reads as 하 + 은
        ending = next((t[3] for t in tokens if word.start() < t[3] < word.end() and t[1].startswith(_ENDING_TAGS)),
                      word.end())
        head = text[word.start():ending]
        if 2 <= len(head) <= 4 and _ALL_HANGUL.fullmatch(head) and (word.start(), ending) not in found:
            found[(word.start(), ending)] = Candidate(head, word.start(), ending, "head")


def candidate_features(question: str, candidate: Candidate) -> dict[str, float]:
    """What the name scorer reads of one candidate span: its kind, length, neighbours and words."""
    text = _normal(question)
    after = text[candidate.end:].lstrip()
    before = text[:candidate.start].rstrip()
    out = {"bias": 1.0, f"src:{candidate.source}": 1.0, f"len:{min(len(candidate.text), 6)}": 1.0,
           f"word:{candidate.text.lower()}": 1.0, f"next:{after[:1]}": 1.0, f"next2:{after[:2]}": 1.0,
           f"prev:{before[-1:] if before else '^'}": 1.0, f"words:{min(len(candidate.text.split()), 3)}": 1.0}
    next_word = after.split(" ", 1)[0].lower() if after else ""
    out[f"nextw:{next_word.rstrip('?.!,')}"] = 1.0
    if candidate.start == 0:
        out["at_start"] = 1.0
    if after.startswith(("'s", "’s")) or text[candidate.end:candidate.end + 2] in ("'s", "’s"):
        out["possessive"] = 1.0
    if any(word in candidate.text for word in _KO_RELATIONS):
        out["kin_inside"] = 1.0
    if has_hangul(candidate.text):
        out[f"syllables:{len(candidate.text)}"] = 1.0
        tags = [tag for _f, tag, _l, s, _e in analyze(text) if candidate.start <= s < candidate.end]
        out[f"tags:{'+'.join(tags[:3])}"] = 1.0
    return out


@dataclass(frozen=True)
class SlotQuestionModel:
    vocabulary: dict[str, int]
    weights: np.ndarray  # (features, slots + whose + 1): the slot, whose and previous heads side by side
    bias: np.ndarray
    slots: tuple[str, ...]  # the slot classes, "none" among them
    bar: float  # the least probability at which a slot is answered
    name_vocabulary: dict[str, int]
    name_weights: np.ndarray
    name_bias: float

    def _scores(self, named: dict[str, float], vocabulary: dict[str, int], weights: np.ndarray) -> np.ndarray:
        rows = [(vocabulary[k], v) for k, v in named.items() if k in vocabulary]
        if not rows:
            return np.zeros(weights.shape[1:] or (1,))
        index = np.array([r[0] for r in rows])
        values = np.array([r[1] for r in rows])
        return np.asarray(values @ weights[index].astype(np.float64))

    def read(self, question: str) -> Reading:
        """The slot ``question`` asks about (None below the bar), whose it is and whether before now."""
        z = self._scores(features(question), self.vocabulary, self.weights) + self.bias
        n = len(self.slots)
        slot_p = _softmax(z[:n])
        whose_p = _softmax(z[n:n + len(WHOSE)])
        previous = bool(z[-1] > 0.0)
        none = self.slots.index("none")
        best = max((i for i in range(n) if i != none), key=lambda i: slot_p[i])
        slot = self.slots[best] if slot_p[best] >= self.bar else None
        probability = float(slot_p[best] if slot else 1.0 - slot_p[best])
        whose = WHOSE[int(np.argmax(whose_p))]
        found = relations(question)
        relation = found[0][1] if whose == "relative" and found else None
        person = self.best_name(question) if whose == "named" else None
        if whose == "relative" and relation is None or whose == "named" and person is None:
            whose = "self"
        return Reading(slot, probability, whose, relation, person, previous)

    def name_probabilities(self, question: str) -> list[tuple[Candidate, float]]:
        out = []
        for candidate in candidates(question):
            z = float(self._scores(candidate_features(question, candidate), self.name_vocabulary,
                                   self.name_weights[:, None])[0]) + self.name_bias
            out.append((candidate, 1.0 / (1.0 + np.exp(-z))))
        return out

    def best_name(self, question: str) -> str | None:
        scored = self.name_probabilities(question)
        return max(scored, key=lambda c: c[1])[0].text if scored else None

    def save(self, path: str) -> None:
        meta = {"slots": list(self.slots), "bar": self.bar, "name_bias": self.name_bias}
        np.savez_compressed(path, vocabulary=_ordered(self.vocabulary), weights=self.weights.astype(np.float16),
                            bias=self.bias.astype(np.float32), name_vocabulary=_ordered(self.name_vocabulary),
                            name_weights=self.name_weights.astype(np.float16), meta=np.array(json.dumps(meta)))


def _ordered(vocabulary: dict[str, int]) -> np.ndarray:
    return np.array(sorted(vocabulary, key=vocabulary.__getitem__))


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max())
    return np.asarray(e / e.sum())


def load(file: IO[bytes]) -> SlotQuestionModel:
    """The model in ``file`` (an .npz written by :meth:`SlotQuestionModel.save`)."""
    with np.load(file, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
        return SlotQuestionModel({str(k): i for i, k in enumerate(data["vocabulary"])}, data["weights"],
                                 data["bias"].astype(np.float64), tuple(meta["slots"]), float(meta["bar"]),
                                 {str(k): i for i, k in enumerate(data["name_vocabulary"])}, data["name_weights"],
                                 float(meta["name_bias"]))


@lru_cache(maxsize=1)
def slot_question_model() -> SlotQuestionModel:
    """The shipped model (``gieok/data/slot_questions.npz``), loaded once."""
    with resources.files("gieok.data").joinpath("slot_questions.npz").open("rb") as file:
        return load(file)
