"""Deterministic extraction: one fact per meaningful message or sentence group.

No model is involved, so the result is reproducible: a message becomes one fact unless it is long, in
which case consecutive sentences are grouped up to a size limit. Pure small talk ("ㅋㅋ 고마워",
"ok thanks", "넵 알겠습니다!") stays in the verbatim source but yields no fact. Documents are cut into
chunks at paragraph boundaries, and each chunk into sentence-group facts.
"""

from __future__ import annotations

import re

from gieok.text.korean import analyze, has_hangul
from gieok.text.sentences import split_sentences

__all__ = ["chunk_document", "facts_from_text", "filler_word", "is_small_talk", "without_addressed_name"]

# Words that carry no memory on their own. A message made only of these (and punctuation, emoji,
# laughter, a name it addresses) is small talk: greetings, thanks, acknowledgements, reactions
# ("축하해!", "Sounds fun!") and an assistant's offer to help ("무엇을 도와드릴까요?").
_SMALL_TALK_WORDS = frozenset(
    """ok okay k kk thanks thank thx ty you u lol lmao haha hahaha hehe yes yeah yep yup no nope sure cool
    nice great good awesome bye goodbye see later hi hello hey morning night gn np welcome alright right
    got it sounds wow oh ah hmm mhm uh um indeed true agreed totally absolutely definitely much so very too
    a the me lot and for that that's is it it's this was so
    congrats congratulations fun amazing lovely glad happy wonderful fantastic excellent perfect exciting
    brilliant sweet neat yay woohoo omg aww awww whoa luck enjoy care same such really what's whats sup
    how are doing hope well i i'm im am sorry sounds like looks seems such an to hear love
    can help anything else let know if need feel free ask with today what do pleasure problem course
    of your you're youre meet again soon anytime whenever
    고마워 고마워요 고맙다 고맙습니다 감사 감사해 감사해요 감사합니다 땡큐 응 응응 웅 네 넹 넵 예
    아니 아니요 알겠어 알겠어요 알겠습니다 알았어 알았어요 오케이 좋아 좋아요 좋다 좋네 좋네요 굿
    그래 그래요 그렇구나 그렇군요 아하 아 오 와 헐 대박 진짜 정말 ㅇㅇ ㅇㅋ 안녕 안녕하세요 잘자
    잘자요 바이 수고 수고했어 수고하세요 수고하셨습니다 맞아 맞아요 그치 ㄱㅅ ㄳ 넵넵 네네
    천만에요 별말씀을 기억할게요 기억할게 기억하겠습니다 고마워용 감사요
    축하 축하해 축하해요 축하드려요 축하합니다 축하드립니다 반가워 반가워요 반갑습니다 반가워용 최고 최고야
    최고예요 멋지다 멋져 멋져요 멋지네요 화이팅 파이팅 힘내 힘내요 다행 다행이다 다행이네요 다행이에요
    우와 와우 어머 저런 아이고 그렇네요 그러네요 그렇죠 그쵸 당연하죠 물론 물론이죠 무엇을 뭘 무엇이든
    언제든 언제든지 편하게 말씀해 말씀해주세요 주세요 도와드릴까요 도와드릴게요 도와 드릴까요 도움이
    필요하시면 궁금한 점 있으시면 물어보세요 또 오늘도 좋은 하루 되세요 보내세요 즐거운 시간""".split()
)
# word beginnings that stay small talk whatever ending is glued on ("감사드려요", "재밌겠다!", "부러워요")
_SMALL_TALK_STEMS = ("감사", "고마", "알겠", "수고", "축하", "반가", "반갑", "재밌겠", "재미있겠", "멋지", "멋져",
                     "부럽", "부러워", "좋겠", "잘됐", "다행", "화이팅", "파이팅", "즐거운", "즐겁게")
_LAUGHTER = re.compile(r"^(?:[ㅋㅎㅠㅜ]+|(?:ha)+h?|(?:he)+h?|lo+l|xd+)$", re.IGNORECASE)
_WORD = re.compile(r"[\w']+", re.UNICODE)
# a name the message addresses: "서연님", "민수 씨", "Thanks, Mel!", "Congrats Alex!"
_KO_VOCATIVE = re.compile(r"^[가-힣]{1,4}(?:님|씨)$")
_EN_VOCATIVE = re.compile(r"(?:^|,\s*|(?<=[a-z!] ))([A-Z][a-z]{1,15})(?=\s*[,!.?~]|\s*$)")
_NOT_BEFORE_NAME = frozenset({"to", "in", "at", "from", "of", "on", "into", "visit", "visited", "near", "like"})


# dictionary forms (Kiwi lemmas) of filler words whose spoken forms vary ("그렇네", "맞죠", "대박이다")
_SMALL_TALK_LEMMAS = frozenset("그렇다 맞다 좋다 대박 진짜 정말 고맙다 감사하다 다행 최고".split())
# Kiwi tags that carry no content of their own: particles, endings, suffixes, the copula, punctuation
_FUNCTION_TAGS = ("J", "E", "XS", "VCP", "VCN", "VX", "SF", "SP", "SS", "SE", "SO", "SW")


def filler_word(word: str) -> bool:
    """Whether one word (lower case) is filler on its own: listed, laughter, an addressed \"서연님\"."""
    if word in _SMALL_TALK_WORDS or _LAUGHTER.match(word) or _KO_VOCATIVE.match(word):
        return True
    stripped = re.sub(r"[ㅋㅎㅠㅜ~!.?]+$", "", word)
    if stripped in _SMALL_TALK_WORDS or stripped.startswith(_SMALL_TALK_STEMS):
        return True
    return has_hangul(word) and _filler_morphemes(word)


def _filler_morphemes(word: str) -> bool:
    """A Korean word the list does not hold verbatim is filler when every morpheme that carries
    meaning is: an interjection ("오호", "음"), or a filler word in any inflection ("대박이다",
    "그렇네", "맞죠" — the list holds "대박", the lemmas "그렇다", "맞다")."""
    tokens = analyze(word)
    meaning: list[tuple[str, str]] = []
    for form, tag, lemma, *_ in tokens:
        if meaning and meaning[-1][0] == "XPN":  # Kiwi reads "대박" as the prefix 대 + 박
            meaning[-1] = (tag, meaning[-1][1] + form)
        elif not tag.startswith(_FUNCTION_TAGS):
            meaning.append((tag, form if tag == "XPN" else lemma))
    return bool(meaning) and all(
        tag == "IC" or lemma in _SMALL_TALK_WORDS or lemma in _SMALL_TALK_LEMMAS or _LAUGHTER.match(lemma)
        or lemma.startswith(_SMALL_TALK_STEMS) for tag, lemma in meaning)


def without_addressed_name(text: str) -> str:
    """``text`` without one name it addresses ("That's awesome, Mel!"), unless the name follows a word
    that makes it a place or a thing ("Welcome to Seoul!")."""
    for m in _EN_VOCATIVE.finditer(text):
        before = text[: m.start(1)].split()
        if m.start(1) == 0 or (before and before[-1].lower().strip(",") in _NOT_BEFORE_NAME):
            continue
        return text[: m.start(1)] + text[m.end(1):]
    return text


def is_small_talk(text: str) -> bool:
    """True when ``text`` has no content beyond greetings, thanks, acknowledgements, reactions, an
    offer to help, laughter and the name of the one addressed."""
    words = _WORD.findall(without_addressed_name(text).lower())
    if not words:
        return True  # only punctuation or emoji
    return all(filler_word(word) for word in words)


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
