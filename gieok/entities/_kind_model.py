"""What kind of thing a name is — person, place, organisation, thing, or no name at all: a learned head.

A name's kind shows in its letters (정자동, 판교역, 삼성전자, Inc), in what is written next to it (민지
*씨*, *Dr.* Kim, 김 *팀장님*), in the particle after it (제주도*에*, 마포구*로*: places take locative
particles, people take 한테/에게) and in the words around it (… *다니는* 회사, *moved to* Denver).
Suffix lists and particle rules caught the cases they were written for and called 배송지, 마포구 and
성남시 people. This is multinomial logistic regression over those cues as features — character
n-grams and edges of the span, its Kiwi tags, capitalisation, the morphemes or words on each side,
titles and honorifics next to it, the lemmas around it — answering P(person / place / org / thing /
none). ``none`` is a word that names nothing (배송지, 고객님, "Yesterday"): extraction keeps no entity
for it.

Trained by ``bench/train_entity_kind.py`` on ``bench/data/entity_train.jsonl`` (written for it, by a
hand that never saw these rules), measured on the blind ``entity_blind.jsonl`` by
``bench/entity_kind.py``; the weights ship as ``gieok/data/entity_kind.json``. Numpy only at run time;
one judgment is a dictionary walk plus a 5-column dot product.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

from gieok.entities._korean_names import is_hangul_word, is_surname, looks_like_full_name
from gieok.entities._lexicon import ENGLISH_TITLES, KOREAN_HONORIFICS, KOREAN_PREFIX_ROLES, KOREAN_TITLES
from gieok.errors import ConfigError
from gieok.text.korean import analyze, get_kiwi, has_hangul

__all__ = ["KIND_OPTIONS", "KindJudgment", "KindModel", "decide", "kind_features", "kind_model", "span_at"]

KIND_OPTIONS: tuple[str, ...] = ("person", "place", "org", "thing", "none")

_LATIN_WORD = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ0-9]+(?:['’][A-Za-z]+)?|[^\sA-Za-z0-9]")
_CONTENT_TAGS = ("NNG", "NNP", "VV", "VA", "XR", "SL")
_WINDOW = 3
_ABBREVIATIONS = frozenset({"mr", "mrs", "ms", "dr", "prof", "mt", "st", "mx", "jr", "sr"})


@dataclass(frozen=True, slots=True)
class KindJudgment:
    kind: str  # one of KIND_OPTIONS
    probability: float
    probabilities: tuple[float, ...]  # aligned with KIND_OPTIONS


def span_at(text: str, span: str, start: int | None = None) -> tuple[int, int]:
    """Character offsets of ``span`` in ``text``: at ``start`` when given, else its first occurrence."""
    if start is None or text[start : start + len(span)] != span:
        found = text.find(span)
        start = found if found >= 0 else 0
    return start, start + len(span)


def _shape(word: str) -> str:
    out = re.sub(r"[A-Z]+", "X", re.sub(r"[a-z]+", "x", re.sub(r"[0-9]+", "9", word)))
    return out[:6]


@lru_cache(maxsize=4096)
def _parses(word: str) -> tuple[tuple[tuple[str, str], ...], ...]:
    """Kiwi's two best readings of the word alone: 배송지 is a proper noun or 배송 + an ending, 마포구
    a proper noun or 마포 + 구 — how a word splits says whether it is made of common words."""
    return tuple(tuple((t.form, t.tag) for t in tokens) for tokens, _score in get_kiwi().analyze(word, top_n=2))


def _span_features(span: str, f: dict[str, float]) -> None:
    lower = span.lower()
    f["s=" + lower] = 1.0
    compact = lower.replace(" ", "")
    for n in (1, 2, 3):
        if len(compact) > n or (n == 1 and compact):
            f[f"suf{n}={compact[-n:]}"] = 1.0
            f[f"pre{n}={compact[:n]}"] = 1.0
    for i in range(len(compact) - 1):
        f["cg=" + compact[i : i + 2]] = 0.5
    words = span.split()
    f[f"words={min(len(words), 4)}"] = 1.0
    if is_hangul_word(compact):
        f[f"ko_len={min(len(compact), 6)}"] = 1.0
        if looks_like_full_name(compact):
            f["ko_full_name_shape"] = 1.0
        if is_surname(compact[:1]):
            f["ko_surname_first"] = 1.0
        for rank, parse in enumerate(_parses(compact)):
            f[f"parse{rank}=" + "+".join(tag for _, tag in parse)] = 1.0
            if len(parse) > 1:
                f[f"parse_last={parse[-1][0]}/{parse[-1][1]}"] = 1.0
    elif has_hangul(span):
        f["mixed_script"] = 1.0
    else:
        f["latin"] = 1.0
        for word in words:
            f["shape=" + _shape(word)] = 1.0
        f["last_word=" + words[-1].lower()] = 1.0
        if words and words[0].lower().rstrip(".") in ENGLISH_TITLES:
            f["title_in_span"] = 1.0
        if span.isupper() and len(span) > 1:
            f["all_caps"] = 1.0
        if any(c.isdigit() for c in span):
            f["digit"] = 1.0


def _korean_context(text: str, start: int, end: int, f: dict[str, float]) -> None:
    tokens = analyze(text)
    inside = [t for t in tokens if t[3] < end and t[4] > start]
    before = [t for t in tokens if t[4] <= start]
    after = [t for t in tokens if t[3] >= end]
    for _form, tag, *_ in inside:
        f["tag=" + tag] = 1.0
    if inside:
        f["tags=" + "+".join(t[1] for t in inside[:3])] = 1.0
        if inside[-1][4] > end:  # the span ends inside a morpheme (지훈이 → 지훈)
            f["cut=" + text[end : inside[-1][4]]] = 1.0
    if after:
        form, tag, _lemma, tstart, _ = after[0]
        glued = tstart == end
        f[f"next{'' if glued else '_sp'}={form}/{tag}"] = 1.0
        f[f"next_tag{'' if glued else '_sp'}={tag}"] = 1.0
        if tag.startswith("J") and glued:
            f["particle=" + form] = 1.0
        if form in KOREAN_HONORIFICS and tag in ("NNB", "XSN", "NNG"):
            f["honorific_after"] = 1.0
        if form in KOREAN_TITLES and tag.startswith("NN"):
            f["title_after"] = 1.0
        if len(after) > 1:
            f[f"next2={after[1][0]}/{after[1][1]}"] = 1.0
    else:
        f["at_end"] = 1.0
    if before:
        form, tag, _lemma, _, tend = before[-1]
        f[f"prev{'' if tend == start else '_sp'}={form}/{tag}"] = 1.0
        f["prev_tag=" + tag] = 1.0
        if form in KOREAN_PREFIX_ROLES:
            f["role_before"] = 1.0
    else:
        f["at_start"] = 1.0
    for token in before[-_WINDOW * 2 :] + after[: _WINDOW * 2]:
        if token[1].startswith(_CONTENT_TAGS):
            f[f"ctx={token[2].lower()}/{token[1][:2]}"] = 0.5


def _latin_context(text: str, start: int, end: int, f: dict[str, float]) -> None:
    before = [m.group() for m in _LATIN_WORD.finditer(text[:start])]
    after = [m.group() for m in _LATIN_WORD.finditer(text[end:])]
    words_before = [w for w in before if w.isalnum() or "'" in w]
    for k, word in enumerate(reversed(before[-2:])):
        f[f"prev{k + 1}={word.lower()}"] = 1.0
    abbreviation = len(before) > 1 and before[-1] == "." and before[-2].lower() in _ABBREVIATIONS
    if not before or (before[-1] in ".!?" and not abbreviation):  # "Dr. Kim" starts no sentence
        f["sentence_start"] = 1.0
    for k, word in enumerate(after[:2]):
        f[f"next{k + 1}={word.lower()}"] = 1.0
    if not after:
        f["at_end"] = 1.0
    if text[end : end + 2] in ("'s", "’s"):
        f["possessive"] = 1.0
    if words_before and words_before[-1].lower().rstrip(".") in ENGLISH_TITLES:
        f["title_before"] = 1.0
    for word in words_before[-_WINDOW:] + [w for w in after[:_WINDOW] if w.isalnum()]:
        f["ctx=" + word.lower()] = 0.5


def kind_features(text: str, start: int, end: int) -> dict[str, float]:
    """The features of the span ``text[start:end]`` (see the module docstring)."""
    span = text[start:end].strip()
    f: dict[str, float] = {"bias": 1.0}
    _span_features(span, f)
    if has_hangul(text):
        f["text_ko"] = 1.0
        _korean_context(text, start, end, f)
    else:
        f["text_en"] = 1.0
        _latin_context(text, start, end, f)
    return f


def decide(p: np.ndarray, none_bar: float) -> tuple[str, float]:
    """The kind and its probability: ``none`` when P(none) reaches ``none_bar``, else the likeliest name kind."""
    none = KIND_OPTIONS.index("none")
    if p[none] >= none_bar:
        return "none", float(p[none])
    best = int(np.argmax(np.where(np.arange(len(p)) == none, -1.0, p)))
    return KIND_OPTIONS[best], float(p[best])


@dataclass(frozen=True)
class KindModel:
    """Weights per feature and option (rows aligned with ``features``) plus a bias per option."""

    features: dict[str, int]
    weights: np.ndarray  # (len(features), len(KIND_OPTIONS))
    bias: np.ndarray  # (len(KIND_OPTIONS),)
    none_bar: float = 0.5  # "none" only at this probability or above: a name dropped costs more than one kept
    kind_bar: float = 0.5  # below it a name's kind is left unknown: a wrong kind keeps namesakes apart

    def probabilities(self, text: str, start: int, end: int) -> np.ndarray:
        z = self.bias.copy()
        for name, value in kind_features(text, start, end).items():
            row = self.features.get(name)
            if row is not None:
                z += value * self.weights[row]
        e = np.exp(z - z.max())
        return np.asarray(e / e.sum())

    def judge(self, text: str, start: int, end: int) -> KindJudgment:
        p = self.probabilities(text, start, end)
        return KindJudgment(*decide(p, self.none_bar), tuple(float(x) for x in p))

    def to_json(self) -> str:
        names = sorted(self.features, key=self.features.__getitem__)
        return json.dumps({"options": list(KIND_OPTIONS), "none_bar": round(self.none_bar, 4),
                           "kind_bar": round(self.kind_bar, 4), "bias": [round(float(b), 4) for b in self.bias],
                           "weights": {n: [round(float(w), 3) for w in self.weights[self.features[n]]] for n in names}},
                          ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, raw: str) -> KindModel:
        data = json.loads(raw)
        if tuple(data["options"]) != KIND_OPTIONS:
            raise ConfigError("entity kind weights were trained for other options: retrain (make train-entity-kind)")
        names = list(data["weights"])
        weights = np.array([data["weights"][n] for n in names], dtype=np.float64).reshape(len(names), len(KIND_OPTIONS))
        return cls({n: i for i, n in enumerate(names)}, weights, np.array(data["bias"], dtype=np.float64),
                   float(data["none_bar"]), float(data["kind_bar"]))


@lru_cache(maxsize=1)
def kind_model() -> KindModel:
    """The shipped head (loaded once per process)."""
    raw = resources.files("gieok.data").joinpath("entity_kind.json").read_text(encoding="utf-8")
    return KindModel.from_json(raw)
