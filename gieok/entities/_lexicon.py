"""Word lists used by extraction and resolution.

Kept in one place so the lists can be reviewed (and extended) without reading the algorithms.
They are deliberately small: each list answers one question the code asks ("is this a title?",
"does this word hint at family or work?"), and a word missing from a list only costs recall, never
correctness of the rest of the pipeline.
"""

from __future__ import annotations

# Common Korean one-syllable surnames (the ~80 most frequent cover nearly the whole population).
KOREAN_SURNAMES: frozenset[str] = frozenset(
    "김 이 박 최 정 강 조 윤 장 임 한 오 서 신 권 황 안 송 류 유 전 홍 고 문 양 손 배 백 허 남 심 노 하 "
    "곽 성 차 주 우 구 민 진 나 지 엄 채 원 천 방 공 현 함 변 염 여 추 도 소 석 선 설 마 길 연 위 표 명 "
    "기 반 왕 금 옥 육 인 맹 제 모 탁 국 어 은 편 용 예 경 봉 사 부 가 복 태 목 형 피 두 감 음 빈 동 온 "
    "호 범 좌".split()
)

# Two-syllable surnames. A three-syllable name starting with one of these is read as
# surname + one-syllable given name (남궁민), a four-syllable one as surname + two (남궁민수).
KOREAN_COMPOUND_SURNAMES: frozenset[str] = frozenset(
    {"남궁", "제갈", "황보", "선우", "독고", "사공", "서문", "동방"}
)

# Titles and roles that follow (or precede) a Korean name. Mapped to a domain so that a cousin and a
# coworker who share a given name can be told apart; None = the word says nothing about the domain
# (형 / 언니 are used for friends and coworkers as much as for siblings).
KOREAN_TITLES: dict[str, str | None] = {
    # work
    "팀장": "#work", "과장": "#work", "대리": "#work", "부장": "#work", "차장": "#work",
    "사장": "#work", "실장": "#work", "이사": "#work", "상무": "#work", "전무": "#work",
    "회장": "#work", "주임": "#work", "사원": "#work", "인턴": "#work", "본부장": "#work",
    "대표": "#work", "매니저": "#work", "동료": "#work", "상사": "#work", "센터장": "#work",
    "원장": "#work", "국장": "#work", "반장": None,
    # school
    "선생": "#school", "선생님": "#school", "교수": "#school", "교수님": "#school",
    "쌤": "#school", "조교": "#school", "학생": "#school",
    # family
    "사촌": "#family", "동생": "#family", "조카": "#family", "이모": "#family",
    "삼촌": "#family", "고모": "#family", "외삼촌": "#family", "이모부": "#family",
    "고모부": "#family", "할머니": "#family", "할아버지": "#family", "형부": "#family",
    "매형": "#family", "처제": "#family", "남편": "#family", "아내": "#family",
    "와이프": "#family", "엄마": "#family", "아빠": "#family", "누님": None,
    # social, domain-neutral
    "선배": None, "후배": None, "동기": None, "친구": "#friend", "언니": None, "오빠": None,
    "형": None, "누나": None, "형님": None, "선수": None, "작가": None, "감독": None,
    "기자": None, "의사": None, "변호사": None,
}

# Relational nouns: before a name they describe it (사촌 민수 = 민수, my cousin), after a name they
# name someone else (민지 동생 = 민지's sibling), so they are attached only when written before.
KOREAN_RELATIONAL_TITLES: frozenset[str] = frozenset(
    {"사촌", "동생", "조카", "이모", "삼촌", "고모", "외삼촌", "이모부", "고모부", "할머니",
     "할아버지", "형부", "매형", "처제", "남편", "아내", "와이프", "엄마", "아빠", "친구", "동료",
     "상사", "후배", "동기", "학생"}
)

# Titles that are also everyday nouns (이사 = director / moving house, 대표 = CEO / representative):
# attached only when 님 follows them.
KOREAN_TITLES_NEEDING_HONORIFIC: frozenset[str] = frozenset({"이사", "대표", "선생", "의사"})

# Plain honorifics: they mark a person but carry no title worth storing.
KOREAN_HONORIFICS: frozenset[str] = frozenset({"씨", "님", "군", "양"})

# Roles that may precede a name ("사촌 민수", "팀장 김민지"); only these are attached as titles when
# written before the name, because any noun can precede a name and most are not about the person.
KOREAN_PREFIX_ROLES: frozenset[str] = frozenset(
    {"사촌", "동생", "조카", "친구", "동료", "선배", "후배", "동기", "팀장", "과장", "대리", "부장",
     "사장", "교수", "선생님", "언니", "오빠", "형", "누나", "남편", "아내", "와이프", "상사"}
)

# Words that, anywhere in the fact, hint at the domain of the people in it.
CUE_WORDS: dict[str, str] = {
    # Korean
    "회사": "#work", "팀": "#work", "회의": "#work", "출근": "#work", "퇴근": "#work",
    "야근": "#work", "프로젝트": "#work", "보고서": "#work", "사무실": "#work", "업무": "#work",
    "미팅": "#work", "본사": "#work", "고객": "#work", "직장": "#work", "월급": "#work",
    "연봉": "#work", "회식": "#work", "결재": "#work",
    "가족": "#family", "친척": "#family", "명절": "#family", "추석": "#family",
    "설날": "#family", "제사": "#family", "부모님": "#family", "댁": "#family",
    "학교": "#school", "수업": "#school", "강의": "#school", "과제": "#school",
    "시험": "#school", "학기": "#school", "동아리": "#school", "캠퍼스": "#school",
    # English
    "work": "#work", "office": "#work", "meeting": "#work", "boss": "#work", "team": "#work",
    "project": "#work", "colleague": "#work", "coworker": "#work", "client": "#work",
    "manager": "#work", "company": "#work", "job": "#work",
    "mom": "#family", "dad": "#family", "mother": "#family", "father": "#family",
    "cousin": "#family", "aunt": "#family", "uncle": "#family", "grandma": "#family",
    "grandpa": "#family", "sister": "#family", "brother": "#family", "family": "#family",
    "parents": "#family", "niece": "#family", "nephew": "#family", "wife": "#family",
    "husband": "#family",
    "school": "#school", "class": "#school", "teacher": "#school", "professor": "#school",
    "homework": "#school", "exam": "#school", "campus": "#school",
}

# Korean name endings of places and organisations: their surname + given-name shape (한라산, 서울역)
# must not index them under a person's keys (``_normalize``). Their kind is the learned head's.
KOREAN_PLACE_SUFFIXES: tuple[str, ...] = (
    "공원", "해변", "호수", "공항", "터미널", "시장", "거리", "마을", "호텔", "카페", "병원",
    "역", "산", "섬", "궁",
)
KOREAN_ORG_SUFFIXES: tuple[str, ...] = (
    "전자", "그룹", "은행", "뱅크", "증권", "보험", "대학교", "대학", "고등학교", "중학교",
    "초등학교", "학교", "학원", "재단", "협회", "연구소", "연구원", "청", "부", "공사", "방송",
    "일보", "신문", "물산", "건설", "화학", "제약", "통신", "텔레콤", "랩", "스튜디오",
)
# Nouns Kiwi may split off a proper noun that still belong to it ("카카오" + "뱅크").
KOREAN_NAME_CONTINUATIONS: frozenset[str] = frozenset(
    {"뱅크", "전자", "그룹", "은행", "증권", "대학교", "대학", "병원", "공원", "역", "호텔",
     "본점", "센터", "타워", "랩", "스튜디오", "재단", "연구소", "시", "공항"}
)

# Hub names: first/second person and the conversation roles. They would connect to almost every
# fact, so the engine never creates entities for them (see ``is_hub_name``).
HUB_NAMES: frozenset[str] = frozenset(
    {"나", "저", "내", "제", "우리", "저희", "너", "니", "네", "당신", "너희", "자기", "본인",
     "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves", "you", "your",
     "yours", "yourself", "user", "assistant", "system", "the user", "the assistant", "ai",
     "bot", "chatbot", "사용자", "유저", "어시스턴트", "비서"}
)

# English words that are capitalised for grammar, not because they name something.
ENGLISH_NEVER_NAMES: frozenset[str] = frozenset(
    """i i'm i've i'll i'd me my mine we us our you your he him his she her they them their it its
    january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday
    jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun
    ok okay lol omg btw am pm tv""".split()
)

# Words commonly capitalised at the start of a sentence; stripped from the front of a span.
ENGLISH_COMMON_STARTERS: frozenset[str] = frozenset(
    """the a an this that these those there here it it's that's there's what what's when where
    why how who whose which yes no yeah yep nope oh ah aw aww wow hey hi hello thanks thank sure
    well so but and or if then also just maybe yesterday today tomorrow tonight last next after
    before since because as at in on for with from to by about of do does did is are was were
    have has had can could will would should let let's please great good nice awesome cool
    sounds congrats congratulations haha lol anyway honestly actually really totally definitely
    absolutely glad sorry not all any some every each both many most much more my our your his
    her their its he she they we you i i'm i've i'd i'll once while during until unless though
    although even still now soon later recently lately speaking talking hopefully luckily
    right dear love hmm um uh omg btw bye goodbye woohoo yay yess whoa remember congratulations""".split()
)

# Titles written before an English name.
ENGLISH_TITLES: dict[str, str | None] = {
    "mr": None, "mrs": None, "ms": None, "miss": None, "mx": None, "dr": None, "prof": None,
    "professor": "#school", "sir": None, "madam": None, "dame": None, "lord": None,
    "lady": None, "aunt": "#family", "auntie": "#family", "uncle": "#family",
    "grandma": "#family", "grandpa": "#family", "cousin": "#family", "coach": None,
    "captain": None, "officer": None, "detective": None, "president": None, "senator": None,
    "judge": None, "father": None, "sister": None, "brother": None,
}

# Lowercase role nouns written right before an English name ("my cousin Minsu").
ENGLISH_PREFIX_ROLES: dict[str, str | None] = {
    "cousin": "#family", "brother": "#family", "sister": "#family", "son": "#family",
    "daughter": "#family", "husband": "#family", "wife": "#family", "aunt": "#family",
    "uncle": "#family", "nephew": "#family", "niece": "#family", "grandma": "#family",
    "grandpa": "#family", "mom": "#family", "dad": "#family", "friend": "#friend",
    "coworker": "#work", "colleague": "#work", "boss": "#work", "manager": "#work",
    "teammate": "#work", "teacher": "#school", "classmate": "#school", "professor": "#school",
    "neighbor": None, "neighbour": None, "roommate": None, "partner": None, "girlfriend": None,
    "boyfriend": None,
}

# Small connectors allowed inside an English multiword name ("Bank of America").
ENGLISH_CONNECTORS: frozenset[str] = frozenset({"of", "de", "da", "van", "von", "der", "la", "du", "&"})
