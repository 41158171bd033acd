"""Does this memory answer this question, and which sentence of it? A learned, calibrated judgment.

"내 생일 언제야?" is not answered by "생일 쿠폰은 생일 7일 전에 발급됩니다." (a policy about birthdays),
nor by "동생 생일이 3월 2일" (someone else's), nor by "생일 축하드려요!" (a greeting); it is answered
by "5월 17일이 제 생일이에요". Word overlap cannot tell these apart, so this is logistic regression
over a (question, sentence) pair, trained by ``bench/train_answerable.py`` on
``bench/data/answer_train.jsonl`` (written for it by someone who never read this code; the blind
split ``answer_blind.jsonl`` is only measured, by ``bench/answerable.py``), shipped as
``gieok/data/answerable_e5-small.json``.

Features, per sentence of the memory:

* **vectors** (only when the bank embeds with the bundled e5-small, whose space the weights were
  learned in): the question's and the sentence's cosine, and their element-wise product;
* **lexical**: the share of the question's content terms (Kiwi lemmas, English stems) the sentence
  holds; the question word's expected answer type (언제/when → a date, 어디/where → a place or name,
  몇/how many → a number, 누구/who → a name) crossed with what the sentence holds; whether the
  sentence is a question, a plan or wish, a greeting or thanks, or reads like a policy; who said it
  (a person, the assistant, a document); whose it is (the question asks about "me",
  a relative or a named person, the sentence speaks of the speaker, a relative or another name); the
  past ("예전", "used to") on either side; and the sentence's last Korean endings / first English words.

A memory's probability is its best sentence's (or the whole memory's, if higher). The probability is
Platt-calibrated on cross-validation folds; each variant's ``threshold`` is the bar chosen there (the
lowest with precision ≥ the target on the validation folds). A bank with another embedder uses the ``lexical``
variant of the same file, trained on the lexical features alone.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Protocol

import numpy as np

from gieok.answering._answer_types import _WHEN
from gieok.answering._extractive import question_terms
from gieok.answering._speakers import is_agent
from gieok.text.korean import analyze, has_hangul
from gieok.text.sentences import split_sentences
from gieok.text.terms import keyword_terms

__all__ = ["EMBEDDER", "AnswerableModel", "Judgment", "answerable_model", "features", "sentences"]

EMBEDDER = "e5-small"  # the embedder whose vector space the shipped weights were learned in
PRODUCT_SCALE = 20.0  # q*m cells are ~1/dim each: scaled so their weights train at the lexical ones' rate


class _Embeds(Protocol):
    model_id: str

    def embed(self, texts: Sequence[str], kind: Any = ..., progress: Any = ...) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


_WH = (
    ("when", re.compile(r"언제|며칠|몇\s*(?:월|일|년|시)|날짜|생일|기념일|\bwhen\b|"
                        r"\bwhat (?:date|day|time|year)\b", re.IGNORECASE)),
    ("where", re.compile(r"어디|어느\s*(?:동네|지역|나라|도시|회사|학교|병원)|\bwhere\b|"
                         r"\bwhich (?:city|country|company)\b", re.IGNORECASE)),
    ("number", re.compile(r"몇|얼마|\bhow (?:many|much|old|long|often)\b", re.IGNORECASE)),
    ("who", re.compile(r"누구|누가|이름|\bwho\b|\bwhose\b|\bname\b", re.IGNORECASE)),
    ("what", re.compile(r"뭐|무엇|무슨|어떤|어떻게|\bwhat\b|\bwhich\b|\bhow\b", re.IGNORECASE)),
)
_NUMBER = re.compile(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|hundred)\b|"
                     r"(?:한|두|세|네|다섯|여섯|일곱|여덟|아홉|열|스무)\s*(?:살|명|개|번|달|년|시간|마리)",
                     re.IGNORECASE)
_PLACE = re.compile(r"[가-힣]+(?:시|구|동|군|읍|역|도|로|길|점|병원|학교|대학교|회사|카페)"
                    r"(?=\s|$|[에의은는이가로서])|\b(?:in|at|to|from) [A-Z][a-z]+")
_LATIN_NAME = re.compile(r"(?<=\w )[A-Z][a-z]+")
_QUESTION = re.compile(r"[?？]\s*\W*$|(?:까|니|나요|가요|죠|지|냐|래|는데요)\s*[?？.]*\s*$|"
                       r"\b(?:how do i|can i|should i)\b", re.IGNORECASE)
_PLAN = re.compile(r"(?:ㄹ|을|를)?\s*(?:거야|거예요|예정|계획|생각\s*중|고민\s*중|싶다|싶어|싶네|싶음|할까|"
                   r"해야\s*(?:돼|지|겠)|가야\s*(?:돼|지|겠)|언젠가|나중에|다음\s*(?:달|주|해)에?|내년에?|려고|ㄹ래)|"
                   r"\b(?:will|going to|gonna|plan(?:ning)? to|want to|wanna|would like to|thinking (?:of|about)|"
                   r"someday|hope to|might|next (?:week|month|year))\b", re.IGNORECASE)
_GREETING = re.compile(r"안녕|반갑|감사|고맙|축하|수고|좋은 하루|무엇을 도와|도와드릴|환영|"
                       r"\b(?:hi|hello|hey|thanks|thank you|congrat\w*|welcome|good (?:morning|night|luck)|"
                       r"have a (?:nice|great|good)|how can i help)\b", re.IGNORECASE)
_POLICY = re.compile(r"(?:됩니다|합니다|습니다|가능합니다|불가합니다|바랍니다|주세요|십시오)\s*[.!]?\s*$|"
                     r"고객|회원|규정|정책|약관|"
                     r"\b(?:customers?|members?|policy|must|shall|may not|are eligible|is eligible|within \d+|"
                     r"please|terms)\b", re.IGNORECASE)
_PAST = re.compile(r"예전|원래|처음엔|처음에|전에는|전엔|옛날|그때|당시|였었|었었|"
                   r"\b(?:used to|previously|before|former(?:ly)?|originally|back then|at first|old)\b", re.IGNORECASE)
_NOW = re.compile(r"지금|요즘|현재|이제|이번|\b(?:now|currently|these days|nowadays|current)\b", re.IGNORECASE)
_SELF = re.compile(r"(?:^|\s)(?:나|내|난|날|저|제|전|우리|저희)(?=\s|$|[는가의도를랑한])|"
                   r"\b(?:i|i'm|i've|my|me|mine|we|our)\b", re.IGNORECASE)
_LISTENER = re.compile(r"고객님|사용자|회원님|손님|당신|\b(?:you|your|the user|the customer)\b", re.IGNORECASE)
_RELATIVES = re.compile(r"동생|남동생|여동생|엄마|어머니|아빠|아버지|부모님|형|누나|언니|오빠|와이프|아내|남편|"
                        r"친구|아들|딸|할머니|할아버지|사촌|삼촌|이모|고모|조카|여친|남친|여자친구|남자친구|동료|팀장|선배|후배|사장|애인|"
                        r"\b(?:sister|brother|mom|mother|dad|father|parents?|wife|husband|friend|son|daughter|"
                        r"grandma|grandpa|cousin|uncle|aunt|nephew|niece|girlfriend|boyfriend|colleague|boss|"
                        r"partner|roommate|coworker)s?\b", re.IGNORECASE)


def sentences(text: str) -> list[str]:
    """The sentences of a memory: each line split by the sentence splitter (a heading, a list item)."""
    out: list[str] = []
    for line in text.split("\n"):
        if re.search(r"\w", line):
            out.extend(line[a:b] for a, b in split_sentences(line))
    return [s for s in out if s.strip()] or [text]


def _wh(question: str) -> str:
    for name, pattern in _WH:
        if pattern.search(question):
            return name
    return "other"


@lru_cache(maxsize=4096)
def _morphs(text: str) -> tuple[tuple[str, str], ...]:
    return tuple((form, tag) for form, tag, *_ in analyze(text)) if has_hangul(text) else ()


def _names(text: str) -> frozenset[str]:
    found = {form for form, tag in _morphs(text) if tag == "NNP"}
    found |= {m.group() for m in _LATIN_NAME.finditer(text)}
    return frozenset(found)


def _holds(text: str) -> dict[str, bool]:
    """What kinds of value a sentence holds: a date or time, a number, a place, a name."""
    return {"date": bool(_WHEN.search(text)), "number": bool(_NUMBER.search(text)),
            "place": bool(_PLACE.search(text)), "name": bool(_names(text))}


def _who(speaker: str) -> str:
    """user (any person: "user" or a name in a group chat), assistant, document, or none. A person's name
    is not a feature of its own: which names the training set's group chats used says nothing."""
    low = (speaker or "").strip().lower()
    if low == "document":
        return low
    return "assistant" if is_agent(low) else ("none" if not low else "user")


def _endings(text: str) -> list[str]:
    """A Korean sentence's last two endings or an English sentence's first two words (its mood)."""
    morphs = [f"{form}/{tag}" for form, tag in _morphs(text) if tag.startswith(("E", "VC", "VX", "SF", "XS"))]
    if morphs:
        return [f"end:{m}" for m in morphs[-2:]]
    words = re.findall(r"[a-z']+", text.lower())[:2]
    return [f"first:{w}" for w in words]


def lexical_features(question: str, text: str, speaker: str) -> dict[str, float]:
    """The cheap features of (question, one sentence or memory, who said it)."""
    f: dict[str, float] = {"bias": 1.0}
    wanted = question_terms(question)
    held = set(keyword_terms(text))
    if wanted:
        share = len(wanted & held) / len(wanted)
        f["overlap"] = share
        f["overlap_all"] = float(share == 1.0)
        f["overlap_none"] = float(share == 0.0)
        f["missing"] = min(3, len(wanted - held)) / 3
    wh = _wh(question)
    holds = _holds(text)
    for kind, present in holds.items():
        f[f"wh:{wh}|{kind}:{int(present)}"] = 1.0
    for name, pattern in (("question", _QUESTION), ("plan", _PLAN), ("greeting", _GREETING), ("policy", _POLICY)):
        if pattern.search(text):
            f[f"is:{name}"] = 1.0
    who = _who(speaker)
    f[f"speaker:{who}"] = 1.0
    asks_self, asks_listener = bool(_SELF.search(question)), bool(_LISTENER.search(question))
    q_relatives = {m.group() for m in _RELATIVES.finditer(question)}
    m_relatives = {m.group() for m in _RELATIVES.finditer(text)}
    asker = "self" if asks_self else "listener" if asks_listener else "other"
    f[f"asks:{asker}|speaker:{who}"] = 1.0
    if q_relatives:
        f["q_relative_in_m"] = float(bool(q_relatives & m_relatives) or any(r in text for r in q_relatives))
        f["q_relative_missing"] = float(not any(r in text for r in q_relatives))
    if m_relatives - q_relatives:
        f[f"m_other_relative|asks:{asker}"] = 1.0
    if _SELF.search(text):
        f[f"m_self|asks:{asker}"] = 1.0
    q_names, m_names = _names(question), _names(text)
    if q_names:
        # a name the question asks about is in the sentence, or is who said it ("수아" said "고양이 이름은 두부야")
        f["q_name_in_m"] = float(any(n in text or n in speaker for n in q_names))
    if m_names - q_names and not q_names:
        f[f"m_other_name|wh:{wh}"] = 1.0
    past_q, past_m = bool(_PAST.search(question)), bool(_PAST.search(text))
    f[f"past:{int(past_q)}{int(past_m)}"] = 1.0
    if _NOW.search(question):
        f[f"now_q|past_m:{int(past_m)}"] = 1.0
    for ending in _endings(text):
        f[ending] = 1.0
    return f


def features(question: str, text: str, speaker: str, question_vector: np.ndarray | None = None,
             text_vector: np.ndarray | None = None) -> dict[str, float]:
    """All features of a pair: the lexical ones, and with both vectors the cosine and the product."""
    f = lexical_features(question, text, speaker)
    if question_vector is not None and text_vector is not None:
        cosine = float(question_vector @ text_vector)
        f["cosine"] = (cosine - 0.8) * 10  # e5's cosines sit in 0.7..0.95: centred and spread
        for i, value in enumerate(question_vector * text_vector):
            f[f"v{i}"] = float(value) * PRODUCT_SCALE
    return f


@dataclass(frozen=True)
class Judgment:
    """How likely a memory answers a question, its best sentence, and which variant judged it."""

    probability: float
    sentence: str
    answers: bool
    variant: str  # "e5-small" (vectors and lexical features) or "lexical"

    @property
    def reason(self) -> str:
        shown = self.sentence if len(self.sentence) <= 60 else self.sentence[:57] + "…"
        return f"{self.variant} head: p={self.probability:.2f} for {shown!r}"


class AnswerableModel:
    """The shipped weights: a ``full`` variant (vectors + lexical) and a ``lexical`` one."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.variants: dict[str, dict[str, Any]] = data["variants"]

    def threshold(self, variant: str) -> float:
        """The bar of ``variant`` (``full`` or ``lexical``), chosen on the training folds."""
        return float(self.variants[variant]["threshold"])

    def _probability(self, variant: str, f: dict[str, float]) -> float:
        spec = self.variants[variant]
        weights: dict[str, float] = spec["weights"]
        z = spec["bias"] + sum(weights.get(name, 0.0) * value for name, value in f.items())
        a, b = spec["platt"]
        return 1.0 / (1.0 + math.exp(-(a * z + b)))

    def judge(self, question: str, memory: str, speaker: str, embedder: _Embeds | None = None) -> Judgment:
        """Score every sentence of ``memory`` (and the whole of it) against ``question``; the best one wins.
        Vectors are used when ``embedder`` is the bundled e5-small, the lexical variant otherwise."""
        parts = sentences(memory)
        candidates = parts if len(parts) == 1 else [*parts, memory]
        use_vectors = embedder is not None and embedder.model_id == EMBEDDER and "full" in self.variants
        variant = "full" if use_vectors else "lexical"
        if use_vectors:
            assert embedder is not None
            q = np.asarray(embedder.embed_query(question), dtype=np.float32)
            vectors = np.asarray(embedder.embed(candidates, "document"), dtype=np.float32)
            scored = [self._probability(variant, features(question, c, speaker, q, v))
                      for c, v in zip(candidates, vectors, strict=True)]
        else:
            scored = [self._probability(variant, lexical_features(question, c, speaker)) for c in candidates]
        best = max(range(len(candidates)), key=lambda i: (scored[i], -len(candidates[i])))
        # the best single sentence is what is quoted, even where the whole memory scored a little higher
        sentence = max(range(len(parts)), key=lambda i: scored[i]) if len(parts) > 1 else 0
        probability = round(scored[best], 4)
        return Judgment(probability, parts[sentence], probability >= self.threshold(variant),
                        EMBEDDER if use_vectors else "lexical")


@lru_cache(maxsize=1)
def answerable_model() -> AnswerableModel:
    """The shipped answerability head, loaded once."""
    text = resources.files("gieok.data").joinpath(f"answerable_{EMBEDDER}.json").read_text(encoding="utf-8")
    return AnswerableModel(json.loads(text))
