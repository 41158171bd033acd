"""Reflect: answer a question only from memory, with verified quotes, or honestly say it is not there.

The ladder: a mental model whose standing question is this question answers by lookup; otherwise
observations are searched, then raw facts — "not in memory" is never said before raw facts were
searched.

* **Without an LLM** the bank's decision model is asked, for each recalled memory, the ``answers``
  task (gieok.providers.decisions: does this memory answer this question, and which sentence of it,
  with a probability). The built-in ``learned`` model is the answerability head of
  ``gieok.answering._answerable``; a bank whose decision model is ``llm`` gets its LLM's judgment.
  Reflect quotes, verbatim and cited, the sentence of the memory the model is surest of — only when
  the model says yes (its probability reaches its bar); otherwise it refuses and says which memory
  came closest and how likely it was to answer. Every decision is in ``steps`` with its probability
  and provider. A replaced version is never asked unless the question asks about the past
  (``current_versions``).
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
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from gieok.answering import check_answer, detect_language, not_in_documents, not_in_memory, question_terms
from gieok.documents import format_location
from gieok.engine._time import TimeLike
from gieok.engine.banks import get_memory
from gieok.engine.context import BankContext, JobContext
from gieok.engine.llm_calls import call_llm
from gieok.engine.recall import _ASKS_FOR_HISTORY, recall
from gieok.engine.scopes import UNFILTERED, RecallScope, memory_scope
from gieok.errors import InputError, LLMRateLimitError, LLMUnavailableError, MemoryNotFoundError
from gieok.providers.decisions import Decision, DecisionModel
from gieok.providers.llms import LLM
from gieok.records import Recall, RecalledMemory
from gieok.store.protocol import BankRow, Store

__all__ = ["MAX_STEPS", "Reflection", "citation", "cited", "current_versions", "match_mental_model", "memory_lines",
           "reflect", "refresh_models"]

MAX_STEPS = 10
MODEL_MATCH = 0.8  # share of a mental model's question terms the question must have (and vice versa)

RecallFn = Callable[..., Recall]

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


@dataclass
class Reflection:
    question: str
    answer: str
    supported: bool
    language: str
    source: str  # mental_model | observations | facts | none
    # each cited memory: id, type, text, quotes, and where it came from: source_id, source_ids (the
    # messages or document it rests on), speaker, mentioned_at, occurred_start, occurred_end (ISO 8601)
    based_on: list[dict[str, Any]] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    dropped_quotes: list[str] = field(default_factory=list)
    llm: str | None = None
    # how it was answered: offline (extractive), llm, offline_fallback (an LLM is configured but did not
    # answer: mode_reason says why) or lookup (a mental model's stored answer)
    mode: str = "offline"
    mode_reason: str | None = None
    # why an unsupported answer refused: nothing_found (no memory came back) or insufficient
    # (memories came back, none says what was asked); None when the answer is supported
    refusal: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def match_mental_model(store: Store, bank: BankRow, question: str) -> Any | None:
    wanted = question_terms(question)
    if not wanted:
        return None
    best, best_score = None, 0.0
    for model in store.mental_models(bank.id):
        terms = question_terms(model.question)
        if not terms or model.answer is None:
            continue
        score = min(len(wanted & terms) / len(terms), len(wanted & terms) / len(wanted))
        if score > best_score:
            best, best_score = model, score
    return best if best_score >= MODEL_MATCH else None


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def citation(memory: RecalledMemory) -> str | None:
    """How an answer cites a document's memory: ``policy.pdf, p. 3`` / ``refund.md, § 환불 정책 › 예외``."""
    if memory.location is None:
        return None  # not an ingested document's
    where = format_location(memory.location)
    return f"{memory.source_id}, {where}" if where else memory.source_id


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
    text = (not_in_documents if documents else not_in_memory)(question, found=found)
    return Reflection(question, text, False, language, "none", [], steps,
                      refusal="insufficient" if found else "nothing_found", **extra)


MAX_QUOTES = 2  # memories quoted in one offline answer: the best, and one more the model also says yes to
CLOSE = 0.05  # how far below the best a second quoted memory's probability may be


def _asked(decisions: DecisionModel, embedder: Any, question: str, memory: RecalledMemory) -> Decision:
    return decisions.decide("answers", hints={"embedder": embedder}, question=question, memory=memory.text,
                            speaker=memory.speaker or ("document" if memory.location is not None else ""))


def _probability(decision: Decision) -> float:
    """The probability that the memory answers, whichever option the model chose."""
    return decision.probability if decision.yes else 1.0 - decision.probability


def _extractive(ctx: BankContext, question: str, recalled: list[RecalledMemory],
                steps: list[dict[str, Any]]) -> Reflection | tuple[RecalledMemory, Decision] | None:
    """Answer from the memories the bank's decision model says answer ``question`` (task ``answers``),
    observations first, then facts; quote the sentence it points at. None, or the closest memory and
    its decision, when none reaches the model's bar: the caller refuses and says what it found."""
    decisions, closest = ctx.decisions(), None
    for source, types in (("observations", ("observation",)), ("facts", ("fact",))):
        found = [m for m in recalled if m.type in types]
        steps.append({"action": f"recall {source}", "found": [m.id for m in found]})
        judged = [(m, _asked(decisions, ctx.embedder, question, m)) for m in found]
        for memory, decision in judged:
            steps.append({"action": "decide answers", "memory_id": memory.id, "answer": decision.answer,
                          "probability": round(_probability(decision), 4), "provider": decision.provider,
                          "reason": decision.reason})
        ranked = sorted(judged, key=lambda pair: -_probability(pair[1]))  # stable: recall's order breaks ties
        if ranked and (closest is None or _probability(ranked[0][1]) > _probability(closest[1])):
            closest = ranked[0]
        chosen = [(m, d) for m, d in ranked if d.yes][:MAX_QUOTES]
        chosen = [(m, d) for m, d in chosen if _probability(d) >= _probability(chosen[0][1]) - CLOSE]
        if chosen:
            return _quoted(question, source, chosen, steps)
    return closest


def _quoted(question: str, source: str, chosen: list[tuple[RecalledMemory, Decision]],
            steps: list[dict[str, Any]]) -> Reflection:
    language = detect_language(question)
    lead = "기억에 따르면:" if language == "ko" else "From memory:"
    lines, based_on = [], []
    for memory, decision in chosen:
        quote = decision.span if decision.span and decision.span in memory.text else memory.text
        when = memory.mentioned_at.date().isoformat() if memory.mentioned_at else None
        said = ", ".join(p for p in (memory.speaker, when) if p)
        shown = " ".join(quote.split()).replace('"', "'")
        lines.append(f'"{shown}"{f" ({said})" if said else ""} [{memory.id}]')
        based_on.append(cited(memory, [quote]))
    text = f"{lead} {lines[0]}" if len(lines) == 1 else "\n".join([lead, *lines])
    return Reflection(question, text, True, language, source, based_on, steps)


def _not_sure(question: str, language: str, closest: tuple[RecalledMemory, Decision] | None) -> str:
    """Why reflect will not answer from what it found: the closest memory and how sure the model was."""
    if closest is None:
        return ""
    memory, decision = closest
    sentence = " ".join((decision.span or memory.text).split())
    sentence = sentence if len(sentence) <= 80 else sentence[:77] + "…"
    p = _probability(decision)
    if language == "ko":
        return (f' 가장 가까운 기억은 "{sentence}" [{memory.id}]이지만, 이 질문에 답한다고 볼 확률이 '
                f"{p:.2f}로 기준에 못 미쳐 답하지 않아요.")
    return (f' The closest memory is "{sentence}" [{memory.id}], but the chance that it answers this question is '
            f"{p:.2f}, below the bar, so I will not answer from it.")


def reflect(ctx: BankContext, question: str, *, now: TimeLike | None = None, use_models: bool = True,
            scope: RecallScope = UNFILTERED) -> Reflection:
    """Answer ``question`` from the bank's memory only (see the module docstring). Every recall it
    makes has ``scope``; under a scope filter a mental model answers only when every memory its
    answer rests on is in scope (a bank's standing answers are written from all of its memories)."""
    if not isinstance(question, str):
        raise InputError(f"question must be a string, not {type(question).__name__}")
    if not question.strip():
        raise InputError("question is empty: ask something")
    store, bank, llm = ctx.store, ctx.bank, ctx.llm
    recall_fn: RecallFn = lambda q: recall(ctx, q, limit=10, now=now, scope=scope)  # noqa: E731
    language = detect_language(question)
    if use_models:
        model = match_mental_model(store, bank, question)
        if model is not None and not _model_in_scope(ctx, model.based_on, scope):
            steps_skipped = [{"action": "mental model out of scope", "name": model.name}]
            model = None
        else:
            steps_skipped = []
        if model is not None:
            return Reflection(question, model.answer, True, language, "mental_model",
                              [_model_evidence(ctx, mid) for mid in model.based_on],
                              [{"action": "mental_model", "name": model.name}], mode="lookup")
    steps: list[dict[str, Any]] = steps_skipped if use_models else []
    mode, reason = "offline", None
    if llm is not None:
        try:
            return _with_llm(store, bank, question, recall_fn, llm, ctx.spend_limit, steps)
        except (LLMUnavailableError, LLMRateLimitError) as error:
            # the LLM did not answer after its retries: the offline answer is still an answer
            mode, reason = "offline_fallback", f"{type(error).__name__}: {error}"
            steps.append({"action": "llm failed, answered offline", "error": type(error).__name__})
    recalled = current_versions(ctx, question, recall_fn(question).memories)  # one recall serves both rungs
    found = _extractive(ctx, question, recalled, steps)
    if not isinstance(found, Reflection):
        closest = found
        found = _refusal(question, language, len(recalled), steps, documents=_only_documents(recalled))
        found.answer += _not_sure(question, language, closest)
    else:
        found = _say_trust(_cite_documents(found))
    found.mode, found.mode_reason = mode, reason
    return found


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


def memory_lines(memories: list[RecalledMemory]) -> str:
    """Recalled memories as a model reads them: one line each, ``[id] (date or document place,
    speaker, replaced by) text``."""
    if not memories:
        return "(nothing found)"
    return "\n".join(f"[{m.id}] ({citation(m) or (m.mentioned_at.date() if m.mentioned_at else '?')}"
                     f"{', ' + m.speaker if m.speaker else ''}"
                     f"{', replaced by ' + m.superseded_by if m.superseded_by else ''}) {m.text}" for m in memories)


def current_versions(ctx: BankContext, question: str, memories: list[RecalledMemory]) -> list[RecalledMemory]:
    """A replaced version does not answer; its replacement does, in its place. A replacement recall
    left out is fetched. A question about the past ("원래", "used to") keeps every version."""
    if _ASKS_FOR_HISTORY.search(question):
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
              steps: list[dict[str, Any]]) -> Reflection:
    language = detect_language(question)
    retrieved: dict[str, RecalledMemory] = {}
    conversation: list[dict[str, str]] = [{"role": "user", "content": f"Question: {question}"}]
    searched_facts = False
    final: dict[str, Any] | None = None
    for _ in range(MAX_STEPS):
        reply = call_llm(store, bank, llm, "reflect", conversation, system=_SYSTEM, json_schema=_STEP_SCHEMA,
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


def _expand(store: Store, bank: BankRow, memory: RecalledMemory | None) -> str:
    if memory is None:
        return "That memory was not retrieved in this conversation; recall it first."
    source = store.get_source(bank.id, bank.name, memory.source_id)
    if source is None:
        return "(source not found)"
    if source.kind == "document":
        return (source.text or "")[:3000]
    ids = set(memory.source_ids)
    positions = [i for i, m in enumerate(source.messages) if m.id in ids] or [0]
    window = source.messages[max(0, min(positions) - 3) : max(positions) + 4]
    return "\n".join(f"({m.timestamp or '?'}) {m.speaker}: {m.text}" for m in window)


def refresh_models(ctx: JobContext) -> dict[str, Any]:
    """The ``refresh_models`` job: re-answer every mental model of the bank (skipping the lookup rung)."""
    refreshed = 0
    for model in ctx.store.mental_models(ctx.bank.id):
        result = reflect(ctx, model.question, use_models=False)
        with ctx.store.write():
            ctx.store.set_mental_model_answer(model.id, result.answer, [b["id"] for b in result.based_on], ctx.now)
        refreshed += 1
    return {"refreshed": refreshed}
