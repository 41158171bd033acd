"""Topic classes: what part of someone's life a statement is about, Korean and English.

"나 LG전자 다녀" and "나 회사 그만뒀어" share no word, yet both are about one's *job*; "집은 일산이야"
and "이사 다 끝났다! 새 집은 성수동이야" are both about *home*. ``topic_hits`` finds the topic words of a text
so the state-change rule (``_state_change``) can tell that a change in the new statement touches
what the old one said.

Each ``Topic`` has two kinds of words:

* **words** name the topic itself (회사, 직장, job, company; 집, 살다, live, apartment; 운동, gym).
* **items** are things inside it (교사, nurse; 요가, yoga; 아이폰, iPhone). An item shared by two
  statements is stronger evidence than the topic alone, and a new item is what a change brings.

A topic is ``single`` when a person holds one value of it at a time — one employer, one home, one
phone, one partner — so any change of it replaces the old value. Hobbies, trips and sports are
not: "클라이밍 시작했어" does not end "요가 다녀", and cancelling one trip says nothing of another.

Korean words match whole Kiwi tokens (noun forms, verb lemmas), so 차 (car) is not found in 녹차 or
차장; compounds Kiwi splits (남자친구 → 남자 + 친구) match by ``ko_pattern``. English words match
by regex. Latin words inside Korean text ("SKT", "PT") go through the English patterns too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from gieok.text.korean import analyze, has_hangul

__all__ = ["TOPICS", "TOPIC_BY_NAME", "Topic", "TopicHit", "topic_hits"]


def _re(*alternatives: str) -> re.Pattern[str]:
    return re.compile("|".join(rf"\b(?:{a})\b" for a in alternatives), re.IGNORECASE)


def _ko(words: str) -> frozenset[str]:
    return frozenset(words.split())


@dataclass(frozen=True, slots=True)
class Topic:
    name: str
    single: bool
    ko_words: frozenset[str] = frozenset()
    ko_items: frozenset[str] = frozenset()
    en_words: re.Pattern[str] | None = None
    en_items: re.Pattern[str] | None = None
    ko_pattern: re.Pattern[str] | None = None  # Korean compounds Kiwi splits; counted as words


@dataclass(frozen=True, slots=True)
class TopicHit:
    topic: str
    word: str  # casefolded surface (English) or Kiwi form / lemma (Korean)
    item: bool
    start: int
    end: int


TOPICS: tuple[Topic, ...] = (
    Topic(
        "job", True,
        _ko("회사 직장 직업 일자리 입사 퇴사 이직 취직 취업 연봉 사업장 근무 재직 회사원 직장인 본사 본점 "
            "일하다 근무하다 출근 이직하다 백수 구직 취준생 무직 담당"),
        _ko("교사 은행원 간호사 개발자 디자이너 엔지니어 연구원 공무원 변호사 회계사 약사 요리사 셰프 기자 "
            "인턴 프리랜서 알바 아르바이트 에이전시 스타트업 증권사 연구소 은행 병원"),
        _re(r"jobs?", r"work(?:s|ed|ing)?\s+(?:at|for|as|in)", r"employ(?:er|ed|ment)", r"company",
            r"firm", r"careers?", r"offer", r"resign\w*", r"laid off", r"hired", r"teach(?:es|ing)?", r"unemployed",
            r"cowork\w+", r"colleagues?", r"workplace", r"at work", r"profession", r"freelanc\w*"),
        _re(r"nurses?", r"teachers?", r"engineers?", r"designers?", r"developers?", r"accountants?", r"lawyers?",
            r"doctors?", r"cooks?", r"chefs?", r"consultants?", r"analysts?", r"baristas?", r"recruiters?",
            r"programmers?", r"professors?", r"researchers?", r"startups?", r"clinics?", r"hospitals?",
            r"restaurants?", r"bakery", r"agency", r"nonprofit", r"ER", r"photographers?", r"writers?",
            r"bartend\w*", r"pharmacists?", r"paralegals?", r"electricians?", r"plumbers?", r"cashiers?"),
    ),
    Topic(
        "team", True, _ko("팀 부서 소속"),
        en_words=_re(r"teams?(?!\s+(?:meeting|lunch|dinner|outing|building|call|lead|leader)s?\b)",
                     r"department", r"squad"),
    ),
    Topic(
        "boss", True, _ko("팀장 상사 사수 매니저 부장 본부장"),
        en_words=_re(r"manager", r"boss", r"supervisor", r"report(?:s|ing)? to"),
    ),
    Topic(
        "home", True,
        _ko("집 이사 거주 동네 자취 원룸 투룸 아파트 오피스텔 빌라 전세 월세 독립 기숙사 살다 이사하다"),
        en_words=_re(r"live[sd]?", r"living\s+(?:in|with|at|near)", r"apartment", r"flat", r"house",
                     r"(?:my|our|own|new) place", r"neighbou?rhood", r"rent(?:s|ed|ing)?", r"condo",
                     r"roommates?", r"mov(?:e|ed|ing)\s+(?:in|out|to|into|back)", r"relocat\w+", r"walkup",
                     r"\w+-bedroom", r"hometown"),
    ),
    Topic(
        "commute", True, _ko("출근 통근 출퇴근"), _ko("버스 지하철 자전거 따릉이 택시 자차 차"),
        _re(r"commut\w*", r"(?:bike|drive|walk|bus|train)s?\s+to\s+(?:work|the office)"),
        _re(r"bus", r"subway", r"train", r"bik(?:e|ing)", r"uber", r"metro", r"ferry", r"tram", r"driv(?:e|ing)",
            r"carpool\w*", r"walk(?:ing)?"),
    ),
    Topic(
        "car", True, _ko("차 자동차 차량 중고차 전기차 자가용 운전 면허"),
        _ko("아반떼 쏘나타 그랜저 카니발 아이오닉 제네시스 테슬라 벤츠 스포티지 싼타페 모닝 레이 K5 K7"),
        _re(r"cars?", r"driv(?:e|es|ing)\s+an?", r"lease[ds]?", r"sedan", r"suv", r"EV"),
        _re(r"civic", r"corolla", r"camry", r"prius", r"tesla", r"bmw", r"subaru", r"outback", r"jeep", r"rav4",
            r"honda", r"toyota", r"audi", r"mercedes", r"volvo", r"mini cooper"),
    ),
    Topic(
        "phone", True, _ko("폰 핸드폰 휴대폰 스마트폰 휴대전화"), _ko("아이폰 갤럭시 픽셀 플립 폴드"),
        _re(r"(?:cell\s?|smart)?phones?(?!\s+plan)"), _re(r"iphone", r"pixel", r"galaxy", r"android"),
    ),
    Topic("laptop", True, _ko("노트북 랩탑"), _ko("맥북 그램"), _re(r"laptop"), _re(r"macbook", r"thinkpad")),
    Topic(
        "carrier", True, _ko("통신사 요금제 알뜰폰"), _ko("SKT KT 유플러스 LGU+"),
        en_words=_re(r"phone plan", r"carrier", r"unlimited plan", r"verizon", r"t-mobile", r"mint mobile"),
    ),
    Topic(
        "relationship", True, _ko("연애 애인 솔로 싱글 남친 여친 사귀다 결혼 이혼 약혼 연인"),
        en_words=_re(r"boyfriend", r"girlfriend", r"partner", r"dating", r"seeing someone", r"single",
                     r"relationship", r"broke up", r"split up", r"married", r"engaged", r"divorced"),
        ko_pattern=re.compile(r"남자\s*친구|여자\s*친구|만나는\s*사람"),
    ),
    Topic(
        "diet", True, _ko("식단 비건 채식 키토 다이어트 단식 채식주의자"),
        en_words=_re(r"diet", r"vegan", r"vegetarian", r"pescatarian", r"keto", r"paleo", r"fasting",
                     r"eat(?:ing)? meat"),
        ko_pattern=re.compile(r"간헐적\s*단식|비건"),
    ),
    Topic("smoking", True, _ko("담배 흡연 금연 전자담배"), en_words=_re(r"smok\w*", r"cigarettes?", r"vap\w+")),
    Topic("drinks", False, ko_items=_ko("커피 술 맥주 와인 아메리카노 라떼"),
          en_items=_re(r"coffee", r"alcohol", r"drinking", r"beer", r"wine", r"soda")),
    Topic(
        "exercise", False, _ko("운동 헬스 헬스장 피티 PT"),
        _ko("요가 필라테스 수영 클라이밍 테니스 골프 러닝 달리기 마라톤 크로스핏 등산 축구 농구 배드민턴 "
            "볼링 복싱 주짓수 수영장 골프장 태권도 태권도장 풋살"),
        _re(r"work(?:ing)?\s?out", r"exercis\w+", r"gym", r"fitness"),
        _re(r"yoga", r"pilates", r"swim\w*", r"climbing", r"tennis", r"golf", r"running", r"marathon",
            r"crossfit", r"soccer", r"basketball", r"hiking", r"boxing", r"cycling", r"spin class"),
    ),
    Topic("hobby", False, _ko("취미"), _ko("기타 피아노 그림 뜨개질 드럼 우쿨렐레 캘리그라피 도자기 사진"),
          _re(r"hobby", r"hobbies"), _re(r"guitar", r"piano", r"painting", r"knitting", r"pottery",
                                       r"photography", r"drums")),
    Topic("study", False, _ko("학원 공부 수업 강의 과외 레슨"), _ko("영어 토익 일본어 중국어 스페인어"),
          _re(r"class(?:es)?", r"course", r"lessons?", r"tutor\w*"),
          _re(r"duolingo", r"spanish", r"japanese", r"french", r"german", r"korean", r"chinese")),
    Topic(
        "school", True, _ko("학교 대학원 대학교 어린이집 유치원 초등학교 중학교 고등학교 학년 석사 박사 전학 자퇴"),
        en_words=_re(r"school", r"elementary", r"college", r"university", r"phd", r"grad school",
                     r"kindergarten", r"daycare", r"preschool", r"program"),
    ),
    Topic("trip", False, _ko("여행 휴가 출장 연휴 항공권 비행기"),
          en_words=_re(r"trips?", r"vacation", r"holiday", r"flights?", r"flying", r"conference", r"getaway",
                       r"honeymoon", r"travel\w*")),
    Topic("favorite", True, _ko("최애"), en_words=_re(r"favou?rites?", r"go-to"), ko_pattern=re.compile(r"최애")),
    Topic("music", False, _ko("가수 노래 음악 밴드 아이돌 앨범"),
          en_words=_re(r"band", r"music", r"singer", r"songs?", r"album", r"artist")),
    Topic("show", False, _ko("드라마 예능"), en_words=_re(r"show", r"series")),
    Topic("fandom", False, _ko("팬 응원"), en_words=_re(r"fan", r"rooting for", r"following")),
    Topic("subscription", False, _ko("구독 멤버십 회원권"), _ko("넷플릭스 티빙 유튜브 디즈니"),
          _re(r"subscri\w+", r"membership"), _re(r"netflix", r"spotify", r"hulu")),
    Topic("project", True, _ko("프로젝트 코드네임"), en_words=_re(r"project", r"code-?\s?named?", r"codename")),
    Topic("pet", False, _ko("강아지 고양이 반려견 반려묘 사료"), en_words=_re(r"dogs?", r"cats?", r"puppy", r"kitten")),
    Topic("bank", True, _ko("은행 계좌 주거래"), en_words=_re(r"bank(?:s|ing)?(?:\s+with)?", r"accounts?",
                                                          r"credit union")),
)
TOPIC_BY_NAME = {topic.name: topic for topic in TOPICS}


@lru_cache(maxsize=4096)
def topic_hits(text: str) -> tuple[TopicHit, ...]:
    """Every topic word and item in ``text``, with its character span."""
    hits: list[TopicHit] = []
    for topic in TOPICS:
        for pattern, item in ((topic.en_words, False), (topic.en_items, True)):
            if pattern is not None:
                hits.extend(TopicHit(topic.name, m.group().casefold(), item, m.start(), m.end())
                            for m in pattern.finditer(text))
        if topic.ko_pattern is not None:
            hits.extend(TopicHit(topic.name, re.sub(r"\s", "", m.group()), False, m.start(), m.end())
                        for m in topic.ko_pattern.finditer(text))
    if has_hangul(text):
        tokens = analyze(text)
        for index, (form, tag, lemma, start, end) in enumerate(tokens):
            key = form if tag.startswith(("NN", "SL", "SH")) else lemma if tag.startswith(("VV", "VA")) else None
            if key is None:
                continue
            # "일 하고 있어", "일해": the noun 일 is work only when 하다 follows it.
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            if form == "일" and following is not None and following[0] == "하":
                key = "일하다"
            if lemma == "다니다" and _names_a_workplace(tokens, index):
                hits.append(TopicHit("job", "다니다", False, start, end))  # 삼성 다녀, 카카오에 다니고 있어
            if form == "이사" and following is not None and following[0] == "님":
                continue  # 이사님 is a director, not a move
            for topic in TOPICS:
                if key in topic.ko_words or key in topic.ko_items:
                    hits.append(TopicHit(topic.name, key, key in topic.ko_items, start, end))
    return tuple(hits)


def _names_a_workplace(tokens: tuple[tuple[str, str, str, int, int], ...], index: int) -> bool:
    """A proper noun right before 다니다 (삼성 다녀, 카카오에 다녀) that is no item of another topic
    (필라테스 다녀 is exercise)."""
    before = index - 1
    if before >= 0 and tokens[before][1] in ("JKB", "JKO") and tokens[before][0] in ("에", "을", "를"):
        before -= 1
    if before < 0 or tokens[before][1] not in ("NNP", "SL"):
        return False
    name = tokens[before][0]
    return not any(name in topic.ko_items or name in topic.ko_words for topic in TOPICS)
