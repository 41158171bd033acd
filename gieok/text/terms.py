"""Keyword terms for true BM25: Korean lemmas and English stems in one column.

Korean text goes through kiwipiepy, so "한라산에" indexes as "한라산" and "올랐다" as "오르다";
particles, endings and other function morphemes are dropped. Latin-script words are lower-cased,
stop words removed and stemmed with Snowball (PyStemmer), so "hiking" and "hiked" meet. Text with no
Hangul skips Kiwi entirely (it is the slow part). The same function indexes facts and analyses
queries, which is what makes the BM25 scores comparable.
"""

from __future__ import annotations

import re
from functools import lru_cache

from gieok.text.korean import analyze, has_hangul

__all__ = ["keyword_terms", "ENGLISH_STOPWORDS"]

# Content-bearing Kiwi tags: nouns, verbs/adjectives (as lemmas), roots, foreign words, numbers.
_KOREAN_CONTENT_TAGS = ("NNG", "NNP", "NR", "VV", "VA", "XR", "SL", "SN", "SH", "MAG")
# Lemmas that carry no topic: existence/copula/light verbs and very common adverbs.
_KOREAN_STOP_LEMMAS = frozenset(
    "있다 없다 하다 되다 이다 아니다 같다 그렇다 이렇다 저렇다 그냥 진짜 정말 너무 좀 잘 더 또 다 안 못 많이 "
    "그리고 그래서 그런데 근데 아주 매우 이제 지금 다시 계속 가장 제일".split()
)
ENGLISH_STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just me more most my
    myself no nor not now of off on once only or other our ours ourselves out over own same she should so
    some such than that the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would you your
    yours yourself yourselves oh ok okay yeah yes hey hi really also lot thing things get got gonna wanna
    i'm it's that's don't didn't can't i've you're i'll let's s t""".split()
)
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z']*|\d+(?:[.,]\d+)*")


@lru_cache(maxsize=1)
def _stemmer():  # type: ignore[no-untyped-def]
    import Stemmer

    return Stemmer.Stemmer("english")


def _latin_terms(words: list[str]) -> list[str]:
    kept = []
    for w in words:
        low = w.lower().strip("'")
        if low.endswith("'s"):
            low = low[:-2]
        if not low or low in ENGLISH_STOPWORDS:
            continue
        kept.append(low)
    return [t for t in _stemmer().stemWords(kept) if t]


@lru_cache(maxsize=16384)
def keyword_terms(text: str) -> tuple[str, ...]:
    """The BM25 terms of ``text``, in order, repeats kept (term frequency matters)."""
    if not has_hangul(text):
        return tuple(_latin_terms(_LATIN_WORD.findall(text)))
    terms: list[str] = []
    latin: list[str] = []
    for form, tag, lemma, _start, _end in analyze(text):
        base = tag.split("-")[0]
        if base not in _KOREAN_CONTENT_TAGS:
            continue
        if base == "SL":
            latin.append(form)
            continue
        if base == "MAG" and len(form) < 2:
            continue
        term = lemma if base in ("VV", "VA") else form
        if term in _KOREAN_STOP_LEMMAS:
            continue
        terms.append(term.lower())
    return tuple(terms + _latin_terms(latin))
