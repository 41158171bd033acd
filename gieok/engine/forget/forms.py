"""The forms an erased text lives on in, and which of them the rest of the store still supports.

The engine does not keep only the text it was given. The keyword index holds lower-cased English
stems and Korean morphemes ("박서연이랑 만났어" → ``박서연``, ``만나다``), the entity graph holds
normalised names, Korean given names and surname keys (``김민지`` → ``민지``, ``surname:김``),
titles and co-occurrence keys (``caroline brightwater``), and JSON columns may hold any of them
escaped (``\\uae40``). An erasure is proven only when none of these survives, so the proof looks for
every form (:func:`erased_forms`), as stored and in its usual case and JSON spellings
(:func:`needles`).

A form is not evidence of a leak when what remains still says it: "coffee" erased from one message
and still said in another is legitimately in the index. :func:`unsupported` keeps only the forms
whose *support* — the literal text that would make a remaining statement yield the form — occurs in
no remaining evidence (facts, messages, chunks, documents, speakers, metadata, mental-model
questions; see the stores' ``store.erasure.evidence_texts``). Comparison is by :func:`squash` (NFKC, case-folded,
without spaces, dots and apostrophes), so "김 민지" supports ``김민지`` and "St. Louis" ``st louis``.
The support of a keyword term is its literal root, because the index does not spell terms as the
text does: an English stem without its last letter ("happi" is said as "happy"), a Korean
predicate lemma without its ending and last stem syllable ("만나다" is said as "만났어"). A term the
literal test cannot clear (irregular verbs: "길다" is said as "긴") is cleared by the keyword index
itself, checked against the remaining facts' texts (:func:`still_indexed`).

Very short forms are not probed: under :data:`MIN_BYTES` UTF-8 bytes a form ("gym", a lone Hangul
syllable, "3") matches unrelated text and random vector bytes, and identifies nobody by itself.
Digits alone and the graph's domain cues (``#work``) are not probed either.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from gieok.entities import SURNAME_KEY_PREFIX, candidate_keys, normalize_name
from gieok.store.protocol import Store
from gieok.text.korean import has_hangul
from gieok.text.terms import keyword_terms

__all__ = ["Form", "MIN_BYTES", "erased_forms", "name_forms", "needles", "squash", "still_indexed", "unsupported"]

MIN_BYTES = 4
_SQUASHED = re.compile(r"[\s.'’]+")
_WORD = re.compile(r"[^\W_]+")
_PAGE = 1 << 20  # evidence is matched a megabyte of squashed text at a time


def squash(text: str) -> str:
    """NFKC, case-folded, without whitespace, dots and apostrophes: the unit of comparison."""
    return _SQUASHED.sub("", unicodedata.normalize("NFKC", text).casefold())


@dataclass(frozen=True)
class Form:
    """One way erased text may be stored: ``text`` as the engine writes it, ``kind`` (text, word,
    term, name, key) for the report, ``support`` (squashed) the literal text that justifies it."""

    text: str
    kind: str
    support: str


def _probe_worthy(text: str) -> bool:
    return (len(text.encode("utf-8")) >= MIN_BYTES and not text.isdigit() and not text.startswith("#")
            and bool(text.strip()))


def _term_support(term: str) -> str:
    if has_hangul(term):
        if len(term) >= 2 and term.endswith("다"):  # a predicate lemma: its ending and last syllable change
            return term[:-2] or term[:1]
        return squash(term)
    return squash(term[:-1] if len(term) >= 4 else term)


def name_forms(name: str) -> list[Form]:
    """A name as the entity graph stores it: as given, normalised, and its lookup keys."""
    forms = [Form(name.strip(), "name", squash(name))]
    normalized = normalize_name(name)
    if normalized:
        forms.append(Form(normalized, "name", squash(normalized)))
    for key in candidate_keys(name):
        support = key.removeprefix(SURNAME_KEY_PREFIX)
        forms.append(Form(key, "key", squash(support)))
    return forms


def erased_forms(texts: Iterable[str], names: Iterable[str] = ()) -> list[Form]:
    """Every probe-worthy form of ``texts`` (whole, word by word, and as keyword terms) and of the
    entity ``names`` they gave (see :func:`name_forms`), each once."""
    forms: list[Form] = []
    for text in texts:
        text = text.strip()
        if not text:
            continue
        forms.append(Form(text, "text", squash(text)))
        forms += [Form(w.casefold(), "word", squash(w)) for w in _WORD.findall(text)]
        forms += [Form(t, "term", _term_support(t)) for t in keyword_terms(text)]
    for name in names:
        if name and name.strip():
            forms += name_forms(name)
    unique: dict[str, Form] = {}
    for form in forms:
        if not _probe_worthy(form.text):
            continue
        seen = unique.get(form.text)
        # one spelling reached two ways ("맞다" said, and the lemma of "맞아"): the looser support holds
        if seen is None or len(form.support) < len(seen.support):
            unique[form.text] = form if seen is None else Form(form.text, seen.kind, form.support)
    return list(unique.values())


def still_indexed(store: Store, bank_ids: Sequence[int], forms: Sequence[Form], hits: int = 5) -> list[Form]:
    """The forms no remaining fact yields as a keyword term. A lemma or stem is often spelled
    nowhere ("길다" is said as "긴", "come" as "coming"), so the literal test of :func:`unsupported`
    cannot clear it; the keyword index can, once checked: a term counts as still indexed when one
    of the facts the index finds it in (up to ``hits`` per bank) still yields it when its text is
    analysed again. A planted row, or a fact whose row holds a term its text does not give, does
    not count."""
    left = []
    for form in forms:
        if " " in form.text or not _is_term(form.text):
            left.append(form)
            continue
        yielded = False
        for bank_id in bank_ids:
            found = [i for i, _score in store.search.keyword(bank_id, [form.text], hits)]
            if any(form.text in keyword_terms(f.text) for f in store.facts.get(bank_id, found)):
                yielded = True
                break
        if not yielded:
            left.append(form)
    return left


def _is_term(text: str) -> bool:
    return text == text.casefold() and bool(_WORD.fullmatch(text))


def unsupported(forms: Iterable[Form], evidence: Iterable[str]) -> list[Form]:
    """The forms whose support occurs in none of the ``evidence`` texts (read once, in pages)."""
    pending = {f.text: f for f in forms}
    for page in _pages(evidence):
        for text, form in list(pending.items()):
            if form.support and form.support in page:
                del pending[text]
        if not pending:
            break
    return list(pending.values())


def _pages(texts: Iterable[str]) -> Iterator[str]:
    page: list[str] = []
    size = 0
    for text in texts:
        if not text:
            continue
        squashed = squash(text)
        page.append(squashed)
        size += len(squashed)
        if size >= _PAGE:
            yield "\x00".join(page)
            page, size = [], 0
    if page:
        yield "\x00".join(page)


def needles(form: str) -> list[str]:
    """The spellings a form may be stored in: as given, lower-cased, capitalised, and each as a JSON
    string escapes it (``json.dumps`` writes non-ASCII as ``\\uXXXX`` unless told not to)."""
    spellings = dict.fromkeys([form, form.casefold(), form.lower(), form.title(), form.capitalize()])
    out = dict.fromkeys(spellings)
    for s in spellings:
        escaped = json.dumps(s)[1:-1]
        if escaped != s:
            out[escaped] = None
    return [n for n in out if n]
