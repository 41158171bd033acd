"""Profile slots, learned: which words of a message are a profile value, of which slot, whose, and
whether the message denies it.

A person states a birthday, an allergy or a new city in more ways than rules can list ("땅콩알러지잇어요",
"born 3/2/91", "12월 3일이요" answering "생일이 언제세요?"), so this reads a message the way a tagger
does. Every run of up to six content tokens (Kiwi morphemes in Korean, words in English) is a
candidate value; three small logistic-regression heads over sparse features — the candidate's words
and shape, the words around it, the sentence's other words, the turn it answers — say

* **slot**: which of :data:`SLOTS` the candidate is a value of, or none;
* **holder**: the speaker ("self"), the speaker's relative, or someone else (a friend, the listener,
  a customer the agent greets) — only the first two are kept;
* **negated**: whether the message says the value is not, or no longer, true.

Overlapping candidates keep the likelier; a value is kept when its slot probability reaches the
model's bar, chosen on cross-validation folds for precision (a wrong value is worse than a missing
one). The relative is read from the kinship words of :data:`RELATIONS`, the one exact part: "언니"
is a sister whatever a model thinks.

Trained by ``bench/train_slots.py`` (``make train-slots``) on ``bench/data/profile_train_*.jsonl``;
measured on ``bench/data/profile_blind.jsonl``, written apart; shipped as ``gieok/data/slots.npz``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import NamedTuple

import numpy as np

from gieok.text.korean import analyze, has_hangul
from gieok.text.sentences import split_sentences

__all__ = ["HOLDERS", "MULTI_VALUED", "RELATIONS", "SLOTS", "Asked", "SlotModel", "SlotValue", "Token", "asked",
           "candidates", "holder_features", "negation_features", "relation_of", "slot_features", "slot_model", "tokens"]

SLOTS = ("name", "nickname", "birthday", "allergy", "diet", "health", "job", "employer", "city", "family", "preference")
MULTI_VALUED = frozenset({"allergy", "health", "family", "preference"})
HOLDERS = ("self", "relative", "other")
MAX_SPAN = 4

RELATIONS: dict[str, str] = {
    "언니": "sister", "누나": "sister", "여동생": "sister", "sister": "sister", "sis": "sister",
    "형": "brother", "오빠": "brother", "남동생": "brother", "brother": "brother", "bro": "brother",
    "동생": "sibling", "sibling": "sibling",
    "엄마": "mother", "어머니": "mother", "어머님": "mother", "mom": "mother", "mother": "mother", "mum": "mother",
    "아빠": "father", "아버지": "father", "아버님": "father", "dad": "father", "father": "father",
    "남편": "husband", "신랑": "husband", "husband": "husband",
    "아내": "wife", "와이프": "wife", "부인": "wife", "wife": "wife",
    "딸": "daughter", "daughter": "daughter", "아들": "son", "son": "son",
    "할머니": "grandmother", "grandma": "grandmother", "grandmother": "grandmother",
    "할아버지": "grandfather", "grandpa": "grandfather", "grandfather": "grandfather",
    "남자친구": "boyfriend", "남친": "boyfriend", "boyfriend": "boyfriend",
    "여자친구": "girlfriend", "여친": "girlfriend", "girlfriend": "girlfriend",
    "애인": "partner", "partner": "partner", "fiance": "partner", "fiancé": "partner", "fiancee": "partner",
    "fiancée": "partner",
    "사촌": "cousin", "cousin": "cousin",
    "삼촌": "uncle", "외삼촌": "uncle", "큰아버지": "uncle", "작은아버지": "uncle", "uncle": "uncle",
    "이모": "aunt", "고모": "aunt", "aunt": "aunt", "auntie": "aunt",
    "조카": "nephew or niece", "nephew": "nephew or niece", "niece": "nephew or niece",
    "손자": "grandchild", "손녀": "grandchild", "grandson": "grandchild", "granddaughter": "grandchild",
    "시어머니": "mother-in-law", "장모님": "mother-in-law", "장모": "mother-in-law", "mother-in-law": "mother-in-law",
    "시아버지": "father-in-law", "장인어른": "father-in-law", "장인": "father-in-law", "father-in-law": "father-in-law",
    "mom-in-law": "mother-in-law", "stepmom": "mother", "stepdad": "father", "twin": "sibling",
    "grandmom": "grandmother", "granny": "grandmother", "nana": "grandmother",
    "bf": "boyfriend", "gf": "girlfriend", "grandkid": "grandchild", "손주": "grandchild", "파트너": "partner",
    "외할머니": "grandmother", "외할아버지": "grandfather", "친할머니": "grandmother", "친할아버지": "grandfather",
    "큰아빠": "uncle", "작은아빠": "uncle", "이모부": "uncle", "고모부": "uncle",
    "큰엄마": "aunt", "작은엄마": "aunt", "숙모": "aunt", "외숙모": "aunt",
}


@dataclass(frozen=True)
class SlotValue:
    """One typed fact: ``holder`` is "self" (the speaker) or a relation key ("sister")."""

    holder: str
    slot: str
    value: str
    relation: str | None = None
    negated: bool = False
    start: int = 0
    end: int = 0
    probability: float = 1.0


class Token(NamedTuple):
    form: str
    tag: str
    lemma: str
    start: int
    end: int


# "niece's" is "niece" + "'s", "I'm" is "I" + "'m": the value is the word, not its clitic
_EN_TOKEN = re.compile(r"\d+(?:[/.\-]\d+)+|\d+(?:st|nd|rd|th)\b|['’](?:s|m|re|ve|ll|d)\b|n['’]t\b"
                       r"|[^\W\d_]+?(?=n['’]t\b)|[^\W\d_]+(?:-[^\W\d_]+)*|\d+|[^\w\s]", re.IGNORECASE)
_KO_CONTENT = frozenset({"NNG", "NNP", "NNB", "NR", "SL", "SN", "SH", "XR", "XSN", "XPN", "NP", "MM", "W_SERIAL"})
_KO_EDGE = frozenset({"NNG", "NNP", "NR", "SL", "SN", "SH", "XR", "NNB", "W_SERIAL"})
# English words that never open or close a value ("the nurse", "Google now")
_EN_FUNCTION = frozenset("""a an the my your his her their our its i me you he she we they it this that these those
is am are was were be been being do does did have has had will would can could should might must to of in on at
for from with by about as and or but so if then than not no yes just really very like also too now still already
here there when where what who how why which because since until after before into out up down over again ever
i'm i've i'd i'll it's that's he's she's we're they're you're don't doesn't didn't can't won't isn't wasn't
im ive ill its dont cant wont lol haha hi hey hello ok okay oh um uh well pls please thanks thank n't n’t""".split())


def tokens(text: str) -> list[Token]:
    """Kiwi morphemes for text with Hangul, else English words, numbers and signs."""
    if has_hangul(text):
        return [Token(*t) for t in analyze(text)]
    out = []
    for m in _EN_TOKEN.finditer(text):
        word = m.group()
        if word[0].isdigit():
            tag = "SN"
        elif word[0].isalpha():
            tag = "CAP" if word[0].isupper() else "W"
        else:
            tag = "SP"
        out.append(Token(word, tag, word.lower(), m.start(), m.end()))
    return out


def _content(token: Token) -> bool:
    if token.tag in ("CAP", "W"):
        return True
    if token.tag == "SN":
        return True
    if token.tag == "SP":
        return token.form in "/-.&'"
    return token.tag in _KO_CONTENT


def _edge(token: Token) -> bool:
    if token.tag in ("CAP", "W"):
        return token.lemma not in _EN_FUNCTION
    if token.tag == "SN":
        return True
    return token.tag in _KO_EDGE


def candidates(toks: Sequence[Token]) -> list[tuple[int, int]]:
    """Token runs ``[i, j)`` that could be a value: up to :data:`MAX_SPAN` content tokens, opening and
    closing on a content word (a noun, a name, a number; not "the", "my", a particle)."""
    out = []
    for i, first in enumerate(toks):
        if not _edge(first):
            continue
        for j in range(i + 1, min(i + MAX_SPAN, len(toks)) + 1):
            last = toks[j - 1]
            if not _content(last):
                break
            if _edge(last):
                out.append((i, j))
    return out


def _shape(token: Token) -> str:
    if token.tag in ("CAP", "W", "SN", "SP"):
        return token.tag
    return token.tag[:2] if token.tag.startswith("N") else token.tag


_KO_QUESTION_END = re.compile(r"(?:까|니|냐|나요|가요|죠|지|래|대)\s*[?？]*\s*$")


def _asks(sentence: str) -> bool:
    stripped = sentence.rstrip(" .!~ㅋㅎㅠㅜ")
    return stripped.endswith(("?", "？")) or bool(has_hangul(sentence) and _KO_QUESTION_END.search(stripped))


def _kind(span: Sequence[Token]) -> str:
    """The coarse kind of a candidate: a number or date, a name, or a common word."""
    if any(t.tag in ("SN", "W_SERIAL", "NR") for t in span):
        return "num"
    if any(t.tag in ("NNP", "CAP", "SL", "SH") for t in span):
        return "name"
    return "word"


def _lemma(token: Token) -> str:
    return token.lemma.lower()


class _Sentence(NamedTuple):
    """What every candidate of one sentence shares, computed once."""

    lemmas: list[str]
    content: list[bool]  # a content word (not a sign): the sentence's other words
    asks: bool


def _sentence(toks: Sequence[Token], sentence: str) -> _Sentence:
    return _Sentence([_lemma(t) for t in toks], [_content(t) and t.tag != "SP" for t in toks], _asks(sentence))


class Asked(NamedTuple):
    """The other party's turn a message answers ("생일이 언제세요?"), read once per message."""

    text: str
    tokens: list[Token]
    lemmas: list[str]  # its content words, sorted
    names_relative: bool  # it names a relative ("신랑 뭐 하는 사람임?")


def asked(context: str) -> Asked:
    """``context`` read for the heads ("" when the message answers nothing)."""
    if not context:
        return Asked("", [], [], False)
    toks = tokens(context)
    lemmas = sorted({_lemma(t) for t in toks if _content(t) and t.tag != "SP"})
    return Asked(context, toks, lemmas, bool(_relation_words(toks)))


def slot_features(toks: Sequence[Token], i: int, j: int, sentence: str, turn: Asked, role: str,
                  shared: _Sentence | None = None) -> dict[str, float]:
    """What the slot head sees of the candidate ``toks[i:j]`` in its sentence."""
    read = shared if shared is not None else _sentence(toks, sentence)
    lemmas = read.lemmas
    f: dict[str, float] = {"bias": 1.0, f"len={min(j - i, 4)}": 1.0, f"role={role}": 1.0}
    span = toks[i:j]
    f["shape=" + " ".join(_shape(t) for t in span)] = 1.0
    for k in range(i, j):
        f["w=" + lemmas[k]] = 1.0
    f["first=" + lemmas[i]] = 1.0
    f["last=" + lemmas[j - 1]] = 1.0
    if any(ch.isdigit() for t in span for ch in t.form):
        f["digit"] = 1.0
    n = len(toks)
    for k in (1, 2, 3):
        left, right = i - k, j + k - 1
        f[f"L{k}={lemmas[left] if left >= 0 else '^'}"] = 1.0
        f[f"R{k}={lemmas[right] if right < n else '$'}"] = 1.0
        if k <= 2:
            f[f"LT{k}={toks[left].tag if left >= 0 else '^'}"] = 1.0
            f[f"RT{k}={toks[right].tag if right < n else '$'}"] = 1.0
    f[f"L1R1={lemmas[i - 1] if i else '^'}|{lemmas[j] if j < n else '$'}"] = 1.0
    kind = _kind(span)
    f["kind=" + kind] = 1.0
    others = [lemmas[k] for k in range(n) if read.content[k] and (k < i or k >= j)]
    if others:
        weight = 1.0 / math.sqrt(len(others))
        for lemma in others:
            f["s=" + lemma] = weight
    for k in (*range(max(0, i - 6), i), *range(j, min(n, j + 6))):
        if toks[k].tag != "SP":
            f["n=" + lemmas[k]] = 1.0
            f[f"n={lemmas[k]}|{kind}"] = 1.0  # "생일" near a number, "이름" near a name
    if read.asks:
        f["asks"] = 1.0
    if turn.text:
        f["answers"] = 1.0
        f[f"answers_len={min(n, 6)}"] = 1.0
        for lemma in turn.lemmas:
            f["c=" + lemma] = 1.0
    return f


def _relation_words(toks: Sequence[Token]) -> list[tuple[int, str]]:
    out = []
    for k, t in enumerate(toks):
        key = RELATIONS.get(_lemma(t))
        if key is None and k + 1 < len(toks) and toks[k + 1].start == t.end:
            key = RELATIONS.get(_lemma(t) + _lemma(toks[k + 1]))
        if key is not None:
            out.append((k, key))
    return out


def relation_of(toks: Sequence[Token], i: int, j: int, context: Sequence[Token] = ()) -> str | None:
    """The relative a value at ``toks[i:j]`` belongs to: the kinship word nearest before it (else
    after it) in its sentence, else the last one of the turn it answers ("신랑 뭐 해?" → "공무원");
    None when neither names one."""
    found = _relation_words(toks)
    inside = [key for k, key in found if i <= k < j]
    if inside:
        return inside[0]
    before = [(i - k, key) for k, key in found if k < i]
    if before:
        return min(before)[1]
    after = [(k - j, key) for k, key in found if k >= j]
    if after:
        return min(after)[1]
    asked = _relation_words(context)
    return asked[-1][1] if asked else None


def holder_features(toks: Sequence[Token], i: int, j: int, slot: str, role: str, turn: Asked) -> dict[str, float]:
    """What the holder head sees: who the sentence is about, around the value."""
    f: dict[str, float] = {"bias": 1.0, f"slot={slot}": 1.0, f"role={role}": 1.0}
    if turn.text:
        f["answers"] = 1.0
        if turn.names_relative:
            f["rel_asked"] = 1.0
    for k, _key in _relation_words(toks):
        where = "in" if i <= k < j else "before" if k < i else "after"
        f[f"rel_{where}"] = 1.0
        f[f"rel_{where}|{slot}"] = 1.0
        f[f"rel_{where}_near"] = 1.0 if (where == "before" and i - k <= 4) or (where == "after" and k - j < 3) else 0.0
    for k in range(max(0, i - 8), i):
        f[f"l={_lemma(toks[k])}"] = 1.0
        f[f"l={_lemma(toks[k])}|{slot}"] = 1.0
    for k in range(j, min(len(toks), j + 6)):
        f[f"r={_lemma(toks[k])}"] = 1.0
    for k, t in enumerate(toks):
        if t.tag in ("NNP", "CAP") and not i <= k < j and k > 0:
            f["other_name"] = 1.0
        if t.tag == "NP":
            f[f"pronoun={_lemma(t)}"] = 1.0
    return f


def negation_features(toks: Sequence[Token], i: int, j: int, slot: str, sentence: str) -> dict[str, float]:
    """What the negation head sees: the words after the value, and the sentence's tense and denials."""
    f: dict[str, float] = {"bias": 1.0, f"slot={slot}": 1.0}
    for k in range(j, min(len(toks), j + 8)):
        f[f"r={_lemma(toks[k])}"] = 1.0
        f[f"rt={toks[k].tag}"] = 1.0
    for k in range(max(0, i - 6), i):
        f[f"l={_lemma(toks[k])}"] = 1.0
    pairs = [_lemma(t) for t in toks[j:j + 8]]
    for a, b in zip(pairs, pairs[1:], strict=False):
        f[f"rr={a}_{b}"] = 1.0
    return f


@dataclass(frozen=True)
class _Head:
    vocabulary: dict[str, int]
    weights: np.ndarray  # (features, classes)
    bias: np.ndarray  # (classes,)

    def probabilities(self, rows: Sequence[dict[str, float]]) -> np.ndarray:
        columns: list[int] = []
        values: list[float] = []
        starts: list[int] = []
        for row in rows:
            starts.append(len(columns))
            for name, value in row.items():
                column = self.vocabulary.get(name)
                if column is not None:
                    columns.append(column)
                    values.append(value)
        z = np.tile(self.bias, (len(rows), 1))
        if columns:  # each row's weights summed at once: one gather, one reduce
            picked = self.weights[np.asarray(columns)] * np.asarray(values)[:, None]
            filled = [k for k in range(len(rows)) if starts[k] < (starts[k + 1] if k + 1 < len(rows) else len(columns))]
            z[filled] += np.add.reduceat(picked, np.asarray([starts[k] for k in filled]), axis=0)
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return np.asarray(e / e.sum(axis=1, keepdims=True))


@dataclass(frozen=True)
class SlotModel:
    slot: _Head  # classes: ("none",) + SLOTS
    holder: _Head  # classes: HOLDERS
    negated: _Head  # classes: ("no", "yes")
    threshold: float

    def extract(self, text: str, context: str = "", role: str = "user") -> list[SlotValue]:
        """The profile values ``text`` (said by ``role``, answering ``context`` if given) states about
        its speaker or the speaker's relatives."""
        out: list[SlotValue] = []
        turn = asked(context)
        for s_start, s_end in split_sentences(text):
            sentence = text[s_start:s_end]
            for value in self.read_sentence(sentence, turn, role):
                out.append(SlotValue(value.holder, value.slot, value.value, value.relation, value.negated,
                                     value.start + s_start, value.end + s_start, value.probability))
        return out

    def read_sentence(self, sentence: str, turn: Asked, role: str) -> list[SlotValue]:
        """Every value of ``sentence`` with its slot, holder and denial, holders "other" included
        (``holder`` "other"): the caller keeps what it needs."""
        toks = tokens(sentence)
        spans = candidates(toks)
        if not spans:
            return []
        p = self.slot_probabilities(toks, spans, sentence, turn, role)
        best = p[:, 1:].argmax(axis=1)
        score = p[np.arange(len(spans)), best + 1]
        # a relative's name splits its probability between "name" and "family", which it becomes
        named = p[:, 1 + SLOTS.index("name")] + p[:, 1 + SLOTS.index("family")]
        score = np.maximum(score, named)
        chosen: list[tuple[float, int, int, str]] = []
        for k in np.argsort(-score):
            if score[k] < self.threshold:
                break
            i, j = spans[k]
            if any(i < cj and ci < j for _, ci, cj, _ in chosen):
                continue
            chosen.append((float(score[k]), i, j, SLOTS[int(best[k])]))
        if not chosen:
            return []
        holders = self.holder.probabilities([holder_features(toks, i, j, slot, role, turn)
                                             for _, i, j, slot in chosen])
        denied = self.negated.probabilities([negation_features(toks, i, j, slot, sentence)
                                             for _, i, j, slot in chosen])
        out = []
        for (probability, i, j, slot), h, n in zip(chosen, holders, denied, strict=True):
            holder = HOLDERS[int(h.argmax())]
            relation = relation_of(toks, i, j, turn.tokens)
            if slot == "name" and holder == "relative" and relation is not None:
                slot = "family"  # a relative's name is who that relative is: a member of the family
            if slot == "family":
                holder = "other" if holder == "other" else "self"  # a relative of the speaker
            elif holder == "relative":
                holder = relation or "other"
                relation = None
            else:
                relation = None
            start, end = toks[i].start, toks[j - 1].end
            out.append(SlotValue(holder, slot, sentence[start:end], relation,
                                 bool(n[1] >= 0.5), start, end, probability))
        out.sort(key=lambda v: v.start)
        return out

    def slot_probabilities(self, toks: Sequence[Token], spans: Sequence[tuple[int, int]], sentence: str,
                           turn: Asked, role: str) -> np.ndarray:
        """P(none, then each slot) of every candidate run."""
        shared = _sentence(toks, sentence)
        return self.slot.probabilities([slot_features(toks, i, j, sentence, turn, role, shared) for i, j in spans])


def _head(data: np.lib.npyio.NpzFile, name: str) -> _Head:
    names = [str(n) for n in data[f"{name}_features"]]
    return _Head({n: k for k, n in enumerate(names)}, np.asarray(data[f"{name}_weights"], dtype=np.float64),
                 np.asarray(data[f"{name}_bias"], dtype=np.float64))


@lru_cache(maxsize=1)
def slot_model() -> SlotModel | None:
    """The shipped model, or None when the package has none (a source tree before ``make train-slots``)."""
    path = resources.files("gieok") / "data" / "slots.npz"
    if not path.is_file():
        return None
    with path.open("rb") as handle, np.load(handle, allow_pickle=False) as data:
        return SlotModel(_head(data, "slot"), _head(data, "holder"), _head(data, "negated"),
                         float(data["threshold"]))
