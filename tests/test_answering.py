"""Answering only from memory, Korean and English: quotes, citations, refusals and question terms.
(The answerability head that decides whether a memory answers is tested in test_answerable.py; the
lexical sufficiency gate it replaced, and its calibration cases, are gone.)"""

from __future__ import annotations

import pytest

from gieok import answering
from gieok.answering import check_answer, detect_language, find_quotes, not_in_memory, question_terms, verify_quote


def test_public_names() -> None:
    assert answering.__all__ == [
        "AnswerCheck", "AnswerableModel", "CheckedQuote", "Judgment", "Language", "Quote", "QuoteCheck",
        "answerable_model", "check_answer", "detect_language", "find_citations", "find_quotes", "is_checkable",
        "not_in_documents", "not_in_memory", "question_terms", "question_topic", "verify_quote",
    ]
    for name in answering.__all__:
        assert getattr(answering, name) is not None


# --- finding quotations -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('민수는 "작년 여름에 제주도에 갔다"고 했어요.', [("작년 여름에 제주도에 갔다", "double")]),
        ("민수는 “작년 여름에 제주도에 갔다”고 했어요.", [("작년 여름에 제주도에 갔다", "curly")]),
        ("민수는 「작년 여름에 제주도에 갔다」고 했어요.", [("작년 여름에 제주도에 갔다", "corner")]),
        ("민수는 『작년 여름에 제주도에 갔다』고 했어요.", [("작년 여름에 제주도에 갔다", "double_corner")]),
        ("지수가 '수영을 배우기 시작했어'라고 했어요.", [("수영을 배우기 시작했어", "single")]),
        ('She said "I went hiking in Jeju" [f-1].', [("I went hiking in Jeju", "double")]),
        ("She said “I went hiking in Jeju” [f-1].", [("I went hiking in Jeju", "curly")]),
        ("She said 'I went hiking in Jeju' [f-1].", [("I went hiking in Jeju", "single")]),
        ("She said ‘I went hiking in Jeju’ [f-1].", [("I went hiking in Jeju", "curly_single")]),
        ("He wrote 'don't wait for me' yesterday.", [("don't wait for me", "single")]),
        ("He wrote ‘I’m not coming’ yesterday.", [("I’m not coming", "curly_single")]),
        ('Tom said "she told me \'stop it now\' twice" [f-2].', [("she told me 'stop it now' twice", "double")]),
    ],
)
def test_find_quotes_marks(answer: str, expected: list[tuple[str, str]]) -> None:
    quotes = find_quotes(answer)
    assert [(q.text, q.kind) for q in quotes] == expected
    for quote in quotes:
        assert answer[quote.start : quote.end] == quote.text


@pytest.mark.parametrize(
    "answer",
    [
        "I'm sure she didn't go, and I don't think it's true.",
        "The students' books and the teachers' notes weren't there.",
        "I’m sure she didn’t go, and it’s fine.",
        "In the '90s we'd go there often.",
        "Rock 'n' roll is what he's into.",
    ],
)
def test_apostrophes_are_not_quotes(answer: str) -> None:
    assert find_quotes(answer) == []


@pytest.mark.parametrize(
    "answer",
    ['그건 "좋다"는 뜻이에요.', '민수는 "제주도"에 갔어요.', 'It was "great" fun.', "Ask about 'Jeju' later."],
)
def test_short_quotes_are_not_checked(answer: str) -> None:
    assert find_quotes(answer) == []


def test_blockquote_lines() -> None:
    answer = ("기억에 따르면:\n> 민수는 작년 여름에 제주도에 갔다. [f-1]\n"
              "> \"I went hiking in Jeju\" [f-2, o-3]\nThat's all.")
    quotes = find_quotes(answer)
    assert [(q.text, q.kind) for q in quotes] == [
        ("민수는 작년 여름에 제주도에 갔다.", "blockquote"),
        ("I went hiking in Jeju", "blockquote"),
    ]
    for quote in quotes:
        assert answer[quote.start : quote.end] == quote.text


# --- verifying one quotation --------------------------------------------------------------------

KO_SOURCE = "민수는 작년 여름에 제주도에 갔다. 거기서 한라산에 올랐고 “정말 힘들었다”고 했다."
EN_SOURCE = "Alice said she went hiking on Hallasan in Jeju last summer. She didn't enjoy the rain."


@pytest.mark.parametrize(
    ("quote", "source"),
    [
        ("작년 여름에 제주도에 갔다", KO_SOURCE),
        ("민수는  작년 여름에\n제주도에 갔다.", KO_SOURCE),
        ('거기서 한라산에 올랐고 "정말 힘들었다"고 했다', KO_SOURCE),
        ("she went hiking on Hallasan in Jeju last summer", EN_SOURCE),
        ("She didn’t enjoy the rain.", EN_SOURCE),
        ("\uff21lice said", EN_SOURCE),  # a full-width "Ａ" (NFKC)
    ],
)
def test_verify_exact(quote: str, source: str) -> None:
    check = verify_quote(quote, source)
    assert check.verified and check.exact and check.ratio == 1.0
    assert source[check.start : check.end] == check.matched_text


@pytest.mark.parametrize(
    ("quote", "source", "expected"),
    [
        ("작년 여름에 제주도에 갓다", KO_SOURCE, "작년 여름에 제주도에 갔다"),
        ("거기서 한라산에 올랐고 정말 힘들었다고 했다", KO_SOURCE, "거기서 한라산에 올랐고 “정말 힘들었다”고 했다"),
        ("she went hikng on Hallasan in Jeju last summer", EN_SOURCE,
         "she went hiking on Hallasan in Jeju last summer"),
        ("she went hiking on Halasan in Jeju", EN_SOURCE, "she went hiking on Hallasan in Jeju"),
    ],
)
def test_verify_fuzzy_typo(quote: str, source: str, expected: str) -> None:
    check = verify_quote(quote, source)
    assert check.verified and not check.exact
    assert 0.9 <= check.ratio < 1.0
    assert expected in check.matched_text or check.matched_text in expected
    assert source[check.start : check.end] == check.matched_text


@pytest.mark.parametrize(
    ("quote", "source"),
    [
        ("민수는 작년 겨울에 부산에 갔다", KO_SOURCE),
        ("한라산은 전혀 힘들지 않았다", KO_SOURCE),
        ("she went surfing in Bali last spring", EN_SOURCE),
        ("She loved the rain", EN_SOURCE),
    ],
)
def test_verify_fabricated(quote: str, source: str) -> None:
    check = verify_quote(quote, source)
    assert not check.verified and check.ratio < 0.9


def test_verify_ellipsis_fragments_in_order() -> None:
    assert verify_quote("Alice said … in Jeju last summer", EN_SOURCE).verified
    assert verify_quote("민수는 … 한라산에 올랐고", KO_SOURCE).verified
    assert not verify_quote("in Jeju last summer ... Alice said", EN_SOURCE).verified


def test_verify_in_a_long_source() -> None:
    long_ko = (("민수는 작년 여름에 제주도에 갔다. " * 20) + "거기서 한라산 정상까지 올라가서 일출을 봤다. "
               + ("날씨가 좋았다. " * 30))
    check = verify_quote("거기서 한라산 정상까지 올라가서 일출을 밧다", long_ko)
    assert check.verified and not check.exact and long_ko[check.start : check.end] == check.matched_text
    assert "한라산 정상까지" in check.matched_text
    long_en = ("Alice went hiking on Hallasan in Jeju last summer. " * 20) + "The view from the top was worth it."
    assert verify_quote("The view from the top was worth it", long_en).exact
    case_only = verify_quote("the view from the top was worth it", long_en)  # case is not normalised away
    assert case_only.verified and not case_only.exact and case_only.ratio == 1.0
    assert not verify_quote("the view from the beach was never worth the long drive", long_en).verified


def test_verify_min_ratio_is_the_gate() -> None:
    check = verify_quote("she went hikng on Hallasan in Jeju last summer", EN_SOURCE, min_ratio=0.999)
    assert not check.verified and check.ratio > 0.9


# --- checking a whole answer --------------------------------------------------------------------

KO_CITED = {
    "f-1": "민수는 작년 여름에 제주도에 갔다. 거기서 한라산에 올랐다.",
    "f-2": "지수는 5월부터 수영을 배우기 시작했다.",
}
EN_CITED = {
    "f-1": "Alice went hiking on Hallasan in Jeju last summer.",
    "o-2": "Bob thinks Alice should try surfing in Bali.",
}


def test_check_korean_exact_and_fuzzy() -> None:
    answer = '민수는 "작년 여름에 제주도에 갔다"고 해요 [f-1]. 지수는 "5월부터 수영을 배우기 시작햇다"고 했어요 [f-2].'
    result = check_answer(answer, KO_CITED)
    assert [(v.memory_id, v.check.exact) for v in result.verified] == [("f-1", True), ("f-2", False)]
    assert result.dropped == [] and result.invented_citations == []
    assert result.cleaned_answer == answer and result.supported
    assert result.citations == ["f-1", "f-2"]


def test_check_english_exact_and_fuzzy() -> None:
    answer = "From memory: “Alice went hiking on Hallasan” [f-1]. Bob said 'Alice should try surfing in Bali' [o-2]."
    result = check_answer(answer, EN_CITED)
    assert [(v.memory_id, v.check.exact) for v in result.verified] == [("f-1", True), ("o-2", True)]
    fuzzy = check_answer("From memory: “went hiking on Halasan in Jeju last summer” [f-1].", EN_CITED)
    assert [(v.memory_id, v.check.exact) for v in fuzzy.verified] == [("f-1", False)]
    assert fuzzy.supported and fuzzy.cleaned_answer.startswith("From memory:")


def test_check_drops_fabricated_quote_sentence_korean() -> None:
    answer = (
        '민수는 "작년 여름에 제주도에 갔다"고 했어요 [f-1]. 민수는 "한라산이 정말 쉬웠다"고 했어요 [f-1]. '
        "더 궁금한 게 있으면 물어보세요."
    )
    result = check_answer(answer, KO_CITED)
    assert [d.quote.text for d in result.dropped] == ["한라산이 정말 쉬웠다"]
    assert result.cleaned_answer == '민수는 "작년 여름에 제주도에 갔다"고 했어요 [f-1]. 더 궁금한 게 있으면 물어보세요.'
    assert result.supported


def test_check_drops_fabricated_quote_sentence_english() -> None:
    answer = 'Alice said "she loved surfing in Bali" [f-1]. She also mentioned "hiking on Hallasan in Jeju". [f-1]'
    result = check_answer(answer, EN_CITED)
    assert [d.quote.text for d in result.dropped] == ["she loved surfing in Bali"]
    assert result.cleaned_answer == 'She also mentioned "hiking on Hallasan in Jeju". [f-1]'


def test_check_wrong_memory_attribution_is_dropped() -> None:
    # The quote is real, but it is in f-1, not in the memory this sentence cites.
    ko = check_answer('지수는 "작년 여름에 제주도에 갔다"고 했어요 [f-2].', KO_CITED)
    assert ko.verified == [] and [d.memory_id for d in ko.dropped] == ["f-2"]
    assert ko.cleaned_answer == "" and not ko.supported
    en = check_answer('Bob said "went hiking on Hallasan in Jeju" [o-2].', EN_CITED)
    assert en.verified == [] and not en.supported


def test_check_uncited_sentence_checks_all_cited_memories() -> None:
    result = check_answer('민수 얘기로는 "거기서 한라산에 올랐다"고 해요. 지수는 수영을 배워요 [f-2].', KO_CITED)
    assert [v.memory_id for v in result.verified] == ["f-1"]


def test_check_strips_invented_citations() -> None:
    ko = check_answer('민수는 "작년 여름에 제주도에 갔다"고 했어요 [f-1, f-9]. 지수는 수영을 배워요 [f-7].', KO_CITED)
    assert ko.invented_citations == ["f-9", "f-7"]
    assert ko.cleaned_answer == '민수는 "작년 여름에 제주도에 갔다"고 했어요 [f-1]. 지수는 수영을 배워요.'
    en = check_answer("Alice went hiking in Jeju [f-1][o-44]. Bob likes Bali [o-45].", EN_CITED)
    assert en.invented_citations == ["o-44", "o-45"]
    assert en.cleaned_answer == "Alice went hiking in Jeju [f-1]. Bob likes Bali."
    assert en.supported and en.citations == ["f-1"]


def test_check_quote_with_only_invented_citation_checks_all() -> None:
    result = check_answer('Alice said "went hiking on Hallasan in Jeju" [f-99].', EN_CITED)
    assert [v.memory_id for v in result.verified] == ["f-1"]
    assert result.cleaned_answer == 'Alice said "went hiking on Hallasan in Jeju".'


def test_check_citation_after_period_belongs_to_previous_sentence() -> None:
    answer = 'Alice said "she loved surfing in Bali." [f-1] Then Bob said "Alice should try surfing". [o-2]'
    result = check_answer(answer, EN_CITED)
    assert [d.quote.text for d in result.dropped] == ["she loved surfing in Bali."]
    assert result.cleaned_answer == 'Then Bob said "Alice should try surfing". [o-2]'


def test_check_quote_spanning_sentences_and_bullets() -> None:
    cited = {"f-1": "I went to Jeju. It was fun.", "f-2": "She left early."}
    kept = 'Alice said "I went to Jeju. It was fun." [f-1] Then she left. [f-2]'
    assert check_answer(kept, cited).cleaned_answer == kept
    dropped = check_answer('Alice said "I went to Bali. It was fun." [f-1] Then she left. [f-2]', cited)
    assert dropped.cleaned_answer == "Then she left. [f-2]" and dropped.supported
    answer = ('- 민수는 "작년 여름에 제주도에 갔다"고 했어요 [f-1]\n'
              '- 민수는 "부산에서 태어났다"고 했어요 [f-1]\n- 이상이에요.')
    result = check_answer(answer, KO_CITED)
    assert result.cleaned_answer == '- 민수는 "작년 여름에 제주도에 갔다"고 했어요 [f-1]\n- 이상이에요.'


def test_check_verified_quote_beside_a_fabricated_one_goes_with_its_sentence() -> None:
    answer = 'Alice said "went hiking on Hallasan in Jeju" and "loved every minute of the rain" [f-1].'
    result = check_answer(answer, EN_CITED)
    assert len(result.verified) == 1 and len(result.dropped) == 1
    assert result.cleaned_answer == "" and not result.supported


def test_check_blockquote_answer() -> None:
    answer = ("기억에 따르면:\n> 거기서 한라산에 올랐다. [f-1]\n> 한라산 정상에서 비를 맞았다. [f-1]\n"
              "> 수영을 배우기 시작했다 [f-2]")
    result = check_answer(answer, KO_CITED)
    assert [v.quote.text for v in result.verified] == ["거기서 한라산에 올랐다.", "수영을 배우기 시작했다"]
    assert result.cleaned_answer == "기억에 따르면:\n> 거기서 한라산에 올랐다. [f-1]\n> 수영을 배우기 시작했다 [f-2]"


def test_check_nothing_supported() -> None:
    ko = check_answer('기억에 따르면: "민수는 부산에서 태어났다" [f-1]', KO_CITED)
    assert not ko.supported and ko.cleaned_answer == ""
    ko = check_answer('기억에 따르면:\n"민수는 부산에서 태어났다" [f-1]\n"지수는 서울에서 태어났다" [f-2]', KO_CITED)
    assert not ko.supported and ko.cleaned_answer == "기억에 따르면:"
    en = check_answer("I think Alice likes Bali.", EN_CITED)  # no quote, no citation
    assert not en.supported and en.cleaned_answer == "I think Alice likes Bali."
    assert check_answer("Alice hiked in Jeju [f-1].", EN_CITED).supported  # cited claim, no quote
    assert not check_answer("", EN_CITED).supported


# --- language and refusal -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("민수는 언제 제주도에 갔어?", "ko"), ("내 MacBook 언제 샀지?", "ko"), ("When did Minsu go to Jeju?", "en"),
        ("What does 민수 do?", "en"), ("", "en"), ("2024?", "en"),
    ],
)
def test_detect_language(text: str, language: str) -> None:
    assert detect_language(text) == language


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("누나 직업이 뭐야?", "기억에 없는 내용이에요: 누나 직업에 대해 저장된 기억을 찾지 못했어요."),
        ("민수와 지수는 어디 갔어?", "기억에 없는 내용이에요: 민수와 지수에 대해 저장된 기억을 찾지 못했어요."),
        ("뭐 했어?", "기억에 없는 내용이에요: 이 질문에 답할 만한 기억을 찾지 못했어요."),
        ("When is Mom's birthday?", "That's not in memory: I found nothing stored about Mom's birthday."),
        ("What does my sister do for work?", "That's not in memory: I found nothing stored about your sister, work."),
        ("What did I say?", "That's not in memory: I found nothing stored that answers this question."),
    ],
)
def test_not_in_memory(question: str, expected: str) -> None:
    assert not_in_memory(question) == expected


# --- question terms ---------------------------------------------------------------------------


def test_question_terms_handle_inflection_and_question_words() -> None:
    assert question_terms("지수는 주말에 수영을 해?") == question_terms("지수 주말 수영해요")
    assert question_terms("누가 언제 어디서 뭐 했어?") == frozenset()
    assert question_terms("Where did Alice go hiking?") == question_terms("alice went hiked")
    assert question_terms("How long has Jisoo been learning to swim?") == {"jisoo", "learn", "swim"}


def test_framing_words_do_not_count_as_the_topic() -> None:
    assert question_terms("지현은 요즘 대략 몇 시에 퇴근해?") == question_terms("지현 몇 시 퇴근")
    assert question_terms("What has Tom been reading lately?") == question_terms("Tom reading")
