"""Category words a question asks with, satisfied by any member the memory names.

"민지 팀장은 무슨 운동 해?" is answered by "수영을 해": the question's content word 운동 names a
category, and 수영 is one of its members. Lexical coverage alone would refuse it. This small,
hand-made lexicon (Korean and English) adds a category's words to a sentence that names a member,
so the sufficiency gate sees the category covered. It only widens what counts as covered for these
common "which kind" questions; it never adds a member the memory does not name.
"""

from __future__ import annotations

from functools import lru_cache

from gieok.text.terms import keyword_terms

__all__ = ["with_categories"]

_SPORTS = ("수영 요가 필라테스 테니스 축구 야구 농구 배구 골프 러닝 달리기 조깅 마라톤 등산 헬스 "
           "자전거 클라이밍 볼링 탁구 배드민턴 스키 서핑 복싱 태권도 크로스핏 "
           "swim swimming yoga pilates tennis soccer football baseball "
           "basketball volleyball golf running jogging marathon hiking gym cycling climbing bowling badminton ski "
           "skiing surfing boxing crossfit")
_INSTRUMENTS = "피아노 기타 바이올린 첼로 드럼 플루트 우쿨렐레 piano guitar violin cello drums flute ukulele"
_HOBBIES = (_SPORTS + " " + _INSTRUMENTS + " 독서 그림 사진 요리 베이킹 게임 뜨개질 낚시 캠핑 painting reading "
            "photography cooking baking gaming knitting fishing camping gardening pottery")
_CATEGORIES: tuple[tuple[str, str], ...] = (
    ("운동 스포츠 sport sports exercise workout", _SPORTS),
    ("악기 instrument", _INSTRUMENTS),
    ("취미 hobby hobbies", _HOBBIES),
    ("반려동물 애완동물 동물 pet pets animal", "강아지 개 고양이 햄스터 토끼 앵무새 "
     "dog puppy cat kitten hamster rabbit parrot"),
    ("직업 일 job occupation profession work", "의사 간호사 개발자 교사 선생님 변호사 엔지니어 디자이너 회계사 기자 "
     "doctor nurse developer engineer teacher lawyer designer accountant journalist"),
    ("음료 마실것 drink beverage", "커피 차 녹차 우유 라떼 주스 맥주 와인 coffee tea milk latte juice beer wine"),
    ("색 색깔 color colour", "빨강 빨간색 파랑 파란색 초록 초록색 노랑 노란색 보라 보라색 "
     "검정 검은색 흰색 하양 분홍 분홍색 red blue green yellow purple black white pink orange"),
    # "moved to Austin from Denver" says where one lived
    ("살다 거주 live reside", "이사 이사하다 거주하다 move relocate"),
    ("언어 language", "영어 일본어 중국어 한국어 프랑스어 독일어 스페인어 "
     "english japanese chinese korean french german spanish"),
)


@lru_cache(maxsize=1)
def _table() -> tuple[tuple[frozenset[str], frozenset[str]], ...]:
    return tuple((frozenset(keyword_terms(names)), frozenset(keyword_terms(members))) for names, members in _CATEGORIES)


def with_categories(terms: frozenset[str]) -> frozenset[str]:
    """``terms`` plus the words of every category one of them is a member of."""
    extra: set[str] = set()
    for names, members in _table():
        if terms & members:
            extra |= names
    return terms | extra if extra else terms
