"""Issue #13, items 6-9: what redaction let through, and what it took that was not a secret.

Every case here was stored verbatim (or redacted wrongly) before; Korean and English side by side.
"""

from __future__ import annotations

import pytest

from gieok.defense import redact


def _only_span(text: str, value: str, type_name: str) -> None:
    """``value`` (as written in ``text``) is redacted as ``type_name``, exactly, and nothing else."""
    result = redact(text)
    start = text.index(value)
    assert [(s.start, s.end, s.type) for s in result.spans] == [(start, start + len(value), type_name)], result
    assert result.text == text[:start] + f"[REDACTED:{type_name}]" + text[start + len(value):]


# --------------------------------------------------------------------------- 7. spellings that got past
SPELLINGS = [
    # full-width digits and hyphens
    ("번호는 ０１０-１２３４-５６７８ 로 연락 줘", "０１０-１２３４-５６７８", "kr_phone"),
    ("번호는０１０－１２３４－５６７８이야", "０１０－１２３４－５６７８", "kr_phone"),
    ("주민번호 ９００１０１-１２３４５６７ 입니다", "９００１０１-１２３４５６７", "kr_rrn"),
    ("call me at ０１０ １２３４ ５６７８ tonight", "０１０ １２３４ ５６７８", "kr_phone"),
    # en dash, U+2010, minus sign
    ("전화 010–1234–5678 로 주세요", "010–1234–5678", "kr_phone"),
    ("phone 010‐1234‐5678 please", "010‐1234‐5678", "kr_phone"),
    ("외국인등록번호 900101−5234567", "900101−5234567", "kr_frn"),
    ("card 4111–1111–1111–1111 exp 12/29", "4111–1111–1111–1111", "credit_card"),
    # spaces around the hyphen, digits one by one
    ("주민번호 900101 - 1234567 맞아요", "900101 - 1234567", "kr_rrn"),
    ("SSN-like RRN 900101 -1234567 here", "900101 -1234567", "kr_rrn"),
    ("call 0 1 0 1 2 3 4 5 6 7 8 now", "0 1 0 1 2 3 4 5 6 7 8", "kr_phone"),
    ("폰 0 1 0 - 1 2 3 4 - 5 6 7 8 이야", "0 1 0 - 1 2 3 4 - 5 6 7 8", "kr_phone"),
    ("카드 4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 로 결제", "4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1", "credit_card"),
    # e-mail with a full-width or spelled-out at
    ("메일은 kim.minji＠example.com 이에요", "kim.minji＠example.com", "email"),
    ("mail kim [at] example [dot] com please", "kim [at] example [dot] com", "email"),
    ("mail kim[at]example.com please", "kim[at]example.com", "email"),
    ("연락처 kim 골뱅이 naver 닷 com 으로", "kim 골뱅이 naver 닷 com", "email"),
    ("write to kim.minji at example dot com", "kim.minji at example dot com", "email"),
    # a zero-width character inside a key, a key split by a space
    ("키는 sk-proj-abcd\u200bEFGH1234ijklMNOP5678qrstUVWX 입니다", "sk-proj-abcd\u200bEFGH1234ijklMNOP5678qrstUVWX",
     "openai_key"),
    ("key: sk-proj-abcdEFGH1234 ijklMNOP5678qrstUVWX", "sk-proj-abcdEFGH1234 ijklMNOP5678qrstUVWX", "openai_key"),
    ("AKIA\u200dFAKEFAKEFAKEFAKE 가 유출됐어", "AKIA\u200dFAKEFAKEFAKEFAKE", "aws_access_key"),
    # digits in Hangul
    ("번호는 공일공-일이삼사-오육칠팔 이야", "공일공-일이삼사-오육칠팔", "kr_phone"),
    ("폰번호 공일공 일이삼사 오육칠팔 로 해", "공일공 일이삼사 오육칠팔", "kr_phone"),
    ("주민번호 구공공일공일-일이삼사오육칠", "구공공일공일-일이삼사오육칠", "kr_rrn"),
]


@pytest.mark.parametrize(("text", "value", "type_name"), SPELLINGS, ids=[c[1] for c in SPELLINGS])
def test_spellings_are_redacted_in_the_callers_text(text: str, value: str, type_name: str) -> None:
    _only_span(text, value, type_name)


@pytest.mark.parametrize("text", [
    "이 사람 일 이 삼 사 했어", "다섯 시에 오 일 팔 사 공 만나", "v1.2.3 released 2024-05-01, price ₩12,000",
    "Trace 123e4567-e89b-12d3-a456-426614174000", "점수는 1 2 3 등 순서대로", "３월 ５일 회의",
])
def test_normalising_does_not_invent_findings(text: str) -> None:
    assert redact(text).spans == ()


# --------------------------------------------------------------------------- 8. over-redaction
def _luhn(body: str) -> str:
    from gieok.defense import _validators as v

    return next(body + d for d in "0123456789" if v.luhn_ok(body + d))


ORDER_NUMBERS = [
    "주문번호 4000123412341234 배송 시작했어요",
    "주문번호: 4111-1111-1111-1111 확인 부탁드려요",
    "주문 번호는 5500 0000 0000 0004 입니다",
    "송장번호 4111111111111111 로 조회해 보세요",
    "운송장 번호: 3530111333300000",
    "예약번호 5105105105105100 으로 체크인",
    "order no. 4111111111111111 shipped today",
    "Order #4111 1111 1111 1111 was refunded",
    "tracking number: 5555555555554444",
    "Tracking 4012888888881881 is out for delivery",
    "invoice no 6011111111111117 is overdue",
    "booking reference 3566002020360505 confirmed",
    "국민은행 지점코드 123-456789-01 으로 방문",
    "은행 지점 코드는 123-456789-01 입니다",
    "Shinhan bank branch code 123-456789-01",
    "주문번호 9001011234567 배송 완료",
    "order 900101-1234567 shipped",
]


@pytest.mark.parametrize("text", ORDER_NUMBERS)
def test_reference_numbers_after_their_label_are_not_redacted(text: str) -> None:
    assert redact(text).spans == ()


@pytest.mark.parametrize("body", ["6" + "1234567" * 2, "5" + "9" * 7 + "1234567", "6912345612345678"[:15]])
def test_only_prefixes_issuers_use_make_a_card(body: str) -> None:
    number = _luhn(body)
    assert redact(f"번호 {number} 참고").spans == ()
    assert redact(f"ref {number} noted").spans == ()


@pytest.mark.parametrize(("text", "value", "type_name"), [
    ("카드번호 4111111111111111 결제", "4111111111111111", "credit_card"),
    ("결제 카드 4111 1111 1111 1111 로", "4111 1111 1111 1111", "credit_card"),
    ("주문번호 A-1, 카드 4111 1111 1111 1111", "4111 1111 1111 1111", "credit_card"),
    ("my card is 5555555555554444, order 123", "5555555555554444", "credit_card"),
    ("계좌 123-456789-01 로 보내", "123-456789-01", "bank_account"),
    ("주민번호 9001011234567", "9001011234567", "kr_rrn"),
])
def test_the_nearest_label_decides(text: str, value: str, type_name: str) -> None:
    _only_span(text, value, type_name)
