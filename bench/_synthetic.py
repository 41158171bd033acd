"""Synthetic Korean/English conversation text for the performance benchmark (``bench/perf.py``).

Deterministic for a given seed. Sentences are filled templates over a few hundred names, places,
foods, activities, organisations and numbers, so the keyword index sees a realistic spread of term
frequencies (a few very common words, a long tail of rare ones). Nothing here is meant to be
*about* anything; it only has to look like chat text to the tokenizers, the indexes and the embedder.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

__all__ = ["SyntheticText", "Message", "PoolSentence"]

KST = timezone(timedelta(hours=9))

KO_NAMES = ("지우 민준 서연 하준 도윤 서윤 예준 하은 시우 지호 수아 지유 은우 채원 유준 지아 준서 다은 현우 소율 "
            "민서 건우 예린 우진 윤서 선우 가은 연우 하린 정우 김민지 박서준 이하나 최유리 정다은 한지민 오세훈 "
            "윤아름 장민호 강소라").split()
EN_NAMES = ("Jiwoo Hana Minji Alex Sam Jordan Taylor Chris Morgan Jamie Casey Riley Emma Olivia Liam Noah Ava "
            "Sophia Mason Lucas Mia Ethan Harper Evelyn Daniel Grace Henry Chloe Leo Nora Owen Zoe Caleb Ruby "
            "Isaac Maya Felix Iris Julian Clara").split()
KO_PLACES = ("판교 제주 부산 강릉 전주 여수 속초 경주 대구 광주 인천 수원 홍대 성수동 연남동 을지로 한남동 잠실 "
             "여의도 북한산 한라산 설악산 지리산 해운대 광안리 남산 서촌 익선동 망원동 가로수길").split()
EN_PLACES = ("Toronto Seattle Berlin Lisbon Kyoto Osaka Paris London Austin Denver Vancouver Melbourne Taipei "
             "Bangkok Hanoi Chicago Boston Dublin Prague Vienna Barcelona Amsterdam Oslo Helsinki Reykjavik "
             "Portland Brooklyn Queens Montreal Singapore").split()
KO_FOODS = ("김치찌개 된장찌개 떡볶이 비빔밥 냉면 삼겹살 치킨 짜장면 짬뽕 순두부 감자탕 칼국수 만두 김밥 라면 "
            "불고기 갈비 파전 닭갈비 보쌈 족발 회 초밥 파스타 피자 샐러드 샌드위치 마라탕 쌀국수 카레").split()
EN_FOODS = ("ramen sushi tacos pizza pasta burritos pho curry dumplings bagels croissants pancakes waffles "
            "salad steak burgers falafel hummus risotto paella bibimbap tteokbokki kimchi lasagna gnocchi "
            "sourdough oatmeal granola smoothies espresso").split()
KO_ACTIVITIES = ("등산 수영 요가 필라테스 클라이밍 러닝 자전거 테니스 배드민턴 골프 볼링 스키 서핑 캠핑 낚시 "
                 "독서 뜨개질 그림 피아노 기타 드럼 사진 요리 베이킹 코딩 게임 영화 뮤지컬 전시회 봉사").split()
EN_ACTIVITIES = ("hiking swimming yoga pilates climbing running cycling tennis badminton golf bowling skiing "
                 "surfing camping fishing reading knitting painting piano guitar drums photography cooking "
                 "baking coding chess gardening pottery volunteering kayaking").split()
KO_ORGS = ("카카오 네이버 삼성전자 현대자동차 LG전자 쿠팡 배달의민족 토스 당근마켓 라인 SK하이닉스 크래프톤 "
           "서울대 연세대 고려대 카이스트 포스텍 한양대 성균관대 서울시청").split()
EN_ORGS = ("Google Microsoft Amazon Spotify Netflix Shopify Stripe Airbnb Pinterest Dropbox Figma Notion "
           "Datadog Atlassian Mozilla Adobe Intel Nvidia Oracle Salesforce").split()
KO_RELATIONS = ("엄마 아빠 언니 오빠 누나 형 동생 남편 아내 할머니 할아버지 이모 "
                "삼촌 사촌 친구 룸메이트 팀장님 동료").split()
EN_RELATIONS = ("mom dad sister brother wife husband grandma grandpa aunt uncle cousin roommate boss coworker "
                "neighbour friend daughter son").split()
KO_WHEN = ("어제 오늘 내일 그저께 모레 이번 주말 지난 주말 다음 주 지난주 다음 달 "
           "지난달 올해 작년 아침에 저녁에 점심에 새벽에").split(" ")
EN_WHEN = ("yesterday;today;tomorrow;last weekend;this weekend;next week;last week;next month;last month;"
           "this year;last year;in the morning;after work;on Sunday;on Friday night").split(";")
KO_FEEL = "좋았어 별로였어 최고였어 힘들었어 재밌었어 피곤했어 신기했어 감동이었어 아쉬웠어 무서웠어".split()
EN_FEEL = "amazing;terrible;exhausting;fun;relaxing;stressful;surprising;boring;wonderful;weird".split(";")
KO_SMALL = ("ㅋㅋ 고마워", "응응", "넵 알겠습니다!", "오케이", "ㅋㅋㅋㅋ", "고마워요",
            "알겠어요, 기억할게요.", "그렇구나")
EN_SMALL = ("ok thanks", "lol", "haha yeah", "thank you!", "cool", "sounds good", "yep", "nice")
AGENTS = ("assistant", "assistant", "assistant", "agent")

KO_TEMPLATES = (
    "{when} {ko_person}랑 {ko_place}에 가서 {ko_food} 먹었어. 진짜 {ko_feel}.",
    "나 요즘 퇴근하고 매일 {hour}시에 {ko_act} 다니고 있어.",
    "{ko_rel}가 다음 달에 {ko_place}로 이사 간대.",
    "참고로 나 {ko_food} 알레르기 있어. 추천할 때 꼭 빼 줘.",
    "{when} {ko_org} 면접 봤는데 결과는 {n}일 뒤에 나온대.",
    "우리 팀장님 이름은 {ko_person}이야. 엄청 꼼꼼하셔.",
    "{ko_act} 시작한 지 벌써 {n}개월 됐어. 생각보다 {ko_feel}.",
    "{ko_person} 생일이 {month}월 {day}일이라서 선물로 뭘 살지 고민 중이야.",
    "{when} {ko_place} 여행 다녀왔는데 {ko_food}가 제일 기억에 남아.",
    "{ko_org}에서 {n}년 일하다가 이번에 이직했어.",
    "고양이 이름은 {ko_pet}이고 {n}살이야. 요즘 밥을 잘 안 먹어서 걱정이야.",
    "{ko_rel}랑 {when} {ko_act} 하기로 했어. 예약은 {hour}시로 해 뒀어.",
    "허리가 아파서 병원 갔더니 의사가 {ko_act}를 추천했어.",
    "요즘 {ko_food}에 빠져서 일주일에 {n}번은 먹는 것 같아.",
    "{ko_place}에 있는 카페에서 {ko_person}를 우연히 만났어. {ko_feel}.",
    "월세가 {n}십만 원 올라서 {ko_place} 쪽으로 이사를 알아보고 있어.",
    "내 차는 {year}년식 아반떼인데 이번에 엔진오일 갈았어.",
    "{ko_person}가 {ko_org}에 합격했대! 다음 주부터 출근한대.",
    "{when} 본 영화는 {ko_feel}. 다음엔 {ko_person}랑 같이 보고 싶어.",
    "{ko_act} 대회가 {month}월에 {ko_place}에서 열린대서 신청했어.",
    "나는 커피는 안 마시고 보통 {ko_drink} 마셔.",
    "{ko_rel} 결혼식이 {month}월 {day}일이라 {ko_place}까지 내려가야 해.",
    "비자 연장 때문에 {when} 출입국사무소 가야 돼.",
    "다이어트 때문에 저녁은 {ko_food} 대신 샐러드 먹고 있어.",
    "요즘 {ko_act} 배우는데 선생님이 {ko_person}이야.",
)
EN_TEMPLATES = (
    "{when} I went to {en_place} with {en_person} and we had {en_food}. It was {en_feel}.",
    "I've been doing {en_act} every day after work at {hour} pm.",
    "My {en_rel} is moving to {en_place} next month.",
    "By the way, I'm allergic to {en_food}, so please leave it out of any suggestions.",
    "I had an interview at {en_org} {when}; they said I'd hear back in {n} days.",
    "My manager's name is {en_person}. She is very detail oriented.",
    "I started {en_act} about {n} months ago and it's been {en_feel}.",
    "{en_person}'s birthday is on {en_month} {day}, and I still don't know what to get them.",
    "We got back from {en_place} {when}; the {en_food} was the highlight.",
    "I worked at {en_org} for {n} years before switching jobs this spring.",
    "My dog {en_pet} turned {n} {when}, we threw a little party.",
    "Booked a table for {en_act} with my {en_rel} {when} at {hour}.",
    "The doctor told me to try {en_act} because of my back pain.",
    "I'm obsessed with {en_food} lately, I eat it like {n} times a week.",
    "Ran into {en_person} at a coffee shop in {en_place}, which was {en_feel}.",
    "Rent went up by {n}00 dollars so I'm looking at apartments near {en_place}.",
    "My car is a {year} Civic and I just got the oil changed.",
    "{en_person} just got an offer from {en_org}! They start next week.",
    "The movie we saw {when} was {en_feel}; I want to watch the sequel with {en_person}.",
    "There's a {en_act} competition in {en_place} in {en_month}, I signed up.",
    "I don't drink coffee, I usually have {en_drink} instead.",
    "My {en_rel}'s wedding is on {en_month} {day} in {en_place}.",
    "I need to renew my passport {when} before the trip to {en_place}.",
    "For the diet I've been skipping {en_food} and having salad for dinner.",
    "I'm taking {en_act} lessons and my teacher is {en_person}.",
)
KO_ASSIST = (
    "알겠어요, {ko_food}는 앞으로 추천에서 뺄게요.",
    "{ko_place} 여행 계획이 있으시군요! 날씨를 확인해 볼까요?",
    "{ko_act} 꾸준히 하시는 거 멋져요. 일주일에 몇 번 하세요?",
    "{ko_person}님 생일 선물로는 {ko_act} 용품은 어떨까요?",
)
EN_ASSIST = (
    "Got it, I'll keep {en_food} out of my suggestions from now on.",
    "A trip to {en_place} sounds great! Do you want me to check the weather?",
    "That's impressive consistency with {en_act}. How many times a week do you go?",
    "For {en_person}'s birthday, maybe something related to {en_act}?",
)
KO_QUESTIONS = (
    "{ko_person}는 어느 회사에 다녀?", "내가 무슨 알레르기 있다고 했지?", "{ko_place}에서 뭐 먹었더라?",
    "요즘 내가 하는 운동이 뭐야?", "{ko_rel}는 어디로 이사 간다고 했어?", "{ko_person} 생일이 언제야?",
    "{ko_act} 시작한 지 얼마나 됐지?", "고양이 이름이 뭐였지?", "{ko_org} 면접 결과는 언제 나와?",
    "{ko_place} 여행 어땠다고 했어?", "{ko_person}랑 뭐 하기로 했지?", "내 차 몇 년식이야?",
    "{ko_food} 좋아한다고 했던가?", "{month}월에 무슨 일정 있어?", "팀장님 이름이 뭐야?",
)
EN_QUESTIONS = (
    "Where does {en_person} work?", "What am I allergic to?", "What did we eat in {en_place}?",
    "What exercise do I do after work?", "Where is my {en_rel} moving?", "When is {en_person}'s birthday?",
    "How long have I been doing {en_act}?", "What's my dog's name?", "When will {en_org} get back to me?",
    "How was the trip to {en_place}?", "What did I plan with my {en_rel}?", "What year is my car?",
    "Do I like {en_food}?", "What's happening in {en_month}?", "Who is my manager?",
)
KO_PETS = "콩이 보리 초코 두부 나비 호두 망고 모카 라떼 구름".split()
EN_PETS = "Biscuit Mochi Pepper Luna Milo Ollie Bean Maple Ziggy Waffles".split()
KO_DRINKS = "보리차 녹차 유자차 둥굴레차 캐모마일 콤부차 두유 식혜".split()
EN_DRINKS = "green tea;chamomile;oat milk lattes;sparkling water;kombucha;matcha;hot chocolate;chai".split(";")
EN_MONTHS = "January February March April May June July August September October November December".split()


@dataclass(frozen=True)
class PoolSentence:
    text: str
    korean: bool
    agent: bool


@dataclass(frozen=True)
class Message:
    id: str
    speaker: str
    text: str
    timestamp: str

    def as_dict(self) -> dict[str, str]:
        return {"id": self.id, "speaker": self.speaker, "text": self.text, "timestamp": self.timestamp}


class SyntheticText:
    """Deterministic generator of chat sentences, messages and questions (Korean and English)."""

    def __init__(self, seed: int = 0, korean_share: float = 0.5) -> None:
        self.rng = random.Random(seed)
        self.korean_share = korean_share

    def _fill(self, template: str) -> str:
        r = self.rng
        slots = {
            "ko_person": r.choice(KO_NAMES), "en_person": r.choice(EN_NAMES), "ko_place": r.choice(KO_PLACES),
            "en_place": r.choice(EN_PLACES), "ko_food": r.choice(KO_FOODS), "en_food": r.choice(EN_FOODS),
            "ko_act": r.choice(KO_ACTIVITIES), "en_act": r.choice(EN_ACTIVITIES), "ko_org": r.choice(KO_ORGS),
            "en_org": r.choice(EN_ORGS), "ko_rel": r.choice(KO_RELATIONS), "en_rel": r.choice(EN_RELATIONS),
            "when": r.choice(KO_WHEN if "{ko_" in template or _is_korean(template) else EN_WHEN),
            "ko_feel": r.choice(KO_FEEL), "en_feel": r.choice(EN_FEEL), "ko_pet": r.choice(KO_PETS),
            "en_pet": r.choice(EN_PETS), "ko_drink": r.choice(KO_DRINKS), "en_drink": r.choice(EN_DRINKS),
            "hour": r.randint(1, 11), "n": r.randint(2, 12), "month": r.randint(1, 12), "day": r.randint(1, 28),
            "year": r.randint(2008, 2024), "en_month": r.choice(EN_MONTHS),
        }
        return template.format(**slots)

    def sentence(self, korean: bool | None = None, agent: bool = False) -> str:
        if korean is None:
            korean = self.rng.random() < self.korean_share
        if agent:
            return self._fill(self.rng.choice(KO_ASSIST if korean else EN_ASSIST))
        return self._fill(self.rng.choice(KO_TEMPLATES if korean else EN_TEMPLATES))

    def pool(self, n: int) -> list[PoolSentence]:
        """``n`` distinct sentences (users and agent, both languages) for a vector pool."""
        seen: dict[str, PoolSentence] = {}
        while len(seen) < n:
            korean = self.rng.random() < self.korean_share
            agent = self.rng.random() < 0.2
            text = self.sentence(korean, agent)
            seen.setdefault(text, PoolSentence(text, korean, agent))
        return list(seen.values())

    def pooled_conversation(self, pool: list[PoolSentence], n: int, *, prefix: str,
                            start: datetime) -> tuple[list[Message], list[tuple[int, ...]]]:
        """``n`` messages each made of 1-3 pool sentences of one language (a few hundred characters at
        most, so each becomes exactly one fact); returns the messages and each one's pool indices."""
        r = self.rng
        by_kind: dict[tuple[bool, bool], list[int]] = {}
        for i, p in enumerate(pool):
            by_kind.setdefault((p.korean, p.agent), []).append(i)
        messages: list[Message] = []
        parts: list[tuple[int, ...]] = []
        when = start
        for i in range(n):
            korean = r.random() < self.korean_share
            agent = r.random() < 0.3
            choices = by_kind.get((korean, agent)) or by_kind.get((korean, not agent)) or list(range(len(pool)))
            idx = tuple(r.choice(choices) for _ in range(r.choices((1, 2, 3), (5, 3, 2))[0]))
            speaker = r.choice(AGENTS) if agent else (r.choice(KO_NAMES[:10]) if korean else r.choice(EN_NAMES[:10]))
            when += timedelta(seconds=r.randint(20, 4000))
            messages.append(Message(f"{prefix}-{i}", speaker, " ".join(pool[j].text for j in idx), when.isoformat()))
            parts.append(idx)
        return messages, parts

    def question(self, korean: bool | None = None) -> str:
        if korean is None:
            korean = self.rng.random() < self.korean_share
        return self._fill(self.rng.choice(KO_QUESTIONS if korean else EN_QUESTIONS))

    def distinct_questions(self, n: int, avoid: set[str] | frozenset[str] = frozenset()) -> list[str]:
        seen: dict[str, None] = {}
        tries = 0
        while len(seen) < n:
            q = self.question()
            tries += 1
            if q not in avoid:
                seen[q] = None
            if tries > 100 * n:  # fewer distinct questions than asked for (~570 from the templates)
                break
        # templates alone cannot make enough distinct questions: add a varying detail
        while len(seen) < n:
            seen[f"{self.question()} ({len(seen)})"] = None
        return list(seen)

    def conversation(self, n: int, *, prefix: str, start: datetime, small_talk: float = 0.08,
                     long_share: float = 0.04) -> list[Message]:
        """A chat of ``n`` messages: users and an assistant, 1-3 sentences each, some small talk and
        some long (multi-paragraph, > 600 characters) messages that retain splits into several facts."""
        r = self.rng
        out: list[Message] = []
        when = start
        for i in range(n):
            korean = r.random() < self.korean_share
            agent = r.random() < 0.3
            if agent:
                speaker = r.choice(AGENTS)
            else:
                speaker = r.choice(KO_NAMES[:10]) if korean else r.choice(EN_NAMES[:10])
            roll = r.random()
            if roll < small_talk:
                text = r.choice(KO_SMALL if korean else EN_SMALL)
            elif roll < small_talk + long_share and not agent:
                text = " ".join(self.sentence(korean) for _ in range(r.randint(9, 16)))
            else:
                text = " ".join(self.sentence(korean, agent) for _ in range(r.choices((1, 2, 3), (5, 3, 2))[0]))
            when += timedelta(seconds=r.randint(20, 4000))
            out.append(Message(f"{prefix}-{i}", speaker, text, when.isoformat()))
        return out


def _is_korean(template: str) -> bool:
    return any("\uac00" <= ch <= "\ud7a3" for ch in template)
