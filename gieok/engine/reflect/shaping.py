"""Shaping reflect: a bank's disposition (who answers) and its directives (what must hold whatever it is).

A **disposition** is three dials from 1 to 5 with a name and a background — ``skepticism`` (how much
evidence an answer needs), ``literalism`` (whether a paraphrase may answer), ``empathy`` (how the
answer treats the person asking) — stored in the bank's configuration. With an LLM, reflect's
system prompt describes it and the answer records the disposition it was given. Offline, the same
dials move the extractive answer, deterministically: skepticism raises or lowers the bar the
answerability check sets for a quote (:func:`Disposition.veto`), a literalism of 4 or 5 turns off
the paraphrase (semantic) gate, so only memories sharing the question's words answer, and an empathy
of 4 or 5 closes a refusal with a kind word. Two banks over the same facts then answer in two
voices, each the same every time.

**Directives** are ordered hard rules. Each is read into one of four kinds:

* ``forbid`` — a topic reflect must not answer ("Never give medical dosages", "약 복용량은 절대
  알려주지 마", or ``{"forbid": "medical dosages", "words": ["mg", "복용량"]}``). Enforced in code:
  a question or an answer that shares a content word with the topic (its keyword terms: stems in
  English, lemmas in Korean) or holds one of ``words`` is refused before any LLM call, and the
  refusal names the directive. Name the topic narrowly; list the words that must trigger it.
* ``language`` — the language answers are in ("Answer in Korean", "답변은 영어로", ``{"language":
  "ko"}``). Enforced in code: an LLM answer in another language is sent back once, then refused;
  offline, the answer's own words (its lead, a refusal) are in that language (quotes stay verbatim).
* ``register`` — Korean politeness ("답변은 존댓말로" → polite, "반말로 답해" → plain). Verified on an
  LLM's Korean answer (sentence endings outside quotes), sent back once, then refused. Offline
  answers' own words are polite, so a ``plain`` register holds for LLM answers only.
* ``rule`` — anything else: carried to the LLM in the prompt, not checkable in code (``explain``
  says so, and offline answers cannot break what they never generate).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gieok.answering import detect_language
from gieok.engine._validate import check_encodable
from gieok.engine.context import BankContext, Engine
from gieok.errors import InputError
from gieok.records import DIALS, DIRECTIVE_KINDS, Directive, Disposition
from gieok.text.terms import keyword_terms

__all__ = ["Directive", "Disposition", "Shaping", "MAX_DIRECTIVES", "breaks", "describe", "forbidden_by", "prompt",
           "read_directives", "set_directives", "set_disposition", "shaping", "shaping_of"]

MAX_DIRECTIVES = 20
MAX_DIRECTIVE_CHARS = 500
KINDS = DIRECTIVE_KINDS
LANGUAGES = {"ko": "Korean", "en": "English"}
REGISTERS = ("polite", "plain")

_DIAL_WORDS = {
    "skepticism": ("takes what memory says at face value", "trusts memory but notes doubts",
                   "weighs each memory", "asks for clear evidence before answering",
                   "answers only what memory states beyond doubt"),
    "literalism": ("reads memories for what they imply", "allows reasonable inferences",
                   "balances wording and meaning", "keeps to what memories say",
                   "answers only in the memories' own terms"),
    "empathy": ("states facts plainly", "is brief and neutral", "is considerate",
                "is warm and attentive to feelings", "puts the person's feelings first"),
}


def describe(disposition: Disposition) -> str:
    """A disposition in words, for an LLM's system prompt."""
    who = disposition.name or "the answerer"
    lines = [f"You answer as {who}." + (f" Background: {disposition.background}" if disposition.background else "")]
    for dial in DIALS:
        value = getattr(disposition, dial)
        lines.append(f"- {dial} {value}/5: {_DIAL_WORDS[dial][value - 1]}.")
    return "\n".join(lines)


def terms(directive: Directive) -> frozenset[str]:
    """What a text must share with a ``forbid`` directive to touch it."""
    own = {t for w in directive.words for t in (*keyword_terms(w), w.lower())}
    return frozenset({*keyword_terms(directive.topic), *own})


@dataclass(frozen=True)
class Shaping:
    """A bank's disposition and directives, read once per reflect."""

    disposition: Disposition = field(default_factory=Disposition)
    directives: tuple[Directive, ...] = ()

    def of_kind(self, kind: str) -> list[Directive]:
        return [d for d in self.directives if d.kind == kind]

    @property
    def language(self) -> str | None:
        """The language a directive requires (the first one that says), or None."""
        found = self.of_kind("language")
        return found[0].language if found else None


# -- reading directives ---------------------------------------------------------------------------

_LANGUAGE_NAMES = {"korean": "ko", "한국어": "ko", "한글": "ko", "국어": "ko", "english": "en", "영어": "en"}
_EN_LANGUAGE = re.compile(r"\b(?:answer|reply|respond|write|speak|talk)\b.*?\bin (korean|english)\b|"
                          r"^\s*(korean|english) only\b", re.I)
_KO_LANGUAGE = re.compile(r"(한국어|한글|국어|영어)로\s*(?:만\s*)?(?:답|대답|응답|말|써|쓰|작성|얘기|이야기)|"
                          r"(?:답변|대답|응답|답)(?:은|는)\s*(?:항상\s*|반드시\s*|꼭\s*)?(한국어|한글|국어|영어)로")
_POLITE = re.compile(r"존댓말|높임말|경어|존대")
_PLAIN = re.compile(r"반말")
_EN_FORBID = re.compile(
    r"^\s*(?:never|do not|don't|dont|must not|mustn't|no|avoid)\s+(?:ever\s+)?"
    r"(?:(?:give|share|discuss|mention|talk about|reveal|provide|offer|recommend|disclose|answer questions about|"
    r"answer about|say anything about|comment on)\s+)?(?:any\s+)?(?P<topic>.+?)[.!]?\s*$", re.I)
_KO_FORBID = re.compile(
    r"^\s*(?:절대\s*)?(?P<topic>.+?)\s*(?:에\s*대해서?|에\s*관해서?|에\s*대한\s*(?:것|건|내용)(?:은|는|을|를)?|"
    r"은|는|을|를|이|가)?\s*(?:절대(?:로)?\s*|어떤\s*경우에도\s*)?"
    r"(?:말하지|알려\s*주지|알려주지|언급하지|답하지|대답하지|다루지|이야기하지|얘기하지|추천하지|제공하지|주지)\s*"
    r"(?:마|말|않)")
_KO_BANNED = re.compile(r"^\s*(?P<topic>.+?)\s*(?:은|는|에\s*대한\s*답변은|관련\s*답변은)?\s*(?:절대\s*)?금지")


_NEGATED = re.compile(r"^\s*(?:never|do not|don't|dont|must not|mustn't|no)\b", re.I)


def _read_text(text: str) -> Directive:
    m = _EN_LANGUAGE.search(text) or _KO_LANGUAGE.search(text)
    if m and _NEGATED.search(text):
        return Directive(text, "rule")  # "never answer in English": which language, then? the LLM reads it
    if m:
        name = next(g for g in m.groups() if g)
        return Directive(text, "language", language=_LANGUAGE_NAMES[name.lower()])
    if _POLITE.search(text):
        return Directive(text, "register", register="polite")
    if _PLAIN.search(text):
        return Directive(text, "register", register="plain")
    m = _KO_FORBID.search(text) or _KO_BANNED.search(text) if detect_language(text) == "ko" else _EN_FORBID.search(text)
    if m and keyword_terms(m.group("topic")):
        return Directive(text, "forbid", topic=m.group("topic").strip())
    return Directive(text, "rule")


def _read_mapping(value: Mapping[str, Any]) -> Directive:
    kinds = [k for k in KINDS if k in value]
    unknown = sorted(set(value) - {*KINDS, "words", "text"})
    if len(kinds) != 1 or unknown:
        raise InputError("a directive mapping names exactly one of forbid, language, register or rule (plus "
                         f"optional words and text); got {', '.join(map(str, value)) or 'nothing'}")
    kind = kinds[0]
    body = value[kind]
    if not isinstance(body, str) or not body.strip():
        raise InputError(f"the directive's {kind} must be non-empty text")
    text = value.get("text") or (body if kind in ("forbid", "rule") else f"{kind}: {body}")
    if kind == "language" and body not in LANGUAGES:
        raise InputError(f"a language directive takes one of {', '.join(LANGUAGES)}, not {body!r}")
    if kind == "register" and body not in REGISTERS:
        raise InputError(f"a register directive takes one of {', '.join(REGISTERS)}, not {body!r}")
    words = value.get("words") or ()
    if kind != "forbid" and words:
        raise InputError("only a forbid directive takes words")
    if isinstance(words, str) or not all(isinstance(w, str) and w.strip() for w in words):
        raise InputError("a directive's words are a list of non-empty strings")
    if kind == "forbid" and not (keyword_terms(body) or words):
        raise InputError(f"the forbidden topic {body!r} has no content word: name it, or list words that trigger it")
    return Directive(str(text), kind, topic=body if kind == "forbid" else "", words=tuple(w.strip() for w in words),
                     language=body if kind == "language" else "", register=body if kind == "register" else "")


def read_directives(values: Sequence[str | Mapping[str, Any] | Directive]) -> list[Directive]:
    """Read ``values`` (text, mappings or directives) in order; a bad one is an :class:`InputError`."""
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Sequence):
        raise InputError("directives are a list (of text or mappings): wrap one directive in a list")
    if len(values) > MAX_DIRECTIVES:
        raise InputError(f"{len(values)} directives: a bank takes at most {MAX_DIRECTIVES}")
    out = []
    for i, value in enumerate(values):
        if isinstance(value, Directive):
            directive = value
        elif isinstance(value, str):
            if not value.strip():
                raise InputError(f"directive #{i + 1} is empty")
            directive = _read_text(" ".join(value.split()))
        elif isinstance(value, Mapping):
            directive = _read_mapping(value)
        else:
            raise InputError(f"directive #{i + 1} must be text or a mapping, not {type(value).__name__}")
        for text in (directive.text, directive.topic, *directive.words):
            check_encodable(text, f"directive #{i + 1}")
        if len(directive.text) > MAX_DIRECTIVE_CHARS:
            raise InputError(f"directive #{i + 1} is {len(directive.text)} characters: keep it to "
                             f"{MAX_DIRECTIVE_CHARS}")
        out.append(directive)
    return out


def shaping_of(config: Mapping[str, Any]) -> Shaping:
    """The shaping a bank's stored configuration holds (written by the setters, so already valid)."""
    stored = config.get("directives") or []
    directives = tuple(Directive.from_dict(d) for d in stored)
    return Shaping(Disposition.coerce(config.get("disposition")), directives)


# -- enforcing them -------------------------------------------------------------------------------

_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|\[[fo]-\d+\]")
_POLITE_END = re.compile(r"(?:요|니다|니까|세요|시오|죠|지요|습니까)\s*[.!?…~]*\s*$")
_KOREAN_SENTENCE = re.compile(r"[^.!?…\n]*[가-힣][^.!?…\n]*[.!?…]*")


def _own_words(answer: str) -> str:
    """The answer without its verbatim quotes and citations: what the answerer wrote."""
    return _QUOTED.sub(" ", answer)


def forbidden_by(shaping: Shaping, text: str) -> tuple[Directive, str] | None:
    """The first ``forbid`` directive ``text`` touches, with the word that touched it."""
    have = set(keyword_terms(text))
    lower = text.lower()
    for directive in shaping.of_kind("forbid"):
        for term in sorted(terms(directive)):
            if term in have or (" " in term and term in lower) or (term in directive.words and term in lower):
                return directive, term
    return None


def breaks(shaping: Shaping, answer: str) -> Directive | None:
    """The first language or register directive an (LLM's) answer breaks, judged on its own words."""
    own = _own_words(answer)
    if not own.strip():
        return None
    for directive in shaping.directives:
        if directive.kind == "language" and detect_language(own) != directive.language:
            return directive
        if directive.kind == "register" and detect_language(own) == "ko":
            sentences = [s.strip() for s in _KOREAN_SENTENCE.findall(own) if s.strip()]
            polite = [bool(_POLITE_END.search(s)) for s in sentences]
            if directive.register == "polite" and not all(polite):
                return directive
            if directive.register == "plain" and any(polite):
                return directive
    return None


def prompt(shaping: Shaping) -> str:
    """What reflect's system prompt adds for this shaping ("" when there is nothing to add)."""
    parts = []
    if not shaping.disposition.neutral:
        parts.append(describe(shaping.disposition))
    if shaping.directives:
        rules = "\n".join(f"{i}. {d.text}" for i, d in enumerate(shaping.directives, start=1))
        parts.append("Hard rules, in order; they override everything above, whatever the disposition:\n" + rules)
    return "\n\n".join(parts)


def refusal_text(directive: Directive, language: str) -> str:
    """The answer when a directive forbids answering."""
    if language == "ko":
        return f"이 질문에는 답하지 않도록 정해져 있어요 (지침: {directive.text})."
    return f"I'm not allowed to answer that here (directive: {directive.text})."


def kind_word(language: str) -> str:
    """What an empathetic refusal closes with."""
    if language == "ko":
        return " 도움이 못 돼서 미안해요. 알려 주시면 기억해 둘게요."
    return " Sorry I couldn't help with that one. Tell me, and I'll remember it."


# -- a bank's shaping, read and set ----------------------------------------------------------------

def set_disposition(engine: Engine, bank: str, value: Disposition | Mapping[str, Any] | None) -> Disposition:
    """Store ``value`` as the bank's disposition (None: back to neutral); returns what it now is."""
    disposition = Disposition.coerce(value)
    check_encodable(disposition.name, "the disposition's name")
    check_encodable(disposition.background, "the disposition's background")
    ctx = engine.bank_for_write(bank)
    with ctx.store.write():
        config = {k: v for k, v in ctx.store.banks.config(ctx.bank.id).items() if k != "disposition"}
        if not disposition.neutral:
            config["disposition"] = disposition.to_dict()
        ctx.store.banks.set_config(ctx.bank.id, config)
    return disposition


def set_directives(engine: Engine, bank: str,
                   values: Sequence[str | Mapping[str, Any] | Directive] | None) -> list[Directive]:
    """Replace the bank's directives with ``values``, in order (None or [] clears them); each is read
    (:func:`read_directives`) before anything is stored, so a bad one changes nothing."""
    directives = read_directives(values or [])
    ctx = engine.bank_for_write(bank)
    with ctx.store.write():
        config = {k: v for k, v in ctx.store.banks.config(ctx.bank.id).items() if k != "directives"}
        if directives:
            config["directives"] = [d.to_dict() for d in directives]
        ctx.store.banks.set_config(ctx.bank.id, config)
    return directives


def shaping(ctx: BankContext) -> Shaping:
    """The bank's disposition and directives."""
    return shaping_of(ctx.config)
