"""KakaoTalk's exported chat (.txt), in the layouts its apps write, Korean and English.

The PC app writes a date line and then ``[speaker] [time] text``::

    --------------- 2024년 12월 9일 월요일 ---------------      --------------- Monday, December 9, 2024 ---------------
    [민지] [오후 2:30] 내일 몇 시에 만나?                          [Minji] [2:30 PM] What time tomorrow?

the phone apps a full time stamp on every message, ``stamp, speaker : text``::

    2024년 12월 9일 오후 2:30, 민지 : 내일 몇 시에 만나?   (Android)
    2024. 12. 9. 오후 2:30, 민지 : 내일 몇 시에 만나?       (iOS)
    December 9, 2024 at 2:30 PM, Minji : What time tomorrow?
    12/9/24, 2:30 PM, Minji : What time tomorrow?

and some versions a bare time under a date line (``오후 2:30, 민지 : …``). A line that is none of these
continues the message above it (a message with line breaks). Join and leave notices, date lines,
photo and emoticon placeholders and deleted-message notices are skipped, not stored. The export's
times have no zone: they are read in ``timezone`` (default Asia/Seoul, the app's home).
"""

from __future__ import annotations

import re
from datetime import date, datetime, time
from zoneinfo import ZoneInfo

from gieok.errors import UnreadableLineError
from gieok.importers._ids import StableIds
from gieok.importers._types import BadLine, Conversation, Parsed

__all__ = ["parse_kakaotalk"]

_TIME = (r"(?:(?P<ap1>오전|오후) ?(?P<h1>\d{1,2}):(?P<m1>\d{2})"
         r"|(?P<h2>\d{1,2}):(?P<m2>\d{2})(?::\d{2})?(?: ?(?P<ap2>[AaPp]\.?[Mm]\.?))?)")
_STAMPS = (
    re.compile(r"(?P<y>\d{4})년 (?P<mo>\d{1,2})월 (?P<d>\d{1,2})일,? " + _TIME),
    re.compile(r"(?P<y>\d{4})\. ?(?P<mo>\d{1,2})\. ?(?P<d>\d{1,2})\.,? " + _TIME),
    re.compile(r"(?P<mon>[A-Z][a-z]{2,8})\.? (?P<d>\d{1,2}), (?P<y>\d{4})(?: at|,) " + _TIME),
    re.compile(r"(?P<mo>\d{1,2})/(?P<d>\d{1,2})/(?P<y>\d{2,4}),? " + _TIME),
    re.compile(_TIME),  # a bare time, under a date line
)
_BRACKETED = re.compile(r"\[(?P<speaker>[^\]]+)\] \[(?P<when>[^\]]+)\] ?(?P<text>.*)")
_KO_DAY = re.compile(r"-*\s*(?P<y>\d{4})년 (?P<mo>\d{1,2})월 (?P<d>\d{1,2})일(?: \S+요일)?\s*-*")
_EN_DAY = re.compile(r"-*\s*(?:[A-Z][a-z]+day, )?(?P<mon>[A-Z][a-z]{2,8})\.? (?P<d>\d{1,2}), (?P<y>\d{4})\s*-*")
_HEADER = re.compile(r"(.*(카카오톡 대화|KakaoTalk Chats?|KakaoTalk 대화).*|(저장한 날짜|Date Saved)\s*:.*"
                     r"|Talk_.*\.txt)", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"(사진(?: \d+장)?|동영상|이모티콘|음성메시지|파일: .*|샵검색: .*|삭제된 메시지입니다\.?"
                          r"|Photo|Photos|\d+ photos|Video|Emoticons?|Voice message|File: .*"
                          r"|This message has been deleted\.?|Deleted message\.?)", re.IGNORECASE)
_NOTICE = re.compile(r".+님(?:이|을|에게) .*(?:들어왔습니다|나갔습니다|초대(?:했습니다|하였습니다)|내보냈습니다)\.?"
                     r"|.+ (?:joined|left) (?:this|the) chat(?:room)?\.?"
                     r"|.+ invited .+ to (?:this|the) chat(?:room)?\.?", re.IGNORECASE)
_MONTHS = {name: i for i, names in enumerate(
    (("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",), ("jun", "june"),
     ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"), ("oct", "october"),
     ("nov", "november"), ("dec", "december")), start=1) for name in names}


def _day(m: re.Match[str]) -> date:
    groups = m.groupdict()
    year = int(groups["y"])
    year = year + 2000 if year < 100 else year
    month = int(groups["mo"]) if groups.get("mo") else _MONTHS.get((groups.get("mon") or "").lower(), 0)
    try:
        return date(year, month, int(groups["d"]))
    except ValueError as exc:
        raise UnreadableLineError(f"no such date ({exc})") from None


def _clock(m: re.Match[str]) -> time:
    g = m.groupdict()
    hour, minute = (int(g["h1"]), int(g["m1"])) if g["h1"] else (int(g["h2"]), int(g["m2"]))
    meridiem = g["ap1"] or (g["ap2"] or "").replace(".", "").lower()
    if meridiem:
        if not 1 <= hour <= 12:
            raise UnreadableLineError(f"{hour} is no hour of a 12-hour clock")
        hour = hour % 12 + (12 if meridiem in ("오후", "pm") else 0)
    try:
        return time(hour, minute)
    except ValueError as exc:
        raise UnreadableLineError(f"no such time ({exc})") from None


def _stamped(line: str) -> tuple[date | None, time, str] | None:
    """A line that begins with a time stamp: its date (None for a bare time), time and the rest."""
    for pattern in _STAMPS:
        m = pattern.match(line)
        if m and line[m.end():m.end() + 1] in (",", ":"):
            day = _day(m) if "y" in m.groupdict() else None
            return day, _clock(m), line[m.end() + 1:].strip()
    return None


def _day_line(line: str) -> date | None:
    for pattern in (_KO_DAY, _EN_DAY):
        m = pattern.fullmatch(line)
        if m:
            return _day(m)
    return None


class _Reader:
    def __init__(self, name: str, zone: ZoneInfo) -> None:
        self.zone = zone
        self.parsed = Parsed("kakaotalk")
        self.chat = Conversation(f"kakaotalk:{name}", name)
        self.ids = StableIds("kakao")
        self.day: date | None = None
        self.last: dict[str, str] | None = None  # the message a continuation line extends
        self.titled = False

    def add(self, day: date, clock: time, speaker: str, text: str) -> None:
        speaker, text = speaker.strip(), text.strip()
        if not speaker:
            raise UnreadableLineError("a message without a speaker")
        if _PLACEHOLDER.fullmatch(text):
            self.parsed.skipped += 1
            self.last = None
            return
        stamp = datetime.combine(day, clock, self.zone).isoformat()
        message = {"id": self.ids.next(stamp, speaker, text), "speaker": speaker, "text": text, "timestamp": stamp}
        self.chat.messages.append(message)
        self.last = message

    def message(self, line: str) -> bool:
        """Read ``line`` as a message (or a stamped notice); False when it is neither. A bracketed
        line whose second bracket is no time, or a bare time without ``speaker : text`` after it, is
        text (a message's next line) rather than a bad line."""
        bracketed = _BRACKETED.fullmatch(line)
        if bracketed:
            when = _stamped(bracketed["when"] + ",")
            if when is None:
                return False
            day = when[0] or self.day
            if day is None:
                raise UnreadableLineError("a message before any date line")
            self.add(day, when[1], bracketed["speaker"], bracketed["text"])
            return True
        stamped = _stamped(line)
        if stamped is None:
            return False
        day, clock, rest = stamped
        speaker, sep, text = rest.partition(" : ")
        if day is None:
            if not sep:
                return False
            if self.day is None:
                raise UnreadableLineError("a time without a date line before it")
            day = self.day
        if not sep:  # "…님이 들어왔습니다", "… joined this chatroom"
            self.parsed.skipped += 1
            self.last = None
            return True
        self.add(day, clock, speaker, text)
        return True

    def line(self, number: int, raw: str) -> None:
        line = raw.strip()
        if not line:
            return
        day = _day_line(line)
        if day is not None:
            self.day, self.last = day, None
            self.parsed.skipped += 1
            return
        if self.message(line):
            return
        if _NOTICE.fullmatch(line):
            self.parsed.skipped += 1
            self.last = None
            return
        if self.last is not None:
            self.last["text"] += "\n" + line
        elif self.chat.messages:  # the second line of a notice that was skipped
            self.parsed.skipped += 1
        elif _HEADER.fullmatch(line):
            if self.titled is False and ("대화" in line or "chat" in line.lower()):
                self.chat.title, self.titled = line, True
        else:
            raise UnreadableLineError("not a KakaoTalk message line (is this a KakaoTalk export?)")


def parse_kakaotalk(text: str, name: str, *, timezone: str = "Asia/Seoul") -> Parsed:
    """Read an exported KakaoTalk chat; ``name`` (the file's) becomes the conversation's id."""
    reader = _Reader(name, ZoneInfo(timezone))
    for number, raw in enumerate(text.splitlines(), start=1):
        try:
            reader.line(number, raw)
        except UnreadableLineError as exc:
            reader.parsed.bad.append(BadLine(number, str(exc), raw.strip()))
            reader.last = None
    if reader.chat.messages:
        reader.parsed.conversations.append(reader.chat)
    return reader.parsed
