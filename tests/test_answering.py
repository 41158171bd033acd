"""Answering only from memory, Korean and English: quotes, citations, refusals, extractive answers,
and the labelled cases that calibrate the extractive sufficiency gate (MIN_SUPPORT)."""

from __future__ import annotations

from datetime import datetime

import pytest

from gieok import answering
from gieok.answering import (
    MIN_SUPPORT,
    EvidenceItem,
    check_answer,
    detect_language,
    extractive_answer,
    find_quotes,
    not_in_memory,
    question_terms,
    support,
    verify_quote,
)
from gieok.text.korean import has_hangul


def test_public_names() -> None:
    assert answering.__all__ == [
        "MIN_SUPPORT", "AnswerCheck", "AnswerableModel", "CheckedQuote", "EvidenceItem", "ExtractiveAnswer",
        "Judgment", "Language", "Quote", "QuoteCheck", "Support", "answerable_model", "check_answer",
        "detect_language", "extractive_answer", "find_citations",
        "find_quotes", "is_checkable", "not_in_documents", "not_in_memory", "question_entities", "question_terms",
        "question_topic", "support", "verify_quote",
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


# --- extractive answers -------------------------------------------------------------------------


def _items(texts: list[str], speaker: str | None = None) -> list[EvidenceItem]:
    """Memories in recall order, ids f-0, f-1, …; ``speaker`` said the first one."""
    return [
        EvidenceItem(f"f-{i}", text, score=1.0 - 0.1 * i, speaker=speaker if i == 0 else None)
        for i, text in enumerate(texts)
    ]


def test_question_terms_handle_inflection_and_question_words() -> None:
    assert question_terms("지수는 주말에 수영을 해?") == question_terms("지수 주말 수영해요")
    assert question_terms("누가 언제 어디서 뭐 했어?") == frozenset()
    assert question_terms("Where did Alice go hiking?") == question_terms("alice went hiked")
    assert question_terms("How long has Jisoo been learning to swim?") == {"jisoo", "learn", "swim"}


def test_extractive_korean() -> None:
    memories = _items(["지수는 평일에 요가를 해요.", "지수는 주말마다 수영해요.", "민수는 주말에 등산을 가요."])
    answer = extractive_answer("지수는 주말에 수영을 해?", memories)
    assert answer is not None and answer.language == "ko" and answer.coverage == 1.0
    assert answer.text == '기억에 따르면: "지수는 주말마다 수영해요." [f-1]'
    assert answer.quotes == [("f-1", "지수는 주말마다 수영해요.")]


def test_extractive_english_with_speaker_and_date() -> None:
    memories = [
        EvidenceItem("o-3", "I went hiking on Hallasan last summer. It rained all day.", 0.9,
                     mentioned_at=datetime(2024, 8, 2, 10, 0), speaker="Alice"),
        EvidenceItem("f-8", "Bob hiked Bukhansan in the fall.", 0.8),
    ]
    answer = extractive_answer("Where did Alice go hiking?", memories)
    assert answer is not None and answer.language == "en"
    assert answer.text == 'From memory: "I went hiking on Hallasan last summer." (Alice, 2024-08-02) [o-3]'


def test_extractive_several_memories_one_line_each() -> None:
    memories = _items(
        ["Tom's dog is named Biscuit.", "Tom is allergic to cats.", "Tom said his dog Biscuit is named after a cookie."]
    )
    answer = extractive_answer("What is the name of Tom's dog?", memories)
    assert answer is not None
    assert answer.text.splitlines() == [
        "From memory:",
        "\"Tom's dog is named Biscuit.\" [f-0]",
        "\"Tom said his dog Biscuit is named after a cookie.\" [f-2]",
    ]
    single = extractive_answer("What is the name of Tom's dog?", memories, max_sentences=1)
    assert single is not None and single.quotes == [("f-0", "Tom's dog is named Biscuit.")]


def test_extractive_adjacent_sentences_of_one_memory() -> None:
    memories = _items(["민수는 작년 여름에 제주도에 갔다. 거기서 한라산에 올랐다.", "지수는 지리산에 올랐다."])
    answer = extractive_answer("민수가 한라산에 오른 건 언제야?", memories)
    assert answer is not None
    assert answer.quotes == [("f-0", "민수는 작년 여름에 제주도에 갔다. 거기서 한라산에 올랐다.")]


def test_extractive_answer_passes_its_own_check() -> None:
    memories = _items(['민수는 "제주도 정말 좋았어"라고 말했다.', "민수는 작년 여름에 제주도에 갔다."])
    answer = extractive_answer("민수는 언제 제주도에 갔어?", memories)
    assert answer is not None
    result = check_answer(answer.text, {m.id: m.text for m in memories})
    assert result.dropped == [] and result.supported and result.cleaned_answer == answer.text
    quoted = extractive_answer("민수가 제주도가 좋았다고 말했어?", memories, min_support=0.5)
    assert quoted is not None and "'제주도 정말 좋았어'" in quoted.text
    assert check_answer(quoted.text, {m.id: m.text for m in memories}).dropped == []


# --- who a sentence is about, and how a question is written --------------------------------------

_OTHER = ["The weather was nice.", "We talked about books.", "The café opens at nine."]
_KO_OTHER = ["날씨가 좋았어.", "책 얘기를 했어.", "카페는 아홉 시에 열어."]


@pytest.mark.parametrize(("question", "text", "speaker", "answers"), [
    # the addressee of "Thanks, Melanie!" is not whose grandma it is; the speaker is
    ("What country is Melanie's grandma from?",
     "Thanks, Melanie! This necklace is a gift from my grandma in my home country, Sweden.", "Caroline", False),
    ("What country is Caroline's grandma from?",
     "Thanks, Melanie! This necklace is a gift from my grandma in my home country, Sweden.", "Caroline", True),
    # said to someone ("your son"), it is about them
    ("How is Caroline's son after the accident?", "So sorry! Thank goodness your son is okay after the accident.",
     "Caroline", False),
    # a question asked back answers nothing
    ("What is Melanie excited about in the adoption process?",
     "Loving the support. Anything you're excited about in the adoption process?", "Melanie", False),
    ("지현은 다음 달에 어디 가?", "지현아, 나 다음 달에 제주도 가!", "수아", False),
    ("수아는 다음 달에 어디 가?", "지현아, 나 다음 달에 제주도 가!", "수아", True),
    ("민수가 만든 케이크는 어땠어?", "네가 만든 케이크 진짜 맛있었어.", "민수", False),
    ("지현이 만든 케이크는 어땠어?", "내가 만든 케이크 진짜 맛있었어.", "지현", True),
])
def test_extractive_knows_who_a_sentence_is_about(question: str, text: str, speaker: str, answers: bool) -> None:
    others = _KO_OTHER if has_hangul(question) else _OTHER
    answer = extractive_answer(question, _items([text, *others], speaker))
    assert (answer is not None) == answers, (question, answer)
    assert support(question, _items([text, *others], speaker))["f-0"].names == answers


@pytest.mark.parametrize(("question", "text", "speaker"), [
    # Kiwi reads 용평 as 용 + 평 in the question and as one name in the memory: written together counts
    ("팀이 용평으로 스키 워크숍을 간 건 언제야?", "작년 이맘때 팀 스키 워크숍으로 용평 갔었잖아요", "하은"),
    # 날 asks for a time; the verb of a question (출근한) weighs less than its nouns
    ("은지가 병원에 처음 출근한 날은?", "병원 출근한 지 일주일 됐어. 지난주 화요일부터 나갔거든", "은지"),
    # a name read differently alone (예린 → 예리) still counts as who said it
    ("예린이 여름방학에 인턴을 한 곳은?", "여름방학 동안 강 교수님 연구실에서 학부 인턴 하는 중이잖아.", "예린"),
    ("When did the team go on the ski workshop?", "The team went on the ski workshop last February.", "Haeun"),
])
def test_extractive_answers_how_people_ask(question: str, text: str, speaker: str) -> None:
    others = _KO_OTHER if has_hangul(question) else _OTHER
    answer = extractive_answer(question, _items([text, *others], speaker))
    assert answer is not None and answer.quotes[0][0] == "f-0", (question, answer)


def test_a_date_answers_when_only_if_the_sentence_holds_one() -> None:
    question = "현우가 로고 시안을 보낸 날은?"
    dated = extractive_answer(question, _items(["현우가 3일 전에 로고 시안 보내줬어.", *_KO_OTHER], "나래"))
    undated = extractive_answer(question, _items(["현우가 로고 시안 보내줬어.", *_KO_OTHER], "나래"), min_support=0.0)
    assert dated is not None and undated is not None and dated.coverage > undated.coverage < MIN_SUPPORT


def test_extractive_refuses() -> None:
    assert extractive_answer("누나 직업이 뭐야?",
                             _items(["우리 형 직업은 치과의사야.", "형은 작년에 결혼했어."])) is None
    assert extractive_answer("Where does Kevin's brother live?", _items(["Kevin's sister lives in Paris."])) is None
    assert extractive_answer("뭐 했어?", _items(["민수는 제주도에 갔다."])) is None  # no content terms
    assert extractive_answer("민수는 어디 갔어?", []) is None


# --- calibration of MIN_SUPPORT -----------------------------------------------------------------
# (question, memories ranked by recall, answerable?, speaker of the first memory).  Unanswerable
# cases store something related but different.  The gate is lexical, so three answerable questions
# worded beyond their memory (vacation / 휴가, 어느 산 vs 한라산) are refused: KNOWN_MISSES.

CALIBRATION: list[tuple[str, list[str], bool, str | None]] = [
    ("민수는 언제 제주도에 갔어?", [
        "민수는 작년 여름에 제주도에 갔다.", "민수는 부산 출신이다.", "지수는 제주도에서 스쿠버다이빙을 배웠다.",
        "민수는 회사에서 개발자로 일한다.",
    ], True, None),
    ("지수는 주말에 수영을 해?", [
        "지수는 주말마다 수영해요.", "지수는 평일에 요가를 해요.", "민수는 주말에 등산을 가요.",
    ], True, None),
    ("형 직업이 뭐야?", [
        "우리 형 직업은 치과의사야.", "누나는 미국에서 유학 중이야.", "형은 작년에 결혼했어.",
    ], True, None),
    ("엄마 생일이 언제야?", [
        "엄마 생일은 3월 14일이야.", "아빠 생일은 10월 2일이야.", "엄마는 꽃을 좋아해.",
    ], True, None),
    ("민수 강아지 이름이 뭐였지?", [
        "민수네 강아지 이름은 초코야.", "민수는 고양이 알레르기가 있어.", "지수네 고양이 이름은 나비야.",
    ], True, None),
    ("지난주에 어디서 저녁을 먹었어?", [
        "지난주 금요일에 을지로 노포에서 저녁을 먹었어.", "점심은 회사 근처에서 먹었어.",
        "이번 주에는 집에서 요리했어.",
    ], True, None),
    ("회의가 몇 시로 바뀌었어?", [
        "내일 팀 회의가 오후 3시로 바뀌었어.", "회의실은 7층 대회의실이야.", "발표 자료는 금요일까지 내야 해.",
    ], True, None),
    ("요즘 읽고 있는 책이 뭐야?", [
        "요즘 읽는 책은 '채식주의자'야.", "지난달에는 영화를 많이 봤어.", "민수는 책을 별로 안 읽어.",
    ], True, None),
    ("지수가 수영 배우기 시작한 게 언제야?", [
        "지수는 5월부터 수영을 배우기 시작했어.", "지수는 평일에 요가를 해.", "민수는 수영을 못 해.",
    ], True, None),
    ("민수 회사가 어디야?", [
        "민수는 판교에 있는 게임 회사에 다녀.", "민수는 주말마다 축구를 해.", "지수 회사는 강남에 있어.",
    ], True, None),
    ("민수가 한라산에 오른 건 언제야?", [
        "민수는 작년 여름에 제주도에 갔다. 거기서 한라산에 올랐다.", "지수는 지리산에 올랐다.",
        "민수는 등산을 좋아한다.",
    ], True, None),
    ("민수가 작년 여름 휴가 때 어디 갔었지?", [
        "민수는 작년 여름에 제주도에 갔다. 거기서 한라산에 올랐다.", "지수는 올해 봄에 부산에 갔다.",
        "민수는 겨울마다 스키를 타러 간다.",
    ], True, None),
    ("민수는 제주도에서 어느 산에 올랐어?", [
        "민수는 작년 여름에 제주도에 갔다. 거기서 한라산에 올랐다.", "지수는 지리산에 올랐다.",
        "민수는 등산을 좋아한다.",
    ], True, None),
    ("누나 직업이 뭐야?", [
        "우리 형 직업은 치과의사야.", "형은 작년에 결혼했어.", "엄마는 선생님이셨어.",
    ], False, None),
    ("민수는 언제 부산에 갔어?", [
        "민수는 작년 여름에 제주도에 갔다.", "민수는 서울에서 태어났다.", "지수는 부산에서 회를 먹었다.",
    ], False, None),
    ("아빠 생일이 언제야?", [
        "엄마 생일은 3월 14일이야.", "아빠는 등산을 좋아해.", "할머니 생신은 추석 다음 날이야.",
    ], False, None),
    ("지수 강아지 이름이 뭐야?", [
        "민수네 강아지 이름은 초코야.", "지수는 고양이를 키워.", "지수네 고양이 이름은 나비야.",
    ], False, None),
    ("회의실 비밀번호가 뭐야?", [
        "회의실은 7층 대회의실이야.", "와이파이 비밀번호는 guest1234야.", "내일 팀 회의가 오후 3시로 바뀌었어.",
    ], False, None),
    ("지난주에 점심은 어디서 먹었어?", [
        "지난주 금요일에 을지로 노포에서 저녁을 먹었어.", "이번 주 점심은 회사 근처에서 먹었어.",
        "주말에는 집에서 요리했어.",
    ], False, None),
    ("민수 여자친구 이름이 뭐야?", [
        "민수는 작년에 여자친구랑 헤어졌다고 했어.", "민수 동생 이름은 민호야.", "지수의 남자친구 이름은 준호야.",
    ], False, None),
    ("내가 싫어하는 음식이 뭐야?", [
        "나는 매운 음식을 좋아해.", "나는 오이를 좋아해.", "민수는 해산물을 싫어해.",
    ], False, None),
    ("민수 동생은 어디 살아?", [
        "민수는 판교에 살아.", "민수 동생 이름은 민호야.", "지수 동생은 대전에 살아.",
    ], False, None),
    ("지수는 주말에 등산을 해?", [
        "지수는 주말마다 수영해요.", "민수는 주말에 등산을 가요.", "지수는 평일에 요가를 해요.",
    ], False, None),
    ("Where did Alice go hiking last summer?", [
        "Alice went hiking on Hallasan in Jeju last summer.", "Alice's brother lives in Busan.",
        "Bob went surfing in Bali in the spring.", "Alice works as a nurse in Seoul.",
    ], True, None),
    ("What does my sister do for work?", [
        "My sister works as a pharmacist in Incheon.", "My brother is a firefighter.",
        "My sister has two cats.",
    ], True, None),
    ("When is Mom's birthday?", [
        "Mom's birthday is on March 14.", "Dad's birthday is October 2.", "Mom loves tulips.",
    ], True, None),
    ("What is the name of Tom's dog?", [
        "Tom's dog is named Biscuit.", "Tom is allergic to cats.", "Sarah's cat is named Luna.",
    ], True, None),
    ("Which restaurant did we have dinner at last Friday?", [
        "Last Friday we had dinner at a small Italian restaurant called Trattoria Rossi.",
        "We had lunch at the office cafeteria on Monday.", "Next Friday is the team offsite.",
    ], True, None),
    ("What time was the meeting moved to?", [
        "The team meeting was moved to 3 pm tomorrow.", "The meeting room is on the 7th floor.",
        "Slides are due on Friday.",
    ], True, None),
    ("Where does Kevin live now?", [
        "Kevin moved to Berlin in 2022 and lives there now.", "Kevin grew up in Toronto.",
        "Kevin's sister lives in Paris.",
    ], True, None),
    ("What is the wifi password at home?", [
        "The office door code is 4821.", "The wifi password at home is sunflower22.",
        "The office is on the 7th floor.",
    ], True, None),
    ("What kind of dog does Tom have?", [
        "Tom's dog is a golden retriever named Biscuit.", "Tom is allergic to cats.",
        "Sarah's cat is named Luna.",
    ], True, None),
    ("Where did Sam grow up?", [
        "I grew up in Busan and moved to Seoul for college.", "My sister lives in Paris.",
        "Lena grew up in Munich.",
    ], True, "Sam"),
    ("How long has Jisoo been learning to swim?", [
        "Jisoo has been learning to swim since May.", "Jisoo does yoga on weekdays.", "Minsu can't swim.",
    ], True, None),
    ("What did Alice climb in Jeju?", [
        "Alice spent a week in Jeju last summer. She climbed Hallasan on the third day.",
        "Bob climbed Bukhansan in the fall.", "Alice loves Jeju's beaches.",
    ], True, None),
    ("Where did Alice go hiking during her summer vacation?", [
        "Alice went hiking on Hallasan in Jeju last summer.", "Alice's brother lives in Busan.",
        "Bob went surfing in Bali in the spring.",
    ], True, None),
    ("What does my sister do for work?", [
        "My brother works as a firefighter.", "My sister has two cats.",
        "My brother's work shifts are 24 hours long.",
    ], False, None),
    ("Where did Bob go hiking last summer?", [
        "Alice went hiking on Hallasan in Jeju last summer.", "Bob went surfing in Bali in the spring.",
        "Bob hates long walks.",
    ], False, None),
    ("When is Dad's birthday?", [
        "Mom's birthday is on March 14.", "Dad loves fishing.",
        "Grandma's birthday is the day after Chuseok.",
    ], False, None),
    ("What is the name of Sarah's dog?", [
        "Tom's dog is named Biscuit.", "Sarah has a cat named Luna.", "Sarah is allergic to dogs.",
    ], False, None),
    ("Which restaurant did we go to last Monday?", [
        "Last Friday we had dinner at Trattoria Rossi.", "On Monday we worked late at the office.",
        "Trattoria Rossi is our favourite restaurant.",
    ], False, None),
    ("Where does Kevin's brother live?", [
        "Kevin moved to Berlin in 2022 and lives there now.", "Kevin's sister lives in Paris.",
        "Kevin grew up in Toronto.",
    ], False, None),
    ("What did Jisoo study at university?", [
        "Minsu studied economics at Seoul National University.", "Jisoo works at a bank.",
        "Jisoo loves hiking.",
    ], False, None),
    ("What is the wifi password at the office?", [
        "The office door code is 4821.", "The wifi password at home is sunflower22.",
        "The office is on the 7th floor.",
    ], False, None),
    ("Where does Sam's sister work?", [
        "Sam's sister lives in Paris.", "Sam works at a bank in Seoul.", "Lena's sister works at a museum.",
    ], False, None),
    ("When did Tom adopt his cat?", [
        "Tom adopted his dog Biscuit in 2021.", "Tom is allergic to cats.", "Sarah adopted a cat last year.",
    ], False, None),
]
KNOWN_MISSES = {
    "민수가 작년 여름 휴가 때 어디 갔었지?",
    "민수는 제주도에서 어느 산에 올랐어?",
    "Where did Alice go hiking during her summer vacation?",
}


def _best_coverage(question: str, texts: list[str], speaker: str | None) -> float:
    answer = extractive_answer(question, _items(texts, speaker), min_support=0.0)
    assert answer is not None
    return answer.coverage


def test_calibration_set_shape() -> None:
    labels = [ok for _, _, ok, _ in CALIBRATION]
    assert labels.count(True) >= 12 and labels.count(False) >= 12
    for language in ("ko", "en"):
        assert {ok for q, _, ok, _ in CALIBRATION if detect_language(q) == language} == {True, False}


def test_calibration_min_support() -> None:
    scored = [(q, _best_coverage(q, texts, speaker), ok) for q, texts, ok, speaker in CALIBRATION]
    unanswerable = [c for _, c, ok in scored if not ok]
    answerable = [c for q, c, ok in scored if ok and q not in KNOWN_MISSES]
    # Every unanswerable case is refused, and MIN_SUPPORT sits inside the gap that separates them
    # from every answerable case except the known misses (measured: 0.807 < gap <= 1.0).
    assert max(unanswerable) < MIN_SUPPORT <= min(answerable)
    predictions = [(c >= MIN_SUPPORT) == ok for _, c, ok in scored]
    accuracy = sum(predictions) / len(predictions)
    assert accuracy >= 43 / 46  # measured: 43 of 46; the 3 misses are KNOWN_MISSES, all refusals
    missed = {q for (q, c, ok), right in zip(scored, predictions, strict=True) if not right}
    assert missed == KNOWN_MISSES
    for question, texts, ok, speaker in CALIBRATION:
        answer = extractive_answer(question, _items(texts, speaker))
        assert (answer is not None) == (ok and question not in KNOWN_MISSES), question


@pytest.mark.parametrize(("question", "text", "named"), [
    ("카페 전용 원두 블렌드 이름은?", "원두 블렌드는 '오후 블렌드'로 하자.", True),
    ("카페 전용 원두 블렌드 이름은?", "원두 블렌드는 다음 주에 정하자.", False),
    ("What's the name of the bakery's new bread?", 'The new bread is called "Morning Loaf".', True),
    ("What's the name of the bakery's new bread?", "The new bread sells out by noon every day.", False),
])
def test_a_name_in_quotes_answers_what_something_is_called(question: str, text: str, named: bool) -> None:
    from gieok.answering._answer_types import with_answer_types
    from gieok.answering._extractive import _terms

    wanted = question_terms(question)
    terms = with_answer_types(_terms(text), text, wanted, _terms(question))
    assert (("이름" in terms) or ("name" in terms)) == named


def test_framing_words_do_not_count_as_the_topic() -> None:
    assert question_terms("지현은 요즘 대략 몇 시에 퇴근해?") == question_terms("지현 몇 시 퇴근")
    assert question_terms("What has Tom been reading lately?") == question_terms("Tom reading")
