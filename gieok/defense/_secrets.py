"""Detectors for credentials: provider keys, tokens, private keys, URLs and password assignments.

Provider keys are found by their fixed prefix (the detector's anchor), so each pattern is only
tried where its prefix occurs and costs nothing on text that never mentions it. Assignments
(``password=…``, ``비밀번호는 …``) are found by their keyword and redact only the value;
placeholders such as ``${DB_PASSWORD}``, ``<your-key>`` or ``********`` are left alone because
they are not secrets and redacting them hides useful text.

URLs carrying a password are redacted whole (scheme, user, host and all): a connection string is a
credential as a unit, and its host and user name help an attacker as much as the password does.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from gieok.defense._detector import (
    WORD_AFTER,
    WORD_BEFORE,
    Accept,
    Detector,
    Hit,
    ScanContext,
    regex_detector,
    value_span,
)

__all__ = ["SECRET_DETECTORS"]

# Value of an assignment: quoted (anything but the quote), or a bare run of printable ASCII that
# stops at whitespace, quotes, ',' and ';' (connection strings), '&' only when a query parameter
# follows ("pass=x&user=y"), and non-ASCII, so Hangul glued after the value ("비밀번호는 abc123이야")
# is not swallowed.
_VALUE = (
    r"(?:\"(?P<dq>[^\"\r\n]{1,200})\"|'(?P<sq>[^'\r\n]{1,200})'"
    r"|(?P<bare>(?:[^\x00-\x20\"'`,;&\x7f-\U0010ffff]|&(?![A-Za-z_][A-Za-z0-9_]*=)){1,200}))"
)
_TRAILING_PUNCT = ".)]}>:"
_PLACEHOLDER = re.compile(
    r"(?i)(?:[*x•.\-_#?]+|…|<.*|\$\{?[a-z_][a-z0-9_]*\}?.*|\{\{.*|\{[a-z_]*\}|%\(?\w*\)?s"
    r"|null|none|nil|undefined|true|false|str|string|bytes|int|secretstr|optional(?:\[.*)?|required"
    r"|\[redacted.*|your[_\- ].*|(?:os\.environ|os\.getenv|process\.env|env|getenv|getpass)\b.*"
    r"|[a-z_][a-z0-9_.]*\(.*)"
)


def _value(match: re.Match[str]) -> tuple[int, int] | None:
    for group in ("dq", "sq", "bare"):
        if group in match.re.groupindex and match.start(group) >= 0:
            start, end = match.span(group)
            if group == "bare":
                # "password: hunter2." ends a sentence; the period is not part of the password.
                while end > start and match.string[end - 1] in _TRAILING_PUNCT:
                    end -= 1
            return start, end
    return None


def _looks_secret(value: str) -> bool:
    """A token/secret value: letters and digits mixed, or long and mixed-case. Keeps "token: 500"
    and "secret: true" out while letting real keys through."""
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    if len(value) >= 8 and has_digit and has_alpha:
        return True
    return len(value) >= 20 and any(c.islower() for c in value) and any(c.isupper() for c in value)


def _has_digit_or_symbol(value: str) -> bool:
    return any(not c.isalpha() for c in value)


def _has_operator(match: re.Match[str]) -> bool:
    return any(match.group(g) for g in ("op", "op2") if g in match.re.groupindex)


def _assignment(type_name: str, min_len: int, check: str = "any", keyword_only_min: int | None = None) -> Accept:
    """``accept`` for keyword-anchored values. ``check`` is "any", "digit_or_symbol" or "secret".
    A separator without ':'/'=' (Korean particles, a bare space) is weaker evidence, so it can ask for
    a longer value (``keyword_only_min``)."""

    def accept(text: str, match: re.Match[str]) -> Hit | None:
        span = _value(match)
        if span is None:
            return None
        start, end = span
        value = text[start:end]
        needed = min_len
        if keyword_only_min is not None and not _has_operator(match):
            needed = keyword_only_min
        if len(value) < needed or _PLACEHOLDER.fullmatch(value):
            return None
        if check == "secret" and not _looks_secret(value):
            return None
        if check == "digit_or_symbol" and not _has_digit_or_symbol(value):
            return None
        return Hit(type_name, start, end)

    return accept


def _has_digit(type_name: str) -> Accept:
    def accept(text: str, match: re.Match[str]) -> Hit | None:
        value = match.group()
        return Hit(type_name, *match.span()) if any(c.isdigit() for c in value) else None

    return accept


def _mixed_case(type_name: str) -> Accept:
    def accept(text: str, match: re.Match[str]) -> Hit | None:
        start, end = value_span(match)
        value = text[start:end]
        if any(c.islower() for c in value) and any(c.isupper() or c.isdigit() for c in value):
            return Hit(type_name, start, end)
        return None

    return accept


def _url_accept(type_name: str) -> Accept:
    def accept(text: str, match: re.Match[str]) -> Hit | None:
        if _PLACEHOLDER.fullmatch(match.group("password")):
            return None
        return Hit(type_name, *match.span())

    return accept


_KEY_END = r"(?![A-Za-z0-9_-])"
# Keyword boundary: not glued to a letter or digit, except at a camelCase hump ("dbPassword").
_KEYWORD_BEFORE = r"(?:(?<![A-Za-z0-9])|(?<=[a-z0-9])(?=[A-Z]))"


def _ci(literal: str) -> str:
    """Case-insensitive literal usable inside a lookbehind (where a scoped (?i:) would also fold the
    camelCase test around it)."""
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else re.escape(c) for c in literal)


_PEM_BEGIN = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----", re.ASCII)
_PEM_END = re.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----", re.ASCII)
# A truncated paste has no END line: take the base64 runs that follow, on the same line (a key
# flattened into one line) or on the next ones, and "Proc-Type: …" header lines.
_PEM_TRUNCATED_BODY = re.compile(
    r"(?:(?:[ \t]*\r?\n)?[ \t]*[A-Za-z0-9+/=]{8,}|[ \t]*\r?\n[ \t]*[A-Za-z-]+: [^\r\n]*)*", re.ASCII
)
_PEM_MAX_BODY = 65536  # a 4096-bit RSA key is ~3 KB, a PGP key block a few KB more


def _scan_private_keys(ctx: ScanContext, out: list[Hit]) -> None:
    """Each BEGIN line up to the first END line after it. END lines are located once for the whole
    text, so many BEGIN lines without an END (a pasted log) cost a bisection each, not a scan each."""
    text = ctx.text
    ends = [(m.start(), m.end()) for at in ctx.occurrences(b"-----end") if (m := _PEM_END.match(text, at))]
    end_starts = [start for start, _ in ends]
    for at in ctx.occurrences(b"-----begin"):
        begin = _PEM_BEGIN.match(text, at)
        if begin is None:
            continue
        index = bisect_left(end_starts, begin.end())
        if index < len(ends) and ends[index][0] - begin.end() <= _PEM_MAX_BODY:
            stop = ends[index][1]
        else:
            body = _PEM_TRUNCATED_BODY.match(text, begin.end())  # always matches, possibly empty
            stop = body.end() if body else begin.end()
        out.append(Hit("private_key", at, stop))


_DB_SCHEME = (
    r"(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|valkey|amqps?|mssql|sqlserver"
    r"|oracle|cockroachdb|clickhouse|neo4j(?:\+s|\+ssc)?|bolt|couchdb|cassandra|memcached|snowflake"
    r"|elasticsearch|opensearch)(?:\+[a-z0-9]+)?"
)
_USERINFO = (
    r"(?P<user>[^\x00-\x20\"'<>@/:\x7f-\U0010ffff]*):(?P<password>[^\x00-\x20\"'<>@/\x7f-\U0010ffff]+)@"
)
# Host, port, path and query in ASCII; the last character may not be sentence punctuation.
_REST = r"(?:[A-Za-z0-9._~:/?#@!$&*+,;=%-]*[A-Za-z0-9/_=%~-])?"
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")


def _stripe_start(text: str, at: int) -> int:
    """From the "k_" anchor of sk_/rk_/pk_ back to the key's first letter (whsec_ starts at its anchor)."""
    return at - 1 if at > 0 and text[at - 1] in "srp" else at


def _scheme_start(text: str, at: int) -> int:
    """From the "://" anchor back to the first character of the scheme."""
    start = at
    while start > 0 and at - start < 40 and text[start - 1] in _SCHEME_CHARS:
        start -= 1
    while start < at and not text[start].isalpha():
        start += 1
    return start


# After the key: an optional closing quote and bracket (config["password"] = …), then the operator.
_ASSIGN = r"[\"']?\]?[^\S\r\n]*(?:=>|[:=：])[^\S\r\n]*"
_KO_SEPARATOR = (
    r"(?:[^\S\r\n]*(?P<op>[:=：])[^\S\r\n]*|(?:은|는|이|가|을|를)[^\S\r\n]*(?P<op2>[:=：])?[^\S\r\n]*"
    r"|[^\S\r\n]+)"
)
# "…_key" counts only after a word that makes it a credential: api_key, apiKey, "API key", access-key.
_KEY_QUALIFIERS = ("api", "access", "private", "secret", "signing", "encryption", "master", "client")
_QUALIFIED_KEY = (
    "(?:"
    + "|".join(f"(?<={_ci(word + sep)})" for word in _KEY_QUALIFIERS for sep in ("", "_", "-", " "))
    + ")(?i:key)"
)
_EN_SECRET_KEY = _KEYWORD_BEFORE + r"(?:(?i:token|secret(?:[_-]?key)?|credentials?)|" + _QUALIFIED_KEY + ")"

SECRET_DETECTORS: tuple[Detector, ...] = (
    Detector("private_key", _scan_private_keys, anchor_keys=(b"-----begin", b"-----end")),
    regex_detector("anthropic_key", WORD_BEFORE + r"sk-ant-[A-Za-z0-9_-]{20,}", anchors=("sk-",)),
    regex_detector(
        "openai_key", WORD_BEFORE + r"sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}", anchors=("sk-",)
    ),
    regex_detector(
        "openai_key", WORD_BEFORE + r"sk-[A-Za-z0-9]{32,}" + _KEY_END, _has_digit("openai_key"), anchors=("sk-",)
    ),
    regex_detector(
        "github_token",
        WORD_BEFORE + r"(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})" + WORD_AFTER,
        anchors=("gh", "github_pat_"),
    ),
    regex_detector("gitlab_token", WORD_BEFORE + r"glpat-[A-Za-z0-9_-]{20,}", anchors=("glpat-",)),
    regex_detector(
        "slack_token",
        WORD_BEFORE + r"xox[abprs]-[A-Za-z0-9-]{10,}",
        _has_digit("slack_token"),
        anchors=("xox",),
    ),
    regex_detector(
        "slack_token",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{10,}",
        anchors=("://",),
        anchor_start=_scheme_start,
    ),
    regex_detector(
        "stripe_key",
        WORD_BEFORE + r"(?:(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})" + WORD_AFTER,
        anchors=("k_", "whsec_"),
        anchor_start=_stripe_start,
    ),
    regex_detector("google_api_key", WORD_BEFORE + r"AIza[A-Za-z0-9_-]{35}" + _KEY_END, anchors=("AIza",)),
    regex_detector(
        "aws_access_key",
        r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])",
        anchors=("akia", "asia"),
    ),
    regex_detector(
        "aws_secret_key",
        r"(?i:aws[_ -]?secret(?:[_ -]?access)?(?:[_ -]?key)?|secret[_ -]?access[_ -]?key"
        r"|aws[^\S\r\n]?(?:시크릿|비밀)[^\S\r\n]?(?:액세스[^\S\r\n]?)?키)"
        r"[\"']?[\s:=>은는이가]{1,6}[\"']?(?P<value>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        _mixed_case("aws_secret_key"),
        anchors=("aws", "secret"),
    ),
    regex_detector(
        "huggingface_token",
        WORD_BEFORE + r"hf_[A-Za-z0-9]{30,}" + WORD_AFTER,
        _mixed_case("huggingface_token"),
        anchors=("hf_",),
    ),
    regex_detector("npm_token", WORD_BEFORE + r"npm_[A-Za-z0-9]{36}" + WORD_AFTER, anchors=("npm_",)),
    regex_detector(
        "jwt", r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]*", anchors=("eyJ",)
    ),
    regex_detector(
        "database_url",
        r"(?<![A-Za-z0-9_+])(?i:" + _DB_SCHEME + r")://" + _USERINFO + _REST,
        _url_accept("database_url"),
        anchors=("://",),
        anchor_start=_scheme_start,
    ),
    regex_detector(
        "url_credentials",
        r"(?<![A-Za-z0-9_+.-])[A-Za-z][A-Za-z0-9+.-]{0,39}://" + _USERINFO + _REST,
        _url_accept("url_credentials"),
        anchors=("://",),
        anchor_start=_scheme_start,
    ),
    regex_detector(
        "password",
        _KEYWORD_BEFORE + r"(?i:password|passwd|passphrase|passcode|pass_word)" + _ASSIGN + _VALUE,
        _assignment("password", 3),
        anchors=("pass",),
    ),
    regex_detector(
        "password",
        # Short keys: "pw: 1234" and "pwd=…" in chats and connection strings; "pass" only with '='
        # because "pass: the ball" is prose.
        _KEYWORD_BEFORE + r"(?:(?i:pwd?)[^\S\r\n]*[:=：]|(?i:pass)[^\S\r\n]*=)[^\S\r\n]*" + _VALUE,
        _assignment("password", 3),
        anchors=("pass", "pw"),
    ),
    regex_detector(
        "password",
        _KEYWORD_BEFORE
        + r"(?i:password|passcode|passphrase)[^\S\r\n]+(?:is|was)[^\S\r\n]*:?[^\S\r\n]+"
        + _VALUE,
        _assignment("password", 4, "digit_or_symbol"),
        anchors=("pass",),
    ),
    regex_detector(
        "password",
        r"(?:비밀[^\S\r\n]?번호|비번|패스워드|암호(?=[^\S\r\n]*[:=：]))" + _KO_SEPARATOR + _VALUE,
        _assignment("password", 3, keyword_only_min=4),
        anchors=("비밀", "비번", "패스", "암호"),
    ),
    regex_detector(
        "generic_secret",
        _EN_SECRET_KEY + _ASSIGN + _VALUE,
        _assignment("generic_secret", 8, "secret"),
        anchors=("key", "token", "secret", "credential"),
    ),
    regex_detector(
        "generic_secret",
        WORD_BEFORE + r"(?:[Bb]earer|[Bb]asic|BEARER|BASIC)[^\S\r\n]+(?P<bare>[A-Za-z0-9._~+/-]{16,}=*)",
        _assignment("generic_secret", 16, "secret"),
        anchors=("bearer", "basic"),
    ),
    regex_detector(
        "generic_secret",
        r"(?:(?i:api)[^\S\r\n]?키|토큰|시크릿(?:[^\S\r\n]?키)?|액세스[^\S\r\n]?키"
        r"|인증[^\S\r\n]?(?:키|토큰)|비밀[^\S\r\n]?키)"
        + _KO_SEPARATOR
        + _VALUE,
        _assignment("generic_secret", 8, "secret"),
        anchors=("api", "토큰", "시크릿", "액세스", "인증", "비밀"),
    ),
)
