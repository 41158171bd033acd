"""Deterministic text components, Korean and English: terms, sentences, small talk, chunks, fusion, budget."""

from __future__ import annotations

import pytest

from gieok.engine.recall.budget import fill_budget
from gieok.engine.recall.fusion import rrf_fuse
from gieok.extract import chunk_document, facts_from_text, is_small_talk
from gieok.text.sentences import asks_only, ends_asking, split_sentences
from gieok.text.terms import keyword_terms
from gieok.text.tokens import count_tokens


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("한라산에 올랐다", ("한라산", "오르다")),
        ("한라산 등산을 했어요", ("한라산", "등산")),
        ("나 땅콩 알레르기 있어", ("땅콩", "알레르기")),
        ("I went hiking on Mount Halla", ("went", "hike", "mount", "halla")),
        ("Caroline's cookies", ("carolin", "cooki")),
        ("오늘 meeting 너무 길었어", ("오늘", "길다", "meet")),
    ],
)
def test_keyword_terms(text: str, expected: tuple[str, ...]) -> None:
    assert keyword_terms(text) == expected


@pytest.mark.parametrize(
    ("text", "small"),
    [
        ("ㅋㅋ 고마워", True), ("ok thanks", True), ("넵 알겠습니다!", True), ("Haha, thank you!", True),
        ("😊👍", True), ("고마워요ㅎㅎ", True),
        ("나 땅콩 알레르기 있어", False), ("Thanks, I moved to Busan", False), ("고마워, 내일 부산 가", False),
    ],
)
def test_small_talk(text: str, small: bool) -> None:
    assert is_small_talk(text) is small


def test_sentences_korean_and_english() -> None:
    ko = "나 땅콩 알레르기 있어. 그리고 우유도 못 먹어"
    assert [ko[a:b] for a, b in split_sentences(ko)] == ["나 땅콩 알레르기 있어.", "그리고 우유도 못 먹어"]
    en = "Dr. Smith came by. He said hi! Then he left."
    assert [en[a:b] for a, b in split_sentences(en)] == ["Dr. Smith came by.", "He said hi!", "Then he left."]


def test_long_text_becomes_sentence_groups_without_cutting_sentences() -> None:
    text = " ".join(f"문장 번호 {i}번은 충분히 긴 내용을 담고 있다." for i in range(40))
    spans = facts_from_text(text, 120)
    assert len(spans) > 5 and all(b - a <= 120 for a, b in spans)
    assert all(text[a:b].endswith(".") for a, b in spans)
    short = "  Caroline moved to Boston.  "
    assert [short[a:b] for a, b in facts_from_text(short, 600)] == ["Caroline moved to Boston."]


def test_chunk_document_packs_paragraphs() -> None:
    doc = "첫 문단.\n\nSecond paragraph.\n\n" + "긴 문장이다. " * 100
    chunks = chunk_document(doc, 200)
    assert doc[chunks[0][0] : chunks[0][1]].startswith("첫 문단.\n\nSecond paragraph.")
    assert all(b - a <= 200 for a, b in chunks)
    covered = "".join(doc[a:b] for a, b in chunks).replace(" ", "").replace("\n", "")
    assert covered == doc.replace(" ", "").replace("\n", "")


def test_rrf_fusion() -> None:
    fused = rrf_fuse({"semantic": [(1, 0.9), (2, 0.8)], "keyword": [(2, 7.0), (3, 5.0)]}, k=60)
    assert [i for i, _, _ in fused] == [2, 1, 3]
    assert fused[0][1] == pytest.approx(1 / 62 + 1 / 61)
    assert fused[0][2]["keyword"].rank == 1 and fused[0][2]["semantic"].rank == 2
    weighted = rrf_fuse({"semantic": [(1, 0.9)], "keyword": [(3, 5.0)]}, k=60, weights={"keyword": 2.0})
    assert [i for i, _, _ in weighted] == [3, 1]


def test_fill_budget() -> None:
    items = [("a", 50), ("b", 80), ("c", 30), ("d", 10)]
    chosen, used = fill_budget(items, lambda x: x[1], 100, None)
    assert [c[0] for c in chosen] == ["a", "c", "d"] and used == 90
    chosen, used = fill_budget(items, lambda x: x[1], 10, None)
    assert [c[0] for c in chosen] == ["a"]  # the best always comes back
    chosen, _ = fill_budget(items, lambda x: x[1], None, 2)
    assert [c[0] for c in chosen] == ["a", "b"]


def test_token_count_offline() -> None:
    assert count_tokens("hello world") == 2
    assert 3 <= count_tokens("나 땅콩 알레르기 있어") <= 16


@pytest.mark.parametrize(("text", "asks"), [
    ("Wow, Caroline! What kinda jobs are you thinkin' of? Anything that stands out?", True),
    ("What are your plans for the future?", True),
    ("헐 진짜? 언제 가?", True),
    ("와! 어디 갔어?", True),
    ("그래서 뭐 먹었어?ㅋㅋ", True),
    ("I'm vegetarian, how about you?", False),  # a statement with a question tagged on
    ("난 채식해, 너는?", False),
    ("나 부산 가. 너는?", False),
    ("Hey Caroline! Missed you. Anything new? Spill the beans!", False),
    ("Yes.", False),
    ("How do I add a GIN index on a JSONB column in Postgres 16 when the table already holds "
     "forty million rows and cannot be locked?", False),  # a long question carries what the asker does
])
def test_asks_only(text: str, asks: bool) -> None:
    assert asks_only(text) is asks


@pytest.mark.parametrize(("text", "asks"), [("어디 갔어?ㅋㅋ", True), ("How did it go?~", True), ("응 갔어.", False),
                                           ("It went well!", False)])
def test_ends_asking(text: str, asks: bool) -> None:
    assert ends_asking(text) is asks
