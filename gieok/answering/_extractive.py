"""Answer from memory without an LLM: quote the memory sentences that cover the question.

Question terms are the question's ``keyword_terms`` (Korean lemmas, English Snowball stems, so
"수영을 해" meets "수영해요" and "hiking" meets "hiked") minus question words (무엇, 언제, 때,
what, when, "how long", "what time", …) and "remember / 기억" chatter; English irregular forms are
mapped to their base ("went" → "go"), which a stemmer does not do.

Each memory is split into sentences; the passages to choose from are every sentence and every pair
of adjacent sentences of one memory (its second sentence often says what its first leaves out:
"민수는 제주도에 갔다. 거기서 한라산에 올랐다.").  A passage's *coverage* is the IDF-weighted share
of the question's terms it contains, IDF taken over all candidate sentences
(``log(1 + (N - df + 0.5) / (df + 0.5))``).  A question term that no candidate contains therefore
weighs the most, which is what lets the gate refuse: asking for a sister's job when only the
brother's is stored leaves "sister" uncovered at full weight.  Terms found only elsewhere in the same
memory count ``CONTEXT_CREDIT`` (half); a memory's ``speaker`` counts as part of each of its
sentences ("I grew up in Busan", said by Sam).  A name the question asks about (a Kiwi proper noun,
a capitalised English word) that is missing from the passage's whole memory halves its coverage
(``ENTITY_MISS``): "Where did Bob go hiking?" must not be answered with Alice's hike.

Among passages that pass the gate, a small bonus for the memory's recall rank
(``RANK_WEIGHT / (1 + rank)``) breaks near-ties; recall scores are not calibrated, so only their
order is used.  Up to ``max_sentences`` passages from distinct memories are quoted verbatim with their
ids, one line each; those after the first must also reach ``FOLLOWING_SHARE`` of its coverage.

Sufficiency gate: when the best coverage is below ``min_support`` the result is None and the caller
refuses (``not_in_memory``).  ``MIN_SUPPORT = 0.85`` was calibrated on the 46 labelled cases of
``tests/test_answering.py`` (``CALIBRATION``: 26 answerable, 20 unanswerable, Korean and English,
three to four memories each; the unanswerable ones store something related but different: the
brother's job, Busan instead of Jeju, the home instead of the office wifi password).  Measured best
coverage: every unanswerable case scores 0.20-0.81 (the hardest, "the wifi password at the office"
against "the wifi password at home is …", 0.807); 23 answerable cases score 1.0 and three score
0.53-0.60.  Any threshold in (0.807, 1.0] therefore refuses every unanswerable case and answers 23 of
26 answerable ones (43/46 = 93.5%, the best any threshold reaches); no threshold can separate the
three low answerable cases, whose questions use words their memory lacks ("summer vacation" for
"last summer", "어느 산" for "한라산").  0.85 sits in that gap, near its low end so that a complete
answer still passes when a term holding under 30% of the weight is found only elsewhere in its memory
(coverage 1 - 0.5 x share).  The gate is lexical and errs towards refusing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import NamedTuple

from gieok.answering._answer_types import VALUE, with_answer_types
from gieok.answering._categories import with_categories
from gieok.answering._language import Language, detect_language
from gieok.answering._speakers import is_agent, speaker_names
from gieok.text.korean import analyze, has_hangul
from gieok.text.sentences import split_sentences
from gieok.text.terms import ENGLISH_STOPWORDS, keyword_terms
from gieok.text.vocatives import strip_vocatives

__all__ = ["MIN_SUPPORT", "EvidenceItem", "ExtractiveAnswer", "Support", "extractive_answer", "question_entities",
           "question_terms", "support"]

MIN_SUPPORT = 0.85
_TABLE_ROW = " | "  # how gieok.documents writes a table row's cells; its first row is the header
CONTEXT_CREDIT = 0.5
RANK_WEIGHT = 0.1
ENTITY_MISS = 0.5
FOLLOWING_SHARE = 0.75
AGENT_WEIGHT = 0.1
PREDICATE_WEIGHT = 0.5

_KOREAN_QUESTION_TERMS = (
    "무엇 뭐 언제 어디 누구 왜 어떻게 어떻다 얼마 얼마나 몇 어느 무슨 어떤 때 "  # question words
    "기억 기억하다 알다 궁금하다 혹시 "  # "do you remember …" chatter
    # framing: how the question asks, not what
    "원래 실제로 처음 이유 보통 주로 각각 대체 도대체 정확히 결국 예전 현재 말 말하다 동안 전 이전 이후 당시 "
    "대략 대충 요즘 최근 평소"
)
_ENGLISH_QUESTION_WORDS = ("tell remember recall know ever happen originally actually usually exactly reason "
                           "approximately roughly recently lately nowadays")
# Question frames whose content word asks for the answer's type rather than naming the topic.
_ENGLISH_FRAMES = re.compile(
    r"\bhow (?:long|many|much|often|far|old|soon)\b|\bwhat (?:time|kind|sort|type)\b", re.IGNORECASE
)
_CAPITALISED = re.compile(r"(?<![\w'’])[A-Z][A-Za-z]+")
_IRREGULAR_FORMS = """go went gone|eat ate eaten|buy bought|bring brought|think thought|teach taught|catch caught
see saw seen|meet met|make made|take took taken|give gave given|tell told|say said|run ran|begin began begun
come came|feel felt|find found|leave left|lose lost|pay paid|sell sold|send sent|spend spent|build built
write wrote written|drive drove driven|ride rode ridden|fly flew flown|grow grew grown|know knew known
draw drew drawn|swim swam swum|sing sang sung|drink drank drunk|win won|sit sat|stand stood|hold held
keep kept|sleep slept|break broke broken|choose chose chosen|speak spoke spoken|wear wore worn
forget forgot forgotten|fall fell fallen|hear heard|lead led|hide hid hidden|steal stole stolen
throw threw thrown|become became|wake woke woken|fight fought|feed fed|lend lent|mean meant
child children|woman women|man men|person people|foot feet|tooth teeth"""


@dataclass(frozen=True)
class EvidenceItem:
    """A recalled memory offered as evidence; ``score`` is the recall score (higher is better)."""

    id: str
    text: str
    score: float = 0.0
    mentioned_at: datetime | None = None
    speaker: str | None = None
    source_id: str | None = None  # the conversation or document it came from (who "user" is, there)
    # an ingested document's heading path above this memory ("환불 정책", "예외"): a heading is not an
    # answer of its own, and the section it names is part of every sentence under it
    headings: tuple[str, ...] = ()


@dataclass(frozen=True)
class ExtractiveAnswer:
    """Quoted memory passages as an answer in the question's language, one line per quote."""

    text: str
    quotes: list[tuple[str, str]]  # (memory id, verbatim sentence)
    coverage: float  # the best passage's coverage of the question's content terms, 0..1
    language: Language


@dataclass
class _Sentence:
    item: EvidenceItem
    rank: int
    text: str
    terms: frozenset[str]
    context: frozenset[str]
    coverage: float = 0.0
    question: bool = False
    extended: str | None = None  # this sentence with the short one that follows it ("… Lily … She's six.")
    asked: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())  # the question's names, other terms


@lru_cache(maxsize=1)
def _irregular() -> dict[str, str]:
    mapping: dict[str, str] = {}
    for group in _IRREGULAR_FORMS.replace("\n", "|").split("|"):
        base, *forms = (keyword_terms(word) for word in group.split())
        for form in forms:
            if len(base) == 1 and len(form) == 1 and form != base:
                mapping[form[0]] = base[0]
    return mapping


@lru_cache(maxsize=1)
def _question_words() -> frozenset[str]:
    english = {term for word in _ENGLISH_QUESTION_WORDS.split() for term in keyword_terms(word)}
    return frozenset(_KOREAN_QUESTION_TERMS.split()) | english


def _terms(text: str) -> frozenset[str]:
    irregular = _irregular()
    return frozenset(irregular.get(term, term) for term in keyword_terms(text))


def question_terms(question: str) -> frozenset[str]:
    """The content terms of ``question``: lemmas and stems without question words."""
    return _terms(_ENGLISH_FRAMES.sub(" ", question)) - _question_words()


_RUN_TAGS = frozenset({"NNG", "NNP", "NR", "XR", "SN", "SL", "SH", "MAG"})


@lru_cache(maxsize=256)
def _korean_shape(question: str) -> tuple[tuple[tuple[str, frozenset[str]], ...], frozenset[str]]:
    """A Korean question's noun runs — the nouns written together, as a surface string with their terms
    ("용평" read as 용 + 평, "한결병원" as 한결 + 병원) — and its predicate lemmas (가다, 보내다)."""
    if not has_hangul(question):
        return (), frozenset()
    wanted = question_terms(question)
    runs: list[tuple[str, frozenset[str]]] = []
    predicates: set[str] = set()
    start = end = -1
    terms: set[str] = set()
    for form, tag, lemma, begin, finish in (*analyze(question), ("", "", "", -1, -1)):
        base = tag.split("-")[0]
        if base in ("VV", "VA"):
            predicates |= _terms(lemma) & wanted
        if base in _RUN_TAGS and begin == end:
            end, terms = finish, terms | {form.lower()}
            continue
        if terms & wanted and end - start >= 2:
            runs.append((question[start:end], frozenset(terms & wanted)))
        start, end, terms = (begin, finish, {form.lower()}) if base in _RUN_TAGS else (-1, -1, set())
    return tuple(runs), frozenset(predicates)


def _written_together(runs: tuple[tuple[str, frozenset[str]], ...], text: str) -> frozenset[str]:
    """The terms of every question noun run that ``text`` writes as such ("용평 갔었잖아요" holds 용평,
    "한결병원에" holds 병원), whatever the analyser made of either."""
    found: set[str] = set()
    for surface, terms in runs:
        if surface in text:
            found |= terms
    return frozenset(found)


def question_entities(question: str) -> frozenset[str]:
    """Names in ``question`` (Kiwi proper nouns, capitalised Latin words past the first word)."""
    names: list[str] = []
    if has_hangul(question):
        for form, tag, _lemma, _start, _end in analyze(question):
            if tag == "NNP" or (tag == "SL" and form[:1].isupper()):
                names.append(form)
    else:
        names = [m.group() for m in _CAPITALISED.finditer(question.lstrip()) if m.start() > 0]
    names = [n for n in names if n.lower() not in ENGLISH_STOPWORDS]
    return frozenset(t for name in names for t in _terms(name)) & question_terms(question)


def _name_terms(names: Iterable[str]) -> frozenset[str]:
    """The terms of people's names; a Korean name alone can be misread ("예린" as 예리 + ㄴ), so its
    written form counts as well."""
    written = [n for n in names if n]
    return frozenset(t for n in written for t in _terms(n)) | {n.lower() for n in written if has_hangul(n)}


def _people(memories: Sequence[EvidenceItem]) -> frozenset[str]:
    """The terms of everyone who speaks in ``memories``."""
    return _name_terms({item.speaker for item in memories if item.speaker})


def _scored_passages(question: str, memories: Sequence[EvidenceItem]) -> list[_Sentence]:
    """Every passage of ``memories`` with its coverage of ``question`` (empty when nothing to cover)."""
    wanted = question_terms(question)
    sentences, passages = _sentences(memories)
    if not wanted or not passages:
        return []
    people = _people(memories)
    # someone who speaks here is a name the question asks about, even where the analyser missed it
    # ("예린이 …" is no proper noun to Kiwi)
    entities = question_entities(question) | (wanted & people)
    # a name the question gives, or a speaker's, does not answer "what is … called" / "어느 동네"
    named = _terms(question) | people
    runs, predicates = _korean_shape(question)
    for passage in {id(p): p for p in [*sentences, *passages]}.values():
        text = strip_vocatives(passage.text)
        passage.terms = with_answer_types(passage.terms | _written_together(runs, text), text, wanted, named)
    _score(wanted, entities, sentences, passages, predicates)
    for passage in passages:
        passage.asked = (entities, wanted - entities)
    return passages


class Support(NamedTuple):
    """How well one memory answers a question: its best passage's ``coverage`` (0..1, what the
    sufficiency gate reads), and ``names``: one passage is about everyone the question names (who
    said it counts, whom it was said to does not) and says something else the question asks about."""

    coverage: float
    names: bool


def support(question: str, memories: Sequence[EvidenceItem]) -> dict[str, Support]:
    """Each memory's :class:`Support` for ``question``, IDF taken over all of ``memories``."""
    out: dict[str, Support] = {}
    passages = _scored_passages(question, memories)
    if not passages:
        return out
    entities, rest = passages[0].asked
    for p in passages:
        names = entities <= p.terms and (not rest or bool(rest & p.terms))
        old = out.get(p.item.id, Support(0.0, False))
        out[p.item.id] = Support(max(old.coverage, p.coverage), old.names or names)
    return out


def extractive_answer(
    question: str,
    memories: Sequence[EvidenceItem],
    *,
    max_sentences: int = 3,
    min_support: float = MIN_SUPPORT,
) -> ExtractiveAnswer | None:
    """Quote the memory sentences that answer ``question``, or None when none covers it enough."""
    passages = _scored_passages(question, memories)
    if not passages or max_sentences < 1:
        return None
    best_coverage = max(p.coverage for p in passages)
    if best_coverage < min_support:
        return None
    passing = [p for p in passages if p.coverage >= min_support]
    # Rank breaks near-ties in coverage; a person's own statement beats an agent's echo of it
    # ("Noted, you're vegetarian"); at equal score the shorter passage (one sentence) wins.
    passing.sort(key=lambda p: (-(p.coverage + RANK_WEIGHT / (1 + p.rank) - AGENT_WEIGHT * is_agent(p.item.speaker)),
                                p.rank, len(p.text)))
    chosen: list[_Sentence] = []
    for passage in passing:
        if len(chosen) == max_sentences:
            break
        if chosen and passage.coverage < FOLLOWING_SHARE * chosen[0].coverage:
            continue
        if any(c.item.id == passage.item.id or c.text == passage.text for c in chosen):
            continue
        if is_agent(passage.item.speaker) and any(_said_later(c, passage) for c in chosen):
            continue  # the person said it again since, in their own words: that is the answer
        chosen.append(passage)
    language = detect_language(question)
    quoted = [s.extended or s.text for s in chosen]
    return ExtractiveAnswer(
        text=_render(chosen, quoted, language),
        quotes=[(s.item.id, text) for s, text in zip(chosen, quoted, strict=True)],
        coverage=round(best_coverage, 4),
        language=language,
    )


def _sentences(memories: Sequence[EvidenceItem]) -> tuple[list[_Sentence], list[_Sentence]]:
    """Every sentence of every memory, and the passages to choose from: each sentence and each
    pair of adjacent sentences (a memory's second sentence often names what its first leaves out).

    A question is not an answer: a sentence ending in "?" is never a passage of its own, and a
    question on its own line (a FAQ's "Q. 배송은 얼마나 걸리나요?") lends its terms to the line after
    it, which answers it. A chosen sentence followed by a short one that carries a value ("My
    daughter Lily started school. She's six.") is quoted with it: that sentence leans on the one
    before for its subject. A document's heading line is not a passage either; the words of the
    section a sentence sits in count as its own ("§ Warranty: lasts three years"), and a table's
    header row is not a passage but part of every row under it ("Meal | Daily limit" over "Dinner | 40")."""
    ranked = sorted(enumerate(memories), key=lambda pair: (-pair[1].score, pair[0]))
    sentences: list[_Sentence] = []
    passages: list[_Sentence] = []
    names = speaker_names((item.source_id, item.speaker, item.text) for item in memories)
    for rank, (_, item) in enumerate(ranked):
        # Who said it is part of every sentence it said ("I grew up in Busan", said by Sam), and so
        # is the name the conversation gives that speaker ("user" who said "I'm Tom").
        given = names.get((item.source_id or "", item.speaker or ""), set())
        speaker = _name_terms([item.speaker or "", *sorted(given)])
        spans = _spans(item.text)
        # what is said to someone else ("your son's okay", "That race sounds great, Mel!") is about them,
        # not the speaker; and a name said to address someone ("Thanks, Melanie!") is not who it is about
        about = [_about_speaker(item.text[start:end]) for start, end in spans]
        if not all(about) and not has_hangul(item.text) and not _FIRST_PERSON.search(item.text):
            about = [False] * len(spans)  # "Sounds awesome, John! Working out together is great." is all about John
        context = with_categories(_terms(strip_vocatives(item.text)) | (speaker if any(about) else frozenset()))
        singles: list[_Sentence] = []
        lent: frozenset[str] = frozenset()
        headings = {" ".join(h.split()) for h in item.headings}
        section = _terms(" ".join(item.headings))
        header: frozenset[str] = frozenset()  # the header row of the table this sentence is a row of
        owns: list[frozenset[str]] = []  # each sentence's own words, without whom it addresses
        for (start, end), own_speaker in zip(spans, about, strict=True):
            text = item.text[start:end]
            heading = " ".join(text.split()) in headings
            row = _TABLE_ROW in text and "\n" not in text.strip()
            first_row = row and not header
            header = (_terms(text) if first_row else header) if row else frozenset()
            own = _terms(strip_vocatives(text))
            owns.append(own)
            said_by = speaker if own_speaker else frozenset()
            terms = with_categories(own | said_by | section | (frozenset() if first_row else header)) | lent
            sentence = _Sentence(item, rank, text, terms, context, question=_is_question(text) or heading or first_row)
            lent = sentence.terms if sentence.question and _ends_line(item.text, end) else frozenset()
            singles.append(sentence)
        sentences.extend(singles)
        passages.extend(s for s in singles if not s.question)
        pairs = zip(spans, spans[1:], singles, singles[1:], about, about[1:], owns, owns[1:], strict=False)
        for (start, _), (_, end), first, second, first_about, second_about, first_own, second_own in pairs:
            if "\n" in item.text[start:end] or first.question or second.question:
                # a pair stays on one line (a heading or a FAQ's question is not half an answer), and a
                # question in a turn ("How's the store going?", "… Anything you're excited for?") is
                # half of none: what answers it is the other person's reply
                continue
            if _is_short(second.text) and VALUE.search(second.text):
                first.extended = item.text[start:end]
            terms = first.terms | second.terms
            if not (first_about and second_about):  # "Sorry about that! Your son is okay." is about the listener
                terms -= speaker - (first_own | second_own)
            passages.append(_Sentence(item, rank, item.text[start:end], terms, context))
    return sentences, passages


_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself|you['’](?:re|ve|ll|d)|y['’]all)\b", re.IGNORECASE)
_FIRST_PERSON = re.compile(r"\b(?:i|i['’](?:m|ve|ll|d)|me|my|mine|myself|we|we['’](?:re|ve|ll|d)|us|our|ours)\b",
                           re.IGNORECASE)
_KOREAN_SECOND = frozenset({"너", "니", "너희", "당신", "자기"})
_KOREAN_FIRST = frozenset({"나", "저", "우리", "저희"})


def _about_speaker(text: str) -> bool:
    """Whether a sentence may be about the one who said it: not when it speaks of "you" (or, in
    English, addresses someone by name) without a word of the speaker's own ("I", "my", 나, 우리).
    Korean drops its pronouns, so only an explicit 너 / 당신 turns a Korean sentence to the listener."""
    if has_hangul(text):
        pronouns = {form for form, tag, *_ in analyze(text) if tag == "NP"}
        return not (pronouns & _KOREAN_SECOND) or bool(pronouns & _KOREAN_FIRST)
    if _FIRST_PERSON.search(text):
        return True
    return not _SECOND_PERSON.search(text) and strip_vocatives(text) == text.strip()


def _said_later(person: _Sentence, agent: _Sentence) -> bool:
    """Whether ``person`` is a non-agent's statement of the same source said after ``agent``'s."""
    a, b = person.item, agent.item
    return (not is_agent(a.speaker) and a.source_id is not None and a.source_id == b.source_id
            and a.mentioned_at is not None and b.mentioned_at is not None and a.mentioned_at >= b.mentioned_at)


def _spans(text: str) -> list[tuple[int, int]]:
    """Sentence spans of ``text``; a line break always ends a sentence (a document's heading, a
    FAQ's question line), and a line that is only markup ("##", "---") is none."""
    spans: list[tuple[int, int]] = []
    offset = 0
    for line in text.split("\n"):
        if re.search(r"\w", line):
            spans.extend((offset + a, offset + b) for a, b in split_sentences(line))
        offset += len(line) + 1
    return spans


_QUESTION_END = re.compile(r"[?？][\"'”’)\]]*\s*$")
_LINE_END = re.compile(r"[ \t]*(?:\n|$)")


def _is_question(text: str) -> bool:
    return bool(_QUESTION_END.search(text))


def _ends_line(text: str, end: int) -> bool:
    return bool(_LINE_END.match(text, end))


def _is_short(text: str) -> bool:
    """A sentence too short to stand alone: 4 words or fewer (8 non-space characters in Korean)."""
    if text.rstrip().endswith("!"):
        return False  # an exclamation ("That's great!") is a reaction, not a subject-less answer
    if has_hangul(text):
        return len(re.sub(r"\s+", "", text)) <= 8
    return len(re.findall(r"\w+(?:['’]\w+)?", text)) <= 4


def _score(
    wanted: frozenset[str], entities: frozenset[str], sentences: list[_Sentence], passages: list[_Sentence],
    predicates: frozenset[str] = frozenset(),
) -> None:
    """Set each passage's coverage of ``wanted``, with IDF over the sentences, halved when a name the
    question asks about appears neither in the passage nor elsewhere in its memory. A Korean question's
    predicates weigh ``PREDICATE_WEIGHT``: the verb is what a question paraphrases most ("다니는 헬스장" for
    "헬스장을 가신대"), its nouns name the topic."""
    count = len(sentences)
    weights = {}
    for term in sorted(wanted):
        frequency = sum(term in s.terms for s in sentences)
        weights[term] = math.log(1 + (count - frequency + 0.5) / (frequency + 0.5))
        if term in predicates:
            weights[term] *= PREDICATE_WEIGHT
    total = sum(weights.values())
    for passage in passages:
        found = sum(w for t, w in weights.items() if t in passage.terms)
        nearby = sum(w for t, w in weights.items() if t not in passage.terms and t in passage.context)
        passage.coverage = (found + CONTEXT_CREDIT * nearby) / total
        if not entities <= passage.terms | passage.context:
            passage.coverage *= ENTITY_MISS


def _render(chosen: list[_Sentence], quoted: list[str], language: Language) -> str:
    lead = "기억에 따르면:" if language == "ko" else "From memory:"
    lines = [f'"{_inner_quotes(" ".join(text.split()))}"{_attribution(s.item)} [{s.item.id}]'
             for s, text in zip(chosen, quoted, strict=True)]
    if len(lines) == 1:
        return f"{lead} {lines[0]}"
    return "\n".join([lead, *lines])


def _inner_quotes(text: str) -> str:
    # Double quotes inside the sentence would end ours early; verify_quote treats all marks alike.
    return text.replace('"', "'").replace("“", "‘").replace("”", "’")


def _attribution(item: EvidenceItem) -> str:
    parts = [p for p in (item.speaker, item.mentioned_at and item.mentioned_at.date().isoformat()) if p]
    return f" ({', '.join(parts)})" if parts else ""
