"""Cue tables for the state-change rule (``_state_change``), Korean and English.

A ``StateCue`` is a word in the new statement that says a state changed, of one of four kinds:

* **end** — the state is over: 그만두다, 관두다, 끊다, 접다, 팔다, 헤어지다, 포기, 취소, 해지, 퇴사, 자퇴;
  quit, left, sold, broke up, cancelled, gave up, done with, "I'm over X", dropped out, no longer,
  not … anymore.
* **replace** — another value took its place: 바꾸다, 바뀌다, 옮기다, 갈아타다, 넘어가다, 이사, 이직,
  변경, 독립; moved, relocated, switched, changed, renamed, upgraded, traded in, postponed.
* **begin** — a new state started, which ends the old one only where one holds a single value
  (one employer, one partner): 시작, 합격, 입사, 사귀다, 새로 샀다; accepted an offer, started at,
  got hired, seeing someone, bought a new X.
* **now** — 이제, 요즘은, 지금은, now, these days: the weakest; it needs a new value beside it.

Some cues carry their topic (이사 → home, 퇴사 → job, broke up → relationship). ``passive`` cues
(바뀌다, 취소되다, "got postponed") change their subject, so an explicit subject is the thing that
changed rather than someone else acting. ``purchase`` cues (샀다, bought, got a) count only when
what was bought is itself a topic word: "휴대폰 새로 샀어" is a phone change, "클라이밍 신발 새로
샀어" is not.

The guard patterns below block a cue: a hypothetical or intention (이사할까, 고민 중, 그만두려고,
thinking about, might, almost), a one-off exception (오늘은 … 대신, "today instead"), a ticket
bought (표를 끊다), and the people a change may be about (동생이 이사했어, my brother moved).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "EN_CUES",
    "EN_HYPOTHETICAL",
    "EN_INTRANSITIVE_MOVE",
    "EN_NEGATION_BEFORE",
    "EN_NOT_SUBJECT",
    "EN_THIRD_PARTY",
    "EN_THIRD_PARTY_OBJECT",
    "HABIT",
    "KO_HYPOTHETICAL_ENDINGS",
    "KO_LEMMA_CUES",
    "KO_NOUN_CUES",
    "KO_NOW",
    "KO_PERSONS",
    "KO_THIRD_PARTY",
    "KO_TICKET_BEFORE",
    "ONE_OFF",
    "SUBSTITUTION",
    "CueKind",
    "StateCue",
]

CueKind = Literal["end", "replace", "begin", "now"]


@dataclass(frozen=True, slots=True)
class StateCue:
    kind: CueKind
    topic: str | None = None  # the topic the word itself implies
    passive: bool = False  # its subject is what changed
    purchase: bool = False  # counts only when its object is a topic word
    needs_self: bool = False  # "no longer", "not … anymore": only about the speaker
    requires: tuple[str, ...] = ()  # a vague verb counts only when old is about one of these topics


_END, _REPLACE, _BEGIN = StateCue("end"), StateCue("replace"), StateCue("begin")

# Kiwi verb lemmas.
KO_LEMMA_CUES: dict[str, StateCue] = {
    **dict.fromkeys(("그만두다", "관두다", "끊다", "접다", "팔다", "그만하다"), _END),
    "헤어지다": StateCue("end", "relationship"),
    "끝나다": StateCue("end", passive=True),
    "나오다": StateCue("end", requires=("job", "team", "school")),  # 회사 나왔어: left it
    **dict.fromkeys(("바꾸다", "옮기다", "갈아타다", "넘어가다", "넘어오다", "미루다"), _REPLACE),
    "바뀌다": StateCue("replace", passive=True),
    "사귀다": StateCue("begin", "relationship"),
    "사다": StateCue("begin", purchase=True),
    "구하다": StateCue("begin", purchase=True),
}
# Kiwi nouns that are a change on their own or with 하다/되다 ("이사했어", "이사 끝!", "취소됐어").
KO_NOUN_CUES: dict[str, StateCue] = {
    **dict.fromkeys(("포기", "취소", "해지", "탈퇴", "처분"), _END),
    "퇴사": StateCue("end", "job"), "은퇴": StateCue("end", "job"), "자퇴": StateCue("end", "school"),
    "졸업": StateCue("end", "school"), "금연": StateCue("end", "smoking"), "이별": StateCue("end", "relationship"),
    "이사": StateCue("replace", "home"), "독립": StateCue("replace", "home"), "이직": StateCue("replace", "job"),
    "전근": StateCue("replace", "job"), "발령": StateCue("replace", "job"), "전학": StateCue("replace", "school"),
    "변경": _REPLACE,
    **dict.fromkeys(("시작", "입문", "입양"), _BEGIN),
    **dict.fromkeys(("합격", "입사", "취직", "취업"), StateCue("begin", "job")),
}
KO_NOW = re.compile(r"(?:이제는?|요즘은?|요즘엔|요샌|요새는?|지금은)(?=\s)")


def _en(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"\b(?:{pattern})\b", re.IGNORECASE)


EN_CUES: tuple[tuple[re.Pattern[str], StateCue], ...] = (
    (re.compile(r"(?:\bnot|n't|\bnever)\b[^.!?,;]*?\bany\s?more\b|\bno longer\b", re.IGNORECASE),
     StateCue("end", needs_self=True)),
    (_en(r"broke up|split up|broken up"), StateCue("end", "relationship")),
    (_en(r"resign(?:ed|ation)|handed in my (?:notice|resignation)|(?:got|was|been) (?:laid off|fired|let go)"
         r"|retired"), StateCue("end", "job")),
    (_en(r"dropped out|graduated"), StateCue("end", "school")),
    (_en(r"quit(?:ting)?|left|sold|cancel+(?:ed)?|called off|g[ai]ve(?:n)? up(?: on)?|done with|pulled out"
         r"|stopped|cut out|returned|got rid of|(?:i'?m|i am|we'?re|we are)\s+(?:so\s+|totally\s+|completely\s+"
         r"|officially\s+|honestly\s+)?over"), _END),
    (_en(r"ended|closed|shut down|went out of business"), StateCue("end", passive=True)),
    (_en(r"(?:got|was|been) promoted"), StateCue("begin", "job")),
    (_en(r"relocat(?:ed|ing)|moving day"), StateCue("replace", "home")),
    (_en(r"moved|moving|switch(?:ed)?|changed|renamed|transferred|upgraded|replaced|traded(?= (?:\w+ ){0,3}in\b)"
         r"|rescheduled"
         r"|postponed|push(?:ed)?(?=[^.!?,;]*\b(?:to|back)\b)"), _REPLACE),
    (_en(r"accepted (?:an?|the) (?:\w+\s+)?offer|(?:got|took|landed) (?:an?|the) (?:new\s+)?(?:[\w-]+\s+)?job"
         r"|(?:got|was|been) hired"
         r"|start(?:ed|ing)?\s+(?:at|with)\s+(?:an?|the)\s"), StateCue("begin", "job")),
    (_en(r"seeing someone|started dating|dating someone new"), StateCue("begin", "relationship")),
    (_en(r"got (?:my own|a new|our own|our first|my first) place"), StateCue("begin", "home")),
    (_en(r"bought|picked up|got (?:an?|the|my)|ordered|leased"), StateCue("begin", purchase=True)),
    (_en(r"started|joined"), _BEGIN),
    (_en(r"now|these days|nowadays"), StateCue("now")),
)
# "moved" is a move of home when nothing but a direction or place follows it.
EN_INTRANSITIVE_MOVE = re.compile(
    r"\s*(?:$|[.!,;]|(?:to|into|out|back|in|away|here|there|across|over|down|up|house|again|finally)\b)",
    re.IGNORECASE,
)

EN_HYPOTHETICAL = _en(
    r"thinking (?:about|of)|considering|consider|might|maybe|perhaps|could|would|should|wants? to"
    r"|wanted to|wanna|planning to|(?:I|we) plan to|hoping to|hope to|if|unless|almost|nearly|was going to"
    r"|were going to|about to|deciding|debating|tempted|wish|whether"
    r"|looking (?:into|for|at)|search(?:ing)? for|exploring|researching"  # "started looking into careers"
)
EN_NEGATION_BEFORE = re.compile(
    r"\b(?:not|never|didn'?t|don'?t|doesn'?t|won'?t|haven'?t|hasn'?t|wasn'?t|weren'?t|can'?t|couldn'?t)"
    r"\s+(?:\w+\s+)?$",
    re.IGNORECASE,
)
# Endings and words of a Korean intention, guess or condition: 이사할까, 그만두려고, 끝나면, 고민 중.
KO_HYPOTHETICAL_ENDINGS = frozenset(
    "ᆯ까 을까 ᆯ까요 을까요 려고 으려고 려다 려다가 으려다 려면 으려면 면 으면 다면 ㄴ다면 는다면 "
    "ᆯ지 을지 ᆯ지도 을지도 려나 ᆯ래 을래 ᆯ까나 ᆯ까 봐".split()
)
KO_TICKET_BEFORE = re.compile(r"(?:표|티켓|권|패스|항공권)\s*(?:도|을|를|은|는|까지)?\s*(?:[가-힣]{1,3}\s+)?$")

ONE_OFF = re.compile(
    r"오늘은|오늘만|이번만|이번에만|이번엔|이번\s*주(?:말)?(?!\s*부터)|\btoday\b|\bthis morning\b|\btonight\b"
    r"|\bthis time\b|\bfor once\b|\bthis week(?:end)?\b(?! on)",
    re.IGNORECASE,
)
SUBSTITUTION = re.compile(r"대신|말고|\binstead\b|\brather than\b", re.IGNORECASE)
# A habit in the old statement is not changed by one exception ("every day" … "cancelled today").
HABIT = re.compile(
    r"매일|매주|보통|평소|마다|항상|(?<![가-힣])늘(?=\s)|주\s*\d\s*회|\busually\b|\bevery\b|\balways\b"
    r"|\bmost (?:days|mornings|nights|weekends)\b|\beach (?:day|morning|week)\b|\bnormally\b",
    re.IGNORECASE,
)
# Words that may stand before an English cue without being its subject: "Honestly I've just …".
EN_NOT_SUBJECT = frozenset(
    "i we you they i've we've i'm we're i'd we'd i'll we'll 've 'm have has had to just finally also so then "
    "honestly actually already recently officially totally completely basically and but well oh ok okay got get "
    "been was were is are be am did do quick update plot twist huge big news guess what anyway btw lol haha "
    "yeah yes decided chose managed ended up went ahead last week month year eventually".split()
)

KO_PERSONS = frozenset(
    "동생 남동생 여동생 언니 오빠 형 형님 누나 남편 아내 와이프 엄마 아빠 어머니 아버지 어머님 아버님 부모님 부모 "
    "친구 딸 아들 애인 남친 여친 동료 선배 후배 할머니 할아버지 사촌 조카 삼촌 이모 고모 시어머니 장모님 "
    "룸메이트 사촌동생".split()
)
# Other teams and companies are third parties too: "옆 팀은 이름을 바꿨대".
KO_THIRD_PARTY = re.compile(r"(?:옆|다른|저쪽)\s*(?:팀|부서|회사)")
_EN_PERSON = (
    r"(?:sister|brother|mom|mum|mother|dad|father|parent|husband|wife|boyfriend|girlfriend|friend|roommate|son"
    r"|daughter|kid|cousin|aunt|uncle|grandma|grandpa|grandmother|grandfather|neighbou?r|fianc[eé]e?|in-law"
    r"|coworker|colleague|partner)"
)
# "my brother moved", "he starts", "the mobile team renamed": someone else is the subject. Not "my
# girlfriend (Emma) and I", which includes the speaker.
EN_THIRD_PARTY = re.compile(
    rf"(?:^|[.!?;,:]\s*|\b(?:and|but|so|because|then)\s+)(?:(?:my|our)\s+"
    rf"(?:best\s+|close\s+|older\s+|younger\s+|little\s+|big\s+)?(?P<who>{_EN_PERSON})s?\b"
    rf"(?!(?:\s+\w+)?\s+and\s+(?:I|me)\b)|(?P<pronoun>he|she)\b|(?:the|another|other)\s+(?:\w+\s+)?team\b)",
    re.IGNORECASE,
)
# "traded in her Jeep", "renamed their project": someone else's thing.
EN_THIRD_PARTY_OBJECT = re.compile(r"\b(?:his|her|their)\b", re.IGNORECASE)
