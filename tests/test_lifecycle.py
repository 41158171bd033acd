"""Memory lifecycle, Korean and English: decay classes, the forgetting curve, supersede detection."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

from gieok import Memory, lifecycle
from gieok.errors import InputError
from gieok.lifecycle import (
    ARCHIVE_BELOW,
    MAX_STRETCH,
    RECALL_STRETCH,
    STABLE_HALF_LIFE_DAYS,
    TRANSIENT_HALF_LIFE_DAYS,
    MemoryClass,
    UpdateVerdict,
    classify_memory,
    decay_strength,
    detect_update,
    extract_values,
    should_archive,
)
from gieok.lifecycle._state_change import detect_state_change
from gieok.lifecycle._topics import topic_hits


def test_public_names() -> None:
    assert sorted(lifecycle.__all__) == sorted([
        "ARCHIVE_BELOW", "DECAY_CLASSES", "DEFAULT_IMPORTANCE", "HALF_LIFE_DAYS", "MAX_STRETCH",
        "RECALL_STRETCH", "STABLE_HALF_LIFE_DAYS", "TRANSIENT_HALF_LIFE_DAYS", "DecayClass",
        "MemoryClass", "UpdateKind", "UpdateVerdict", "classify_memory", "decay_strength",
        "detect_update", "extract_values", "says_a_change", "should_archive",
    ])
    for name in lifecycle.__all__:
        assert hasattr(lifecycle, name)


# ---------------------------------------------------------------- A. decay classes

PINNED = [
    # names
    ("제 이름은 김민지예요", "name"),
    ("내 이름은 서준이야", "name"),
    ("My name is Caroline", "name"),
    ("Just call me Jay", "name"),
    # birthdays
    ("내 생일은 5월 3일이야", "birthday"),
    ("My birthday is May 3rd", "birthday"),
    ("I was born on March 5", "birthday"),
    # allergies, with inflected Korean
    ("저 땅콩 알레르기가 있어서요", "allergy"),
    ("I'm allergic to shellfish", "allergy"),
    ("I have a peanut allergy", "allergy"),
    # health
    ("당뇨가 있어", "health"),
    ("고혈압 때문에 싱겁게 먹어", "health"),
    ("천식이 있어서 달리기는 못 해", "health"),
    ("저 임신했어요", "health"),
    ("혈압약 복용 중이야", "health"),
    ("I have type 2 diabetes", "health"),
    ("My son has asthma", "health"),
    ("I'm pregnant", "health"),
    ("I'm on medication for anxiety", "health"),
    ("I take 20 mg of lisinopril every morning", "health"),
    # explicit requests
    ("이거 꼭 기억해 줘: 비밀번호 힌트는 고양이", "explicit request"),
    ("기억해둬, 나 오이 못 먹어", "explicit request"),
    ("잊지 마, 나 목요일마다 수영해", "explicit request"),
    ("Remember this: my locker is 42", "explicit request"),
    ("Don't forget I sit in the aisle seat", "explicit request"),
    ("Please remember that I take the early train", "explicit request"),
    ("Note that I'm out every Friday", "explicit request"),
]


@pytest.mark.parametrize(("text", "category"), PINNED)
def test_pinned(text: str, category: str) -> None:
    result = classify_memory(text)
    assert result.decay_class == "pinned"
    assert result.importance >= 0.9
    assert result.reason.startswith(category + ":")


STABLE = [
    # preferences; Korean inflections meet through Kiwi lemmas
    ("민트초코 좋아해요", "preference"),
    ("민트초코 좋아했어", "preference"),
    ("제가 좋아하는 가수는 아이유예요", "preference"),
    ("오이 싫어해요", "preference"),
    ("주말엔 등산을 즐겨", "preference"),
    ("창가 자리를 선호해요", "preference"),
    ("My favorite band is Radiohead", "preference"),
    ("I prefer window seats", "preference"),
    ("I love spicy food", "preference"),
    ("I hate cilantro", "preference"),
    ("I like jazz", "preference"),
    # jobs & work
    ("카카오 다니고 있어요", "job"),
    ("삼성에 다녀", "job"),
    ("직장이 강남이에요", "job"),
    ("회사에서 팀장이야", "job"),
    ("I work at Google as a designer", "job"),
    ("My job is pretty stressful", "job"),
    # relationships
    ("남편이 요리를 잘해", "relationship"),
    ("여자친구가 간호사예요", "relationship"),
    ("동생이 대학생이야", "relationship"),
    ("우리 엄마는 선생님이셔", "relationship"),
    ("My wife is a teacher", "relationship"),
    ("My boyfriend plays guitar", "relationship"),
    ("I'm married", "relationship"),
    # home
    ("부산에 살아요", "home"),
    ("서울에서 사는 중이야", "home"),
    ("I live in Seoul", "home"),
    ("I moved to Busan last month", "home"),
    # diet
    ("채식주의자예요", "dietary"),
    ("I'm vegetarian", "dietary"),
    ("I've been vegan for years", "dietary"),
]


@pytest.mark.parametrize(("text", "category"), STABLE)
def test_stable(text: str, category: str) -> None:
    result = classify_memory(text)
    assert result.decay_class == "stable"
    assert 0.5 <= result.importance <= 0.8
    assert result.reason.startswith(category + ":")


TRANSIENT = [
    # plans and schedules
    ("내일 3시에 회의 있어", "plan"),
    ("모레 치과 예약했어", "plan"),
    ("다음 주에 부산 갈 거야", "plan"),
    ("이따가 전화할게", "plan"),
    ("친구랑 약속 있어", "plan"),
    ("보고서 마감이 금요일이야", "plan"),
    ("I have a meeting tomorrow at 3", "plan"),
    ("The deadline is next Friday", "plan"),
    ("I'm going to the gym tonight", "plan"),
    ("We plan to visit Jeju next week", "plan"),
    # moods
    ("오늘 너무 피곤해", "mood"),
    ("배고파", "mood"),
    ("아 짜증나", "mood"),
    ("기분이 좀 별로야", "mood"),
    ("I'm so tired", "mood"),
    ("I'm hungry", "mood"),
    ("I'm bored out of my mind", "mood"),
    ("Feeling stressed about work", "mood"),
    # one-off events
    ("어제 영화 봤어", "one-off event"),
    ("아까 커피 쏟았어", "one-off event"),
    ("I went to the mall yesterday", "one-off event"),
    ("I missed the bus this morning", "one-off event"),
]


@pytest.mark.parametrize(("text", "category"), TRANSIENT)
def test_transient(text: str, category: str) -> None:
    result = classify_memory(text)
    assert result.decay_class == "transient"
    assert 0.1 < result.importance <= 0.4
    assert result.reason.startswith(category + ":")


@pytest.mark.parametrize("text", ["ㅋㅋ", "ㅋㅋㅋ 고마워", "네 알겠습니다", "ok thanks", "Haha, thank you!", "👍", ""])
def test_small_talk_is_lowest(text: str) -> None:
    assert classify_memory(text) == MemoryClass("transient", 0.1, "small talk")


@pytest.mark.parametrize("text", ["하늘이 파랗다", "The sky is blue", "책상 위에 노트북이 있어"])
def test_no_cue_is_stable_default(text: str) -> None:
    assert classify_memory(text) == MemoryClass("stable", 0.5, "no cue: default")


@pytest.mark.parametrize(
    ("text", "decay_class", "category"),
    [
        # pinned wins over a plan: health information outlives the appointment
        ("내일 당뇨 때문에 병원 가", "pinned", "health"),
        ("I have a doctor's appointment tomorrow about my diabetes", "pinned", "health"),
        ("잊지 마, 다음 주에 엄마 생신이야", "pinned", "explicit request"),
        # a verb-level stable cue wins over a transient one
        ("다음 주부터 카카오 다녀", "stable", "job"),
        ("I work at Google and I'm tired today", "stable", "job"),
        # a relative or workplace merely mentioned loses to the plan or event
        ("내일 엄마랑 점심 먹어", "transient", "plan"),
        ("내일 회사에서 회의 있어", "transient", "plan"),
        ("I'm seeing my sister tomorrow", "transient", "plan"),
        ("어제 남편이랑 영화 봤어", "transient", "one-off event"),
    ],
)
def test_precedence(text: str, decay_class: str, category: str) -> None:
    result = classify_memory(text)
    assert result.decay_class == decay_class
    assert result.reason.startswith(category + ":")


@pytest.mark.parametrize(
    "text",
    [
        "Call me tomorrow",  # not a name
        "Do you remember that trip?",  # a question, not a request
        "I'd love to go tomorrow",  # not a preference
        "병원 다녀왔어",  # 다녀오다 is a trip, not a job (다니다)
        "인형을 샀어",  # 형 hides in 인형: nouns match whole tokens
    ],
)
def test_cues_that_must_not_fire(text: str) -> None:
    result = classify_memory(text)
    assert result.decay_class != "pinned"
    assert not result.reason.startswith(("name:", "explicit request:", "job:", "relationship:", "preference:"))


def test_assistant_promises_do_not_pin() -> None:
    assert classify_memory("기억해 둬, 나 오이 못 먹어", speaker="user").decay_class == "pinned"
    assert classify_memory("기억해 둬, 나 오이 못 먹어", speaker="assistant").decay_class != "pinned"
    assert classify_memory("Remember this: the locker is 42", speaker="Assistant").decay_class != "pinned"
    # what the assistant restates about the user still counts
    assert classify_memory("Your peanut allergy is noted", speaker="assistant").reason == "allergy: allergy"
    assert classify_memory("기억할게요!", speaker="assistant").importance == 0.1


def test_memory_class_is_frozen() -> None:
    result = classify_memory("I live in Seoul")
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.importance = 1.0  # type: ignore[misc]


# ---------------------------------------------------------------- A. forgetting curve


def test_half_lives() -> None:
    assert STABLE_HALF_LIFE_DAYS == 365 and TRANSIENT_HALF_LIFE_DAYS == 14 and ARCHIVE_BELOW == 0.05
    assert decay_strength("stable", 0) == 1.0
    assert decay_strength("stable", 365) == pytest.approx(0.5)
    assert decay_strength("stable", 730) == pytest.approx(0.25)
    assert decay_strength("transient", 14) == pytest.approx(0.5)
    assert decay_strength("transient", 28) == pytest.approx(0.25)


@pytest.mark.parametrize("age", [0, 1, 365, 36500])
def test_pinned_never_decays(age: float) -> None:
    assert decay_strength("pinned", age) == 1.0
    assert not should_archive("pinned", age)


def test_strength_decreases_with_age() -> None:
    for decay_class in ("stable", "transient"):
        strengths = [decay_strength(decay_class, age) for age in (0, 1, 7, 30, 90, 365, 3650)]
        assert strengths == sorted(strengths, reverse=True)
        assert all(0.0 <= s <= 1.0 for s in strengths)


def test_recall_refreshes_from_last_recall() -> None:
    # said 100 days ago, recalled today: as fresh as new
    assert decay_strength("transient", 100, recalls=1, days_since_recall=0) == 1.0
    # the more recent of said / recalled counts; a recall can't be older than the memory
    assert (decay_strength("transient", 10, recalls=1, days_since_recall=50)
            == decay_strength("transient", 10, recalls=1))


def test_recalls_stretch_half_life_up_to_a_cap() -> None:
    assert RECALL_STRETCH == 1.5
    assert decay_strength("transient", 21, recalls=1, days_since_recall=21) == pytest.approx(0.5)
    assert decay_strength("transient", 14 * 2.25, recalls=2, days_since_recall=14 * 2.25) == pytest.approx(0.5)
    capped = 14 * MAX_STRETCH
    assert decay_strength("transient", capped, recalls=50, days_since_recall=capped) == pytest.approx(0.5)
    assert (decay_strength("stable", 365, recalls=3) > decay_strength("stable", 365, recalls=1)
            > decay_strength("stable", 365))


def test_archive_threshold() -> None:
    # 0.5 ** (age / 14) < 0.05 from about 60.5 days
    assert not should_archive("transient", 60)
    assert should_archive("transient", 61)
    assert decay_strength("transient", 61) < ARCHIVE_BELOW
    assert not should_archive("stable", 365 * 4)
    assert should_archive("stable", 365 * 5)
    # a recall saves it
    assert not should_archive("transient", 61, recalls=1, days_since_recall=1)


def test_bad_decay_arguments_raise() -> None:
    with pytest.raises(InputError, match="unknown decay class 'forever'"):
        decay_strength("forever", 1)
    with pytest.raises(InputError):
        decay_strength("stable", -1)
    with pytest.raises(InputError):
        decay_strength("stable", 1, recalls=-1)
    assert math.isinf(lifecycle.HALF_LIFE_DAYS["pinned"])


# ---------------------------------------------------------------- B. values


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("마감은 금요일이야", {"friday"}),
        ("금욜 봐", {"friday"}),
        ("The deadline is Friday", {"friday"}),
        ("회의 4시로 옮겼어", {"16:00"}),
        ("오후 3시 반에 보자", {"15:30"}),
        ("세 시에 만나", {"15:00"}),
        ("아침 9시 회의", {"09:00"}),
        ("Meet me at 4", {"16:00"}),
        ("3:30 pm works", {"15:30"}),
        ("5월 3일이 생일이야", {"05-03"}),
        ("My birthday is May 3rd", {"05-03"}),
        ("2024-05-03", {"2024-05-03"}),
        ("3월에 이사해", {"march"}),
        ("I moved to Busan in May", {"may", "busan"}),
        ("나 32살이야", {"32살"}),
        ("I take 10 mg", {"10mg"}),
        ("3시간 걸려", {"3시간"}),  # a duration, not a clock time
        ("삼성 다니다가 카카오로 옮겼어", {"삼성", "카카오"}),
        ("I work at Google on Fridays", {"google", "friday"}),
        ("그냥 그래", set()),
    ],
)
def test_extract_values(text: str, values: set[str]) -> None:
    assert extract_values(text) == values


# ---------------------------------------------------------------- B. supersede

UPDATES = [
    # explicit corrections
    ("마감은 금요일이야", "아니, 금요일 말고 월요일", "correction", "금요일", "월요일"),
    ("마감은 금요일이야", "금요일이 아니라 월요일이야", "correction", "금요일", "월요일"),
    ("회의는 3시야", "정정할게, 회의는 4시야", "correction", "3시", "4시"),
    ("마감은 금요일이야", "아니, 월요일이야", "correction", "금요일", "월요일"),
    ("동생 이름은 민호야", "잘못 말했어, 동생 이름은 민수야", "correction", "민호", "민수"),
    ("The meeting is at 3pm", "Actually, the meeting is at 4pm", "correction", "3pm", "4pm"),
    ("The meeting is on Friday", "No, not Friday but Monday", "correction", "Friday", "Monday"),
    ("The meeting is on Friday", "The meeting is on Monday, not Friday", "correction", "Friday", "Monday"),
    ("The party is on Friday", "Scratch that, the party is on Saturday", "correction", "Friday", "Saturday"),
    ("The party is on Friday", "Sorry, I meant Saturday", "correction", "Friday", "Saturday"),
    ("My favorite color is blue", "Correction: my favorite color is green", "correction", "blue", "green"),
    ("My birthday is May 3", "My birthday is actually May 5", "correction", "May 3", "May 5"),
    # changes of state
    ("나 삼성 다녀", "삼성 다니다가 카카오로 옮겼어", "change", "삼성", "카카오"),
    ("삼성 다녀", "원래 삼성 다녔는데 이제는 카카오 다녀", "change", "삼성", "카카오"),
    ("나 카카오 다녀", "이제는 네이버 다녀", "change", "카카오", "네이버"),
    ("부산에 살아", "서울로 이사했어", "change", "부산", "서울"),
    ("우유 마셔", "우유 대신 두유 마셔", "change", "우유", "두유"),
    ("차 좋아해", "요즘은 커피 좋아해", "change", "차", "커피"),
    ("마감은 금요일이야", "마감 월요일로 바뀌었어", "change", "금요일", "월요일"),
    ("회의는 3시야", "회의 4시로 옮겼어", "change", "3시", "4시"),
    ("마감 금요일이야", "마감이 금요일에서 월요일로 미뤄졌어", "change", "금요일", "월요일"),
    ("혈압약 10mg 먹어", "혈압약 20mg으로 바꿨어", "change", "10mg", "20mg"),
    ("I drink almond milk every morning", "I switched from almond milk to oat milk",
     "change", "almond milk", "oat milk"),
    ("I live in Seattle", "I used to live in Seattle, but now I live in Portland", "change", "Seattle", "Portland"),
    ("I live in Seoul", "I moved to Busan", "change", "Seoul", "Busan"),
    ("I work at Google", "I work at Kakao now", "change", "Google", "Kakao"),
    ("My favorite color is blue", "My favorite color is green now", "change", "blue", "green"),
    ("The meeting is at 3pm", "The meeting was moved to 4pm", "change", "3pm", "4pm"),
    ("I take the subway to work", "I take the bus instead of the subway now", "change", "subway", "bus"),
    ("I go to the gym on Mondays", "I go to the gym on Thursdays now", "change", "Mondays", "Thursdays"),
    ("I'm 32", "I'm 33 now", "change", "32", "33"),
    # same frame, another value, no cue word
    ("생일은 5월 3일이야", "생일은 5월 5일이야", "value", "5월 3일", "5월 5일"),
    ("나 32살이야", "나 33살이야", "value", "32살", "33살"),
    ("제일 좋아하는 색은 파란색이야", "제일 좋아하는 색은 초록색이야", "value", "파란색", "초록색"),
    ("I have 2 kids", "I have 3 kids", "value", "2", "3"),
    ("My favorite color is blue", "My favorite color is green", "value", "blue", "green"),
]


@pytest.mark.parametrize(("old", "new", "kind", "old_value", "new_value"), UPDATES)
def test_detects_update(old: str, new: str, kind: str, old_value: str, new_value: str) -> None:
    verdict = detect_update(old, new)
    assert verdict is not None
    assert (verdict.kind, verdict.old_value, verdict.new_value) == (kind, old_value, new_value)
    assert 0.5 <= verdict.confidence <= 1.0
    assert old_value in verdict.reason and new_value in verdict.reason


STOPPED = [
    ("매일 아침 커피 마셔", "더 이상 커피 안 마셔"),
    ("회의는 3시야", "회의 취소됐어"),
    ("I eat meat", "I no longer eat meat"),
    ("I drink coffee every day", "I used to drink coffee"),
    ("I work at Google", "I no longer work at Google"),
    ("I don't drink coffee", "I drink coffee now"),
]


@pytest.mark.parametrize(("old", "new"), STOPPED)
def test_detects_a_stopped_state(old: str, new: str) -> None:
    verdict = detect_update(old, new)
    assert verdict is not None
    assert (verdict.kind, verdict.old_value, verdict.new_value) == ("change", None, None)
    assert verdict.reason.startswith("stopped:")


NOT_UPDATES = [
    # paraphrases and repeats: same value
    ("마감은 금요일이야", "금요일이 마감이야"),
    ("마감은 금요일이야", "마감 금요일이야"),
    ("회의는 3시야", "회의는 오후 3시야"),
    ("회의는 3시야", "회의는 3시야"),
    ("Friday is the deadline", "The deadline is Friday"),
    ("The deadline is Friday", "the deadline is friday"),
    ("I no longer eat meat", "I don't eat meat anymore"),
    ("더 이상 커피 안 마셔", "커피 끊었어"),
    # questions
    ("마감은 금요일이야", "마감 월요일이야?"),
    ("마감이 금요일이야", "마감이 금요일 맞지?"),
    ("The deadline is Friday", "Is the deadline Monday"),
    ("The deadline is Friday", "Is it Monday now?"),
    # additions
    ("I like tea", "I also like coffee"),
    ("I like tea", "I like coffee too"),
    ("차 좋아해", "커피도 좋아해"),
    ("I go to the gym on Mondays", "I go to the gym on Mondays and Thursdays"),
    ("I love sushi", "I love sushi and ramen"),
    # elaborations
    ("마감은 금요일이야", "마감은 금요일 오후 6시야"),
    ("서울에 살아", "서울에 살아. 강남 쪽이야"),
    ("The deadline is Friday", "The deadline is Friday at 5pm"),
    ("I work at Google", "I work at Google as a designer on the Maps team"),
    ("I'm meeting Sarah on Monday", "I'm meeting Sarah on Monday at the cafe"),
    # unrelated, or another subject in the same words
    ("회의는 3시야", "저녁은 6시에 먹자"),
    ("마감은 금요일이야", "다음 회의는 월요일이야"),
    ("회의는 3시야", "아니, 금요일 말고 월요일"),
    ("마감은 금요일이고 발표는 월요일이야", "마감은 금요일이야"),
    ("I live in Seattle", "My sister visited Portland"),
    ("I met Sarah on Monday", "I met Tom on Friday"),
    ("I have a dog named Max", "I have a cat named Luna"),
    ("I like tea", "I like coffee"),
    ("I work at Google", "I'm going to Google I/O tomorrow"),
    ("", "I live in Busan"),
]


@pytest.mark.parametrize(("old", "new"), NOT_UPDATES)
def test_no_update(old: str, new: str) -> None:
    assert detect_update(old, new) is None


def test_update_verdict_shape() -> None:
    verdict = detect_update("회의는 3시야", "회의 4시로 옮겼어")
    assert verdict == UpdateVerdict(
        "change", 0.85, "3시", "4시", "time changed in the same frame ('옮겼'): 3시 → 4시"
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        verdict.kind = "value"  # type: ignore[misc]


def test_cue_words_raise_confidence() -> None:
    plain = detect_update("The meeting is at 3pm", "The meeting is at 4pm")
    corrected = detect_update("The meeting is at 3pm", "Actually, the meeting is at 4pm")
    assert plain is not None and corrected is not None
    assert plain.kind == "value" and corrected.kind == "correction"
    assert corrected.confidence > plain.confidence


# ---------------------------------------------------------------- B. state change on a topic

STATE_CHANGES = [
    # job: no value shared, the topic is (삼성 다녀 / 회사, law firm / resignation)
    ("나 삼성 다녀. 기흥에서 설비 쪽 일해.", "나 회사 그만뒀어! 당분간 여행 다니려고.", "job", "end"),
    ("나 삼성 다녀.", "이직 확정! 다음 달부터 네이버로 출근해.", "job", "replace"),
    ("지금 작은 출판사에서 편집자로 일해요.", "저 퇴사했어요. 이제 프리랜서로 일해요.", "job", "end"),
    ("I work at a law firm downtown, mostly contracts.", "I handed in my resignation today!", "job", "end"),
    ("I'm a barista at a cafe near campus.", "Big news, I accepted an offer from a roastery, starting Monday.",
     "job", "begin"),
    # home, without a shared place name
    ("집은 부천이야. 지하철로 한 시간 걸려.", "이사 끝났다! 이제 회사 앞에서 살아.", "home", "replace"),
    ("I live with two roommates in Astoria.", "We finally moved! Got a one-bedroom in Jersey City.", "home", "replace"),
    # single-value things: phone, car, team, relationship, diet
    ("폰은 아이폰 13 미니 써.", "폰 드디어 바꿨어. 갤럭시로 갈아탔어.", "phone", "replace"),
    ("My car is an old Prius.", "Sold the Prius, I bike everywhere now.", "car", "end"),
    ("나 지금 검색팀이야.", "나 팀 옮겼어. 광고팀으로.", "team", "replace"),
    ("남자친구랑 사귄 지 1년 됐어.", "우리 헤어졌어. 생각보다 괜찮아.", "relationship", "end"),
    ("I'm seeing someone from my climbing gym.", "We broke up last week, it was mutual.", "relationship", "end"),
    ("I'm vegetarian, no meat at all.", "I'm done with the vegetarian thing, I eat chicken again.", "diet", "end"),
    # many-valued topics: only the item old names ends
    ("요즘 테니스 레슨 받아.", "테니스는 관뒀어. 팔꿈치가 아파서.", "exercise", "end"),
    ("We're going to Kyoto in April.", "We cancelled the Kyoto trip, flights got too pricey.", "trip", "end"),
    # a name that changed: the noun before 이름 is what old holds
    ("우리 밴드 이름은 '파도'야.", "밴드 이름 바꿨어. 이제 '물결'이야.", "music", "replace"),
    # now + a new item on a single-value topic
    ("출근은 버스로 해.", "요즘은 자전거로 출근해. 훨씬 빨라.", "commute", "now"),
]


@pytest.mark.parametrize(("old", "new", "topic", "cue_kind"), STATE_CHANGES)
def test_detects_state_change_on_a_topic(old: str, new: str, topic: str, cue_kind: str) -> None:
    verdict = detect_update(old, new)
    assert verdict is not None, (old, new)
    assert verdict.kind == "change" and verdict.confidence >= 0.5
    # The earlier rules may decide first (they name both values); the state-change rule alone
    # must reach the same answer, and say why.
    state = detect_state_change(old, new)
    assert state is not None and 0.5 <= state.confidence < 0.75
    assert state.reason.startswith((f"{topic} {cue_kind} ", f"item {cue_kind} "))


NOT_STATE_CHANGES = [
    # someone else: new's subject, or old's, is another person
    ("나 잠실 살아.", "동생이 이번에 대구로 이사했어."),
    ("우리 누나는 카카오 다녀.", "나 회사 옮겼어. 토스로 가."),
    ("I live in Austin.", "My brother just moved to Denver for work."),
    ("I drive a Civic.", "My husband traded in his truck for an EV."),
    ("Our team's app is called Nimbus.", "The payments team renamed their app to Drift."),
    # a guess, an intention, a change that did not happen
    ("나 판교 살아.", "내년에 이사할까 고민 중이야."),
    ("요가 다녀.", "요가는 이번 달까지만 하고 그만두려고."),
    ("I work at a bank.", "I'm thinking about quitting, honestly."),
    ("I work at a bank.", "I almost quit last week but they gave me a raise."),
    ("We rent in Oakland.", "We were going to move to Sacramento, but we decided to stay."),
    ("나 판교 살아.", "다음 달에 판교에서 수원으로 이사 갈 수도 있어."),
    # a one-off against a habit
    ("매일 지하철로 출근해.", "오늘은 늦잠 자서 지하철 대신 택시 탔어."),
    ("I take the ferry to work every day.", "The ferry was cancelled today, so I worked from home."),
    # an attribute of the shared thing changed, not the thing
    ("필라테스 다녀. 화목 저녁반이야.", "필라테스 선생님이 바뀌었어."),
    ("나 스타벅스 자주 가.", "스타벅스 메뉴 바뀌었더라."),
    ("I'm learning guitar.", "I changed guitar teachers, the new one is great."),
    ("I go to the climbing gym on Main.", "We moved our Friday session to 7pm."),
    ("I use Todoist for everything.", "Todoist changed its pricing again."),
    ("우리 팀은 결제팀이야.", "결제팀 회식 장소 바뀌었어."),
    # another item of a many-valued topic, or something else bought or sold
    ("다음 달에 오사카 여행 가.", "제주도 여행 취소했어."),
    ("차는 K5 타.", "자전거 팔았어. 차가 있으니까 안 타게 되더라."),
    ("내 폰은 아이폰 14야.", "아이폰 케이스 새로 샀어."),
    ("I use a Pixel 8.", "I bought a new case for my phone."),
    ("요가 다녀.", "요즘 수영도 시작했어."),
    ("I run most mornings.", "I also started a pottery class on Thursdays."),
    # the same change said again, or a move to what old already holds
    ("나 판교로 이사했어.", "판교로 이사 오니까 출근이 편해."),
    ("I quit smoking in March.", "Quitting smoking was the best thing I did this year."),
    ("I bike to work.", "I switched to a new bike route along the river."),
    # 표를 끊다 buys a ticket; 끝나고 is "after"
    ("지난달에 부산 다녀왔어.", "다음 주 제주도 비행기표 끊었어."),
    ("필라테스 다녀.", "필라테스 끝나고 친구랑 브런치 먹었어."),
    # an office moving is not the speaker moving
    ("나 스타트업에서 개발자로 일해.", "회사 사무실이 강남에서 성수로 이사했어."),
    # told as hearsay or with the honorific 시: someone else's change
    ("나 판교에서 일해", "옆자리 대리님 이직한대"),
    ("나 판교에서 일해", "옆자리 대리님 회사 그만두셨어"),
    ("나 필라테스 다녀", "선생님이 필라테스 그만두셨대"),
    ("I work at a bank.", "Apparently my old boss quit last week."),
    # an event that is over was never a state
    ("맞아요 점심 먹을 데가 없어요", "아 점심 시간 끝났네요. 이따 봬요!"),
    ("The quarterly review with the whole team is on Friday.", "The quarterly review ended early, thankfully."),
]


@pytest.mark.parametrize(("old", "new", "old_value", "new_value"), [
    ("우리 언니는 삼성 다녀", "언니 이직했대. 이제 카카오 다닌대", "삼성", "카카오"),
    ("My sister works at Google.", "My sister switched jobs, she's at Stripe now.", "Google", "Stripe"),
])
def test_hearsay_about_the_person_old_was_about_still_updates(old: str, new: str, old_value: str,
                                                              new_value: str) -> None:
    verdict = detect_update(old, new)
    assert verdict is not None and (verdict.old_value, verdict.new_value) == (old_value, new_value)


@pytest.mark.parametrize(("old", "new"), NOT_STATE_CHANGES)
def test_no_state_change(old: str, new: str) -> None:
    assert detect_update(old, new) is None


def test_state_change_values() -> None:
    verdict = detect_update("출근은 버스로 해.", "요즘은 자전거로 출근해.")
    assert verdict is not None and (verdict.old_value, verdict.new_value) == ("버스", "자전거")
    ended = detect_update("My car is an old Prius.", "Sold the Prius, I bike everywhere now.")
    assert ended is not None and ended.old_value == "Prius"
    renamed = detect_state_change("우리 밴드 이름은 '파도'야.", "밴드 이름 바꿨어. 이제 '물결'이야.")
    assert renamed is not None and (renamed.old_value, renamed.new_value) == ("파도", "물결")


def test_topic_words_match_whole_korean_tokens() -> None:
    assert {h.topic for h in topic_hits("차 바꿨어")} >= {"car"}
    assert "car" not in {h.topic for h in topic_hits("녹차 마셨어. 차장님이 줬어.")}
    assert {h.topic for h in topic_hits("나 삼성 다녀")} == {"job"}  # a proper noun before 다니다
    assert "job" not in {h.topic for h in topic_hits("필라테스 다녀")}


DEV_PAIRS = Path(__file__).parent / "data" / "update_pairs_dev.json"
# Reached on the dev set when the state-change rule was added; raise them as the rules improve.
DEV_MIN_PRECISION = 0.95
DEV_MIN_RECALL = 0.95


def test_dev_set_shape() -> None:
    pairs = json.loads(DEV_PAIRS.read_text(encoding="utf-8"))["pairs"]
    assert len({p["id"] for p in pairs}) == len(pairs)
    for lang in ("ko", "en"):
        assert sum(p["update"] for p in pairs if p["lang"] == lang) >= 30
        assert sum(not p["update"] for p in pairs if p["lang"] == lang) >= 30


@pytest.mark.parametrize("lang", ["ko", "en", None])
def test_dev_set_precision_and_recall(lang: str | None) -> None:
    pairs = [p for p in json.loads(DEV_PAIRS.read_text(encoding="utf-8"))["pairs"] if lang in (None, p["lang"])]
    fired = {p["id"] for p in pairs if (v := detect_update(p["old"], p["new"])) is not None and v.confidence >= 0.5}
    positives = {p["id"] for p in pairs if p["update"]}
    true_positives = fired & positives
    precision = len(true_positives) / len(fired)
    recall = len(true_positives) / len(positives)
    assert precision >= DEV_MIN_PRECISION, sorted(fired - positives)
    assert recall >= (DEV_MIN_RECALL if lang is None else 0.94), sorted(positives - fired)


@pytest.mark.parametrize("old, new", [
    ("Thanks, Melanie! Your kind words mean a lot.", "Thanks, Caroline! Your kind words mean a lot."),
    ("Yep, Caroline. Taking care of ourselves is vital.", "Bye Caroline. Take care of yourself."),
    ("Got it! Thanks, Maria. I definitely will.", "Thanks, John. I definitely will!"),
    ("민지야, 오늘 회의 잘했어", "지현아, 오늘 회의 잘했어"),
    ("팀장님, 보고서 보냈습니다", "과장님, 보고서 보냈습니다"),
])
def test_addressing_someone_else_is_not_an_update(old: str, new: str) -> None:
    assert detect_update(old, new) is None


def test_vocatives_are_stripped_but_sentence_openers_and_values_stay() -> None:
    from gieok.text.vocatives import strip_vocatives

    assert strip_vocatives("Thanks, Melanie! Your words mean a lot.") == "Thanks! Your words mean a lot."
    assert strip_vocatives("Actually, the meeting is at 4pm") == "Actually, the meeting is at 4pm"
    assert strip_vocatives("I moved to Seoul, Jon.") == "I moved to Seoul."
    assert strip_vocatives("민지야, 나 회사 옮겼어") == "나 회사 옮겼어"
    assert detect_update("The meeting is with Jon at 3pm", "Actually, the meeting is with Jon at 4pm") is not None


def test_a_one_syllable_contrast_side_does_not_match_inside_another_word() -> None:
    old = "수영은 머리 말리는 게 귀찮아서 패스"
    new = "아 그게 이사 날짜가 바뀌었어. 5월 말이 아니라 6월 7일로 미뤄졌어."
    assert detect_update(old, new) is None
    assert detect_update("이사는 5월 31일이야", "5월 31일이 아니라 6월 7일로 미뤄졌어.") is not None


@pytest.mark.parametrize("document, said", [
    ("# Water\n\nWater service will be interrupted on 12 May from 9 am to 3 pm in Mapo-gu. Residents of Mapo-gu "
     "should store water the day before; the Mapo-gu office answers questions at 02-3153-8114.",
     "Mapo-gu is where I live, and I hate these water outages."),
    ("# 단수 안내\n\n마포구 전 지역은 5월 12일 오전 9시부터 오후 3시까지 단수됩니다. "
     "마포구 주민께서는 전날 물을 받아 두시기 바랍니다. 문의는 마포구청 02-3153-8114로 해 주세요.",
     "마포구 사는데 단수 또 한대, 진짜 짜증나."),
])
def test_consolidation_never_copies_a_documents_passage(mem: Memory, document: str, said: str) -> None:
    mem.retain("b", text=document, document_id="notice.md", timestamp="2026-05-04T09:00:00+09:00")
    mem.retain("b", [{"id": "c1", "speaker": "user", "text": said, "timestamp": "2026-05-04T10:00:00+09:00"}])
    mem.run_jobs("b")
    observations = mem.observations("b")
    assert observations, "the conversation's statement is consolidated"
    passage = document.split("\n\n", 1)[1][:60]
    assert all(passage not in o.text for o in observations)
    assert all(mem.get("b", fact_id).source_id != "notice.md" for o in observations for fact_id in o.based_on)
