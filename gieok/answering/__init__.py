"""Answering only from memory: check an LLM's quotes, refuse honestly, or quote memory directly.

``reflect`` answers a question from recalled memories and must not say more than they hold.  This
package is its deterministic part, and the learned head its decision model uses offline:

- ``check_answer`` (``_check``) verifies each quotation in an LLM answer against the memories cited
  in the same sentence (``find_quotes`` / ``verify_quote`` in ``_quotes``: exact after normalisation,
  else a fuzzy best window), drops sentences with unverified quotes, strips invented memory ids and
  says whether anything supported is left.
- ``extractive_answer`` (``_extractive``) answers without an LLM by quoting the memory sentences that
  cover the question's content terms, and returns None below a calibrated sufficiency gate.
- ``answerable_model`` (``_answerable``) is the learned head behind the ``answers`` decision: the
  probability that a memory answers a question, and its sentence that does; offline reflect drops a
  quote the bank's decision model judges more likely not to answer.
- ``detect_language`` / ``not_in_memory`` / ``not_in_documents`` (``_language``) pick the answer
  language and phrase the refusal the caller gives when nothing supported remains.
"""

from gieok.answering._answerable import AnswerableModel, Judgment, answerable_model
from gieok.answering._check import AnswerCheck, CheckedQuote, check_answer, find_citations
from gieok.answering._extractive import (
    MIN_SUPPORT,
    EvidenceItem,
    ExtractiveAnswer,
    Support,
    extractive_answer,
    question_entities,
    question_terms,
    support,
)
from gieok.answering._language import Language, detect_language, not_in_documents, not_in_memory, question_topic
from gieok.answering._quotes import Quote, QuoteCheck, find_quotes, is_checkable, verify_quote

__all__ = [
    "MIN_SUPPORT",
    "AnswerCheck",
    "AnswerableModel",
    "CheckedQuote",
    "EvidenceItem",
    "ExtractiveAnswer",
    "Judgment",
    "Language",
    "Quote",
    "QuoteCheck",
    "Support",
    "answerable_model",
    "check_answer",
    "detect_language",
    "extractive_answer",
    "find_citations",
    "find_quotes",
    "is_checkable",
    "not_in_documents",
    "not_in_memory",
    "question_entities",
    "question_terms",
    "question_topic",
    "support",
    "verify_quote",
]
