"""Entity mentions and resolution (gieok.entities): Korean and English, extraction to clusters."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import gieok.entities as entities
from gieok.entities import (
    SURNAME_KEY_PREFIX,
    CandidateEntity,
    EntityResolver,
    Mention,
    Resolution,
    ResolverWeights,
    ScoreBreakdown,
    candidate_keys,
    cooccurrence_key,
    entity_keys,
    extract_mentions,
    fact_contexts,
    is_hub_name,
    is_merge,
    name_similarity,
    normalize_name,
    preferred_canonical,
    resolve,
    split_korean_name,
)

T0 = datetime(2024, 3, 1, 9, 0)


def names(text: str, **kwargs: object) -> list[tuple[str, str | None]]:
    return [(m.name, m.title) for m in extract_mentions(text, **kwargs)]  # type: ignore[arg-type]


def only(text: str, **kwargs: object) -> Mention:
    found = extract_mentions(text, **kwargs)  # type: ignore[arg-type]
    assert len(found) == 1, found
    return found[0]


def entity(
    id: str,
    name: str,
    *,
    aliases: tuple[str, ...] = (),
    titles: tuple[str, ...] = (),
    kind: str = "unknown",
    cooccurring: dict[str, int] | None = None,
    last_seen: datetime | None = None,
) -> CandidateEntity:
    return CandidateEntity(
        id=id,
        canonical_name=name,
        aliases=aliases,
        titles=titles,
        kind=kind,  # type: ignore[arg-type]
        cooccurring=cooccurring or {},
        last_seen=last_seen,
    )


def test_public_names_are_pinned() -> None:
    assert entities.__all__ == [
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
    for name in entities.__all__:
        assert hasattr(entities, name)


# ---------------------------------------------------------------- Korean extraction


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("김민지가 어제 회의에서 발표했어.", "김민지"),
        ("민지가 왔어", "민지"),
        ("민지랑 점심 먹었어", "민지"),
        ("민지는 요즘 바빠", "민지"),
        ("서준이한테 물어봐", "서준"),
        ("지훈이랑 놀았어", "지훈"),
        ("수진이를 강남에서 만났어", "수진"),
        ("민지야 뭐해", "민지"),
    ],
)
def test_korean_names_lose_their_particles(text: str, name: str) -> None:
    assert extract_mentions(text)[0].name == name


def test_korean_titles_and_honorifics_are_split_off() -> None:
    minji = only("민지 씨가 왔다")
    assert (minji.surface, minji.name, minji.title, minji.kind) == ("민지 씨", "민지", None, "person")

    kim = only("김 팀장님이 보고서를 달라고 하셨어")
    assert (kim.surface, kim.name, kim.title, kim.kind) == ("김 팀장님", "김", "팀장", "person")
    assert kim.alias is None and minji.alias == "민지"

    seojun = only("서준 팀장이 회의를 열었다")
    assert (seojun.surface, seojun.name, seojun.title) == ("서준 팀장", "서준", "팀장")

    assert names("이민수 대리가 왔다") == [("이민수", "대리")]
    assert names("박 과장님이랑 점심") == [("박", "과장")]
    assert names("최지우 선배가 도와줬어") == [("최지우", "선배")]
    assert names("윤서 선생님이 숙제를 냈다") == [("윤서", "선생")]
    assert names("민수 형이랑 축구했어") == [("민수", "형")]
    assert names("지민 언니가 왔어") == [("지민", "언니")]
    assert names("김민지씨랑 밥 먹었어") == [("김민지", None)]
    assert names("김팀장님께서 말씀하셨다") == [("김", "팀장")]


def test_korean_role_before_a_name_is_its_title_but_after_it_names_someone_else() -> None:
    cousin = only("사촌 민수가 놀러 왔어")
    assert (cousin.surface, cousin.name, cousin.title) == ("사촌 민수", "민수", "사촌")
    assert names("팀장 김민지가 발표했다") == [("김민지", "팀장")]
    # 민지 동생 = 민지's younger sibling: 민지 is mentioned, but 동생 is not her title.
    assert names("민지 동생이 왔어") == [("민지", None)]


def test_kiwi_fragments_are_glued_back_into_one_name() -> None:
    # Kiwi splits unfamiliar names: 김/NNP 서/NNG 준/NNG.
    assert names("오늘 김서준 팀장님이 일정을 정리했어.") == [("김서준", "팀장")]
    assert names("카카오뱅크에서 일해") == [("카카오뱅크", None)]
    # ...but a name does not swallow the noun written after it.
    assert names("민지생일 파티") == [("민지", None)]


def test_korean_pronouns_and_bare_surnames_are_not_entities() -> None:
    assert extract_mentions("나는 어제 너랑 우리 집에 갔어") == []
    assert extract_mentions("저희 회사는 저랑 맞아요") == []
    assert extract_mentions("우리 팀장님이 오셨어") == []  # a title without a name
    assert extract_mentions("김을 먹었다") == []


def test_korean_kinds_are_guessed() -> None:
    kinds = {m.name: m.kind for m in extract_mentions("김민지랑 부산에서 삼성전자 사람들을 만나고 한라산에 갔다")}
    # the learned head (tests/test_entity_kind.py); 삼성전자 here is judged below its kind bar: unknown
    assert kinds == {"김민지": "person", "부산": "place", "삼성전자": "unknown", "한라산": "place"}
    assert only("제주도에 갔다").kind == "place"  # 제 is a surname, 에 says place


def test_known_korean_names_are_found_even_when_kiwi_misses_them() -> None:
    assert extract_mentions("남궁민수가 왔다") == []  # Kiwi tags it as a common noun
    found = only("남궁민수가 왔다", known=["남궁민수"])
    assert (found.name, found.start, found.end) == ("남궁민수", 0, 4)
    # A known name is not found inside another word.
    assert [m.name for m in extract_mentions("김민지가 왔다", known=["민지"])] == ["김민지"]


# ---------------------------------------------------------------- English extraction


def test_english_possessive_and_multiword_names() -> None:
    assert names("Melanie said that Caroline's painting won.") == [("Caroline", None)]
    assert names("Caroline's dog is cute.") == [("Caroline", None)]
    found = extract_mentions("We met John Smith and Jane Smith in Room 101 near Mount Halla.")
    assert [m.name for m in found] == ["John Smith", "Jane Smith", "Room 101", "Mount Halla"]
    assert all(m.kind != "person" for m in found[2:])  # the learned head: Room 101 and Mount Halla name no one
    assert names("I'm going to Bank of America tomorrow.") == [("Bank of America", None)]
    assert names("The Q3 2024 earnings were great.") == []  # a quarter names no entity (the head: none)


def test_english_sentence_start_words_need_a_voucher() -> None:
    assert extract_mentions("Yesterday we went to the park. Today it rained.") == []
    assert extract_mentions("Caroline went home.") == []  # could be any capitalised word
    assert names("Caroline went home.", known=["Caroline"]) == [("Caroline", None)]
    assert names("Smith said hello.", known=["John Smith"]) == [("Smith", None)]
    assert names("Caroline went home. Then I called Caroline.") == [("Caroline", None)] * 2
    assert names("Yesterday I met Caroline at the park.") == [("Caroline", None)]
    assert names("Hey Mel! How are you?") == [("Mel", None)]


@pytest.mark.parametrize(("text", "known", "expected"), [
    ("Bye Caroline! Take care.", ["Caroline"], [("Caroline", None)]),
    ("Cheers Melanie, good luck tomorrow.", ["Melanie"], [("Melanie", None)]),
    ("New York is great in the fall.", ["Caroline"], [("New York", None)]),
    ("잘 가 민지야! 내일 봐", ["민지"], [("민지", None)]),
    ("와 김민지 팀장님 승진하셨대요", ["민지"], [("김민지", "팀장")]),
])
def test_a_greeting_before_a_known_name_is_not_part_of_it(text: str, known: list[str],
                                                          expected: list[tuple[str, str | None]]) -> None:
    assert names(text, known=known) == expected


def test_english_pronouns_months_and_weekdays_are_not_entities() -> None:
    assert extract_mentions("I think We should meet on Monday in May, OK?") == []
    assert names("I talked to Dr. Kim on Friday.") == [("Kim", "dr")]
    assert only("I talked to Dr. Kim on Friday.").kind == "person"
    cousin = only("My cousin Minsu visited on Monday.")
    assert (cousin.name, cousin.title, cousin.kind) == ("Minsu", "cousin", "person")


def test_known_names_match_case_insensitively_and_keep_the_known_spelling() -> None:
    found = extract_mentions("caroline went home with mel.", known=["Caroline", "Mel"])
    assert [(m.surface, m.name) for m in found] == [("caroline", "Caroline"), ("mel", "Mel")]
    # "Mel" is not found inside "Melanie".
    assert names("Melanie called.", known=["Mel"]) == []


def test_latin_names_inside_korean_text() -> None:
    assert names("Caroline이랑 점심 먹었어") == [("Caroline", None)]
    assert names("어제 John Smith를 만났어") == [("John Smith", None)]


def test_speaker_flag() -> None:
    text = "I painted a sunset with Mel."
    assert [m.name for m in extract_mentions(text, speaker="Caroline")] == ["Mel"]
    with_speaker = extract_mentions(text, speaker="Caroline", include_speaker=True)
    assert [(m.name, m.kind, m.start, m.in_text) for m in with_speaker] == [
        ("Caroline", "person", -1, False),
        ("Mel", "unknown", 24, True),
    ]
    # The speaker counts as known, so a sentence-initial mention of them is found.
    assert [m.name for m in extract_mentions("Caroline here!", speaker="Caroline")] == ["Caroline"]
    # Hub speakers are never entities.
    assert extract_mentions("hello", speaker="user", include_speaker=True) == []
    assert extract_mentions("나랑 놀자", speaker="assistant", include_speaker=True) == []


# ---------------------------------------------------------------- hubs and keys


@pytest.mark.parametrize(
    "name", ["나", "저", "내", "우리", "저희", "I", "me", "my", "we", "We", "user", "Assistant", " USER "]
)
def test_hub_names(name: str) -> None:
    assert is_hub_name(name)
    assert candidate_keys(name) == []


@pytest.mark.parametrize("name", ["민지", "Caroline", "Mel", "김민지", "Room 101"])
def test_real_names_are_not_hubs(name: str) -> None:
    assert not is_hub_name(name)


def test_candidate_keys_make_korean_name_forms_meet() -> None:
    assert candidate_keys("김민지") == ["김민지", "민지", SURNAME_KEY_PREFIX + "김"]
    assert candidate_keys("민지") == ["민지"]
    assert candidate_keys("김") == [SURNAME_KEY_PREFIX + "김"]  # 김 팀장님
    assert candidate_keys("남궁민수") == ["남궁민수", "민수", SURNAME_KEY_PREFIX + "남궁"]
    assert set(candidate_keys("민지")) & set(entity_keys("김민지"))
    assert set(candidate_keys("김")) & set(entity_keys("김서준", ["서준"]))
    assert not set(candidate_keys("이민지")) & set(entity_keys("김서준"))
    # Places shaped like names are not put into the people's buckets.
    assert candidate_keys("한라산") == ["한라산"]
    assert candidate_keys("서울역") == ["서울역"]


def test_candidate_keys_make_english_name_forms_meet() -> None:
    assert candidate_keys("Caroline Smith") == ["caroline smith", "caroline", "smith"]
    assert set(candidate_keys("Caroline's")) & set(entity_keys("Caroline Smith"))
    assert set(candidate_keys("Smith")) & set(entity_keys("John Smith"))
    assert candidate_keys("Bank of America") == ["bank of america", "bank", "america"]
    assert candidate_keys("Room 101") == ["room 101", "room"]


def test_normalize_name() -> None:
    assert normalize_name("Caroline's") == "caroline"
    assert normalize_name("  John   SMITH ") == "john smith"
    assert normalize_name("St. Louis") == "st louis"
    assert normalize_name("김 민지") == "김민지"
    assert split_korean_name("김민지") == entities.KoreanName("김", "민지")
    assert split_korean_name("민지") == entities.KoreanName(None, "민지")
    assert split_korean_name("남궁민") == entities.KoreanName("남궁", "민")
    assert split_korean_name("김").surname_only  # type: ignore[union-attr]
    assert split_korean_name("Caroline") is None


@given(st.text(alphabet="abcdefgh XYZ'0123", min_size=1, max_size=20))
def test_normalize_name_is_idempotent(name: str) -> None:
    once = normalize_name(name)
    assert normalize_name(once) == once


_NAME_PARTS = st.sampled_from(
    ["john", "jane", "smith", "room", "101", "102", "q3", "2024", "earnings", "민지", "김민지",
     "이민지", "민수", "이민수", "김", "caroline"]
)


@given(st.lists(_NAME_PARTS, min_size=1, max_size=3), st.lists(_NAME_PARTS, min_size=1, max_size=3))
def test_name_similarity_is_symmetric_and_reflexive(a: list[str], b: list[str]) -> None:
    left, right = " ".join(a), " ".join(b)
    assert name_similarity(left, [right]) == name_similarity(right, [left])
    parts = split_korean_name(normalize_name(left))
    if parts is None or not parts.surname_only:  # a bare surname is never an exact match
        assert name_similarity(left, [left]) == 1.0


# ---------------------------------------------------------------- name gates


def test_numbers_must_agree_unless_one_set_contains_the_other() -> None:
    assert name_similarity("Room 101", ["Room 102"]) is None
    assert name_similarity("Room 101", ["room 101"]) == 1.0
    assert name_similarity("Q3 earnings", ["Q3 2024 earnings"]) == 0.9
    assert name_similarity("Q3 2024 earnings", ["Q4 2024 earnings"]) is None


def test_words_of_the_shorter_name_must_all_match() -> None:
    assert name_similarity("John Smith", ["Jane Smith"]) is None
    assert name_similarity("Smith", ["John Smith"]) == 0.9
    assert name_similarity("Caroline", ["Caroline Smith"]) == 0.9
    assert name_similarity("Smith, John", ["John Smith"]) == 0.95
    assert name_similarity("Mel", ["Melanie"]) is None
    assert name_similarity("Mel", ["Melanie", "Mel"]) == 1.0  # an alias links them
    assert name_similarity("CAROLINE", ["caroline"]) == 1.0
    assert name_similarity("Caroline's", ["Caroline"]) == 1.0


def test_korean_name_parts() -> None:
    assert name_similarity("민지", ["김민지"]) == 0.9
    assert name_similarity("김민지", ["민지"]) == 0.9
    assert name_similarity("김민지", ["이민지"]) is None
    assert name_similarity("김민지", ["김민수"]) is None
    assert name_similarity("김", ["김서준"], title="팀장", candidate_titles=["팀장님"]) == 0.9
    assert name_similarity("김", ["김서준"], title="팀장") == 0.5
    assert name_similarity("김", ["이서준"], title="팀장", candidate_titles=["팀장"]) is None
    assert name_similarity("민지", ["Minji"]) is None


# ---------------------------------------------------------------- scoring and decisions


def test_merge_threshold_is_applied_after_rounding() -> None:
    assert 0.4 + 0.2 != 0.3 + 0.3  # the float noise this rule exists for
    a = ScoreBreakdown(name=0.4, cooccurrence=0.0, recency=0.2, title=0.0)
    b = ScoreBreakdown(name=0.3, cooccurrence=0.3, recency=0.0, title=0.0)
    assert a.total == b.total == 0.6
    assert is_merge(a.total) and is_merge(b.total)
    below = ScoreBreakdown(name=0.6, cooccurrence=0.1, recency=0.1, title=0.0, conflict=-0.2)
    assert 0.6 + 0.1 + 0.1 - 0.2 < 0.6  # exactly 0.6 on paper
    assert below.total == 0.6 and is_merge(below.total)
    assert not is_merge(0.5999994)


def test_threshold_rounding_through_the_resolver() -> None:
    candidate = entity("e1", "Caroline", cooccurring={"mel": 1}, last_seen=T0)
    name_and_recency = ResolverWeights(name=0.4, cooccurrence=0.0, recency=0.2, title=0.0)
    name_and_context = ResolverWeights(name=0.3, cooccurrence=0.3, recency=0.0, title=0.0)
    first = resolve("Caroline", [candidate], seen_at=T0, weights=name_and_recency)
    second = resolve("Caroline", [candidate], cooccurring={"mel"}, weights=name_and_context)
    assert (first.status, first.score) == ("match", 0.6)
    assert (second.status, second.score) == ("match", 0.6)


def test_recency_bonus_within_seven_days() -> None:
    resolver = EntityResolver()
    candidate = entity("e1", "Caroline Smith", last_seen=T0)
    fresh = resolver.score("Caroline", candidate, seen_at=T0 + timedelta(days=1))
    stale = resolver.score("Caroline", candidate, seen_at=T0 + timedelta(days=8))
    assert fresh is not None and stale is not None
    assert fresh.breakdown.recency == pytest.approx(0.2 * 6 / 7)
    assert stale.breakdown.recency == 0.0
    # A partial name merges with a recent sighting, not without one.
    assert resolver.resolve("Caroline", [candidate], seen_at=T0 + timedelta(days=1)).entity_id == "e1"
    assert resolver.resolve("Caroline", [candidate], seen_at=T0 + timedelta(days=8)).is_new
    # Naive and aware timestamps mix (naive = UTC).
    aware = resolver.score("Caroline", candidate, seen_at=T0.replace(tzinfo=timezone.utc))
    assert aware is not None and aware.breakdown.recency == 0.2


def test_exact_name_merges_on_its_own_and_case_does_not_matter() -> None:
    found = resolve("caroline", [entity("e1", "Caroline")])
    assert (found.status, found.entity_id, found.score) == ("match", "e1", 0.6)


def test_cooccurrence_is_discounted_by_degree() -> None:
    resolver = EntityResolver()
    candidate = entity("e1", "Caroline Smith", cooccurring={"mel": 3, "#work": 9})
    rare = resolver.score("Caroline", candidate, cooccurring={"mel"}, degrees={"mel": 1})
    common = resolver.score("Caroline", candidate, cooccurring={"mel"}, degrees={"mel": 25})
    cue = resolver.score("Caroline", candidate, cooccurring={"#work"})
    assert rare is not None and common is not None and cue is not None
    assert rare.breakdown.cooccurrence == pytest.approx(0.3)
    assert common.breakdown.cooccurrence == pytest.approx(0.3 / 5)
    assert cue.breakdown.cooccurrence == pytest.approx(0.3 / 2)  # default cue degree 4
    assert rare.shared_context == ("mel",)


def test_room_101_is_not_room_102() -> None:
    found = resolve("Room 102", [entity("e1", "Room 101", kind="place", last_seen=T0)], seen_at=T0)
    assert found.is_new and found.scores == ()


def test_q3_earnings_is_q3_2024_earnings() -> None:
    candidate = entity("e1", "Q3 2024 earnings", cooccurring={"acme": 2}, last_seen=T0)
    found = resolve("Q3 earnings", [candidate], cooccurring={"acme"}, seen_at=T0 + timedelta(days=2))
    assert (found.status, found.entity_id) == ("match", "e1")


def test_john_smith_is_not_jane_smith_but_smith_may_be_john_smith() -> None:
    john = entity("e1", "John Smith", kind="person", last_seen=T0)
    assert resolve("Jane Smith", [john], seen_at=T0).is_new
    assert resolve("Smith", [john], seen_at=T0).entity_id == "e1"


def test_mel_is_not_melanie_without_an_alias() -> None:
    melanie = entity("e1", "Melanie", last_seen=T0)
    assert resolve("Mel", [melanie], seen_at=T0).is_new
    aliased = entity("e1", "Melanie", aliases=("Mel",), last_seen=T0)
    assert resolve("Mel", [aliased], seen_at=T0).entity_id == "e1"


def test_a_first_name_shared_by_two_entities_needs_context() -> None:
    smith = entity("e1", "Caroline Smith", cooccurring={"lgbtq center": 2}, last_seen=T0)
    jones = entity("e2", "Caroline Jones", cooccurring={"acme": 3}, last_seen=T0)
    unsure = resolve("Caroline", [smith, jones], seen_at=T0)
    assert unsure.status == "ambiguous" and set(unsure.ambiguous_ids) == {"e1", "e2"}
    sure = resolve("Caroline", [smith, jones], cooccurring={"acme"}, seen_at=T0)
    assert (sure.status, sure.entity_id) == ("match", "e2")
    # The full name is not ambiguous.
    assert resolve("Caroline Jones", [smith, jones]).entity_id == "e2"


def test_partial_matches_across_kinds_are_rejected() -> None:
    country = entity("e1", "Jordan", kind="place")
    assert resolve(Mention("Michael Jordan", "Michael Jordan", "person", 0, 14), [country]).is_new
    # Exact names ignore inferred kinds, which are only a guess.
    assert resolve(Mention("Jordan", "Jordan", "person", 0, 6), [country]).entity_id == "e1"


def test_duplicate_candidates_are_scored_once() -> None:
    caroline = entity("e1", "Caroline")
    found = resolve("Caroline", [caroline, caroline])
    assert found.entity_id == "e1" and len(found.scores) == 1


# ---------------------------------------------------------------- Korean resolution


def test_minji_forms_resolve_to_kim_minji_with_support() -> None:
    minji = entity("e1", "김민지", kind="person", cooccurring={"#work": 2, "카카오": 1}, last_seen=T0)
    seojun = entity("e2", "김서준", kind="person", titles=("팀장",), last_seen=T0)
    tomorrow = T0 + timedelta(days=1)
    for text in ("민지랑 점심 먹었어", "민지 씨가 보고서를 보냈어", "김민지가 발표했어"):
        mention = extract_mentions(text)[0]
        found = resolve(mention, [minji, seojun], seen_at=tomorrow)
        assert (text, found.status, found.entity_id) == (text, "match", "e1")
    # A month later, the given name alone is not enough...
    later = T0 + timedelta(days=30)
    assert resolve("민지", [minji], seen_at=later).is_new
    # ...unless the fact shares a neighbour with her.
    assert resolve("민지", [minji], cooccurring={"카카오"}, seen_at=later).entity_id == "e1"
    # The full name is enough on its own.
    assert resolve("김민지", [minji], seen_at=later).entity_id == "e1"


def test_kim_team_lead_and_seojun_team_lead_resolve_to_kim_seojun() -> None:
    seojun = entity("e2", "김서준", kind="person", titles=("팀장",), last_seen=T0)
    minji = entity("e1", "김민지", kind="person", last_seen=T0)
    later = T0 + timedelta(days=30)
    kim = only("김 팀장님이 보고서를 달라고 하셨어")
    found = resolve(kim, [minji, seojun], seen_at=later)
    assert (found.status, found.entity_id) == ("match", "e2")  # 김 + a title he has been called
    seojun_mention = only("서준 팀장이 회의를 열었다")
    assert resolve(seojun_mention, [minji, seojun], seen_at=later).entity_id == "e2"
    # Surname + a title never used for anyone: only co-occurrence can link it.
    manager = only("김 과장님이 전화했어")
    assert resolve(manager, [minji, seojun], seen_at=later).is_new
    minji_at_acme = entity("e1", "김민지", kind="person", cooccurring={"acme": 2})
    linked = resolve(manager, [minji_at_acme, seojun], cooccurring={"acme"}, seen_at=later)
    assert linked.entity_id == "e1"


def test_surname_only_entity_is_found_from_the_full_name() -> None:
    # First heard of as "김 팀장님" (canonical 김, title 팀장), later by full name with the title.
    kim = entity("e1", "김", kind="person", titles=("팀장",), last_seen=T0)
    assert set(candidate_keys("김서준")) & set(entity_keys("김"))
    found = resolve(only("김서준 팀장님이 왔다"), [kim], seen_at=T0 + timedelta(days=2))
    assert found.entity_id == "e1"
    assert preferred_canonical("김", "김서준") == "김서준"
    assert preferred_canonical("김민지", "민지") == "김민지"
    assert preferred_canonical("Caroline", "Caroline Smith") == "Caroline Smith"


def test_cousin_minsu_and_coworker_lee_minsu_stay_apart() -> None:
    cousin = entity(
        "cousin", "민수", kind="person", titles=("사촌",),
        cooccurring={"#family": 3, "부산": 2}, last_seen=T0,
    )
    # Meeting 이민수 the coworker for the first time: given name matches, the role contradicts.
    coworker_text = "이민수 대리가 회사에서 팀 회의를 했다"
    coworker_mention = only(coworker_text)
    [context] = fact_contexts([coworker_mention], coworker_text)
    first = resolve(coworker_mention, [cousin], cooccurring=context, seen_at=T0)
    assert first.is_new
    assert first.scores[0].breakdown.conflict < 0

    coworker = entity(
        "coworker", "이민수", aliases=("민수",), kind="person", titles=("대리",),
        cooccurring={"#work": 4, "카카오": 2}, last_seen=T0,
    )
    later = T0 + timedelta(days=1)

    def minsu(text: str) -> Resolution:
        mentions = extract_mentions(text)
        contexts = fact_contexts(mentions, text)
        index = [m.name for m in mentions].index("민수")
        return resolve(mentions[index], [cousin, coworker], cooccurring=contexts[index], seen_at=later)

    assert minsu("민수랑 부산 이모댁에 갔어.").entity_id == "cousin"
    assert minsu("민수가 회의 끝나고 카카오 본사에 갔어.").entity_id == "coworker"
    nothing = minsu("민수가 전화했어.")
    assert nothing.status == "ambiguous" and nothing.entity_id is None
    assert set(nothing.ambiguous_ids) == {"cousin", "coworker"}


def test_different_surnames_never_merge() -> None:
    minji = entity("e1", "김민지", kind="person", cooccurring={"카카오": 5}, last_seen=T0)
    assert resolve("이민지", [minji], cooccurring={"카카오"}, seen_at=T0).is_new


# ---------------------------------------------------------------- context keys


def test_fact_contexts() -> None:
    text = "사촌 민수랑 김 팀장님이 부산에서 회의를 했다"
    mentions = extract_mentions(text)
    assert [m.name for m in mentions] == ["민수", "김", "부산"]
    assert cooccurrence_key(mentions[1]) == "김 팀장"
    contexts = fact_contexts(mentions, text)
    assert contexts[0] == {"김 팀장", "부산", "#family", "#work"}
    assert contexts[2] == {"민수", "김 팀장", "#family", "#work"}
    english = extract_mentions("My cousin Minsu met Caroline at the office.")
    assert fact_contexts(english, "My cousin Minsu met Caroline at the office.")[1] == {
        "minsu", "#family", "#work",
    }


# ---------------------------------------------------------------- simulation


@dataclass
class _Entity:
    id: str
    canonical_name: str
    aliases: set[str] = field(default_factory=set)
    titles: set[str] = field(default_factory=set)
    kind: str = "unknown"
    cooccurring: Counter[str] = field(default_factory=Counter)
    last_seen: datetime | None = None


class InMemoryEntities:
    """What the engine and the store do around the component, kept to the minimum."""

    def __init__(self) -> None:
        self.entities: dict[str, _Entity] = {}
        self.index: dict[str, set[str]] = {}
        self.degrees: Counter[str] = Counter()
        self.resolver = EntityResolver()
        self.log: list[tuple[str, str, Resolution]] = []

    def candidates(self, mention: Mention) -> list[CandidateEntity]:
        ids = sorted({i for key in candidate_keys(mention.name) for i in self.index.get(key, ())})
        return [
            CandidateEntity(
                id=e.id, canonical_name=e.canonical_name, aliases=sorted(e.aliases),
                titles=sorted(e.titles), kind=e.kind,  # type: ignore[arg-type]
                cooccurring=e.cooccurring, last_seen=e.last_seen,
            )
            for e in (self.entities[i] for i in ids)
        ]

    def retain(self, text: str, at: datetime) -> None:
        mentions = extract_mentions(text)
        contexts = fact_contexts(mentions, text)
        for mention, context in zip(mentions, contexts):
            found = self.resolver.resolve(
                mention, self.candidates(mention), cooccurring=context, seen_at=at, degrees=self.degrees
            )
            self.log.append((text, mention.name, found))
            if found.status == "ambiguous":
                continue  # not linked: better no edge than a wrong one
            if found.entity_id is None:
                record = _Entity(f"e{len(self.entities) + 1}", mention.name, kind=mention.kind)
                self.entities[record.id] = record
            else:
                record = self.entities[found.entity_id]
                better = preferred_canonical(record.canonical_name, mention.name)
                names = {record.canonical_name} | ({mention.alias} if mention.alias else set())
                record.aliases |= names - {better}
                record.canonical_name = better
            if mention.title:
                record.titles.add(mention.title)
            if record.kind == "unknown":
                record.kind = mention.kind
            record.cooccurring.update(context)
            record.last_seen = at
            for key in entity_keys(record.canonical_name, record.aliases):
                self.index.setdefault(key, set()).add(record.id)
        keys = {k for m in mentions if (k := cooccurrence_key(m))}
        self.degrees.update(keys | set().union(*contexts))

    def clusters(self) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for _text, name, found in self.log:
            if found.status != "ambiguous":
                entity_id = found.entity_id or self._created_for(name)
                out.setdefault(self.entities[entity_id].canonical_name, set()).add(name)
        return out

    def _created_for(self, name: str) -> str:
        # A "new" decision created the entity whose first name is this one.
        for record in self.entities.values():
            if name == record.canonical_name or name in record.aliases:
                return record.id
        raise AssertionError(name)


KOREAN_CONVERSATION = [
    (0, "김민지가 어제 회의에서 새 프로젝트를 발표했어."),
    (0, "오늘 김서준 팀장님이 프로젝트 일정을 정리했어."),
    (1, "민지랑 점심 먹으면서 회의 얘기를 했어."),
    (1, "서준 팀장이 회의를 다시 열었다."),
    (2, "김 팀장님이 보고서를 달라고 하셨어."),
    (2, "민지 씨가 보고서를 보내줬어."),
    (3, "사촌 민수가 부산에서 놀러 왔어."),
    (3, "이민수 대리가 회사에서 팀 회의를 했다."),
    (4, "민수랑 부산 이모댁에 갔어."),
    (4, "민수가 회의 끝나고 보고서를 정리했어."),
    (5, "나는 민수가 전화해서 좀 놀랐어."),
]


def test_simulated_korean_conversation_builds_the_right_clusters() -> None:
    memory = InMemoryEntities()
    for day, text in KOREAN_CONVERSATION:
        memory.retain(text, T0 + timedelta(days=day))

    assert sorted(e.canonical_name for e in memory.entities.values()) == [
        "김민지", "김서준", "민수", "부산", "이민수",
    ]
    clusters = memory.clusters()
    assert clusters["김민지"] == {"김민지", "민지"}
    assert clusters["김서준"] == {"김서준", "서준", "김"}
    assert clusters["민수"] == {"민수"}
    assert clusters["이민수"] == {"이민수", "민수"}
    by_name = {e.canonical_name: e for e in memory.entities.values()}
    assert by_name["김서준"].titles == {"팀장"}
    assert by_name["민수"].titles == {"사촌"} and by_name["이민수"].titles == {"대리"}
    assert by_name["민수"].cooccurring["부산"] == 2
    # Which 민수 was it? The last message gives no clue: it is left unlinked.
    assert memory.log[-1][2].status == "ambiguous"
    # 나 (the user) never became an entity.
    assert all(name != "나" for _text, name, _found in memory.log)


def test_simulated_english_conversation() -> None:
    memory = InMemoryEntities()
    conversation = [
        (0, "I met Caroline Smith at the LGBTQ Center yesterday."),
        (1, "Then Caroline showed me her painting at the LGBTQ Center."),
        (1, "We booked Room 101 for the Q3 2024 earnings call."),
        (2, "The call moved to Room 102."),
        (2, "Yesterday John Smith joined, and later Jane Smith too."),
    ]
    for day, text in conversation:
        memory.retain(text, T0 + timedelta(days=day))
    clusters = memory.clusters()
    assert clusters["Caroline Smith"] == {"Caroline Smith", "Caroline"}
    assert "Room 101" in clusters and "Room 102" in clusters
    assert "John Smith" in clusters and "Jane Smith" in clusters


@pytest.mark.parametrize("text", ["Jane's number is [REDACTED:kr_phone] now.", "민지 번호는 [REDACTED:kr_phone]이야.",
                                  "[REDACTED:email] belongs to Tom.", "[REDACTED:rrn] 이건 서연 거야."])
def test_a_redaction_mark_is_not_an_entity(text: str) -> None:
    names = [m.name for m in extract_mentions(text)]
    assert names and not any("REDACTED" in n.upper() or "kr_phone" in n for n in names), names


@pytest.mark.parametrize("mention,canonical,alias", [
    ("이민지", "김민지", "민지"), ("박서준", "김서준", "서준"),
    ("Jane Smith", "Caroline Smith", "Smith"), ("John Park", "Jiwoo Park", "Park")])
def test_a_short_alias_is_no_bridge_to_a_namesake(mention: str, canonical: str, alias: str) -> None:
    assert name_similarity(mention, [canonical]) is None
    assert name_similarity(mention, [canonical, alias]) is None
    assert name_similarity(alias, [canonical, alias]) == 1.0  # the alias itself still names the entity


def test_an_alias_in_the_other_script_links_the_spellings() -> None:
    assert name_similarity("카롤린", ["Caroline", "카롤린"]) == 1.0
    assert name_similarity("Caroline", ["카롤린", "Caroline"]) == 1.0


def test_a_namesake_stays_apart_after_a_short_alias_was_learned(tmp_path: Path, fake_embedder: object) -> None:
    from gieok import Memory

    with Memory(str(tmp_path / "n.db"), embedder="fake") as mem:
        mem.retain("b", messages=[
            {"id": "1", "speaker": "me", "text": "Caroline Smith joined us.", "timestamp": "2026-03-01T09:00:00Z"},
            {"id": "2", "speaker": "me", "text": "Smith sent the report.", "timestamp": "2026-03-02T09:00:00Z"},
            {"id": "3", "speaker": "me", "text": "My neighbour is Jane Smith.", "timestamp": "2026-03-03T09:00:00Z"},
            {"id": "4", "speaker": "me", "text": "민지가 내일 온대.", "timestamp": "2026-03-04T09:00:00Z"},
            {"id": "5", "speaker": "me", "text": "김민지 팀장님이 회의를 잡았어.", "timestamp": "2026-03-05T09:00:00Z"},
            {"id": "6", "speaker": "me", "text": "이민지는 내 사촌이야.", "timestamp": "2026-03-06T09:00:00Z"}])
        names = {e.name: e.aliases for e in mem.entities("b")}
    assert "Jane Smith" in names and "Jane Smith" not in names.get("Caroline Smith", [])
    assert "이민지" in names and "이민지" not in names.get("김민지", [])
