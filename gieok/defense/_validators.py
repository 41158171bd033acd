"""Checksums and plausibility checks that turn a digit pattern into an identifier.

A regular expression can say "six digits, a hyphen, seven digits"; only arithmetic can say "and the
first six are a birth date". Every check here is a pure function of the digits, so the corpus and the
property tests can build valid (and deliberately invalid) numbers with the same code.
"""

from __future__ import annotations

import datetime as _dt

__all__ = [
    "digits_only",
    "luhn_ok",
    "card_issuer_ok",
    "card_number_ok",
    "rrn_birth_date",
    "rrn_checksum_ok",
    "rrn_is_foreigner",
    "business_number_ok",
    "business_number_check_digit",
    "us_ssn_ok",
]

_ASCII_DIGITS = frozenset("0123456789")


def digits_only(text: str) -> str:
    """The ASCII digits of ``text``; ``str.isdigit`` is avoided because it accepts e.g. '²' and '٣'."""
    return "".join(ch for ch in text if ch in _ASCII_DIGITS)


def luhn_ok(digits: str) -> bool:
    total = 0
    for position, ch in enumerate(reversed(digits)):
        value = ord(ch) - 48
        if position % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def card_issuer_ok(digits: str) -> bool:
    """Does the number start like a real card of its length (the IIN ranges the networks assign)?

    Luhn alone passes one random digit run in ten; the issuer prefix is what keeps compact timestamps
    (``20260504090000``) and order numbers from being read as cards. Only ranges networks actually
    issue are listed, not whole leading digits: "6" alone would take every order number starting 6.
    """
    n = len(digits)
    if n < 13 or n > 19:
        return False
    two, three, four, six = int(digits[:2]), int(digits[:3]), int(digits[:4]), int(digits[:6])
    if digits[0] == "4":  # Visa (Electron included)
        return n in (13, 16, 19)
    if 51 <= two <= 55 or 2221 <= four <= 2720:  # Mastercard
        return n == 16
    if two in (34, 37):  # American Express
        return n == 15
    if 300 <= three <= 305 or four == 3095 or two in (36, 38, 39):  # Diners Club
        return 14 <= n <= 19
    if 3528 <= four <= 3589:  # JCB
        return 16 <= n <= 19
    if 2200 <= four <= 2204:  # Mir
        return 16 <= n <= 19
    if four == 6011 or 644 <= three <= 649 or two == 65 or 622126 <= six <= 622925:  # Discover
        return 16 <= n <= 19
    if two == 62 or 8100 <= four <= 8171:  # UnionPay
        return 16 <= n <= 19
    if four in (5018, 5020, 5038, 5893, 6304, 6759, 6761, 6762, 6763):  # Maestro
        return 13 <= n <= 19
    if two == 60 or three == 508 or four in (6521, 6522):  # RuPay
        return n == 16
    if four == 9792:  # Troy
        return n == 16
    if two in (94, 95):  # Korean domestic-only cards (e.g. BC 국내전용)
        return n == 16
    return False


def card_number_ok(digits: str) -> bool:
    """Issuer prefix, Luhn, and not a placeholder made of one repeated digit."""
    if len(set(digits)) == 1:
        return False
    return card_issuer_ok(digits) and luhn_ok(digits)


# The 7th digit of a resident or foreigner registration number encodes century and sex.
_RRN_CENTURY = {
    "9": 1800, "0": 1800,
    "1": 1900, "2": 1900, "5": 1900, "6": 1900,
    "3": 2000, "4": 2000, "7": 2000, "8": 2000,
}


def rrn_birth_date(front: str, code: str, today: _dt.date | None = None) -> _dt.date | None:
    """The birth date a registration number claims, or None when it names no real past day.

    ``front`` is YYMMDD, ``code`` the 7th digit. A date after ``today`` is impossible too.
    """
    century = _RRN_CENTURY.get(code)
    if century is None or len(front) != 6:
        return None
    try:
        born = _dt.date(century + int(front[:2]), int(front[2:4]), int(front[4:6]))
    except ValueError:
        return None
    if born > (today or _dt.date.today()):
        return None
    return born


def rrn_is_foreigner(code: str) -> bool:
    """7th digit 5-8 marks a 외국인등록번호 rather than a 주민등록번호."""
    return code in ("5", "6", "7", "8")


def rrn_checksum_ok(digits: str) -> bool:
    """The pre-2020 check digit. Reported for tests only: redaction ignores it, because people mistype
    their own numbers and a mistyped one is still personal data."""
    if len(digits) != 13:
        return False
    weights = (2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5)
    total = sum(int(d) * w for d, w in zip(digits, weights))
    return (11 - total % 11) % 10 == int(digits[12])


_BRN_WEIGHTS = (1, 3, 7, 1, 3, 7, 1, 3, 5)


def business_number_check_digit(first9: str) -> int:
    """Check digit of a 사업자등록번호 from its first nine digits (National Tax Service rule)."""
    total = sum(int(d) * w for d, w in zip(first9, _BRN_WEIGHTS))
    total += (int(first9[8]) * 5) // 10
    return (10 - total % 10) % 10


def business_number_ok(digits: str) -> bool:
    return len(digits) == 10 and business_number_check_digit(digits[:9]) == int(digits[9])


def us_ssn_ok(area: str, group: str, serial: str) -> bool:
    """SSA never issues area 000, 666 or 9xx, group 00 or serial 0000."""
    if area in ("000", "666") or area[0] == "9":
        return False
    return group != "00" and serial != "0000"
