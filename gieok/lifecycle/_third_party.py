"""Who a statement is about, when it is not the speaker.

"우리 언니는 LG전자 다녀" is about a sister; "동생이 대전으로 이사했어", "My brother just moved to
Seattle" and "The mobile team renamed their project" are changes someone else made. An update must
be about the same person as the statement it replaces, so ``detect_update`` compares the third
parties of the two statements (``mentions`` checks that a person is named at all).

Korean: a person noun (동생, 언니, 남편, 친구, 남자친구 …) marked as subject or topic (이/가/은/는,
also after 님), or another team or company (옆 팀은). English: "my/our <person>" opening a clause
(not "my girlfriend and I", which includes the speaker), he/she, "the/another … team"; and in the
words after a change, his/her/their ("traded in her Jeep").
"""

from __future__ import annotations

import re

from gieok.lifecycle._state_cues import (
    EN_THIRD_PARTY,
    EN_THIRD_PARTY_OBJECT,
    KO_PERSONS,
    KO_THIRD_PARTY,
)
from gieok.text.korean import analyze, has_hangul

__all__ = ["mentions", "third_parties"]


def third_parties(text: str, start: int = 0, end: int | None = None,
                  object_span: tuple[int, int] | None = None, *, pronouns: bool = False) -> set[str]:
    """The people other than the speaker that ``text[start:end]`` makes its subject. ``pronouns``
    counts he/she too: right before a change they name its subject, elsewhere they point back at
    someone the statement already named ("My manager is Priya, she's great")."""
    end = len(text) if end is None else end
    span = text[start:end]
    people: set[str] = set()
    if has_hangul(span):
        tokens = [t for t in analyze(text) if start <= t[3] and t[4] <= end]
        for index, (form, tag, *_rest) in enumerate(tokens):
            if not tag.startswith("NN"):
                continue
            person = form
            if form == "친구" and index and tokens[index - 1][0] in ("남자", "여자"):
                person = tokens[index - 1][0] + form
            elif form not in KO_PERSONS:
                continue
            following = tokens[index + 1 : index + 3]
            if following and following[0][1] == "XSN":
                following = following[1:]
            if following and following[0][1] in ("JKS", "JX") and following[0][0] not in ("도", "만", "까지"):
                people.add(person)
        people |= {"다른 팀" for _ in KO_THIRD_PARTY.finditer(span)}
    for m in EN_THIRD_PARTY.finditer(span):
        if m.group("pronoun") is None or pronouns:
            people.add((m.group("who") or m.group("pronoun") or "other team").lower())
    if object_span is not None and not has_hangul(span) \
            and EN_THIRD_PARTY_OBJECT.search(text, object_span[0], object_span[1]):
        people.add("their")
    return people


def mentions(text: str, person: str) -> bool:
    """Whether ``text`` names ``person`` (a key from ``third_parties``) anywhere."""
    if has_hangul(person):
        return person.replace(" ", "") in re.sub(r"\s", "", text)
    return re.search(rf"\b{re.escape(person)}", text, re.IGNORECASE) is not None
