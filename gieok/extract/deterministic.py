"""Deterministic extraction: one fact per meaningful message or sentence group.

No model is involved, so the result is reproducible: a message becomes one fact unless it is long, in
which case consecutive sentences are grouped up to a size limit. Pure small talk ("ㅋㅋ 고마워",
"ok thanks", "넵 알겠습니다!") stays in the verbatim source but yields no fact. Documents are cut into
chunks at paragraph boundaries, and each chunk into sentence-group facts.
"""

from __future__ import annotations

import re

from gieok.text.sentences import split_sentences

__all__ = ["is_small_talk", "facts_from_text", "chunk_document"]

# Words that carry no memory on their own. A message made only of these (and punctuation, emoji,
# laughter) is small talk.
_SMALL_TALK_WORDS = frozenset(
    """ok okay k kk thanks thank thx ty you u lol lmao haha hahaha hehe yes yeah yep yup no nope sure cool
    nice great good awesome bye goodbye see later hi hello hey morning night gn np welcome alright right
    got it sounds wow oh ah hmm mhm uh um indeed true agreed totally absolutely definitely much so very too
    a the me lot and for that that's is it it's this was so
    고마워 고마워요 고맙다 고맙습니다 감사 감사해 감사해요 감사합니다 땡큐 응 응응 웅 네 넹 넵 예
    아니 아니요 알겠어 알겠어요 알겠습니다 알았어 알았어요 오케이 좋아 좋아요 좋다 좋네 좋네요 굿
    그래 그래요 그렇구나 그렇군요 아하 아 오 와 헐 대박 진짜 정말 ㅇㅇ ㅇㅋ 안녕 안녕하세요 잘자
    잘자요 바이 수고 수고했어 수고하세요 수고하셨습니다 맞아 맞아요 그치 ㄱㅅ ㄳ 넵넵 네네
    천만에요 별말씀을 기억할게요 기억할게 기억하겠습니다 고마워용 감사요""".split()
)
_LAUGHTER = re.compile(r"^(?:[ㅋㅎㅠㅜ]+|(?:ha)+h?|(?:he)+h?|lo+l|xd+)$", re.IGNORECASE)
_WORD = re.compile(r"[\w']+", re.UNICODE)


def is_small_talk(text: str) -> bool:
    """True when ``text`` has no content beyond greetings, thanks, acknowledgements and laughter."""
    words = _WORD.findall(text.lower())
    if not words:
        return True  # only punctuation or emoji
    for word in words:
        if word in _SMALL_TALK_WORDS or _LAUGHTER.match(word):
            continue
        # Korean politeness endings glued on ("고마워요ㅎㅎ" was split above; "감사드려요" is not)
        stripped = re.sub(r"[ㅋㅎㅠㅜ~!.?]+$", "", word)
        if stripped in _SMALL_TALK_WORDS or stripped.startswith(("감사", "고마", "알겠", "수고")):
            continue
        return False
    return True


def facts_from_text(text: str, max_chars: int) -> list[tuple[int, int]]:
    """Spans of ``text`` that become facts: the whole text when short, else sentence groups.

    Sentence groups are filled greedily up to ``max_chars`` and never cut a sentence; small-talk
    sentences inside a long text are dropped.
    """
    stripped = text.strip()
    if not stripped or is_small_talk(stripped):
        return []
    if len(stripped) <= max_chars:
        start = text.index(stripped[0])
        return [(start, start + len(stripped))]
    groups: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    for a, b in split_sentences(text):
        if is_small_talk(text[a:b]):
            continue
        if current and b - current[0] <= max_chars:
            current = (current[0], b)
        else:
            if current:
                groups.append(current)
            current = (a, b)
    if current:
        groups.append(current)
    return groups


def chunk_document(text: str, target_chars: int) -> list[tuple[int, int]]:
    """Cut a document into chunks at paragraph boundaries (sentence boundaries for huge paragraphs)."""
    paragraphs = [(m.start(), m.end()) for m in re.finditer(r"\S(?:.*?\S)?(?=[ \t]*\n\s*\n|\s*\Z)", text, re.DOTALL)]
    pieces: list[tuple[int, int]] = []
    for a, b in paragraphs:
        if b - a <= target_chars:
            pieces.append((a, b))
        else:
            pieces.extend((a + s, a + e) for s, e in split_sentences(text[a:b]))
    chunks: list[tuple[int, int]] = []
    for a, b in pieces:
        if chunks and b - chunks[-1][0] <= target_chars:
            chunks[-1] = (chunks[-1][0], b)
        else:
            chunks.append((a, b))
    return chunks
