"""Detectors for personal identifiers: e-mail, Korean registration numbers, cards, phones, accounts.

Digit patterns are everywhere in ordinary text (dates, prices, versions, order numbers), so each
pattern is loose about layout and strict about meaning: a registration number must start with a real
past birth date, a card must carry an issuer prefix and pass Luhn, a business number its check digit.
Bank accounts and passports have no internal structure worth checking, so they need a bank or
passport word nearby instead.

Korean representative numbers (1588-xxxx and friends) are deliberately not phone numbers here: they
belong to businesses, are published on purpose, and "1592-1598" is a span of years.
"""

from __future__ import annotations

import re

from gieok.defense import _validators as v
from gieok.defense._detector import (
    NUM_AFTER,
    NUM_BEFORE,
    WORD_AFTER,
    WORD_BEFORE,
    Detector,
    Hit,
    ScanContext,
    regex_detector,
)

__all__ = ["IDENTIFIER_DETECTORS"]

# --- reference numbers ----------------------------------------------------------------------------
# An order, tracking, invoice or booking number is long, random and sometimes passes a checksum: about
# one 16-digit order number in ten is Luhn-valid, and one in a few starts like a card. What says it is
# not a card, an account or a registration number is the label written right before it, so a number
# whose nearest label is one of these is left alone ("주문번호: 4000…", "tracking no. 9400…",
# "지점코드 123-456789-01"). Only the nearest label counts: "카드번호 4111…" is still a card, and so is
# "주문번호 A-1, 카드 4111…".
_SP = r"[^\S\r\n]?"
_REFERENCE_LABEL = re.compile(
    # words that name a reference number on their own ("주문 4000…", "order 4000…") …
    r"(?:(?:주문|송장|운송장|택배|예약|영수증|인보이스|쿠폰|티켓)" + _SP + r"(?:번호|코드|no\.?|ID)?"
    # … and words that do only with 번호 / 코드 after them ("회원번호", "지점 코드")
    r"|(?:배송|운송|등기|승인|접수|관리|거래|일련|제품|모델|사건|문서|회원|고객|상품|지점|은행|우편|인증|확인|참조|조회)"
    + _SP + r"(?:번호|코드)|코드"
    r"|(?i:(?:order|tracking|invoice|waybill|shipment|parcel|booking|reservation|confirmation|reference|ref|ticket"
    r"|serial|receipt|voucher|coupon|promo)(?:" + _SP + r"(?:no\.?|num(?:ber)?|#|id|code|key))?"
    r"|(?:customer|member|case|transaction|txn|branch|sort|routing|zip|postal|product|model|item)" + _SP
    + r"(?:no\.?|num(?:ber)?|#|id|code|key)|code))"
    # then a particle or label punctuation, and the number
    r"(?:" + _SP + r"(?:은|는|이|가|:|：|#|=|-|\.))*[^\S\r\n]*\Z"
)
_LABEL_REACH = 28


def _reference_number(text: str, start: int) -> bool:
    """Is the nearest label before ``text[start:]`` one of an order/tracking/reference number?"""
    before = text[max(0, start - _LABEL_REACH) : start]
    match = _REFERENCE_LABEL.search(before)
    # the label must be a word of its own, not the tail of one ("barcode" is not "code")
    return match is not None and (match.start() == 0 or not before[match.start() - 1].isalpha()
                                  or not before[match.start() - 1].isascii())


# --- e-mail -----------------------------------------------------------------------------------------
# Found from each '@' outwards instead of by one regex over the whole text: the text is scanned at
# memchr speed and the regex only ever runs on the few characters after an '@'.
_LOCAL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._%+-")
_DOMAIN = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+([A-Za-z]{2,24})(?![A-Za-z0-9-])")
# "icon@2x.png" is a file name and "git@github.com:org/repo" an SSH remote, not somebody's address.
_FILE_SUFFIXES = frozenset({"png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "bmp", "tif", "tiff", "pdf"})


def _scan_email(ctx: ScanContext, out: list[Hit]) -> None:
    text = ctx.text
    at = text.find("@")
    while at != -1:
        start = at
        while start > 0 and text[start - 1] in _LOCAL_CHARS and at - start < 64:
            start -= 1
        too_long = start > 0 and text[start - 1] in _LOCAL_CHARS  # a local part is at most 64 long
        while start < at and text[start] in ".-+":
            start += 1
        domain = _DOMAIN.match(text, at + 1)
        if (
            domain is not None
            and start < at
            and not too_long
            and domain.group(1).lower() not in _FILE_SUFFIXES
            and text[start:at] != "git"
        ):
            out.append(Hit("email", start, domain.end()))
            at = text.find("@", domain.end())
        else:
            at = text.find("@", at + 1)


# --- 주민등록번호 / 외국인등록번호 ---------------------------------------------------------------------
_RRN = (
    NUM_BEFORE + r"(?P<front>\d{6})[ \-–.]?(?P<code>\d)(?:\d{6}|[*xX]{6})"
    r"(?![A-Za-z0-9_*])(?![.\-][A-Za-z0-9])"
)


def _accept_rrn(text: str, match: re.Match[str]) -> Hit | None:
    code = match.group("code")
    if v.rrn_birth_date(match.group("front"), code) is None or _reference_number(text, match.start()):
        return None
    return Hit("kr_frn" if v.rrn_is_foreigner(code) else "kr_rrn", *match.span())


# --- payment cards ----------------------------------------------------------------------------------
_CARD = (
    NUM_BEFORE
    + r"(?:(?P<core>\d{4}(?P<s>[ \-.])\d{4}(?P=s)\d{4}(?P=s)\d{4})(?:(?P=s)\d{1,3})?"
    r"|\d{4}(?P<t>[ \-.])\d{6}(?P=t)\d{4,5}"
    r"|\d{13,19})"
    + NUM_AFTER
)


def _accept_card(text: str, match: re.Match[str]) -> Hit | None:
    # the label is looked at last: most candidates fail the arithmetic first, which is cheaper
    if v.card_number_ok(v.digits_only(match.group())):
        return None if _reference_number(text, match.start()) else Hit("credit_card", *match.span())
    # "4111 1111 1111 1111 123": after a space the optional fifth group may be the next number;
    # after a hyphen it is part of this one, so the four groups alone are not a card.
    core = match.group("core")
    if (
        core is not None
        and match.group("s") == " "
        and len(core) != len(match.group())
        and v.card_number_ok(v.digits_only(core))
        and not _reference_number(text, match.start())
    ):
        return Hit("credit_card", *match.span("core"))
    return None


# --- phones -----------------------------------------------------------------------------------------
_AREA = r"(?:2|3[1-3]|4[1-4]|5[1-5]|6[1-4]|70)"
_PHONE_INTL = (
    r"(?<![A-Za-z0-9_+])\+[ ]?82[ \-.]?(?:\(0\)[ \-.]?)?0?(?:1[016789]|" + _AREA + r")[ \-.]?\d{3,4}[ \-.]?\d{4}"
    + NUM_AFTER
)
# "(010) 1234-5678" like a landline's "(02)"; '/' only here: after a landline prefix it is a date's.
_PHONE_MOBILE = (
    r"(?:(?<![A-Za-z0-9_])\(01[016789]\)[ \-.]?|" + NUM_BEFORE + r"01[016789][ \-./]?)\d{3,4}[ \-./]?\d{4}"
    + NUM_AFTER
)
_PHONE_LANDLINE = (
    r"(?:(?<![A-Za-z0-9_])\(0" + _AREA + r"\)[ ]?|" + NUM_BEFORE + r"0(?:" + _AREA + r"|50[2-8]|80)(?:\)[ ]?|[ \-.]))"
    r"\d{3,4}[ \-.]\d{4}" + NUM_AFTER
)

# --- 사업자등록번호, US SSN ----------------------------------------------------------------------------
_BRN = NUM_BEFORE + r"\d{3}-\d{2}-\d{5}" + NUM_AFTER
_SSN = NUM_BEFORE + r"(?P<area>\d{3})-(?P<group>\d{2})-(?P<serial>\d{4})" + NUM_AFTER


def _accept_brn(text: str, match: re.Match[str]) -> Hit | None:
    if not v.business_number_ok(v.digits_only(match.group())) or _reference_number(text, match.start()):
        return None
    return Hit("kr_brn", *match.span())


def _accept_ssn(text: str, match: re.Match[str]) -> Hit | None:
    if v.us_ssn_ok(match.group("area"), match.group("group"), match.group("serial")) and not _reference_number(
            text, match.start()):
        return Hit("us_ssn", *match.span())
    return None


# --- context-dependent: passports and bank accounts -------------------------------------------------
# Korean M12345678 and the 2021 format M123A4567 first; then common foreign shapes (US: nine digits).
_PASSPORT = (
    WORD_BEFORE
    + r"(?:[A-Za-z]\d{8}|[A-Za-z]\d{3}[A-Za-z]\d{4}|[A-Za-z]{2}\d{7}|[A-Za-z]\d{7}|\d{9})"
    + WORD_AFTER
)
_PASSPORT_WORDS = re.compile(r"여권|passport", re.IGNORECASE)

_ACCOUNT = NUM_BEFORE + r"(?:\d{2,6}(?:-\d{2,8}){1,4}|\d{10,16})" + NUM_AFTER
# Words that mean "bank account" anywhere in a short window around the number.
_BANK_WORDS = re.compile(
    r"계좌|은행|뱅크|입금|송금|이체|예금주|(?<![A-Za-z])(?:accounts?|acct|bank|iban|a/c)(?![a-z])",
    re.IGNORECASE,
)
# Bank names that are also everyday words (우리 "we", 하나 "one", 기업 "company", 국민 "people") count
# only right before the number: "국민 123456-01-234567", "하나 : 123-456789-01234".
_BANK_NAME_BEFORE = re.compile(
    r"(?:국민|신한|우리|하나|농협|기업|카카오|토스|케이|우체국|새마을(?:금고)?|신협|수협|SC제일|씨티|부산|대구"
    r"|경남|광주|전북|제주|산업|KB|NH|IBK|SC)[^\S\r\n]*(?:번호)?[^\S\r\n]*[:：]?[^\S\r\n]*$"
)


def _near(pattern: re.Pattern[str], text: str, start: int, end: int, before: int, after: int) -> bool:
    return (
        pattern.search(text, max(0, start - before), start) is not None
        or pattern.search(text, end, min(len(text), end + after)) is not None
    )


def _accept_passport(text: str, match: re.Match[str]) -> Hit | None:
    start, end = match.span()
    return Hit("passport", start, end) if _near(_PASSPORT_WORDS, text, start, end, 40, 20) else None


# "계좌로 10000000000원 보냈어" is an amount, not an account.
_AMOUNT_AFTER = re.compile(r"[^\S\r\n]?(?:원|만|억|조|달러|엔|위안|(?i:won|krw|usd|dollars?)(?![A-Za-z]))")
_AMOUNT_BEFORE = frozenset("₩￦$€¥£")


def _accept_account(text: str, match: re.Match[str]) -> Hit | None:
    start, end = match.span()
    if not 10 <= len(v.digits_only(match.group())) <= 16:
        return None
    if _AMOUNT_AFTER.match(text, end) or (start > 0 and text[start - 1] in _AMOUNT_BEFORE):
        return None
    if _near(_BANK_WORDS, text, start, end, 30, 15) or _BANK_NAME_BEFORE.search(text[max(0, start - 16) : start]):
        return None if _reference_number(text, start) else Hit("bank_account", start, end)
    return None


IDENTIFIER_DETECTORS: tuple[Detector, ...] = (
    Detector("email", _scan_email, anchor_keys=(b"@",)),
    regex_detector("kr_rrn", _RRN, _accept_rrn, numeric=True, also_emits=("kr_frn",)),
    regex_detector("credit_card", _CARD, _accept_card, numeric=True),
    regex_detector("kr_phone", _PHONE_INTL, numeric=True),
    regex_detector("kr_phone", _PHONE_MOBILE, numeric=True),
    regex_detector("kr_phone", _PHONE_LANDLINE, numeric=True),
    regex_detector("kr_brn", _BRN, _accept_brn, numeric=True),
    regex_detector("us_ssn", _SSN, _accept_ssn, numeric=True),
    regex_detector(
        "passport", _PASSPORT, _accept_passport, near=(("여권", "passport"), 32, 60)
    ),
    # Every account has ten or more digits, so the numeric windows already contain them all.
    regex_detector("bank_account", _ACCOUNT, _accept_account, numeric=True),
)
