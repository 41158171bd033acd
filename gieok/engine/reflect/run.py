"""Reflect: answer a question only from memory, with verified quotes, or honestly say it is not there.

The ladder: a mental model whose standing question is this question answers by lookup; otherwise
observations are searched, then raw facts — "not in memory" is never said before raw facts were
searched.

* **Without an LLM** the answer is extractive (gieok.answering): the memory sentences that cover the
  question's content terms, quoted verbatim and cited, or a refusal when the best coverage is below
  the calibrated sufficiency gate (``MIN_SUPPORT``). A question that paraphrases its answer gets a
  second, semantic gate: a memory whose similarity to the question stands ``SEMANTIC_GATE_Z``
  standard deviations above the bank's usual similarity to it (measured per bank and embedder, no
  fixed cosine), that is about everyone the question names (who said it, not whom it was said to)
  and covers at least ``SEMANTIC_MIN_COVERAGE`` of its terms is quoted. Both were chosen on a tuning
  split (LoCoMo conv-26, Korean ko-1/ko-2) against false-premise questions and reported on the rest
  (docs/benchmarks/reflect.md). Each memory such an answer quotes is then put to the bank's decision
  model as the ``answers`` task (the built-in ``learned`` model: the answerability head of
  ``gieok.answering._answerable``; ``llm``: the bank's LLM); a quote whose memory it judges unlikely
  to answer (probability below the ``VETO`` of the question's language) is dropped, and the answer
  with it when none is left — the refusal then names that memory and the probability. Each decision
  is in ``steps`` with its probability and provider.
* **With an LLM** a bounded tool loop (at most ``MAX_STEPS``): the model may ``search_observations``,
  ``recall`` facts, ``expand`` a memory into its source conversation, and finally ``answer``. Only
  memories actually retrieved in the loop may be cited; every quotation is checked verbatim (or
  fuzzily above a strict ratio) against the memory it cites; unverified quotes and invented
  citations are removed, and if nothing verified remains the answer is the honest refusal in the
  question's language. If the model gives up without having recalled raw facts, the facts are
  recalled for it and it is asked once more.

Memories of an ingested document carry their chunk's location; the answer cites it after the memory
id — ``[f-5] (refund.md, § 환불 정책 › 예외)`` / ``[f-2] (policy.pdf, p. 2)`` — and a question that
only documents were searched for, and none answered, is refused as "이 문서들에는 없어요" / "not in
these documents" (quote-or-refuse, as for conversations).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from gieok.answering import (
    EvidenceItem,
    ExtractiveAnswer,
    Support,
    check_answer,
    detect_language,
    extractive_answer,
    not_in_documents,
    not_in_memory,
    question_terms,
    support,
)
from gieok.answering._answerable import EMBEDDER as ANSWERABLE_EMBEDDER
from gieok.engine._time import TimeLike
from gieok.engine.admin.banks import get_memory
from gieok.engine.context import BankContext, JobContext
from gieok.engine.llm_calls import call_llm
from gieok.engine.recall.run import recall
from gieok.engine.recall.score import asks_for_history
from gieok.engine.reflect.shaping import (
    Directive,
    Shaping,
    breaks,
    forbidden_by,
    kind_word,
    prompt,
    refusal_text,
    shaping_of,
)
from gieok.engine.scopes import UNFILTERED, RecallScope, memory_scope
from gieok.errors import InputError, LLMRateLimitError, LLMUnavailableError, MemoryNotFoundError
from gieok.providers.decisions import Decision
from gieok.providers.llms import LLM
from gieok.records import Recall, RecalledMemory, Reflection, citation, memory_lines
from gieok.store.protocol import BankRow, Store

__all__ = ["MAX_STEPS", "Reflection", "citation", "cited", "current_versions", "match_mental_model", "memory_lines",
           "reflect", "refresh_models", "similarity_stats"]

MAX_STEPS = 10
MODEL_MATCH = 0.8  # share of a mental model's question terms the question must have (and vice versa)

RecallFn = Callable[..., Recall]
SimilarityStats = Callable[[str], tuple[float, float]]  # question → (mean, std) of its cosine to the bank
# chosen together on the tuning split (LoCoMo conv-26, Korean ko-1 and ko-2; answerable vs adversarial),
# reported on the rest: docs/benchmarks/reflect.md
SEMANTIC_GATE_Z = 3.0
SEMANTIC_MIN_COVERAGE = 0.5
TOP_MIN_COVERAGE = 0.5  # recall's first memory needs half the question's weighted terms
# A quote stands unless the bank's decision model judges its memory less likely to answer than the
# question's language's bar. Chosen on the tuning split (LoCoMo conv-26; Korean ko-1, ko-2) as the
# highest bar that cost no more than 0.01 of right answers there: Korean 0.5 (wrong 0.169 -> 0.112,
# right unchanged), English 0.1 (LoCoMo's questions about third persons are unlike the head's
# training set: at 0.5 it cost 0.07 of right answers for 0.01 of wrong ones). Held-out figures:
# docs/benchmarks/answerable.md.
VETO = {"ko": 0.5, "en": 0.1}

_STEP_SCHEMA = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["search_observations", "recall", "expand", "answer"]},
        "query": {"type": "string"},
        "memory_id": {"type": "string"},
        "answer": {"type": "string"},
        "cited": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["action"],
}
_SYSTEM = (
    "You answer questions about a user only from their stored memories. Tools (reply with one JSON object per "
    "turn): {\"action\": \"search_observations\", \"query\": ...} for consolidated observations; "
    "{\"action\": \"recall\", \"query\": ...} for raw facts; {\"action\": \"expand\", \"memory_id\": ...} for the "
    "conversation around a memory; {\"action\": \"answer\", \"answer\": ..., \"cited\": [memory ids]} to finish. "
    "Cite memories as [f-12] or [o-3] right after what they support, and quote their exact words in double quotes. "
    "Never cite a memory you were not shown. If the memories do not contain the answer, answer with an empty "
    "string. Answer in the language of the question."
)


def match_mental_model(store: Store, bank: BankRow, question: str) -> Any | None:
    wanted = question_terms(question)
    if not wanted:
        return None
    best, best_score = None, 0.0
    for model in store.models.all(bank.id):
        terms = question_terms(model.question)
        if not terms or model.answer is None:
            continue
        score = min(len(wanted & terms) / len(terms), len(wanted & terms) / len(wanted))
        if score > best_score:
            best, best_score = model, score
    return best if best_score >= MODEL_MATCH else None


_TITLE_END = (".", "?", "!", "。", "다", "요", ":", "|")


def _headings(memory: RecalledMemory) -> tuple[str, ...]:
    """A document memory's heading path; for a PDF page or a text file, which have none, a short
    first line without sentence punctuation ("사내 복리후생 안내", "Billing") is taken as its title."""
    if memory.location is None:
        return ()
    if memory.location.get("section"):
        return tuple(memory.location["section"])
    first, newline, _ = memory.text.strip().partition("\n")
    title = first.strip()
    if newline and title and len(title.split()) <= 6 and len(title) <= 40 and not title.endswith(_TITLE_END):
        return (title,)
    return ()


def _evidence(memories: list[RecalledMemory]) -> list[EvidenceItem]:
    return [EvidenceItem(m.id, m.text, m.score, m.mentioned_at, m.speaker, m.source_id, _headings(m))
            for m in memories]


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def cited(memory: RecalledMemory, quotes: list[str]) -> dict[str, Any]:
    """A ``based_on`` entry: the memory (and whose it is), the quotes taken from it, and the messages it rests on (for
    a document's memory also its ``location`` and the ``citation`` the answer prints)."""
    entry: dict[str, Any] = {"id": memory.id, "type": memory.type, "text": memory.text, "quotes": quotes,
                             "source_id": memory.source_id, "source_ids": list(memory.source_ids),
                             "speaker": memory.speaker, "mentioned_at": _iso(memory.mentioned_at),
                             "occurred_start": _iso(memory.occurred_start), "occurred_end": _iso(memory.occurred_end),
                             "trust": memory.trust, "user_id": memory.user_id}
    if memory.location is not None:
        entry["location"] = {k: v for k, v in memory.location.items() if k in ("page", "section")}
        entry["citation"] = citation(memory)
    return entry


_LEADS = {"기억에 따르면:": "문서에 따르면:", "From memory:": "From the documents:"}
_TRUST_WORDS = {"en": {"assistant": "the assistant", "document": "a document or a forwarded message",
                       "web": "a web page", "tool": "a tool's output"},
                "ko": {"assistant": "어시스턴트", "document": "문서나 전달된 메시지", "web": "웹 페이지",
                       "tool": "도구 출력"}}


def _say_trust(reflection: Reflection) -> Reflection:
    """Say in the answer which cited memories come from below the user's own words (a document the
    citation already names is not repeated): the reader weighs a web page's claim otherwise."""
    words = _TRUST_WORDS["ko" if reflection.language == "ko" else "en"]
    lower = [(b["id"], words[b["trust"]]) for b in reflection.based_on
             if b.get("trust") in words and not b.get("citation")]
    if not lower:
        return reflection
    if reflection.language == "ko":
        notes = ", ".join(f"[{mid}]은 {where}" for mid, where in lower)
        reflection.answer += f"\n(참고: {notes}에서 온 내용이며, 사용자 본인이 말한 것이 아닙니다.)"
    else:
        notes = ", ".join(f"[{mid}] comes from {where}" for mid, where in lower)
        reflection.answer += f"\n(Note: {notes}, not from the user.)"
    return reflection


def _cite_documents(reflection: Reflection) -> Reflection:
    """Print each cited document memory's location after its id; an answer resting on documents only
    says so in its lead."""
    located = {b["id"]: b["citation"] for b in reflection.based_on if b.get("citation")}
    if not located:
        return reflection
    answer = re.sub(r"\[([fo]-\d+)\]", lambda m: f"{m.group(0)} ({located[m.group(1)]})" if m.group(1) in located
                    else m.group(0), reflection.answer)
    if len(located) == len(reflection.based_on):
        for lead, documents_lead in _LEADS.items():
            if answer.startswith(lead):
                answer = documents_lead + answer[len(lead):]
    reflection.answer = answer
    return reflection


def _only_documents(memories: Iterable[RecalledMemory]) -> bool:
    listed = list(memories)
    return bool(listed) and all(m.location is not None for m in listed)


def _refusal(question: str, language: str, found: int, steps: list[dict[str, Any]], *, documents: bool = False,
             **extra: Any) -> Reflection:
    """The honest refusal; ``documents``: everything searched came from ingested documents."""
    text = (not_in_documents if documents else not_in_memory)(question, found=found,
                                                               language="ko" if language == "ko" else "en")
    return Reflection(question, text, False, language, "none", [], steps,
                      refusal="insufficient" if found else "nothing_found", **extra)


def _semantic_match(question: str, found: list[RecalledMemory], stats: SimilarityStats | None,
                    backing: dict[str, Support] | None = None) -> list[RecalledMemory]:
    """Memories whose similarity to the question is far above what this bank's memories usually
    score against it (z ≥ ``SEMANTIC_GATE_Z``), that are about everyone the question names and that
    cover at least ``SEMANTIC_MIN_COVERAGE`` of its terms (a two-word memory that only names the
    person asked about is similar to every question about them, and answers none)."""
    if stats is None or not found:
        return []
    mean, std = stats(question)
    if std <= 0:
        return []
    supported = backing if backing is not None else support(question, _evidence(found))
    out = []
    for memory in found:
        hit, backed = memory.channels.get("semantic"), supported.get(memory.id)
        if hit is None or backed is None or (hit.score - mean) / std < SEMANTIC_GATE_Z:
            continue
        if backed.names and backed.coverage >= SEMANTIC_MIN_COVERAGE:
            out.append(memory)
    return out


Vet = Callable[[str, ExtractiveAnswer, list[RecalledMemory], list[dict[str, Any]]], ExtractiveAnswer | None]


def _extractive(question: str, recalled: list[RecalledMemory], steps: list[dict[str, Any]],
                stats: SimilarityStats | None = None, vet: Vet | None = None, *,
                paraphrase: bool = True) -> Reflection | None:
    for source, types in (("observations", ("observation",)), ("facts", ("fact",))):
        found = [m for m in recalled if m.type in types]
        steps.append({"action": f"recall {source}", "found": [m.id for m in found]})
        evidence = _evidence(found)
        answer = extractive_answer(question, evidence) if found else None
        if answer is None and source == "facts" and found and paraphrase:
            # the question may paraphrase its answer ("원래 어디서 일하던 사람" / "다른 게임사에서 마케팅
            # 하시던 분"): recall's first memory, or one far more similar than usual, that is about who is
            # asked and covers enough of the question answers it
            backing = support(question, evidence)
            top = backing.get(found[0].id)
            if top is not None and top.names and top.coverage >= TOP_MIN_COVERAGE:
                strong, gate = found[:1], "top memory"
            else:
                strong, gate = _semantic_match(question, found, stats, backing)[:1], "semantic gate"
            if strong:
                steps.append({"action": gate, "found": [strong[0].id]})
                answer = extractive_answer(question, _evidence(strong), max_sentences=1, min_support=0.0)
        if answer is not None and vet is not None:
            answer = vet(question, answer, found, steps)
        if answer is not None:
            texts = {m.id: m for m in found}
            based_on = [cited(texts[mid], [quote]) for mid, quote in answer.quotes]
            return Reflection(question, answer.text, True, answer.language, source, based_on, steps)
    return None


def _probability(decision: Decision) -> float:
    """The probability that the memory answers, whichever option the model chose."""
    return decision.probability if decision.yes else 1.0 - decision.probability


def _vetting(ctx: BankContext, doubted: list[tuple[RecalledMemory, Decision]],
             bar_of: Callable[[float], float] = lambda bar: bar) -> Vet:
    """Ask the bank's decision model, for each memory the extractive answer quotes, the ``answers``
    task; a quote whose memory it judges more likely not to answer (``VETO``) is dropped, and so is
    the answer when none is left. ``doubted`` collects what was dropped, for the refusal to name;
    ``bar_of`` moves the bar (a disposition's skepticism)."""
    decisions = ctx.decisions()
    if decisions.name == "learned" and ctx.embedder.model_id != ANSWERABLE_EMBEDDER:
        # without the vectors it was trained on, the head's lexical variant answers too rarely to
        # overrule the rules (blind recall 0.21): a bank with another embedder keeps the rules alone
        return lambda question, answer, found, steps: answer

    def vet(question: str, answer: ExtractiveAnswer, found: list[RecalledMemory],
            steps: list[dict[str, Any]]) -> ExtractiveAnswer | None:
        by_id = {m.id: m for m in found}
        bar = bar_of(VETO[answer.language])
        kept: list[tuple[str, str]] = []
        for memory_id, quote in answer.quotes:
            memory = by_id[memory_id]
            decision = decisions.decide("answers", hints={"embedder": ctx.embedder}, question=question,
                                        memory=memory.text, speaker=_speaker(memory))
            p = _probability(decision)
            steps.append({"action": "decide answers", "memory_id": memory_id, "answer": decision.answer,
                          "probability": round(p, 4), "provider": decision.provider, "reason": decision.reason,
                          "kept": p >= bar})
            if p >= bar:
                kept.append((memory_id, quote))
            else:
                doubted.append((memory, decision))
        if not kept:
            return None
        if len(kept) == len(answer.quotes):
            return answer
        return _without(answer, kept)

    return vet


def _speaker(memory: RecalledMemory) -> str:
    """Who said a memory, as the head was trained to read it: a document's text has no speaker."""
    if memory.speaker:
        return memory.speaker
    return "document" if memory.location is not None or memory.trust in ("document", "web", "tool") else ""


def _without(answer: ExtractiveAnswer, kept: list[tuple[str, str]]) -> ExtractiveAnswer:
    """The answer with only the ``kept`` quotes' lines (one line per quote, each ending in its id)."""
    ids = {memory_id for memory_id, _ in kept}
    lead, *lines = answer.text.split("\n")
    lines = [line for line in lines if any(line.endswith(f"[{memory_id}]") for memory_id in ids)]
    text = f"{lead} {lines[0]}" if len(lines) == 1 else "\n".join([lead, *lines])
    return ExtractiveAnswer(text, kept, answer.coverage, answer.language)


def _not_sure(language: str, doubted: list[tuple[RecalledMemory, Decision]]) -> str:
    """Why reflect will not answer from what it found: the memory the rules would have quoted, and how
    likely the decision model judged it to answer."""
    if not doubted:
        return ""
    memory, decision = max(doubted, key=lambda pair: _probability(pair[1]))
    sentence = " ".join((decision.span or memory.text).split())
    sentence = sentence if len(sentence) <= 80 else sentence[:77] + "…"
    p = _probability(decision)
    if language == "ko":
        return (f' 가장 가까운 기억은 "{sentence}" [{memory.id}]이지만, 이 질문에 답할 확률이 {p:.2f}로 '
                f"판단되어({decision.provider}) 답하지 않아요.")
    return (f' The closest memory is "{sentence}" [{memory.id}], but the chance that it answers this question '
            f"was judged {p:.2f} ({decision.provider}), so I will not answer from it.")


def reflect(ctx: BankContext, question: str, *, now: TimeLike | None = None, use_models: bool = True,
            scope: RecallScope = UNFILTERED) -> Reflection:
    """Answer ``question`` from the bank's memory only (see the module docstring). Every recall it
    makes has ``scope``; under a scope filter a mental model answers only when every memory its
    answer rests on is in scope (a bank's standing answers are written from all of its memories)."""
    if not isinstance(question, str):
        raise InputError(f"question must be a string, not {type(question).__name__}")
    if not question.strip():
        raise InputError("question is empty: ask something")
    shaping = shaping_of(ctx.config)
    return _shaped(shaping, _answer(ctx, question, shaping, now=now, use_models=use_models, scope=scope))


def _answer(ctx: BankContext, question: str, shaping: Shaping, *, now: TimeLike | None, use_models: bool,
            scope: RecallScope) -> Reflection:
    store, bank, llm = ctx.store, ctx.bank, ctx.llm
    recall_fn: RecallFn = lambda q: recall(ctx, q, limit=10, now=now, scope=scope)  # noqa: E731
    language = shaping.language or detect_language(question)
    steps: list[dict[str, Any]] = []
    forbidden = _forbidden(shaping, question, question, language, steps, "question")
    if forbidden is not None:
        return forbidden
    if use_models:
        model = match_mental_model(store, bank, question)
        if model is not None and not _model_in_scope(ctx, model.based_on, scope):
            steps.append({"action": "mental model out of scope", "name": model.name})
            model = None
        if model is not None:
            steps.append({"action": "mental_model", "name": model.name})
            return _forbidden(shaping, question, model.answer, language, steps, "answer") or Reflection(
                question, model.answer, True, language, "mental_model",
                [_model_evidence(ctx, mid) for mid in model.based_on], steps, mode="lookup")
    mode, reason = "offline", None
    if llm is not None:
        try:
            return _with_llm(store, bank, question, recall_fn, llm, ctx.spend_limit, steps, shaping)
        except (LLMUnavailableError, LLMRateLimitError) as error:
            # the LLM did not answer after its retries: the offline answer is still an answer
            mode, reason = "offline_fallback", f"{type(error).__name__}: {error}"
            steps.append({"action": "llm failed, answered offline", "error": type(error).__name__})
    found = _offline(ctx, question, shaping, language, recall_fn, steps)
    found.mode, found.mode_reason = mode, reason
    return found


def _offline(ctx: BankContext, question: str, shaping: Shaping, language: str, recall_fn: RecallFn,
             steps: list[dict[str, Any]]) -> Reflection:
    """The extractive answer, as the bank's disposition reads it (a literal one takes no paraphrase,
    a skeptical one a higher answerability bar), in the language a directive requires."""
    recalled = current_versions(ctx, question, recall_fn(question).memories)  # one recall serves both rungs
    doubted: list[tuple[RecalledMemory, Decision]] = []
    disposition = shaping.disposition
    stats = None if disposition.literal else (lambda text: similarity_stats(ctx, text))
    found = _extractive(question, recalled, steps, stats, _vetting(ctx, doubted, disposition.veto),
                        paraphrase=not disposition.literal)
    if found is None:
        found = _refusal(question, language, len(recalled), steps, documents=_only_documents(recalled))
        found.answer += _not_sure(language, doubted)
        if disposition.empathy >= 4:
            found.answer += kind_word(language)
        return found
    found.language = language
    found.answer = _relead(found.answer, language)
    return (_forbidden(shaping, question, found.answer, language, steps, "answer")
            or _say_trust(_cite_documents(found)))


def _relead(answer: str, language: str) -> str:
    """The extractive answer's lead in ``language`` (its quotes stay verbatim)."""
    leads = {"ko": "기억에 따르면:", "en": "From memory:"}
    for lang, lead in leads.items():
        if lang != language and answer.startswith(lead):
            return leads[language] + answer[len(lead):]
    return answer


def _forbidden(shaping: Shaping, question: str, text: str, language: str, steps: list[dict[str, Any]],
               what: str) -> Reflection | None:
    """The refusal a ``forbid`` directive makes of ``text`` (the question, or an answer), or None."""
    hit = forbidden_by(shaping, text)
    if hit is None:
        return None
    directive, word = hit
    steps.append({"action": "directive", "directive": directive.text, "kind": "forbid", "checked": what,
                  "matched": word})
    return Reflection(question, refusal_text(directive, language), False, language, "none", [], steps,
                      refusal="directive")


def _shaped(shaping: Shaping, reflection: Reflection) -> Reflection:
    """Record on the answer the disposition and directives it was given."""
    if not shaping.disposition.neutral:
        reflection.disposition = shaping.disposition.to_dict()
    reflection.directives = [d.text for d in shaping.directives]
    return reflection


def _model_in_scope(ctx: BankContext, based_on: Sequence[str], scope: RecallScope) -> bool:
    """May a recall of ``scope`` see every memory a mental model's answer rests on?"""
    if scope.filter.empty:
        return True
    if not based_on:
        return False  # an answer resting on nothing named cannot be shown to be in scope
    try:
        return all(scope.filter.admits(memory_scope(get_memory(ctx, memory_id))) for memory_id in based_on)
    except MemoryNotFoundError:
        return False


def _model_evidence(ctx: BankContext, memory_id: str) -> dict[str, Any]:
    try:
        return cited(get_memory(ctx, memory_id), [])
    except MemoryNotFoundError:  # erased since: the id is all that is left to show
        return {"id": memory_id, "type": "memory", "text": "", "quotes": [], "source_id": None, "source_ids": [],
                "speaker": None, "mentioned_at": None, "occurred_start": None, "occurred_end": None,
                "user_id": None}


def current_versions(ctx: BankContext, question: str, memories: list[RecalledMemory]) -> list[RecalledMemory]:
    """A replaced version does not answer; its replacement does, in its place. A replacement recall
    left out is fetched. A question about the past ("원래", "used to") keeps every version."""
    if asks_for_history(question):
        return memories
    ids = {m.id for m in memories}
    out: list[RecalledMemory] = []
    for memory in memories:
        newer = memory.superseded_by
        if newer is None:
            out.append(memory)
        elif newer not in ids:
            try:
                replacement = get_memory(ctx, newer)
            except MemoryNotFoundError:
                out.append(memory)  # its replacement was erased: this is what is left
                continue
            replacement.score = memory.score
            out.append(replacement)
            ids.add(newer)
    return out


def _with_llm(store: Store, bank: BankRow, question: str, recall_fn: RecallFn, llm: LLM, spend_limit: float,
              steps: list[dict[str, Any]], shaping: Shaping) -> Reflection:
    language = shaping.language or detect_language(question)
    system = "\n\n".join(p for p in (_SYSTEM, prompt(shaping)) if p)
    sent_back: set[str] = set()  # the directives an answer was already sent back for (once each)
    retrieved: dict[str, RecalledMemory] = {}
    conversation: list[dict[str, str]] = [{"role": "user", "content": f"Question: {question}"}]
    searched_facts = False
    final: dict[str, Any] | None = None
    for _ in range(MAX_STEPS):
        reply = call_llm(store, bank, llm, "reflect", conversation, system=system, json_schema=_STEP_SCHEMA,
                         max_tokens=700, limit_usd=spend_limit)
        step = reply.data or {}
        action = step.get("action")
        conversation.append({"role": "assistant", "content": json.dumps(step, ensure_ascii=False)})
        if action == "answer":
            if not str(step.get("answer", "")).strip() and not searched_facts:
                found = [m for m in recall_fn(question).memories if m.type == "fact"]
                searched_facts = True
                retrieved.update({m.id: m for m in found})
                steps.append({"action": "recall", "query": question, "found": [m.id for m in found], "forced": True})
                conversation.append({"role": "user",
                                     "content": "Before giving up, here are raw facts:\n" + memory_lines(found)})
                continue
            broken = breaks(shaping, str(step.get("answer", "")))
            if broken is not None and broken.text not in sent_back:
                sent_back.add(broken.text)
                steps.append({"action": "directive", "directive": broken.text, "kind": broken.kind,
                              "checked": "answer", "sent_back": True})
                conversation.append({"role": "user", "content": _send_back(broken)})
                continue
            final = step
            steps.append({"action": "answer"})
            break
        if action in ("search_observations", "recall"):
            query = str(step.get("query") or question)
            wanted = "observation" if action == "search_observations" else "fact"
            found = [m for m in recall_fn(query).memories if m.type == wanted]
            searched_facts |= wanted == "fact"
            retrieved.update({m.id: m for m in found})
            steps.append({"action": action, "query": query, "found": [m.id for m in found]})
            conversation.append({"role": "user", "content": memory_lines(found)})
        elif action == "expand":
            memory_id = str(step.get("memory_id", ""))
            context = _expand(store, bank, retrieved.get(memory_id))
            steps.append({"action": "expand", "memory_id": memory_id})
            conversation.append({"role": "user", "content": context})
        else:
            conversation.append({"role": "user", "content": "Unknown action: use one of the four tools."})
    answer_text = str((final or {}).get("answer", "")).strip()
    broken = breaks(shaping, answer_text) if answer_text else None
    if broken is not None:
        steps.append({"action": "directive", "directive": broken.text, "kind": broken.kind, "checked": "answer"})
        return Reflection(question, refusal_text(broken, language), False, language, "none", [], steps,
                          llm=llm.model, mode="llm", refusal="directive")
    forbidden = _forbidden(shaping, question, answer_text, language, steps, "answer") if answer_text else None
    if forbidden is not None:
        forbidden.llm, forbidden.mode = llm.model, "llm"
        return forbidden
    if not answer_text:
        return _refusal(question, language, len(retrieved), steps, documents=_only_documents(retrieved.values()),
                        llm=llm.model, mode="llm")
    check = check_answer(answer_text, {mid: m.text for mid, m in retrieved.items()})
    if not check.supported:
        return _refusal(question, language, len(retrieved), steps, documents=_only_documents(retrieved.values()),
                        dropped_quotes=[q.quote.text for q in check.dropped], llm=llm.model, mode="llm")
    quotes: dict[str, list[str]] = {}
    for q in check.verified:
        if q.memory_id:
            quotes.setdefault(q.memory_id, []).append(q.check.matched_text)
    used = [mid for mid in dict.fromkeys([*check.citations, *quotes]) if mid in retrieved]
    based_on = [cited(retrieved[mid], quotes.get(mid, [])) for mid in used]
    source = "observations" if used and all(retrieved[m].type == "observation" for m in used) else "facts"
    return _say_trust(_cite_documents(Reflection(question, check.cleaned_answer, True, language, source, based_on,
                                                 steps, [q.quote.text for q in check.dropped], llm=llm.model,
                                                 mode="llm")))


def _send_back(directive: Directive) -> str:
    """The turn that returns an answer breaking ``directive`` to the model, once."""
    return (f"Your answer breaks this rule: {directive.text!r}. Answer again following it (the quotes from "
            "memories stay verbatim).")


def _expand(store: Store, bank: BankRow, memory: RecalledMemory | None) -> str:
    if memory is None:
        return "That memory was not retrieved in this conversation; recall it first."
    source = store.sources.get(bank.id, bank.name, memory.source_id)
    if source is None:
        return "(source not found)"
    if source.kind == "document":
        return (source.text or "")[:3000]
    ids = set(memory.source_ids)
    positions = [i for i, m in enumerate(source.messages) if m.id in ids] or [0]
    window = source.messages[max(0, min(positions) - 3) : max(positions) + 4]
    return "\n".join(f"({m.timestamp or '?'}) {m.speaker}: {m.text}" for m in window)


def similarity_stats(ctx: BankContext, text: str) -> tuple[float, float]:
    """Mean and spread of ``text``'s cosine to a sample of the bank's memories: what "unusually
    similar" means for this bank and embedder (absolute cosines do not transfer between models)."""
    sample = ctx.store.search.sample(ctx.bank.id, ctx.bank.dim, 256)
    if len(sample) < 20:
        return 0.0, 0.0
    sims = sample @ np.asarray(ctx.embedder.embed_query(text), dtype=np.float32)
    return float(sims.mean()), float(sims.std())


def refresh_models(ctx: JobContext) -> dict[str, Any]:
    """The ``refresh_models`` job: re-answer every mental model of the bank (skipping the lookup rung)."""
    refreshed = 0
    for model in ctx.store.models.all(ctx.bank.id):
        result = reflect(ctx, model.question, use_models=False)
        with ctx.store.write():
            ctx.store.models.set_answer(model.id, result.answer, [b["id"] for b in result.based_on], ctx.now)
        refreshed += 1
    return {"refreshed": refreshed}
