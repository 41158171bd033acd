"""The text the detectors read: a normalised projection of the caller's text, with a map back.

People (and attackers) spell the same value many ways: full-width digits (``０１０-１２３４-５６７８``),
an en dash or U+2010 for the hyphen, ``900101 - 1234567``, one digit at a time (``0 1 0 1 2 …``), a
zero-width space inside ``sk-proj-…``, ``＠`` or ``[at]`` in an e-mail, digits in Hangul
(공일공-일이삼사-오육칠팔), a key broken by a space. Instead of teaching every detector every
spelling, the detectors run on one projection where all of these read the plain way:

1. **characters** — the compatibility forms NFKC folds to ASCII (full-width and circled digits and
   letters, ``＠``, ``．``, odd spaces), the digits of every other script (Arabic-Indic ``٠١٢``,
   extended ``۰۱۲``, Devanagari, Thai …) to ASCII ones, every dash to ``-``, middle dots to ``.``,
   ``ㅡ`` (typed as a dash on Korean keyboards) to ``-``; zero-width and other invisible format
   characters are removed;
   then **digit separators** (:mod:`gieok.defense._digit_separators`): ``~``, ``_``, ``一``, ``ー``,
   ``〜`` and their look-alikes between digit groups (``010~1234~5678``) become ``-``, unless they
   join two numbers into a range (``2024-05-01~2024-05-31``, ``02-123-4567~8``);
2. **Hangul digits** — a run of nine or more digits some of which are spelled 공/영/일/이/… becomes ASCII;
3. **spelled-out e-mail** — ``kim [at] example [dot] com``, ``kim 골뱅이 example.com``,
   ``kim at example dot com``, ``kim @ example.com``, become ``kim@example.com``;
4. **spaced digits** — spaces around a ``-`` between digits (or on both sides of a ``.``) are dropped
   unless the separator stands between two whole numbers (``010-1234-5678 - 010-9876-5432``), and so
   are spaces between single digits (six or more in a row);
5. **split keys** — after a provider key prefix (``sk-``, ``ghp_``, ``AKIA`` …), a single space followed
   by more key-like characters (a digit, or mixed case) is dropped, and so is a line break (or a tab,
   or several spaces) followed by random-looking ones (letters and digits alternating, or mixed case).

Each step that changes anything adds a :class:`Layer` — its edits, in the coordinates of its input —
and a finding in the projection is mapped back through the layers to the caller's text. Inside a
one-for-one replacement (a full-width digit) positions map exactly; an edit that changes length maps
to its whole source, so a finding never ends in the middle of what was folded. The stored text is the
caller's, with only the mapped spans replaced: everything else stays exactly as written.

Every step is gated by a cheap test (``str.isascii`` is O(1); one character-class search; a byte
search on the ASCII projection; for step 5, the scan's own anchor search, which runs anyway), so
ordinary text pays a few passes at C speed and no more. Step 5 runs from :mod:`gieok.defense._scan`,
after the anchors are known.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field

from gieok.defense._digit_separators import digit_separators, one_number

__all__ = ["Layer", "Projection", "project", "split_keys", "CHAR_TABLE", "FOLDABLE_GATE", "KEY_ANCHORS",
           "KEY_PREFIXES"]


# -- 1. characters ------------------------------------------------------------------------------
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\u2796\u02d7\u2e3a\u2e3b\ufe58\ufe63\uff0d\u3161\uffda"
_DOTS = "\u00b7\u2219\u22c5\u30fb\uff65\u3002\uff61"
_INVISIBLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f\u200b\u200c\u200d\u200e\u200f"
    "\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\u206a\u206b\u206c"
    "\u206d\u206e\u206f\u3164\ufeff\uffa0" + "".join(chr(c) for c in range(0xFE00, 0xFE10))
)
_SPACES = "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
# Where NFKC folds something to ASCII: Latin-1 superscripts and ordinals, letterlike symbols and number
# forms, super- and subscripts, enclosed alphanumerics (①, ⑴, ⒈), squared forms, small forms (﹫),
# full-width forms, mathematical alphanumerics (𝟎), enclosed alphanumeric supplement.
_NFKC_RANGES = ((0x00A0, 0x0100), (0x2070, 0x2190), (0x2460, 0x2500), (0x3200, 0x3400), (0xFE50, 0xFE70),
                (0xFF00, 0xFFF0), (0x1D400, 0x1D800), (0x1F100, 0x1F110))


# Arabic decimal and thousands separators, so "١٢٫٥" and "١٢٬٠٠٠" read like "12.5" and "12,000".
_ARABIC_SEPARATORS = {"\u066b": ".", "\u066c": ","}
_OTHER_DIGITS_FROM, _OTHER_DIGITS_TO = 0x0660, 0x1FC00  # Arabic-Indic zero to the segmented digits


def _other_digits(table: dict[str, str]) -> dict[str, str]:
    """Every decimal digit NFKC leaves alone (Arabic-Indic, Devanagari, Thai, Myanmar, …) as ASCII.
    Unicode lays each script's digits out as a run of ten, so probing every tenth code point finds
    every run without a call per code point (import time stays a few milliseconds)."""
    digits: dict[str, str] = {}
    for code in range(_OTHER_DIGITS_FROM, _OTHER_DIGITS_TO, 10):
        value = unicodedata.decimal(chr(code), None)
        if value is None:
            continue
        for other in range(code - value, code - value + 10):
            char = chr(other)
            if char not in table and unicodedata.decimal(char, None) is not None:
                digits[char] = str(unicodedata.decimal(char))
    return digits


def _digit_runs() -> str:
    """The BMP digit runs of :func:`_other_digits` as class ranges. Their number costs nothing per
    character: the regex compiler folds a class's BMP part into one bitmap."""
    ranges = []
    for code in range(_OTHER_DIGITS_FROM, 0x10000, 10):
        value = unicodedata.decimal(chr(code), None)
        if value is not None:
            ranges.append(f"{chr(code - value)}-{chr(code - value + 9)}")
    return "".join(sorted(set(ranges)))


def _char_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for low, high in _NFKC_RANGES:
        for code in range(low, high):
            char = chr(code)
            folded = unicodedata.normalize("NFKC", char)
            if folded != char and folded.isascii() and folded.isprintable():
                table[char] = folded
    table.update(_other_digits(table))
    table.update(_ARABIC_SEPARATORS)
    table.update(dict.fromkeys(_DASHES, "-"))
    table.update(dict.fromkeys(_DOTS, "."))
    table.update(dict.fromkeys(_SPACES, " "))
    table.update(dict.fromkeys(_INVISIBLE, ""))
    return table


CHAR_TABLE = _char_table()
_TRANSLATE = str.maketrans(CHAR_TABLE)
# A superset of the table's characters, in few ranges: the regex engine tests a class range by range,
# so the table's 1,300 characters as such would cost a comparison each per character of text. The
# Hangul compatibility jamo (ㅋㅋ, ㅠㅠ) are left out: Korean chat is full of them. A test pins that
# the class covers the table.
# Beyond the BMP, one range from the Osmanya to the Adlam digits (mathematical alphanumerics inside):
# it holds no emoji and no script in everyday use.
_FOLDABLE_CLASS = (
    "[\u00a0-\u00ba\u02d7\u034f\u061c\u066b\u066c\u115f\u1160\u1680\u17b4\u17b5\u180b-\u180f\u2000-\u24ea"
    "\u2796\u2e3a\u2e3b\u3000-\u3002\u30fb\u3161-\u3164\u3250-\u33ff\ufe00-\uffef"
    + _digit_runs() + "\U000104a0-\U0001e959\U0001f100-\U0001f10a\U0001fbf0-\U0001fbf9]"
)
FOLDABLE_GATE = re.compile(_FOLDABLE_CLASS)
_FOLDABLE = re.compile(_FOLDABLE_CLASS + "+")  # slower than the single class, so only after the gate


# -- 2. Hangul digits ---------------------------------------------------------------------------
_HANGUL_DIGIT_VALUES = {"공": "0", "영": "0", "일": "1", "이": "2", "삼": "3", "사": "4", "오": "5", "육": "6",
                        "륙": "6", "칠": "7", "팔": "8", "구": "9"}
_HD = "공영일이삼사오육륙칠팔구"
# Four Hangul-or-ASCII digits starting with a Hangul one; widened below over the ASCII digits before it.
_HANGUL_NUMBER = re.compile(f"[{_HD}](?:[ \\-.]?[0-9{_HD}]){{3,}}")
_DIGIT_RUN_BEFORE = re.compile(r"[0-9](?:[ \-.]?[0-9])*[ \-.]?$")
_DIGIT_GROUP = re.compile(f"[0-9{_HD}]+")
_MIN_NUMBER_DIGITS = 9  # the shortest phone number; fewer Hangul digits in a row are ordinary words

# -- 3. spelled-out e-mail ----------------------------------------------------------------------
# "[at]", "(at)", "골뱅이", and a plain '@' with spaces around it ("kim @ example.com")
_AT_WORD = (r"(?:[ \t]*[\[({<][ \t]*(?i:at)[ \t]*[\])}>][ \t]*|[ \t]*골뱅이[ \t]*"
            r"|(?P<spaced>[ \t]+@[ \t]*|@[ \t]+))")
_DOT_WORD = r"(?:[ \t]*[\[({<][ \t]*(?i:dot)[ \t]*[\])}>][ \t]*|[ \t]+(?i:dot)[ \t]+|[ \t]*(?:닷|쩜)[ \t]*)"
_LOCAL = r"(?<![A-Za-z0-9._%+-])(?P<local>[A-Za-z0-9][A-Za-z0-9._%+-]{0,63})"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_TLDS = r"(?i:com|net|org|kr|co|io|dev|me|ai|app|edu|gov|jp|cn|uk|de|us|info|biz|xyz)"
_SPELLED_EMAIL = re.compile(
    # "kim [at] example [dot] com", "kim 골뱅이 naver 닷 com", "kim(at)example.com"
    _LOCAL + _AT_WORD + rf"(?P<domain>{_LABEL}(?:(?:{_DOT_WORD}|\.){_LABEL})+)(?![A-Za-z0-9-])"
    # "kim.minji at example dot com": plain words, so the local part must look like a user name
    # (a digit, '.', '_' or '+') and every dot is spelled, ending in a known top-level domain
    rf"|(?<![A-Za-z0-9._%+-])(?P<local2>[A-Za-z0-9]+[._+0-9][A-Za-z0-9._+]*)[ \t]+(?i:at)[ \t]+"
    rf"(?P<domain2>{_LABEL}(?:[ \t]+(?i:dot)[ \t]+{_LABEL})*[ \t]+(?i:dot)[ \t]+{_TLDS})(?![A-Za-z0-9-])"
)
_DOT_SPLIT = re.compile(_DOT_WORD + r"|\.")
# The gates of steps 3 and 4 are a few byte searches on one translation of the ASCII projection:
# digits, '-' and '.' become '0', brackets '[' and ']', and the letters of "at" and "dot" lower case.
_GATE_TABLE = bytes.maketrans(b"0123456789-.({<)}>ADOT", b"000000000000[[[]]]adot")
_EMAIL_GATES = (b"at]", b"at ]")
# A bare '@' with spaces is also Python's matrix product ("vectors @ np.asarray(…)") and prose
# ("visit us @ example.com", "find me @ github.com": a web site). So a spaced '@' makes an address
# only before a common top-level domain, not before a call, and not after a pronoun.
_NOT_A_MAILBOX = frozenset({"i", "me", "we", "us", "you", "him", "her", "it", "them", "they", "he", "she"})
_MAIL_TLDS = frozenset({"com", "net", "org", "edu", "gov", "mil", "int", "io", "co", "kr", "jp", "cn", "uk", "de",
                        "fr", "us", "ca", "au", "ru", "br", "it", "es", "nl", "se", "ch", "tw", "hk", "sg", "vn",
                        "me", "ai", "app", "dev", "info", "biz", "xyz", "tv", "cc", "ac", "ne", "or", "go"})

# -- 4. spaced digits ---------------------------------------------------------------------------
_SPACED_GATES = (b"0 0", b"0  0")
# Around '-' on either side; around '.' only on both ("2024. 4111 …" ends a sentence).
_SPACES_AROUND_SEPARATOR = re.compile(rb"[0-9]( {0,2})-( {0,2})(?=[0-9])|[0-9]( {1,2})\.( {1,2})(?=[0-9])")
# "0 1 0 1 2 …", also with a spaced separator between groups ("0 1 0 - 1 2 3 4 - …").
_SINGLE_DIGITS = re.compile(rb"(?<![0-9A-Za-z])[0-9](?:(?: | ?[-.] ?)[0-9](?![0-9])){5,}")

# -- 5. split keys --------------------------------------------------------------------------------
KEY_PREFIXES = ("sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xoxa-", "xoxb-", "xoxp-",
                "xoxr-", "xoxs-", "sk_live_", "sk_test_", "rk_live_", "rk_test_", "pk_live_", "pk_test_", "whsec_",
                "AIza", "AKIA", "ASIA", "hf_", "npm_")
_KEY_START = re.compile(r"(?<![A-Za-z0-9_])(?:" + "|".join(map(re.escape, KEY_PREFIXES)) + r")[A-Za-z0-9_\-]*")
# A continuation is not the next assignment's name ("… aws_secret_access_key=…"). The gap is one
# space, or a line break (a key wrapped in a terminal or a mail), a tab or several spaces.
_KEY_SEGMENT = re.compile(
    r"(?P<gap> |[ \t]*\r?\n[ \t]*|[ \t]{2,}|\t)([A-Za-z0-9_\-]{4,})(?![A-Za-z0-9_\-]|[ ]?[=:])"
)
_FIXED_LENGTH = ("AKIA", "ASIA")
_AWS_KEY_LENGTH = 20
_LETTER_DIGIT_RUNS = re.compile(r"[A-Za-z]+|[0-9]+")
_RANDOM_MIN_LENGTH = 8
_PLAIN_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+")
# The scan's anchors that may start one of the prefixes, and how far back from the anchor it starts.
KEY_ANCHORS = {"sk-": 0, "gh": 0, "glpat-": 0, "xox": 0, "k_": 1, "whsec_": 0, "aiza": 0, "akia": 0, "asia": 0,
               "hf_": 0, "npm_": 0}


@dataclass(frozen=True)
class Layer:
    """Edits one step made, as parallel sorted lists: ``[out_starts[i], out_ends[i])`` of the step's
    output came from ``[in_starts[i], in_ends[i])`` of its input; ``exact[i]`` when they have the
    same length (so positions inside map one to one)."""

    out_starts: list[int]
    out_ends: list[int]
    in_starts: list[int]
    in_ends: list[int]
    exact: list[bool]

    def start(self, pos: int) -> int:
        """Where a finding starting at output ``pos`` starts in the input."""
        j = bisect_right(self.out_starts, pos) - 1
        if j < 0:
            return pos
        if pos < self.out_ends[j]:
            return self.in_starts[j] + (pos - self.out_starts[j]) if self.exact[j] else self.in_starts[j]
        return self.in_ends[j] + (pos - self.out_ends[j])

    def end(self, pos: int) -> int:
        """Where a finding ending at output ``pos`` (exclusive) ends in the input."""
        j = bisect_left(self.out_starts, pos) - 1
        if j < 0:
            return pos
        if pos <= self.out_ends[j]:
            return self.in_starts[j] + (pos - self.out_starts[j]) if self.exact[j] else self.in_ends[j]
        return self.in_ends[j] + (pos - self.out_ends[j])


def _apply(text: str, edits: Iterable[tuple[int, int, str]]) -> tuple[str, Layer | None]:
    """``edits`` are sorted, disjoint ``(start, end, replacement)`` ranges of ``text``."""
    pieces: list[str] = []
    layer = Layer([], [], [], [], [])
    cursor = out = 0
    for start, end, replacement in edits:
        pieces.append(text[cursor:start])
        out += start - cursor
        layer.out_starts.append(out)
        out += len(replacement)
        layer.out_ends.append(out)
        layer.in_starts.append(start)
        layer.in_ends.append(end)
        layer.exact.append(len(replacement) == end - start)
        pieces.append(replacement)
        cursor = end
    if not layer.out_starts:
        return text, None
    pieces.append(text[cursor:])
    return "".join(pieces), layer


@dataclass
class Projection:
    """``text`` is what the detectors read; ``span`` maps a finding in it back to the original."""

    original: str
    text: str
    layers: list[Layer] = field(default_factory=list)
    folded: bytes | None = None  # ``text`` as ASCII bytes ('?' for the rest), when project() made it

    def span(self, start: int, end: int) -> tuple[int, int]:
        for layer in reversed(self.layers):
            start, end = layer.start(start), layer.end(end)
        return start, end

    def add(self, edits: Iterable[tuple[int, int, str]]) -> None:
        self.text, layer = _apply(self.text, edits)
        if layer is not None:
            self.layers.append(layer)
            self.folded = None


def _fold_characters(text: str) -> list[tuple[int, int, str]]:
    """One exact edit per run of one-for-one replacements; deletions and expansions on their own, so
    a zero-width space next to a label does not stretch the label into the finding."""
    edits: list[tuple[int, int, str]] = []
    table = CHAR_TABLE
    for match in _FOLDABLE.finditer(text):
        piece_start = -1
        for i in range(match.start(), match.end()):
            replacement = table.get(text[i])
            if replacement is not None and len(replacement) == 1:
                if piece_start < 0:
                    piece_start = i
                continue
            if piece_start >= 0:
                edits.append((piece_start, i, text[piece_start:i].translate(_TRANSLATE)))
                piece_start = -1
            if replacement is not None:
                edits.append((i, i + 1, replacement))
        if piece_start >= 0:
            edits.append((piece_start, match.end(), text[piece_start : match.end()].translate(_TRANSLATE)))
    return edits


def _spelled_number(group: str, spelled: int) -> bool:
    """Two or more Hangul digits alone ("일이삼사"), or interleaved with ASCII ones ("공1공"). Hangul
    only before or only after the ASCII digits is a word glued to a number: "회사02-123-4567" (회사,
    the office), "사사001-…", "010-1234-5678이야" (이, a particle)."""
    if spelled == len(group):
        return spelled >= 2
    if spelled == 0:
        return False
    # Two or more Hangul digits, inside the number ("010일이삼사5678") or making half of it ("공1공");
    # one Hangul syllable between digits ("0사4000…", "3사4") or a number merely between two
    # ("사0001013000000사") is a word touching a number, not a spelling.
    if spelled < 2:
        return False
    # A lone Hangul digit inside a long number ("사2221000000000009사0": the 사 of a word, glued on
    # both sides) is not a spelling either: inside, Hangul digits spell only two or more in a row.
    kinds = "".join("h" if c in _HANGUL_DIGIT_VALUES else "a" for c in group)
    inside = re.findall("h+", kinds.strip("h"))
    return any(len(run) >= 2 for run in inside) or (kinds.strip("a").count("a") > 0 and 2 * spelled >= len(group))


def _hangul_digits(text: str) -> list[tuple[int, int, str]]:
    """Groups (between separators) spelled in Hangul become ASCII when the number they make has nine
    digits or more (see :func:`_spelled_number`)."""
    edits: list[tuple[int, int, str]] = []
    floor = 0
    values = _HANGUL_DIGIT_VALUES
    for match in _HANGUL_NUMBER.finditer(text):
        start, end = match.span()
        lead = _DIGIT_RUN_BEFORE.search(text, max(floor, start - 24), start)
        if lead is not None:
            start = lead.start()
        floor = end
        converted: list[tuple[int, int, str]] = []
        digits = 0
        for group in _DIGIT_GROUP.finditer(text, start, end):
            spelled = [i for i in range(*group.span()) if text[i] in values]
            if _spelled_number(group.group(), len(spelled)):
                converted.extend((i, i + 1, values[text[i]]) for i in spelled)
                digits += len(group.group())
            else:
                digits += len(group.group()) - len(spelled)
        if converted and digits >= _MIN_NUMBER_DIGITS:
            edits.extend(converted)
    return edits


def _spaced_address(local: str, tld: str, text: str, end: int) -> bool:
    return (local.lower() not in _NOT_A_MAILBOX and tld.lower() in _MAIL_TLDS
            and not text.startswith("(", end))


def _spelled_emails(text: str) -> list[tuple[int, int, str]]:
    edits = []
    for match in _SPELLED_EMAIL.finditer(text):
        if match.group("local") is not None:
            local, domain = match.group("local"), match.group("domain")
        else:
            local, domain = match.group("local2"), match.group("domain2")
        labels = [label.strip() for label in _DOT_SPLIT.split(domain)]
        if match.group("spaced") is not None and not _spaced_address(local, labels[-1], text, match.end()):
            continue
        replacement = local + "@" + ".".join(labels)
        if replacement != match.group():
            edits.append((match.start(), match.end(), replacement))
    return edits


def _spaced_at(folded: bytes) -> bool:
    """Is there an '@' with a space or tab beside it? Visits the '@'s only: a search for " @" would
    read the whole text, and most texts with an '@' hold plain addresses."""
    at = folded.find(b"@")
    while at != -1:
        if folded[at - 1 : at] in (b" ", b"\t") or folded[at + 1 : at + 2] in (b" ", b"\t"):
            return True
        at = folded.find(b"@", at + 1)
    return False


def _spaced_digits(folded: bytes, gated: bytes) -> list[tuple[int, int, str]]:
    """The regexes run only in windows around "digit, space, digit" (in ``gated``, '-' and '.' are
    digits too): a regex that starts with a character class tries every position of the text."""
    windows: list[list[int]] = []
    for needle in _SPACED_GATES:
        at = gated.find(needle)
        while at != -1:
            low, high = max(0, at - 32), at + 32
            if windows and low <= windows[-1][1]:
                windows[-1][1] = max(windows[-1][1], high)
            else:
                windows.append([low, high])
            at = gated.find(needle, at + 1)
    windows.sort()
    deletions: set[int] = set()
    text = ""  # decoded on the first spaced separator
    for low, high in windows:
        for match in _SPACES_AROUND_SEPARATOR.finditer(folded, low, high):
            separator = match.end(1) if match.start(1) >= 0 else match.end(3)
            if separator == match.start() + 1:  # "010-1234": nothing to close up
                continue
            text = text or folded.decode("ascii")
            if not one_number(text, separator, match.end()):
                continue
            for group in (1, 2, 3, 4):
                if match.start(group) >= 0:
                    deletions.update(range(*match.span(group)))
        for match in _SINGLE_DIGITS.finditer(folded, low, high):
            deletions.update(i for i in range(*match.span()) if folded[i] == 32)
    return [(i, i + 1, "") for i in sorted(deletions)]


def _keylike(segment: str) -> bool:
    """Random key text, not a word: a digit in it, or upper and lower case mixed unlike a word."""
    if any(c.isdigit() for c in segment):
        return True
    return (len(segment) >= 8 and any(c.isupper() for c in segment) and any(c.islower() for c in segment)
            and not _PLAIN_WORD.fullmatch(segment))


def _random(segment: str) -> bool:
    """Stricter than :func:`_keylike`, for a wider gap: the next line starting "Thanks2024" or
    "Version2" is text; random key text alternates letters and digits or mixes case at random."""
    if len(segment) < _RANDOM_MIN_LENGTH:
        return False
    return len(_LETTER_DIGIT_RUNS.findall(segment)) >= 3 or (
        not any(c.isdigit() for c in segment) and _keylike(segment))


def split_keys(text: str, starts: Iterable[int]) -> list[tuple[int, int, str]]:
    """Step 5, at the positions where a key prefix may start (the scan's anchor occurrences)."""
    edits: list[tuple[int, int, str]] = []
    done = -1
    for start in sorted(starts):
        match = _KEY_START.match(text, start) if start > done else None
        if match is None:
            continue
        at = match.end()
        if match.group().startswith(_FIXED_LENGTH) and at - start >= _AWS_KEY_LENGTH:
            done = at  # an AWS key id is exactly 20 characters: one that is whole continues nowhere
            continue
        while (segment := _KEY_SEGMENT.match(text, at)) is not None and (
                _keylike(segment.group(2)) if segment.group("gap") == " " else _random(segment.group(2))):
            edits.append((at, segment.end("gap"), ""))
            at = segment.end()
        done = at
    return edits


def project(text: str) -> Projection:
    """The detectors' view of ``text`` (see the module docstring). ``folded`` is left as the ASCII
    projection (one byte per character) of the result, for the scan to reuse."""
    projection = Projection(text, text)
    if not text.isascii() and FOLDABLE_GATE.search(text) is not None:
        projection.add(_fold_characters(text))
    projection.add(digit_separators(projection.text))
    if not projection.text.isascii():
        projection.add(_hangul_digits(projection.text))
    folded = projection.text.encode("ascii", "replace")
    gated = folded.translate(_GATE_TABLE)
    if ((b"]" in gated and any(gate in gated for gate in _EMAIL_GATES))
            or (b" dot " in gated and b" at " in gated) or "골뱅이" in projection.text
            or _spaced_at(folded)):
        projection.add(_spelled_emails(projection.text))
        folded = projection.text.encode("ascii", "replace")
        gated = folded.translate(_GATE_TABLE)
    if b"0 " in gated and any(gate in gated for gate in _SPACED_GATES):
        before = len(projection.layers)
        projection.add(_spaced_digits(folded, gated))
        if len(projection.layers) != before:
            folded = projection.text.encode("ascii", "replace")
    projection.folded = folded
    return projection
