"""Consolidation triage: does a fact restate an observation, add to it, speak of something else, or
is it chatter?

A softmax (multinomial logistic regression) over two kinds of features of the pair:

* **dense** — the observation's and the fact's vectors from the bundled embedder (``e5-small``,
  passages): their cosine, ``|a - b|``, ``a * b`` and the fact's own vector (chatter is a kind of
  message whatever it is said next to), each column standardised with the training mean and spread.
  The vectors are the ones the engine already stores, so a judgment embeds nothing: a fact's is of
  its embedding text as retain embeds it (:func:`fact_embed_text`, "speaker: text"), an
  observation's is of its statements said by its subject (:func:`observation_embed_text`) — in
  consolidation the mean of its statements' stored vectors (see :mod:`gieok.engine.jobs.consolidate`);
* **lexical** — content words shared (Kiwi morphemes for Korean, words for English), numbers and
  names in the fact the observation lacks, change and negation words, length, laughter or emoji
  only, a question only, and whether the speaker is the observation's subject.

The weights are trained by ``bench/train_triage.py`` on ``bench/data/triage_train.jsonl`` (labelled
by a helper who never saw this code; 5-fold cross-validation grouped by observation) and ship in
``gieok/data/triage_e5-small.npz``. The model never writes text: it chooses one of :data:`LABELS`
with a probability, and consolidation decides what the choice does (see
:mod:`gieok.engine.jobs.consolidate`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

from gieok.text.korean import has_hangul
from gieok.text.terms import keyword_terms

__all__ = ["LABELS", "LOSSY", "EMBEDDER", "TriageModel", "choose", "dense_features", "fact_embed_text",
           "lexical_features", "observation_embed_text", "triage_model"]

LABELS = ("restates", "adds", "unrelated", "chatter")
EMBEDDER = "e5-small"
FILE = "triage_e5-small.npz"

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NAME = re.compile(r"\b[A-Z][a-zA-Z'\-]+")
_LAUGH = re.compile(r"[ㅋㅎㅠㅜㄷㄱㅇㅊㅏ-ㅣ]+|\b(?:lol|lmao|haha+|hehe+|omg|rofl)\b", re.IGNORECASE)
_SYMBOLS = re.compile(r"[\W_]+", re.UNICODE)
_EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F]")
_KO_QUESTION = re.compile(r"(?:까|니|냐|나요|가요|죠|지|래|어|야)\s*[?？]*\s*$")
# words that say a value changed, ended or began (the fact then adds to, or replaces, what is held)
_CHANGE = re.compile(
    r"바뀌|바꿨|바꾸|옮겼|옮기|이사|그만|끊었|관뒀|이직|전근|새로|이제|요즘|더 이상|더이상|안 해|안해|못 해|"
    r"시작했|됐어|되었|됐습|생겼|헤어|결혼|퇴사|합격|졸업|취소|"
    r"\b(?:now|no longer|anymore|switched|changed|moved|quit|stopped|started|new|instead|used to|"
    r"got|became|left|finally|recently|these days|since)\b", re.IGNORECASE)
_NEGATION = re.compile(r"(?:^|\s)(?:안|못)\s|않|없|아니|\b(?:not|never|no|don't|doesn't|didn't|isn't|wasn't)\b",
                       re.IGNORECASE)
_OTHER_PERSON = re.compile(
    r"동생|언니|오빠|누나|형|엄마|아빠|어머니|아버지|남편|아내|와이프|남친|여친|친구|동료|팀장|애들|아이|아들|딸|"
    r"\b(?:my (?:sister|brother|mom|dad|mother|father|wife|husband|friend|kids?|son|daughter|boss|partner|"
    r"roommate|coworker|colleague)|he|she|they|his|her)\b", re.IGNORECASE)
_FIRST_PERSON = re.compile(r"(?:^|\s)(?:나|난|내|저|전|제|저희|우리)(?:\s|$|가|는|도|요)|\b(?:I|I'm|my|me|we)\b")
_USER_SUBJECT = re.compile(r"^\s*(?:사용자|유저|the user|user)\b", re.IGNORECASE)


def fact_embed_text(fact: str, speaker: str) -> str:
    """What retain embeds for a fact (``gieok.engine.retain.plan.embed_text`` without a context; a
    test pins that they agree): the vector the head reads is the one the fact is stored with."""
    return f"{speaker}: {fact}" if speaker else fact


_SAID_BY = re.compile(r"^[^:\n]{1,40}:\s")
_PARTICLE = re.compile(r"(?:씨는|씨의|님은|님의|은|는|이|가|의)$")


def observation_embed_text(observation: str) -> str:
    """The text an observation's vector is of: its statements said by its subject ("지민: 지민은 성수동에
    살아"), as the stored vectors of the facts it shows are ("지민: 나 성수동 살아"). A text that already
    opens with its topic (consolidation's "지민: …") is kept as it is."""
    if _SAID_BY.match(observation):
        return observation
    words = observation.split()
    if not words:
        return observation
    user = _USER_SUBJECT.search(observation) or observation.lstrip().startswith(("사용자", "유저"))
    who = "user" if user else _PARTICLE.sub("", re.sub(r"'s$", "", words[0].strip(",.:")))
    return f"{who}: {observation}" if who else observation


def _bucket(value: float, edges: tuple[float, ...]) -> int:
    return sum(value >= edge for edge in edges)


def _content(text: str) -> set[str]:
    return {t.lower() for t in keyword_terms(text)}


def _pairs(text: str, leave_out: set[str]) -> set[str]:
    """Adjacent character pairs of the text's words, the subject's name left out."""
    words = [w for w in _SYMBOLS.sub(" ", text.lower()).split() if not any(w.startswith(t) for t in leave_out)]
    return {w[i:i + 2] for w in words for i in range(len(w) - 1)}


def _only_noise(text: str) -> bool:
    """Laughter, emoji and punctuation only ("ㅋㅋㅋ", "😂😂", "lol!!")."""
    rest = _SYMBOLS.sub("", _EMOJI.sub("", _LAUGH.sub("", text)))
    return not rest


def _subject(observation: str, speaker: str) -> str:
    """Whether the speaker is whom the observation is about: ``self``, ``other`` or ``unknown``."""
    who = speaker.strip().lower()
    if not who:
        return "unknown"
    if who in ("user", "사용자", "me", "나"):
        return "self" if _USER_SUBJECT.search(observation) else "other"
    if who in ("assistant", "ai", "bot"):
        return "assistant"
    return "self" if who in observation.lower() else "other"


def _subject_terms(observation: str) -> set[str]:
    """The terms of the observation's first word or ``name:`` prefix — whom it is about. Sharing
    them says only that the fact names the same person, not that it says the same thing."""
    head = observation.split(":", 1)[0] if ":" in observation[:40] else observation.split(" ", 1)[0]
    return _content(head)


def lexical_features(observation: str, fact: str, speaker: str) -> dict[str, float]:
    """Named cheap features of a pair; the vocabulary the trained model knows keeps only some.
    Values are scaled by ``LEXICAL_SCALE``: they face the dense block's many columns under one
    regularisation, and a few strong words (a change, a new number) must be able to speak."""
    return {name: LEXICAL_SCALE * value for name, value in _lexical(observation, fact, speaker).items()}


LEXICAL_SCALE = 10.0


def _lexical(observation: str, fact: str, speaker: str) -> dict[str, float]:
    out: dict[str, float] = {"bias_lex": 1.0}
    subject = _subject_terms(observation)
    fact_all = _content(fact)
    out["names_subject"] = float(bool(subject & fact_all))
    fact_terms, obs_terms = fact_all - subject, _content(observation) - subject
    shared = fact_terms & obs_terms
    share = len(shared) / len(fact_terms) if fact_terms else 0.0
    out["share"] = share
    out[f"share_b{_bucket(share, (0.01, 0.2, 0.4, 0.6, 0.8))}"] = 1.0
    out[f"shared_n{min(len(shared), 4)}"] = 1.0
    # character pairs catch what terms miss: 삼성 / 삼성전자, 토욜 / 토요일, econ / economics
    fact_pairs, obs_pairs = _pairs(fact, subject), _pairs(observation, subject)
    pair_share = len(fact_pairs & obs_pairs) / len(fact_pairs) if fact_pairs else 0.0
    out["pair_share"] = pair_share
    out[f"pair_share_b{_bucket(pair_share, (0.05, 0.15, 0.3, 0.5))}"] = 1.0
    new_numbers = set(_NUMBER.findall(fact)) - set(_NUMBER.findall(observation))
    out["new_number"] = float(bool(new_numbers))
    out["any_number"] = float(bool(_NUMBER.search(fact)))
    lowered = observation.lower()
    new_names = {n for n in _NAME.findall(fact) if n.lower() not in lowered and n not in ("I", "I'm")}
    out["new_name"] = float(bool(new_names))
    out["change"] = float(bool(_CHANGE.search(fact)))
    out["negation"] = float(bool(_NEGATION.search(fact)))
    out["noise_only"] = float(_only_noise(fact))
    out["laughter"] = float(bool(_LAUGH.search(fact) or _EMOJI.search(fact)))
    stripped = fact.strip()
    question = stripped.endswith(("?", "？")) or (has_hangul(stripped) and bool(_KO_QUESTION.search(stripped))
                                                   and not fact_terms)
    out["question"] = float(question)
    out["other_person"] = float(bool(_OTHER_PERSON.search(fact)))
    out["first_person"] = float(bool(_FIRST_PERSON.search(fact)))
    out[f"speaker_{_subject(observation, speaker)}"] = 1.0
    out[f"lang_{'ko' if has_hangul(fact) else 'en'}_{'ko' if has_hangul(observation) else 'en'}"] = 1.0
    return out


def dense_features(observation_vector: np.ndarray, fact_vector: np.ndarray) -> np.ndarray:
    """cosine, |a-b|, a*b and the fact's vector, one row (the vectors are unit length)."""
    a = np.asarray(observation_vector, dtype=np.float64)
    b = np.asarray(fact_vector, dtype=np.float64)
    return np.concatenate([[float(a @ b)], np.abs(a - b), a * b, b])


@dataclass(frozen=True)
class TriageModel:
    vocabulary: dict[str, int]
    lexical: np.ndarray  # (features, classes)
    dense: np.ndarray  # (dense dims, classes)
    bias: np.ndarray  # (classes,)
    mean: np.ndarray  # dense standardisation
    scale: np.ndarray
    bars: np.ndarray  # per label: the probability below which a lossy answer is not given (see choose)

    def probabilities(self, observation: str, fact: str, speaker: str, observation_vector: np.ndarray,
                      fact_vector: np.ndarray) -> np.ndarray:
        """P of each of :data:`LABELS` for the pair."""
        z = self.bias.copy()
        for name, value in lexical_features(observation, fact, speaker).items():
            column = self.vocabulary.get(name)
            if column is not None:
                z += value * self.lexical[column]
        dense = (dense_features(observation_vector, fact_vector) - self.mean) / self.scale
        z += dense @ self.dense
        z -= z.max()
        e = np.exp(z)
        return np.asarray(e / e.sum())

    def save(self, path: str) -> None:
        names = sorted(self.vocabulary, key=self.vocabulary.__getitem__)
        np.savez_compressed(path, names=np.array(names), bars=self.bars.astype(np.float32),
                            lexical=self.lexical.astype(np.float16),
                            dense=self.dense.astype(np.float16), bias=self.bias.astype(np.float32),
                            mean=self.mean.astype(np.float16), scale=self.scale.astype(np.float16))


@lru_cache(maxsize=1)
def triage_model() -> TriageModel:
    """The shipped weights, loaded once."""
    with resources.as_file(resources.files("gieok") / "data" / FILE) as path, np.load(path) as data:
        names = [str(n) for n in data["names"]]
        return TriageModel({n: i for i, n in enumerate(names)}, data["lexical"].astype(np.float64),
                           data["dense"].astype(np.float64), data["bias"].astype(np.float64),
                           data["mean"].astype(np.float64), np.maximum(data["scale"].astype(np.float64), 1e-6),
                           data["bars"].astype(np.float64))


# A restatement is only cited and chatter joins nothing: what they say never reaches an
# observation's text, so the head gives those answers only above their bars (chosen on the
# validation folds for precision); below, the likelier of the answers that keep the fact in view.
LOSSY = ("restates", "chatter")


def choose(probabilities: np.ndarray, bars: np.ndarray) -> int:
    """The label index the head answers with (see :data:`LOSSY`)."""
    order = np.argsort(-probabilities)
    for index in order:
        if LABELS[int(index)] not in LOSSY or probabilities[index] >= bars[index]:
            return int(index)
    return int(order[0])  # pragma: no cover - adds and unrelated have no bar
