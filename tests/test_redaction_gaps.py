"""Issue #13, items 6-9: what redaction let through, and what it took that was not a secret.

Every case here was stored verbatim (or redacted wrongly) before; Korean and English side by side.
"""

from __future__ import annotations

import glob
from pathlib import Path

import pytest
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)

from gieok import Memory, SensitiveIdError
from gieok.defense import redact


def _only_span(text: str, value: str, type_name: str) -> None:
    """``value`` (as written in ``text``) is redacted as ``type_name``, exactly, and nothing else."""
    result = redact(text)
    start = text.index(value)
    assert [(s.start, s.end, s.type) for s in result.spans] == [(start, start + len(value), type_name)], result
    assert result.text == text[:start] + f"[REDACTED:{type_name}]" + text[start + len(value):]


# --------------------------------------------------------------------------- 7. spellings that got past
WIDE_CARD = "４\u200b" + "０" * 14 + "２"  # 4000 0000 0000 0002, full-width, a zero-width space inside
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
    # one Hangul syllable between digits is a word, not a spelling: the card after it stays a card
    ("메모 0사" + WIDE_CARD + "가", WIDE_CARD, "credit_card"),
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


# --------------------------------------------------------------------------- 6. every stored string
EMAIL, PHONE, RRN, TOKEN = "kim.minji@example.com", "010-9876-5432", "900101-1234568", "ghp_" + "k3Y7" * 9


def _file_bytes(db_path: str) -> bytes:
    return b"".join(Path(p).read_bytes() for p in glob.glob(db_path + "*"))


def _nowhere(mem: Memory, db_path: str, *values: str) -> None:
    shown = repr(mem.banks()) + "".join(repr(mem.sources(b.name)) for b in mem.banks())
    shown += "".join(repr(mem.source(b.name, s.id)) for b in mem.banks() for s in mem.sources(b.name))
    shown += "".join(repr(mem.audit_log(b.name)) for b in mem.banks())
    raw = _file_bytes(db_path)
    for value in values:
        assert value not in shown, value
        assert value.encode() not in raw, value


@pytest.mark.parametrize(("speaker", "value"), [(EMAIL, EMAIL), (f"민지 {PHONE}", PHONE), ("김민지", None)])
def test_a_speaker_is_redacted(mem: Memory, db_path: str, speaker: str, value: str | None) -> None:
    mem.retain("alice", messages=[{"id": "m1", "speaker": speaker, "text": "내일 회의는 3시야"}])
    stored = mem.source("alice", "conversation-m1").messages[0].speaker
    if value is None:
        assert stored == speaker
    else:
        assert "[REDACTED:" in stored
        _nowhere(mem, db_path, value)
        assert any(e.item_id == "m1#speaker" for e in mem.audit_log("alice"))


@pytest.mark.parametrize(("field", "call", "types"), [
    ("message #0", {"messages": [{"id": f"m-{PHONE}", "text": "hello"}]}, ["kr_phone"]),
    ("message #1", {"messages": [{"id": "m1", "text": "hi"}, {"id": EMAIL, "text": "안녕"}]}, ["email"]),
    ("document_id", {"text": "분기 보고서 초안", "document_id": f"주민-{RRN}"}, ["kr_rrn"]),
    ("document_id", {"messages": [{"id": "m1", "text": "hi"}], "document_id": f"chat-{TOKEN}"}, ["github_token"]),
])
def test_an_id_that_holds_an_identifier_is_refused(mem: Memory, db_path: str, field: str, call: dict,
                                                    types: list[str]) -> None:
    with pytest.raises(SensitiveIdError) as raised:
        mem.retain("alice", **call)
    assert field in str(raised.value) and raised.value.types == types
    for value in (PHONE, EMAIL, RRN, TOKEN):
        assert value not in str(raised.value)
    assert mem.banks() == []
    _nowhere(mem, db_path, PHONE, EMAIL, RRN, TOKEN)


@pytest.mark.parametrize("bank", [EMAIL, f"user-{PHONE}", f"은행-{RRN}"])
def test_a_bank_name_that_holds_an_identifier_is_refused(mem: Memory, db_path: str, bank: str) -> None:
    with pytest.raises(SensitiveIdError, match="bank name"):
        mem.retain(bank, messages=[{"id": "m1", "text": "hi"}])
    with pytest.raises(SensitiveIdError):
        mem.set_redaction_policy(bank, {"default": "redact"})
    assert mem.banks() == []
    _nowhere(mem, db_path, bank)


def test_a_bank_name_is_checked_with_the_policy(db_path: str, fake_embedder) -> None:
    with Memory(db_path, embedder="fake", redaction={"email": "allow"}) as mem:
        mem.retain(EMAIL, messages=[{"id": "m1", "text": "hi"}])
        assert [b.name for b in mem.banks()] == [EMAIL]


def test_metadata_keys_and_numbers_are_redacted(mem: Memory, db_path: str) -> None:
    mem.retain("alice", text="연락처 정리", document_id="contacts",
               metadata={EMAIL: "owner", f"또 {EMAIL}": 1, "nested": {f"{PHONE}": "민지"}, "card": 4111111111111111,
                         "count": 3, "plain": "값"})
    metadata = mem.source("alice", "contacts").metadata
    assert metadata["[REDACTED:email]"] == "owner" and metadata["또 [REDACTED:email]"] == 1
    assert metadata["nested"] == {"[REDACTED:kr_phone]": "민지"}
    assert metadata["card"] == "[REDACTED:credit_card]" and metadata["count"] == 3 and metadata["plain"] == "값"
    _nowhere(mem, db_path, EMAIL, PHONE, "4111111111111111")


def test_metadata_keys_redacted_alike_keep_both_values(mem: Memory) -> None:
    mem.retain("alice", text="두 사람", document_id="d", metadata={EMAIL: 1, "lee@example.com": 2})
    assert mem.source("alice", "d").metadata == {"[REDACTED:email]": 1, "[REDACTED:email] #2": 2}


# --------------------------------------------------------------------------- 9. the fingerprint key
LEGACY_KEY = "ab" * 32


def _make_legacy(db_path: str) -> None:
    """A database as main made it: the key in its own meta table, no key file."""
    import os
    import sqlite3

    with Memory(db_path, embedder="fake"):
        pass
    os.remove(db_path + ".key")
    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute("INSERT INTO meta (key, value) VALUES ('fingerprint_key', ?)", (LEGACY_KEY,))
    conn.close()


def _meta_key(db_path: str) -> str | None:
    import sqlite3

    conn = sqlite3.connect(db_path)
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'fingerprint_key'").fetchone()
    finally:
        conn.close()
    return row[0] if row else None


def test_a_new_database_keeps_its_key_beside_it_not_in_it(db_path: str, fake_embedder) -> None:
    import os
    import stat

    with Memory(db_path, embedder="fake") as mem:
        mem.retain("alice", messages=[{"id": "m1", "text": f"토큰 {TOKEN} 전화 {PHONE}"}])
        key = Path(db_path + ".key").read_text().strip()
        assert len(key) == 64 and stat.S_IMODE(os.stat(db_path + ".key").st_mode) == 0o600
        assert _meta_key(db_path) is None
        mem.store.erasure.checkpoint()
        assert key.encode() not in b"".join(Path(p).read_bytes() for p in glob.glob(db_path + "*")
                                            if not p.endswith(".key"))
    with Memory(db_path, embedder="fake") as again:  # the same key next time
        assert again.engine.fingerprint_key == key.encode()


def test_a_legacy_key_moves_out_of_the_database(db_path: str, fake_embedder) -> None:
    _make_legacy(db_path)
    with Memory(db_path, embedder="fake") as mem:
        assert mem.engine.fingerprint_key == LEGACY_KEY.encode()  # old fingerprints keep matching
        assert _meta_key(db_path) is None
        assert Path(db_path + ".key").read_text().strip() == LEGACY_KEY
        files = [p for p in glob.glob(db_path + "*") if not p.endswith(".key")]
        assert LEGACY_KEY.encode() not in b"".join(Path(p).read_bytes() for p in files)


def test_the_key_from_the_environment_wins_and_the_legacy_one_is_dropped(db_path: str, fake_embedder,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib
    import hmac

    _make_legacy(db_path)
    monkeypatch.setenv("GIEOK_FINGERPRINT_KEY", "k" * 40)
    with Memory(db_path, embedder="fake") as mem:
        mem.retain("alice", messages=[{"id": "m1", "text": f"토큰 {TOKEN}"}])
        entry = next(e for e in mem.audit_log("alice") if e.type == "github_token")
        assert entry.fingerprint == hmac.new(b"k" * 40, TOKEN.encode(), hashlib.sha256).hexdigest()[:16]
    assert _meta_key(db_path) is None and not Path(db_path + ".key").exists()


def test_a_key_file_setting_and_a_hook(tmp_path: Path, db_path: str, fake_embedder) -> None:
    import os
    import stat

    key_file = tmp_path / "secrets" / "gieok.key"
    key_file.parent.mkdir()
    with Memory(db_path, embedder="fake", fingerprint_key_file=str(key_file)) as mem:
        assert mem.engine.fingerprint_key == key_file.read_text().strip().encode()
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600 and not Path(db_path + ".key").exists()
    with Memory(db_path, embedder="fake", fingerprint_key=lambda: "from-a-kms-0123456789") as mem:
        assert mem.engine.fingerprint_key == b"from-a-kms-0123456789"


def test_a_key_file_others_can_read_is_refused(tmp_path: Path, db_path: str, fake_embedder) -> None:
    from gieok import ConfigError

    key_file = tmp_path / "open.key"
    key_file.write_text("z" * 64)
    key_file.chmod(0o644)
    with pytest.raises(ConfigError, match="chmod 600"):
        Memory(db_path, embedder="fake", fingerprint_key_file=str(key_file))
    with pytest.raises(ConfigError, match="at least 16"):
        Memory(db_path, embedder="fake", fingerprint_key="short")


def test_low_entropy_types_get_no_fingerprint(mem: Memory) -> None:
    text = (f"전화 {PHONE}, 주민번호 {RRN}, 카드 4111 1111 1111 1111, 국민은행 123456-78-901234, 메일 {EMAIL}, "
            f"비밀번호: hunter2!, 토큰 {TOKEN}")
    mem.retain("alice", messages=[{"id": "m1", "text": text}])
    fingerprints = {e.type: e.fingerprint for e in mem.audit_log("alice")}
    assert fingerprints.keys() == {"kr_phone", "kr_rrn", "credit_card", "bank_account", "email", "password",
                                   "github_token"}
    assert {t for t, f in fingerprints.items() if f is not None} == {"github_token"}


def test_postgres_has_no_key_unless_one_is_configured(pg_dsn_factory, fake_embedder, tmp_path: Path,  # noqa: F811
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from gieok import ConfigError
    from gieok.store import PostgresStore

    dsn = pg_dsn_factory()
    with Memory(store=PostgresStore(dsn), embedder="fake") as mem:
        assert mem.engine.fingerprint_key is None
        mem.retain("alice", messages=[{"id": "m1", "text": f"토큰 {TOKEN}"}])
        assert [e.fingerprint for e in mem.audit_log("alice")] == [None]
        with mem.store.write():  # a database main made: the key in meta
            mem.store._require_write().execute(  # type: ignore[attr-defined]
                "INSERT INTO meta (key, value) VALUES ('fingerprint_key', ?)", (LEGACY_KEY,))
    store = PostgresStore(dsn)
    with pytest.raises(ConfigError, match="GIEOK_FINGERPRINT_KEY_FILE"):
        Memory(store=store, embedder="fake")
    store.close()
    key_file = tmp_path / "pg.key"
    with Memory(store=PostgresStore(dsn), embedder="fake", fingerprint_key_file=str(key_file)) as mem:
        assert mem.engine.fingerprint_key == LEGACY_KEY.encode() and mem.store.meta.get("fingerprint_key") is None
    monkeypatch.setenv("GIEOK_FINGERPRINT_KEY", "e" * 32)
    with Memory(store=PostgresStore(dsn), embedder="fake") as mem:
        mem.retain("alice", messages=[{"id": "m2", "text": f"또 토큰 {TOKEN}"}])
        assert mem.audit_log("alice")[0].fingerprint is not None


# --------------------------------------------------------------------------- 7. the property, fuzzed
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from test_redaction import (  # noqa: E402
    BOUNDARY,
    FILLER,
    assert_structure,
    business_numbers,
    card_numbers,
    emails,
    phone_numbers,
    provider_keys,
    registration_numbers,
    ssns,
)

DASHES = "-\u2010\u2011\u2012\u2013\u2212\uff0d"
INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad"


def _wide(char: str) -> str:
    return chr(ord(char) + 0xFEE0) if "!" <= char <= "~" else char


@st.composite
def disguised(draw: st.DrawFn, value: str, numeric: bool) -> str:
    """``value`` respelled: some characters full-width, dashes swapped for look-alikes (spaced, for
    numbers), zero-width characters slipped in."""
    out = []
    for i, char in enumerate(value):
        if char == "-" and numeric:
            pad = draw(st.sampled_from(["", "", " "]))
            char = pad + draw(st.sampled_from(DASHES)) + pad
        elif char == "-":
            char = draw(st.sampled_from(DASHES[:1] + DASHES[-1:]))
        elif draw(st.integers(0, 3)) == 0:
            char = _wide(char)
        out.append(char)
        if i + 1 < len(value) and draw(st.integers(0, 7)) == 0:  # inside the value, not after it
            out.append(draw(st.sampled_from(INVISIBLE)))
    return "".join(out)


@st.composite
def disguised_secrets(draw: st.DrawFn) -> tuple[str, str, int]:
    numeric = draw(st.booleans())
    family = st.one_of(card_numbers(), registration_numbers(), phone_numbers(), business_numbers(), ssns()) \
        if numeric else st.one_of(emails(), provider_keys())
    value = draw(disguised(draw(family), numeric))
    prefix = draw(st.text(alphabet=FILLER, max_size=20)) + draw(st.sampled_from(BOUNDARY.replace("\n", "")))
    suffix = draw(st.sampled_from(BOUNDARY.replace("\n", ""))) + draw(st.text(alphabet=FILLER, max_size=20))
    return prefix + value + suffix, value, len(prefix)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(disguised_secrets())
def test_disguised_secrets_never_survive(sample: tuple[str, str, int]) -> None:
    text, value, at = sample
    result = redact(text)
    assert any(span.start <= at and at + len(value) <= span.end for span in result.spans), (value, result.spans)
    assert_structure(text, result)


@pytest.mark.parametrize("text", ["가AKIA0000000000000000 0000", "my key AKIAIOSFODNN7EXAMPLE 2026 rotated",
                                  "키는 Ａ\u200bＫＩＡ" + "０" * 16 + " 0000 이에요"])
def test_a_whole_aws_key_is_not_joined_to_the_number_after_it(text: str) -> None:
    # an AWS key id is 20 characters: joining " 0000" onto a whole one made it too long to match
    result = redact(text)
    assert [span.type for span in result.spans] == ["aws_access_key"], result.spans
    assert "AKIA" not in result.text and "ＫＩＡ" not in result.text
