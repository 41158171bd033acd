"""Entity mentions and resolution — deterministic, no LLM, no embeddings, no SQL.

The engine calls this component once per retained fact; the component never touches the store.

1. **Extract.** ``extract_mentions(text, speaker, known)`` finds mentions (``Mention``): Korean
   proper nouns through Kiwi with titles/honorifics/particles split off (김 팀장님 → name 김, title
   팀장; 서준이한테 → 서준), capitalised English spans with the sentence-start problem handled
   (Caroline's → Caroline; "Yesterday" is no entity), plus every occurrence of a caller-known name.
   Pronouns and conversation roles (나, 저, 우리, I, we, user, assistant) are hubs, never entities
   (``is_hub_name``). Each mention's kind (person, place, org, thing) is judged by a learned head
   (``kind_model``; the engine asks the bank's decision model, task ``entity_kind``); a span it
   judges ``none`` — a word that names nothing, 배송지, 고객님 — is no mention unless the caller knows
   the name.
2. **Context.** ``fact_contexts(mentions, text)`` gives each mention the keys of its neighbours in
   the fact: the other names and domain cues (#work, #family, #school, #friend).
3. **Fetch.** The engine indexes each entity under ``entity_keys(canonical, aliases)`` and fetches,
   for a mention, the entities sharing one of ``candidate_keys(mention.name)`` (full name, Korean
   given name, surname key, English words). Resolution only ever sees those candidates.
4. **Resolve.** ``EntityResolver.resolve(mention, candidates, cooccurring=..., seen_at=...,
   degrees=...)`` returns a ``Resolution``: ``match`` (with the id), ``new`` or ``ambiguous``.

Scoring (``ResolverWeights``; total rounded to 6 decimals, merge when ≥ 0.6)::

    0.6 × name similarity     1.0 exact · 0.95 same words · 0.9 partial (민지↔김민지, Caroline↔
                              Caroline Smith, 김 팀장↔김서준 called 팀장) · 0.5 surname + unseen title
    0.3 × co-occurrence       min(1, Σ 1/√degree) over context keys shared with the candidate
    0.2 × recency             linear from 1 (same moment) to 0 (7 days apart)
    0.1   title               the mention's title was used for the candidate before
   −0.2   domain conflict     mention and candidate domains both known and disjoint (사촌 vs 대리)

Hard gates make names incompatible before scoring: different numbers unless one set contains the
other (Room 101 ≠ Room 102, Q3 earnings = Q3 2024 earnings), a word of the shorter name missing from
the longer (John Smith ≠ Jane Smith, Mel ≠ Melanie), different Korean surnames or given names. When
several candidates fit the name (namesakes such as 민수 the cousin and 이민수 the coworker), only the
context may choose, with a margin of 0.05; otherwise the answer is ``ambiguous``.

Per fact, the engine: extracts mentions (passing the speakers and the bank's recent entity names
as ``known``), computes ``fact_contexts``, and for each mention fetches candidates by
``candidate_keys(mention.name)`` and calls ``resolve``. On ``match`` it updates the entity; on
``new`` it creates one; on ``ambiguous`` it links the mention to no entity (a wrong edge costs more
than a missing one). Per entity it keeps: canonical name (upgraded with ``preferred_canonical``),
aliases (``mention.alias`` of every resolved mention), titles seen (``mention.title``), kind,
co-occurrence counts of the context keys of its facts, ``last_seen``, and its index keys
(``entity_keys``). Per context key it keeps a degree — how many facts contain it — passed to the
resolver as ``degrees``. Damping hubs in the graph channel (1/√degree) is also the engine's job;
this package only refuses to create hub entities.
"""

from gieok.entities._context import context_cues, cooccurrence_key, fact_contexts, title_domain
from gieok.entities._extract import KindOf, extract_mentions, learned_kind
from gieok.entities._kind_model import KIND_OPTIONS, KindJudgment, KindModel, kind_model, span_at
from gieok.entities._korean_names import KoreanName, split_korean_name
from gieok.entities._normalize import (
    SURNAME_KEY_PREFIX,
    candidate_keys,
    entity_keys,
    is_hub_name,
    normalize_name,
    normalize_title,
    preferred_canonical,
)
from gieok.entities._resolve import (
    DEFAULT_WEIGHTS,
    EntityResolver,
    ResolverWeights,
    is_merge,
    resolve,
)
from gieok.entities._similarity import name_similarity
from gieok.entities._types import (
    ENTITY_KINDS,
    CandidateEntity,
    CandidateScore,
    EntityKind,
    Mention,
    Resolution,
    ResolutionStatus,
    ScoreBreakdown,
)

__all__ = [
    "DEFAULT_WEIGHTS",
    "ENTITY_KINDS",
    "KIND_OPTIONS",
    "SURNAME_KEY_PREFIX",
    "CandidateEntity",
    "CandidateScore",
    "EntityKind",
    "EntityResolver",
    "KindJudgment",
    "KindModel",
    "KindOf",
    "KoreanName",
    "Mention",
    "Resolution",
    "ResolutionStatus",
    "ResolverWeights",
    "ScoreBreakdown",
    "candidate_keys",
    "context_cues",
    "cooccurrence_key",
    "entity_keys",
    "extract_mentions",
    "fact_contexts",
    "is_hub_name",
    "is_merge",
    "kind_model",
    "learned_kind",
    "name_similarity",
    "normalize_name",
    "normalize_title",
    "preferred_canonical",
    "resolve",
    "span_at",
    "split_korean_name",
    "title_domain",
]
