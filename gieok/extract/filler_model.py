"""A learned second opinion on filler: logistic regression over a short message's own vector.

The word lists of :mod:`gieok.extract.deterministic` catch the acknowledgements they name and miss
every other way of saying them ("Hang in there.", "ㅋㅋㅋ 아 웃겨", "Hope that helps!"). A short
message's vector places it among what people say to keep a conversation going, whatever its words,
so retain asks this model about each short message the lists let through, using the vector it
computes anyway. A message the model judges filler stays in the verbatim source and yields no fact.

The weights are trained by ``bench/train_filler.py`` on ``bench/data/filler_train.json`` (its own
labelled phrases; the benchmark's blind ``fresh`` set is not among them) for one embedder and ship in
``gieok/data/filler_<embedder>.json``. A bank with another embedder has no model: the lists alone
decide. The threshold is chosen for content, not filler: a stored fact lost is worse than a filler
fact kept, so the model speaks only when it is sure (``threshold``, a probability).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

from gieok.extract.deterministic import filler_word, without_addressed_name
from gieok.text.korean import analyze, has_hangul
from gieok.text.sentences import ends_asking

__all__ = ["FillerModel", "file_name", "filler_model", "names_something", "short_enough"]

_DIGIT = re.compile(r"\d")
_SENTENCE_START = re.compile(r"(?:^|[.!?~]\s+)[\"'(]?([A-Z][\w']*)")
_CAPITALISED = re.compile(r"\b[A-Z][\w']*")
_NOUN_TAGS = ("NNG", "NNP", "NR", "SL", "SH", "SN")
# someone the message is about ("She's six.", "They're a real support.", "우리 애가 …", "걔 …")
_ABOUT_SOMEONE = re.compile(r"\b(?:he|she|they|we|his|her|their|our|my)(?:'s|'re|'d|'ll|'ve)?\b", re.IGNORECASE)
_KO_ABOUT_SOMEONE = frozenset("걔 얘 쟤 그 그녀 그분 우리 저희".split())


@dataclass(frozen=True)
class FillerModel:
    embedder: str
    weights: np.ndarray  # (dim,)
    bias: float
    threshold: float
    max_words: int

    def probabilities(self, vectors: np.ndarray) -> np.ndarray:
        """P(filler) of each row of ``vectors`` (the facts' own vectors, as retain embeds them)."""
        if vectors.size == 0:
            return np.zeros(0)
        z = np.asarray(vectors, dtype=np.float64) @ self.weights + self.bias
        return np.asarray(1.0 / (1.0 + np.exp(-z)))

    def is_filler(self, vectors: np.ndarray) -> np.ndarray:
        return self.probabilities(vectors) >= self.threshold

    def to_json(self) -> str:
        return json.dumps({"embedder": self.embedder, "weights": [round(float(w), 6) for w in self.weights],
                           "bias": round(self.bias, 6), "threshold": self.threshold,
                           "max_words": self.max_words}, ensure_ascii=False)


def short_enough(text: str, max_words: int) -> bool:
    """The model judges only short messages: a long one says something whatever else it does."""
    return len(text.split()) <= max_words


def names_something(text: str) -> bool:
    """Whether ``text`` names a thing the lists do not know as filler — a noun in Korean ("보리는 잘
    있어?", "팀장님은 알아?"), a name, a number, someone it is about ("She's six.", "걔 …") — which
    the model then leaves alone: a message that names something can carry a memory ("It's Shia
    Labeouf!"), a reaction names nothing."""
    text = without_addressed_name(text)
    if _DIGIT.search(text):
        return True
    if has_hangul(text):
        return _korean_names_something(text)
    if _ABOUT_SOMEONE.search(text):
        return True
    starts = {m.start(1) for m in _SENTENCE_START.finditer(text)}
    return any(m.start() not in starts and m.group() not in ("I", "I'm", "I'll", "I've", "I'd", "OK")
               for m in _CAPITALISED.finditer(text))


def _korean_names_something(text: str) -> bool:
    """Korean: a number, someone talked about ("걔", "우리"), or a question about a thing ("보리는 잘
    있어?", "팀장님은 알아?"). Nouns in a statement are not enough: Kiwi reads many informal words
    as nouns ("오키", "굿모닝"), and well-wishing is full of them ("좋은 아침", "오늘 하루")."""
    tokens = analyze(text)
    asks = ends_asking(text)
    for i, (_form, tag, lemma, *_rest) in enumerate(tokens):
        if tag in ("SN", "NR") or (tag == "NP" and lemma in _KO_ABOUT_SOMEONE):
            return True
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        addressed = tag == "NNP" and after is not None and (after[1] == "JKV" or after[2] in ("님", "씨"))
        if asks and tag in _NOUN_TAGS and not addressed and not filler_word(lemma):
            return True
    return False


def file_name(embedder: str) -> str:
    """The weights' file in ``gieok/data`` for ``embedder``."""
    return "filler_" + "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in embedder) + ".json"


@lru_cache(maxsize=8)
def filler_model(embedder: str) -> FillerModel | None:
    """The model trained for ``embedder`` (a model id), or None when none ships for it."""
    path = resources.files("gieok") / "data" / file_name(embedder)
    if not path.is_file():
        return None
    raw = json.loads(path.read_text(encoding="utf-8"))
    if raw.get("embedder") != embedder:
        return None
    return FillerModel(embedder, np.asarray(raw["weights"], dtype=np.float64), float(raw["bias"]),
                       float(raw["threshold"]), int(raw["max_words"]))
