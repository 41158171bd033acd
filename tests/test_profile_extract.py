"""Profile slot extraction: every slot in Korean and English, negations, and the precision cases
(questions, the listener, third parties, plans) that must give nothing."""

from __future__ import annotations

import pytest

from gieok.extract.profile import MULTI_VALUED, RELATIONS, SLOTS, SlotValue, extract_slots

# (text, holder, slot, value, relation, negated)
Expected = tuple[str, str, str, str, "str | None", bool]

STATED: list[Expected] = [
    # name
    ("제 이름은 김서연이에요", "self", "name", "김서연", None, False),
    ("저는 서연이라고 해요", "self", "name", "서연", None, False),
    ("안녕하세요, 저는 박지훈입니다.", "self", "name", "박지훈", None, False),
    ("Hi, I'm Tom", "self", "name", "Tom", None, False),
    ("My name's Tom Baker", "self", "name", "Tom Baker", None, False),
    ("hello everyone, my name is Priya and I'm new here", "self", "name", "Priya", None, False),
    # nickname
    ("친구들은 저를 연이라고 불러요", "self", "nickname", "연", None, False),
    ("그냥 곰이라고 불러 주세요", "self", "nickname", "곰", None, False),
    ("제 별명은 곰돌이예요", "self", "nickname", "곰돌이", None, False),
    ("Please call me Tommy.", "self", "nickname", "Tommy", None, False),
    ("my nickname is T", "self", "nickname", "T", None, False),
    ("Everyone calls me Bee.", "self", "nickname", "Bee", None, False),
    # birthday
    ("제 생일은 6월 23일이에요", "self", "birthday", "6월 23일", None, False),
    ("생일이 6/23이야", "self", "birthday", "6/23", None, False),
    ("내 생일 유월 이십삼일", "self", "birthday", "유월 이십삼일", None, False),
    ("저 12월 25일생이에요", "self", "birthday", "12월 25일", None, False),
    ("우리 언니 생일은 3월 5일이야", "sister", "birthday", "3월 5일", None, False),
    ("I was born on March 3rd", "self", "birthday", "March 3rd", None, False),
    ("my birthday's on the 3rd of March", "self", "birthday", "the 3rd of March", None, False),
    ("my bday is March 3", "self", "birthday", "March 3", None, False),
    ("My mom's birthday is May 5th.", "mother", "birthday", "May 5th", None, False),
    # allergy
    ("땅콩 알레르기 있어요", "self", "allergy", "땅콩", None, False),
    ("저 갑각류 알레르기가 있어서 새우 못 먹어요", "self", "allergy", "갑각류", None, False),
    ("새우에 알레르기가 있어요", "self", "allergy", "새우", None, False),
    ("우리 딸 땅콩 알레르기 있어", "daughter", "allergy", "땅콩", None, False),
    ("I'm allergic to peanuts", "self", "allergy", "peanuts", None, False),
    ("I have a cat allergy", "self", "allergy", "cat", None, False),
    ("My son is allergic to eggs.", "son", "allergy", "eggs", None, False),
    ("알레르기는 없어요", "self", "allergy", "알레르기", None, True),
    ("no allergies", "self", "allergy", "allergies", None, True),
    ("I don't have any food allergies.", "self", "allergy", "allergies", None, True),
    ("I'm not allergic to shellfish anymore", "self", "allergy", "shellfish", None, True),
    # diet
    ("저 채식주의자예요", "self", "diet", "채식주의자", None, False),
    ("비건이라서 고기는 안 먹어요", "self", "diet", "비건", None, False),
    ("요즘 채식해요", "self", "diet", "채식", None, False),
    ("와이프가 비건이에요", "wife", "diet", "비건", None, False),
    ("I'm vegetarian", "self", "diet", "vegetarian", None, False),
    ("I went vegan last year", "self", "diet", "vegan", None, False),
    ("I eat pescatarian", "self", "diet", "pescatarian", None, False),
    ("I'm on a keto diet", "self", "diet", "keto", None, False),
    ("이제 채식 안 해요", "self", "diet", "채식", None, True),
    ("더 이상 채식 안 해", "self", "diet", "채식", None, True),
    ("비건 그만뒀어", "self", "diet", "비건", None, True),
    ("I'm not vegetarian anymore", "self", "diet", "vegetarian", None, True),
    ("I stopped being vegan in May.", "self", "diet", "vegan", None, True),
    # health
    ("당뇨가 있어요", "self", "health", "당뇨", None, False),
    ("천식 있어", "self", "health", "천식", None, False),
    ("작년에 고혈압 진단받았어요", "self", "health", "고혈압", None, False),
    ("우리 아빠가 당뇨병이 있으셔", "father", "health", "당뇨병", None, False),
    ("I have asthma", "self", "health", "asthma", None, False),
    ("I was diagnosed with type 2 diabetes", "self", "health", "type 2 diabetes", None, False),
    ("I suffer from migraines.", "self", "health", "migraines", None, False),
    ("I'm diabetic", "self", "health", "diabetic", None, False),
    ("비염은 다 나았어요", "self", "health", "비염", None, True),
    ("I don't have asthma anymore", "self", "health", "asthma", None, True),
    # job
    ("저는 간호사예요", "self", "job", "간호사", None, False),
    ("프론트엔드 개발자로 일하고 있어요", "self", "job", "프론트엔드 개발자", None, False),
    ("저 초등학교 선생님이에요", "self", "job", "초등학교 선생님", None, False),
    ("우리 엄마는 선생님이셔", "mother", "job", "선생님", None, False),
    ("I'm a nurse", "self", "job", "nurse", None, False),
    ("I work as a data engineer", "self", "job", "data engineer", None, False),
    ("I'm a product designer at Kakao", "self", "job", "product designer", None, False),
    ("My husband is a software engineer.", "husband", "job", "software engineer", None, False),
    ("교사였어요", "self", "job", "교사", None, True),
    ("더 이상 간호사 아니야", "self", "job", "간호사", None, True),
    ("I used to be a teacher", "self", "job", "teacher", None, True),
    ("I'm a retired nurse", "self", "job", "nurse", None, True),
    # employer
    ("토스뱅크 다녀요", "self", "employer", "토스뱅크", None, False),
    ("카카오에서 일해", "self", "employer", "카카오", None, False),
    ("지난달에 네이버에 입사했어요", "self", "employer", "네이버", None, False),
    ("남편은 카카오 다녀", "husband", "employer", "카카오", None, False),
    ("I work at Google", "self", "employer", "Google", None, False),
    ("I joined Stripe last month", "self", "employer", "Stripe", None, False),
    ("I'm a product designer at Kakao", "self", "employer", "Kakao", None, False),
    ("My sister works for Bank of America.", "sister", "employer", "Bank of America", None, False),
    ("삼성 그만뒀어", "self", "employer", "삼성", None, True),
    ("삼성전자 다니다가 그만뒀어", "self", "employer", "삼성전자", None, True),
    ("I left Samsung", "self", "employer", "Samsung", None, True),
    ("I quit Amazon last week.", "self", "employer", "Amazon", None, True),
    # city
    ("서울 살아요", "self", "city", "서울", None, False),
    ("부산에 살고 있어", "self", "city", "부산", None, False),
    ("망원동으로 이사했어", "self", "city", "망원동", None, False),
    ("형은 부산 살아", "brother", "city", "부산", None, False),
    ("I live in Austin", "self", "city", "Austin", None, False),
    ("we moved to Denver", "self", "city", "Denver", None, False),
    ("I live in New York City with my partner.", "self", "city", "New York City", None, False),
    ("my brother lives in Seoul", "brother", "city", "Seoul", None, False),
    ("부산에 살았었어", "self", "city", "부산", None, True),
    ("I don't live in Boston anymore", "self", "city", "Boston", None, True),
    # family
    ("우리 언니 이름은 지수야", "self", "family", "지수", "sister", False),
    ("제 동생 민호가 어제 왔어요", "self", "family", "민호", "sibling", False),
    ("저 여동생 있어요", "self", "family", "여동생", "sister", False),
    ("언니가 한 명 있어요", "self", "family", "언니", "sister", False),
    ("my sister Jisoo", "self", "family", "Jisoo", "sister", False),
    ("my daughter Lily started school", "self", "family", "Lily", "daughter", False),
    ("My dad's name is Robert.", "self", "family", "Robert", "father", False),
    ("I have a younger brother.", "self", "family", "brother", "brother", False),
    # preference
    ("제일 좋아하는 음식은 떡볶이야", "self", "preference", "떡볶이", None, False),
    ("저 매운 거 좋아해요", "self", "preference", "매운 거", None, False),
    ("저는 고양이를 정말 좋아해요", "self", "preference", "고양이", None, False),
    ("최애 과일은 복숭아예요", "self", "preference", "복숭아", None, False),
    ("오이는 안 좋아해요", "self", "preference", "오이", None, True),
    ("I love hiking", "self", "preference", "hiking", None, False),
    ("my favorite color is green", "self", "preference", "green", None, False),
    ("Thai food is my favorite", "self", "preference", "Thai food", None, False),
    ("I'm a huge fan of jazz.", "self", "preference", "jazz", None, False),
    ("등산하는 거 좋아해요", "self", "preference", "등산", None, False),
    ("요즘 공포 영화 좋아해요", "self", "preference", "공포 영화", None, False),
    ("엄마가 떡볶이 좋아하세요", "mother", "preference", "떡볶이", None, False),
    ("I'm really into K-pop lately", "self", "preference", "K-pop", None, False),
    ("I love cooking and reading", "self", "preference", "reading", None, False),
    # more phrasing
    ("I'm vegetarian, how about you?", "self", "diet", "vegetarian", None, False),
    ("Honestly I've been vegan for 3 years.", "self", "diet", "vegan", None, False),
    ("저는 비건은 아니고 페스코예요", "self", "diet", "페스코", None, False),
    ("저는 비건은 아니고 페스코예요", "self", "diet", "비건", None, True),
    ("I've been living in Berlin since 2019.", "self", "city", "Berlin", None, False),
    ("서울에 산 지 5년 됐어", "self", "city", "서울", None, False),
    ("서울은 이제 안 살아", "self", "city", "서울", None, True),
    ("I'm currently working at Meta as a PM.", "self", "employer", "Meta", None, False),
    ("쿠팡으로 이직했어요", "self", "employer", "쿠팡", None, False),
    ("카카오는 안 다녀", "self", "employer", "카카오", None, True),
    ("네이버에서 디자이너로 일해요", "self", "employer", "네이버", None, False),
    ("제 남동생은 대학생이에요", "brother", "job", "대학생", None, False),
    ("남자친구가 의사예요", "boyfriend", "job", "의사", None, False),
    ("My mom has type 1 diabetes", "mother", "health", "type 1 diabetes", None, False),
    ("저는 아토피가 좀 있어요", "self", "health", "아토피", None, False),
    ("My husband Mark works at Amazon", "husband", "employer", "Amazon", None, False),
    ("My husband Mark works at Amazon", "self", "family", "Mark", "husband", False),
    ("우리 언니 지수는 간호사야", "sister", "job", "간호사", None, False),
    ("my sister Jisoo's birthday is June 1st", "sister", "birthday", "June 1st", None, False),
    ("저는 5월 5일에 태어났어요", "self", "birthday", "5월 5일", None, False),
    ("You can call me Sam", "self", "nickname", "Sam", None, False),
    ("Nope, no allergies.", "self", "allergy", "allergies", None, True),
    ("I don't like horror movies.", "self", "preference", "horror movies", None, True),
]


def _facts(text: str) -> set[tuple[str, str, str, str | None, bool]]:
    return {(f.holder, f.slot, f.value, f.relation, f.negated) for f in extract_slots(text)}


@pytest.mark.parametrize(("text", "holder", "slot", "value", "relation", "negated"), STATED)
def test_stated_slot(text: str, holder: str, slot: str, value: str, relation: str | None, negated: bool) -> None:
    assert (holder, slot, value, relation, negated) in _facts(text)


@pytest.mark.parametrize(("text", "holder", "slot", "value", "relation", "negated"), STATED)
def test_span_points_at_the_evidence(text: str, holder: str, slot: str, value: str, relation: str | None,
                                     negated: bool) -> None:
    found = next(f for f in extract_slots(text) if (f.slot, f.value) == (slot, value))
    assert 0 <= found.start < found.end <= len(text)
    evidence = text[found.start:found.end]
    assert value in evidence or (slot == "family" and relation is not None)


NOTHING = [
    # questions
    "너 생일 언제야?",
    "Are you vegetarian?",
    "어디 살아요?",
    "혹시 알레르기 있어요",
    "Do you have any allergies",
    "what's your favorite food?",
    "너 채식하니",
    # the listener
    "네 생일 축하해",
    "your sister is sweet",
    "너는 간호사잖아",
    "You're a nurse, right.",
    "I heard you live in Busan.",
    # plans and hypotheticals
    "채식 해볼까",
    "maybe I'll move to Busan",
    "부산으로 이사 가려고",
    "비건 하고 싶어",
    "I'm thinking about going vegan.",
    "If I worked at Google I'd be rich.",
    "I want to be a teacher",
    "내년에 카카오에 입사할 예정이에요",
    # third parties
    "민수는 개발자야",
    "친구가 서울 살아",
    "Minsu is a developer",
    "my friend works at Google",
    "Jisoo lives in Austin.",
    "민수 생일은 5월 3일이야",
    # not profile facts
    "오늘 날씨 좋네요",
    "I'm a big fan of yours",
    "I'm so tired today",
    "I'm Korean",
    "학교 다녀요",
    "혼자 살아요",
    "I have two kids",
    "my birthday is tomorrow",
    "비건 레스토랑 가봤어",
    "I joined a gym",
    "강아지 좋아하세요",
    "제 친구 민수는 서울 살아",
    "저희 팀장님은 개발자예요",
    "엄마 친구 아들이 의사래",
    "우리 엄마 친구는 의사야",
    "우리 회사 사람들은 다 개발자야",
    "민수는 카카오 다녀",
    "카카오에서 일했어",
    "TV에 나왔어",
    "병원 다녀왔어",
    "서울대 다녀요",
    "서울에서 일해요",
    "많이 아쉬워. 6월까지만 다닌대",  # a time, an extent, a companion or an adverb is no workplace
    "나 합정까지 다녀",
    "친구랑 다녀",
    "매일 다녀",
    "저 알레르기 있어요",
    "다음 주 금요일이 내 생일이야",
    "생일 축하해!",
    "I'm a teacher's assistant",
    "I'm not a doctor but I think it's fine",
    "I'm Jisoo's mom",
    "I left New York last year",
    "I'm at the office",
    "I love you so much",
    "I love my sister",
    "I hate mushrooms",
    "She lives in Austin",
    "He works at Google",
    "My friend's sister lives in Denver",
    "I go there every day until June",
]


@pytest.mark.parametrize("text", NOTHING)
def test_nothing_extracted(text: str) -> None:
    assert extract_slots(text) == []


def test_allergy_list_gives_each_value() -> None:
    assert _facts("I'm allergic to peanuts and shellfish") >= {
        ("self", "allergy", "peanuts", None, False), ("self", "allergy", "shellfish", None, False)}
    assert {v for _h, _s, v, _r, _n in _facts("땅콩이랑 새우 알레르기가 있어요")} == {"땅콩", "새우"}


def test_values_are_trimmed_of_particles() -> None:
    values = {f.value for f in extract_slots("토스뱅크에서 일하고 망원동에서 살아요")}
    assert values == {"토스뱅크", "망원동"}


def test_job_and_employer_from_one_clause() -> None:
    facts = _facts("카카오에서 백엔드 개발자로 일하고 있어요")
    assert ("self", "employer", "카카오", None, False) in facts
    assert ("self", "job", "백엔드 개발자", None, False) in facts


def test_holder_follows_the_nearest_subject() -> None:
    facts = _facts("우리 언니는 간호사고 저는 개발자예요")
    assert ("sister", "job", "간호사", None, False) in facts
    assert ("self", "job", "개발자", None, False) in facts


def test_move_from_one_city_to_another() -> None:
    facts = _facts("서울에서 부산으로 이사했어")
    assert ("self", "city", "부산", None, False) in facts
    assert ("self", "city", "서울", None, True) in facts


def test_question_sentence_is_skipped_but_statement_kept() -> None:
    facts = _facts("I live in Austin. Where do you live?")
    assert facts == {("self", "city", "Austin", None, False)}


def test_spans_are_relative_to_the_whole_message() -> None:
    text = "Hello there. I work at Google."
    found = extract_slots(text)
    assert [(f.slot, f.value) for f in found] == [("employer", "Google")]
    assert "Google" in text[found[0].start:found[0].end]


def test_interface_constants() -> None:
    assert SLOTS[0] == "name" and "preference" in SLOTS
    assert MULTI_VALUED <= set(SLOTS)
    assert RELATIONS["언니"] == RELATIONS["누나"] == RELATIONS["sister"] == "sister"
    assert RELATIONS["동생"] == "sibling" and RELATIONS["여동생"] == "sister" and RELATIONS["남동생"] == "brother"
    assert RELATIONS["엄마"] == RELATIONS["mom"] == "mother"
    assert all(f.slot in SLOTS for f in extract_slots("저는 간호사고 서울 살아요"))
    assert SlotValue("self", "job", "nurse") == SlotValue("self", "job", "nurse", None, False, 0, 0)


def test_empty_and_blank_text() -> None:
    assert extract_slots("") == []
    assert extract_slots("   ") == []


@pytest.mark.parametrize(("text", "slot", "value"), [
    ("집이 합정동이라 출근이 편해.", "city", "합정동"),
    ("응, 연남동에 원룸 구했어.", "city", "연남동"),
    ("요즘 다들 나 '콩이'라고 불러.", "nickname", "콩이"),
    ("작년부터 비건으로 살고 있어.", "diet", "비건"),
    ("다음 달부터 간호사로 들어가.", "job", "간호사"),
    ('Funny thing, my new team calls me "Beck".', "nickname", "Beck"),
    ("Name's Tom Becker, nice to meet you all.", "name", "Tom Becker"),
    ("Good news, we're moving to Denver.", "city", "Denver"),
    ("Finally settled in Portland.", "city", "Portland"),
    ("Big news. I took an offer from Stripe.", "employer", "Stripe"),
    ("I'm doing keto this month.", "diet", "keto"),
    ("Being a product designer means three redesigns a quarter.", "job", "product designer"),
])
def test_facts_said_in_passing(text: str, slot: str, value: str) -> None:
    """Slots said in passing rather than stated ("집이 합정동이라", "my team calls me "Beck"")."""
    found = [(v.holder, v.slot, v.value) for v in extract_slots(text)]
    assert ("self", slot, value) in found, found


@pytest.mark.parametrize("text", ["걔는 다들 '콩이'라고 불러.", "My sister settled in Portland?",
                                  "Maybe we're moving to Denver.", "민수는 연남동에 원룸 구했대."])
def test_said_in_passing_about_others_or_unsure_gives_nothing(text: str) -> None:
    assert [v for v in extract_slots(text) if v.holder == "self"] == []


@pytest.mark.parametrize("text, holder, slot, value", [
    ("내 사촌 Jess는 간호사야.", "cousin", "job", "간호사"),
    ("My cousin Jess is a nurse.", "cousin", "job", "nurse"),
    ("우리 삼촌은 부산에 살아", "uncle", "city", "부산"),
    ("My uncle lives in Busan.", "uncle", "city", "Busan"),
])
def test_the_wider_family_is_not_the_speaker(text: str, holder: str, slot: str, value: str) -> None:
    found = [v for v in extract_slots(text) if v.slot == slot]
    assert [(v.holder, v.value) for v in found] == [(holder, value)]
    assert not any(v.holder == "self" and v.slot == slot for v in extract_slots(text))
