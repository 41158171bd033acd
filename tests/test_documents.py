"""Documents: parsing and structure-aware chunking (gieok.documents), and Memory.ingest end to end.

Every fixture is made here: PDFs by tests/pdf_fixture.py (Korean text through a CID font, so the
text layer holds real Hangul), DOCX by python-docx, Markdown and HTML as strings. Page numbers and
heading paths are checked exactly; bad files must raise their typed error and leave the store as it was.
"""

from __future__ import annotations

import io
import sqlite3
import zipfile
from pathlib import Path

import pytest
from pdf_fixture import image_only_pdf, make_pdf
from pg_server import pg_dsn_factory  # noqa: F401  (fixture)

from gieok import (
    CorruptDocumentError,
    DocumentTooLargeError,
    EmptyDocumentError,
    EncryptedDocumentError,
    FormatMismatchError,
    Memory,
    ScannedPageError,
    UnsupportedFormatError,
)
from gieok.documents import chunk_blocks, format_location, parse_document

docx = pytest.importorskip("docx")

PAGES = [
    ["Refund policy", "Refunds are paid within 14 days of the request."],
    ["환불 정책", "환불은 요청 후 14일 이내에 처리됩니다."],
    ["Shipping", "Orders ship within two business days."],
    ["배송 안내", "제주 지역은 배송에 3일이 더 걸립니다."],
]

MARKDOWN = """# 환불 정책

환불은 구매 후 7일 이내에 신청할 수 있습니다.

## 예외

할인 상품은 환불되지 않습니다.

## FAQ

환불은 언제 입금되나요?

영업일 기준 3일 이내에 입금됩니다.

Can I get a refund on a gift card?

No, gift cards cannot be refunded.

# Shipping

| Region | Days |
|---|---|
| Seoul | 1 |
| Jeju | 4 |
"""

HTML = """<!doctype html><html><head><title>Guide</title><script>var tracking = "SECRET-SCRIPT";</script>
<style>.x{color:red}</style></head><body>
<nav><a href="/">Home</a> <a href="/shop">Shop menu link</a></nav>
<header>Site banner text</header>
<main>
<h1>Warranty</h1><p>The warranty lasts <b>two years</b> from delivery.</p>
<h2>보증 예외</h2><p>침수 피해는 보증 대상이 아닙니다.</p>
<ul><li>Scratches</li><li>배터리 소모</li></ul>
</main>
<footer>Copyright footer text</footer>
</body></html>"""


def _docx_bytes() -> bytes:
    document = docx.Document()
    document.add_heading("환불 정책", 1)
    document.add_paragraph("환불은 구매 후 7일 이내에 신청할 수 있습니다.")
    document.add_heading("예외", 2)
    document.add_paragraph("할인 상품은 환불되지 않습니다.")
    document.add_heading("Returns", 1)
    document.add_paragraph("Returns are accepted within 30 days.")
    table = document.add_table(rows=3, cols=2)
    for i, row in enumerate([("Item", "Window"), ("Shoes", "30 days"), ("Laptops", "14 days")]):
        for j, value in enumerate(row):
            table.cell(i, j).text = value
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _encrypted_pdf() -> bytes:
    pypdf = pytest.importorskip("pypdf")
    writer = pypdf.PdfWriter()
    for page in pypdf.PdfReader(io.BytesIO(make_pdf(PAGES[:1]))).pages:
        writer.add_page(page)
    writer.encrypt("secret")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _zip_bomb_docx() -> bytes:
    """A real DOCX plus one entry that is 5 MB of zeros compressed to a few kilobytes."""
    source = zipfile.ZipFile(io.BytesIO(_docx_bytes()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            target.writestr(item, source.read(item))
        target.writestr("word/media/padding.bin", b"\0" * 5_000_000)
    return out.getvalue()


def _chunks(data: bytes, name: str, target: int = 1500) -> list[tuple[str, dict[str, object]]]:
    return [(c.text, c.location) for c in chunk_blocks(parse_document(data, name), target)]


# -- parsing and chunking ---------------------------------------------------------------------
def test_pdf_chunks_name_their_page_exactly_in_korean_and_english() -> None:
    chunks = _chunks(make_pdf(PAGES), "policy.pdf")
    pages = {text.split("\n")[0]: location["page"] for text, location in chunks}
    assert pages == {"Refund policy": 1, "환불 정책": 2, "Shipping": 3, "배송 안내": 4}
    for text, location in chunks:
        assert parse_document(make_pdf(PAGES), "policy.pdf").text[location["start"]:location["end"]] == text  # type: ignore[misc]
    assert "환불은 요청 후 14일 이내에 처리됩니다." in chunks[1][0]


def test_a_blank_page_is_skipped_and_later_pages_keep_their_numbers() -> None:
    chunks = _chunks(make_pdf([PAGES[0], [], PAGES[1]]), "gap.pdf")
    assert [location["page"] for _, location in chunks] == [1, 3]
    assert parse_document(make_pdf([PAGES[0], [], PAGES[1]]), "gap.pdf").pages == 3


def test_markdown_headings_start_chunks_and_faq_answers_stay_with_questions() -> None:
    chunks = _chunks(MARKDOWN.encode(), "refund.md")
    by_section = {tuple(location["section"]): text for text, location in chunks}  # type: ignore[arg-type]
    assert by_section[("환불 정책", "예외")] == "예외\n\n할인 상품은 환불되지 않습니다."
    faq = by_section[("환불 정책", "FAQ")]
    assert "환불은 언제 입금되나요?\n\n영업일 기준 3일 이내에 입금됩니다." in faq
    assert by_section[("Shipping",)].startswith("Shipping\n\nRegion | Days\nSeoul | 1")
    # a small target: every FAQ question still keeps its answer, and no heading ends a chunk
    small = _chunks(MARKDOWN.encode(), "refund.md", target=40)
    for text, _ in small:
        if "입금되나요?" in text:
            assert "3일 이내에 입금됩니다" in text
        if "gift card?" in text:
            assert "cannot be refunded" in text
        assert not text.rstrip().endswith(("예외", "FAQ", "Shipping"))


def test_a_long_table_is_split_by_rows_and_every_piece_repeats_its_header() -> None:
    rows = "\n".join(f"| 지역{i} Region{i} | {i}일 days |" for i in range(40))
    text = f"# 배송 Shipping\n\n| 지역 Region | 기간 Days |\n|---|---|\n{rows}\n"
    chunks = _chunks(text.encode(), "ship.md", target=200)
    assert len(chunks) > 3
    for piece, location in chunks:
        assert "지역 Region | 기간 Days" in piece
        assert location["section"] == ["배송 Shipping"]
    body = "\n".join(piece for piece, _ in chunks)
    assert all(f"지역{i} Region{i} | {i}일 days" in body for i in range(40))


def test_a_long_paragraph_is_cut_at_sentence_boundaries_in_korean_and_english() -> None:
    korean = " ".join(f"{i}번째 문장은 환불 규정을 설명합니다." for i in range(30))
    english = " ".join(f"Sentence number {i} explains the refund rule." for i in range(30))
    for paragraph, end in ((korean, "설명합니다."), (english, "rule.")):
        chunks = _chunks(paragraph.encode(), "long.txt", target=200)
        assert len(chunks) > 3
        for piece, location in chunks:
            assert piece.endswith(end) and len(piece) <= 200
            assert "section" not in location


def test_html_keeps_main_content_and_drops_navigation_scripts_and_footer() -> None:
    parsed = parse_document(HTML.encode(), "guide.html")
    assert "The warranty lasts two years from delivery." in parsed.text
    assert "침수 피해는 보증 대상이 아닙니다." in parsed.text and "배터리 소모" in parsed.text
    for noise in ("SECRET-SCRIPT", "Shop menu link", "Site banner", "Copyright footer", "color:red"):
        assert noise not in parsed.text
    sections = [location["section"] for _, location in _chunks(HTML.encode(), "guide.html")]
    assert sections == [["Warranty"], ["Warranty", "보증 예외"]]


def test_docx_headings_give_the_section_path_and_tables_stay_whole() -> None:
    chunks = _chunks(_docx_bytes(), "policy.docx")
    assert [location["section"] for _, location in chunks] == [["환불 정책"], ["환불 정책", "예외"], ["Returns"]]
    assert chunks[1][0] == "예외\n\n할인 상품은 환불되지 않습니다."
    assert chunks[2][0].endswith("Item | Window\nShoes | 30 days\nLaptops | 14 days")


def test_locations_read_as_citations() -> None:
    assert format_location({"page": 3, "start": 0, "end": 9}) == "p. 3"
    assert format_location({"section": ["환불 정책", "예외"]}) == "§ 환불 정책 › 예외"
    assert format_location({"section": ["Returns"], "page": 2}) == "p. 2, § Returns"
    assert format_location(None) == ""


# -- bad files: a typed error, a message that says what to do, nothing stored -----------------
def _counts(db_path: str) -> dict[str, int]:
    with sqlite3.connect(db_path) as conn:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in ("banks", "sources", "chunks", "facts", "messages")}


BAD_FILES = [
    ("empty.pdf", lambda: b"", EmptyDocumentError, "empty"),
    ("blank.md", lambda: b"  \n\n ", EmptyDocumentError, "empty"),
    ("truncated.pdf", lambda: make_pdf(PAGES)[:700], CorruptDocumentError, "truncated"),
    ("locked.pdf", _encrypted_pdf, EncryptedDocumentError, "password"),
    ("scan.pdf", image_only_pdf, ScannedPageError, "OCR"),
    ("bomb.docx", _zip_bomb_docx, DocumentTooLargeError, "zip bomb"),
    ("truncated.docx", lambda: _docx_bytes()[:400], CorruptDocumentError, "zip"),
    ("policy.docx", lambda: make_pdf(PAGES), FormatMismatchError, "PDF"),
    ("notes.md", lambda: make_pdf(PAGES), FormatMismatchError, "PDF"),
    ("photo.pdf", lambda: b"\x89PNG\r\n\x1a\n" + b"\0" * 64, UnsupportedFormatError, "PNG"),
    ("photo.png", lambda: b"\x89PNG\r\n\x1a\n" + b"\0" * 64, UnsupportedFormatError, "PNG"),
    ("old.doc", lambda: b"\xd0\xcf\x11\xe0" + b"\0" * 64, UnsupportedFormatError, "DOCX"),
    ("big.txt", lambda: ("가나다 abc " * 20_000).encode(), DocumentTooLargeError, "max_document_bytes"),
]


@pytest.mark.parametrize(("name", "make", "error", "hint"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_a_bad_file_raises_its_typed_error_and_stores_nothing(tmp_path: Path, db_path: str, fake_embedder: object,
                                                              name: str, make: object, error: type, hint: str) -> None:
    path = tmp_path / name
    path.write_bytes(make())  # type: ignore[operator]
    with Memory(db_path, embedder="fake", max_document_bytes=100_000, max_document_unpacked_bytes=1_000_000) as mem:
        mem.ingest("kb", MARKDOWN.encode(), document_id="refund.md", media_type="text/markdown")
        before = _counts(db_path)
        with pytest.raises(error) as raised:
            mem.ingest("kb", path)
        assert hint in str(raised.value) and name in str(raised.value)
        assert _counts(db_path) == before
        if error not in (FormatMismatchError, UnsupportedFormatError):  # as bytes, no name to disagree with
            with pytest.raises(error):
                mem.ingest("kb", path.read_bytes(), document_id=name)
            assert _counts(db_path) == before


def test_a_scanned_page_error_names_every_scanned_page() -> None:
    scanned = image_only_pdf()
    with pytest.raises(ScannedPageError) as raised:
        parse_document(scanned, "scan.pdf")
    assert raised.value.pages == [1] and "ocrmypdf" in str(raised.value)


# -- Memory.ingest, recall and reflect ----------------------------------------------------------
@pytest.fixture
def kb(mem: Memory, tmp_path: Path) -> Memory:
    (tmp_path / "policy.pdf").write_bytes(make_pdf(PAGES))
    (tmp_path / "refund.md").write_text(MARKDOWN, encoding="utf-8")
    (tmp_path / "guide.html").write_text(HTML, encoding="utf-8")
    (tmp_path / "returns.docx").write_bytes(_docx_bytes())
    (tmp_path / "notes.txt").write_text("The office opens at nine. 사무실은 아홉 시에 엽니다.", encoding="utf-8")
    for name in ("policy.pdf", "refund.md", "guide.html", "returns.docx", "notes.txt"):
        mem.ingest("kb", tmp_path / name)
    return mem


def test_ingest_reports_what_it_read(mem: Memory, tmp_path: Path) -> None:
    path = tmp_path / "policy.pdf"
    path.write_bytes(make_pdf(PAGES))
    seen: list[tuple[int, int]] = []
    result = mem.ingest("kb", path, progress=lambda done, total: seen.append((done, total)))
    assert (result.source_id, result.name, result.media_type, result.pages) == ("policy.pdf", "policy.pdf",
                                                                                "application/pdf", 4)
    assert result.chunks_total == 4 and result.facts_added >= 4 and seen[-1] == (4, 4)
    source = mem.source("kb", "policy.pdf")
    assert source.metadata["pages"] == 4 and "제주 지역은 배송에 3일이 더 걸립니다." in (source.text or "")


def test_recalled_document_memories_carry_their_page_or_section(kb: Memory) -> None:
    found = kb.recall("kb", "제주 배송 3일").memories
    top = next(m for m in found if m.source_id == "policy.pdf")
    assert "제주 지역은 배송에 3일이 더 걸립니다." in top.text and top.location is not None
    assert top.location["page"] == 4
    exception = next(m for m in kb.recall("kb", "할인 상품 환불").memories
                     if m.source_id == "refund.md" and "할인 상품은" in m.text)
    assert exception.location is not None and exception.location["section"] == ["환불 정책", "예외"]
    english = next(m for m in kb.recall("kb", "refunds paid within 14 days").memories if m.source_id == "policy.pdf")
    assert english.location is not None and english.location["page"] == 1
    assert kb.get("kb", exception.id).location == exception.location


def test_every_format_is_recalled_with_its_location(kb: Memory) -> None:
    cases = {"guide.html": ("침수 피해 보증", ["Warranty", "보증 예외"]),
             "returns.docx": ("Returns accepted within 30 days", ["Returns"])}
    for source_id, (query, section) in cases.items():
        hit = next(m for m in kb.recall("kb", query).memories if m.source_id == source_id)
        assert hit.location is not None and hit.location["section"] == section, source_id
    note = next(m for m in kb.recall("kb", "office opens nine").memories if m.source_id == "notes.txt")
    assert note.location is not None and "section" not in note.location and "page" not in note.location


def test_reflect_quotes_the_chunk_and_cites_page_and_section(kb: Memory) -> None:
    answer = kb.reflect("kb", "제주 지역은 배송이 며칠 더 걸리나요?")
    assert answer.supported and "policy.pdf, p. 4" in answer.answer
    assert "제주 지역은 배송에 3일이 더 걸립니다" in answer.answer
    cited = next(b for b in answer.based_on if b["source_id"] == "policy.pdf")
    assert cited["location"] == {"page": 4} and cited["citation"] == "policy.pdf, p. 4"
    assert all(q in cited["text"] for q in cited["quotes"])
    section = kb.reflect("kb", "할인 상품도 환불되나요?")
    assert section.supported and "§ 환불 정책 › 예외" in section.answer
    assert "할인 상품은 환불되지 않습니다" in section.answer and section.answer.startswith("문서에 따르면")
    english = kb.reflect("kb", "How long does the warranty last after delivery?")
    assert english.supported and "(guide.html, § Warranty)" in english.answer
    assert "The warranty lasts two years from delivery." in english.answer


def test_reflect_refuses_when_the_documents_do_not_say(kb: Memory) -> None:
    korean = kb.reflect("kb", "대표 이사의 이름은 무엇인가요?")
    assert not korean.supported and korean.answer.startswith("이 문서들에는 없어요")
    english = kb.reflect("kb", "What is the CEO's name?")
    assert not english.supported and english.answer.startswith("That's not in these documents")


def test_documents_do_not_decay_and_never_supersede_each_other(kb: Memory, tmp_path: Path) -> None:
    (tmp_path / "update.md").write_text("# Office\n\nThe office opens at ten now, not nine.", encoding="utf-8")
    kb.ingest("kb", tmp_path / "update.md")
    for query in ("office opens", "환불 정책"):
        for memory in kb.recall("kb", query).memories:
            assert memory.decay_class == "document" and memory.superseded_by is None
    old = next(m for m in kb.recall("kb", "office opens at nine").memories if m.source_id == "notes.txt")
    assert old.valid_to is None


def test_reingesting_a_changed_file_reprocesses_only_changed_chunks(mem: Memory, tmp_path: Path) -> None:
    path = tmp_path / "refund.md"
    path.write_text(MARKDOWN, encoding="utf-8")
    first = mem.ingest("kb", path)
    again = mem.ingest("kb", path)
    assert again.chunks_skipped == again.chunks_total == first.chunks_total and again.facts_added == 0
    changed = MARKDOWN.replace("할인 상품은 환불되지 않습니다.", "할인 상품은 교환만 가능합니다.")
    path.write_text(changed.replace("| Jeju | 4 |\n", ""), encoding="utf-8")
    third = mem.ingest("kb", path)
    assert third.chunks_total == first.chunks_total and third.chunks_skipped == first.chunks_total - 2
    assert third.facts_removed >= 2 and third.facts_added >= 2
    texts = [m.text for m in mem.recall("kb", "할인 상품 환불 교환").memories]
    assert any("교환만 가능합니다" in t for t in texts)
    assert not any("환불되지 않습니다" in t for t in texts) and not any("Jeju" in t for t in texts)
    moved = next(m for m in mem.recall("kb", "할인 상품 교환").memories if "교환만" in m.text)
    assert moved.location is not None and moved.location["section"] == ["환불 정책", "예외"]


def test_ingest_from_bytes_needs_no_name(mem: Memory) -> None:
    data = _docx_bytes()  # built once: a DOCX's zip carries the time it was written
    result = mem.ingest("kb", data,
                        media_type="application/vnd.openxmlformats-officedocument.wordprocessingml.document")
    assert result.source_id.startswith("doc-") and result.name == "<bytes>"
    same = mem.ingest("kb", data,
                      media_type="application/vnd.openxmlformats-officedocument.wordprocessingml.document")
    assert same.source_id == result.source_id and same.facts_added == 0
    with pytest.raises(UnsupportedFormatError):
        mem.ingest("kb", b"hello", media_type="image/png")


# -- reflect with an LLM: the same quote-or-refuse, the same citations -------------------------
def _shown_id(request: object, needle: str) -> str:
    """The id of the memory the model was shown whose line holds ``needle``."""
    for message in reversed(request.messages):  # type: ignore[attr-defined]
        content = str(message["content"])
        if needle in content and "[f-" in content:
            before = content[:content.index(needle)]
            return before[before.rindex("[f-") + 1:before.rindex("]")]
    raise AssertionError(f"{needle!r} was not shown to the model")


@pytest.mark.parametrize(("question", "needle", "quote", "cite"), [
    ("제주 배송은 며칠 더 걸려요?", "제주 지역은", "제주 지역은 배송에 3일이 더 걸립니다", "(policy.pdf, p. 4)"),
    ("Can I refund a gift card?", "gift card", "gift cards cannot be refunded", "(refund.md, § 환불 정책 › FAQ)"),
])
def test_reflect_with_an_llm_keeps_a_verified_quote_and_cites_its_location(db_path: str, fake_embedder: object,
                                                                           tmp_path: Path, question: str, needle: str,
                                                                           quote: str, cite: str) -> None:
    from gieok.providers.llms import ScriptedLLM

    def answer(request: object) -> dict[str, object]:
        memory_id = _shown_id(request, needle)
        return {"action": "answer", "answer": f'"{quote}" [{memory_id}].\n"Made up words here" [{memory_id}].',
                "cited": [memory_id]}

    llm = ScriptedLLM([{"action": "recall", "query": question}, answer])
    with Memory(db_path, embedder="fake", llm=llm) as mem:
        mem.configure_llm("kb", enabled=False)
        (tmp_path / "policy.pdf").write_bytes(make_pdf(PAGES))
        mem.ingest("kb", tmp_path / "policy.pdf")
        mem.ingest("kb", MARKDOWN.encode(), document_id="refund.md", media_type="text/markdown")
        mem.configure_llm("kb", enabled=True)
        result = mem.reflect("kb", question)
    assert result.supported and result.mode == "llm"
    assert quote in result.answer and cite in result.answer and "Made up" not in result.answer
    assert result.dropped_quotes == ["Made up words here"]


def test_reflect_with_an_llm_refuses_in_document_words_when_no_quote_survives(db_path: str,
                                                                              fake_embedder: object) -> None:
    from gieok.providers.llms import ScriptedLLM

    llm = ScriptedLLM([{"action": "recall", "query": "대표 이사"},
                       {"action": "answer", "answer": '대표는 "김철수 사장님입니다" [f-1].', "cited": ["f-1"]}])
    with Memory(db_path, embedder="fake", llm=llm) as mem:
        mem.configure_llm("kb", enabled=False)
        mem.ingest("kb", MARKDOWN.encode(), document_id="refund.md", media_type="text/markdown")
        mem.configure_llm("kb", enabled=True)
        result = mem.reflect("kb", "대표 이사가 누구예요?")
    assert not result.supported and result.answer.startswith("이 문서들에는 없어요")


# -- the extractive answer over document memories (gieok.answering) ----------------------------
def test_a_heading_is_never_the_answer_and_lends_its_section_to_the_lines_under_it() -> None:
    from gieok.answering import EvidenceItem, extractive_answer

    warranty = EvidenceItem("f-1", "What is not covered\n\n- Damage caused by water or by dropping the lamp.", 1.0,
                            headings=("Lumen Lamp Warranty", "What is not covered"))
    answer = extractive_answer("Is water damage covered by the warranty?", [warranty])
    assert answer is not None and answer.quotes == [("f-1", "- Damage caused by water or by dropping the lamp.")]
    title = EvidenceItem("f-2", "사내 복리후생 안내\n\n정규직과 계약직 직원 모두 대상입니다.", 1.0,
                         headings=("사내 복리후생 안내",))
    quoted = extractive_answer("사내 복리후생 안내는 누가 대상인가요?", [title])
    assert quoted is not None and [q for _, q in quoted.quotes] == ["정규직과 계약직 직원 모두 대상입니다."]
    # without the heading path the same text gives no section credit: the question is not covered
    assert extractive_answer("Is water damage covered by the warranty?",
                             [EvidenceItem("f-1", warranty.text, 1.0)]) is None


def test_a_table_header_lends_its_words_to_every_row_and_is_not_an_answer() -> None:
    from gieok.answering import EvidenceItem, extractive_answer

    meals = EvidenceItem("f-1", "Meal | Daily limit\nBreakfast | 15 euros\nLunch | 25 euros\nDinner | 40 euros", 1.0)
    answer = extractive_answer("What is the daily limit for dinner?", [meals])
    assert answer is not None and answer.quotes == [("f-1", "Dinner | 40 euros")]
    fees = EvidenceItem("f-2", "상품 종류 | 교환 배송비\n의류 | 무료\n가구 | 30,000원", 1.0)
    korean = extractive_answer("가구 교환 배송비는 얼마인가요?", [fees])
    assert korean is not None and korean.quotes == [("f-2", "가구 | 30,000원")]


def test_a_pdf_page_title_is_not_quoted_as_the_answer(mem: Memory) -> None:
    pages = [["사내 복리후생 안내", "이 안내는 2026년 1월 1일부터 적용됩니다."],
             ["Billing", "Invoices are issued on the first business day of each month."]]
    mem.ingest("kb", make_pdf(pages), document_id="welfare.pdf")
    korean = mem.reflect("kb", "복리후생 안내는 언제부터 적용되나요?")
    assert korean.supported and "2026년 1월 1일부터 적용됩니다" in korean.answer
    assert "(welfare.pdf, p. 1)" in korean.answer
    assert [q for b in korean.based_on for q in b["quotes"]] == ["이 안내는 2026년 1월 1일부터 적용됩니다."]
    english = mem.reflect("kb", "When are billing invoices issued?")
    assert english.supported and "first business day of each month" in english.answer and "p. 2" in english.answer


# -- the same on PostgreSQL ---------------------------------------------------------------------
def test_ingest_recall_and_reingest_on_postgres(pg_dsn_factory: object,  # noqa: F811
                                                fake_embedder: object) -> None:
    from gieok.store import PostgresStore

    with Memory(store=PostgresStore(pg_dsn_factory()), embedder="fake") as pg:  # type: ignore[operator]
        pg.ingest("kb", make_pdf(PAGES), document_id="policy.pdf")
        pg.ingest("kb", MARKDOWN.encode(), document_id="refund.md")
        page = next(m for m in pg.recall("kb", "제주 배송 3일").memories if m.source_id == "policy.pdf")
        assert page.location is not None and page.location["page"] == 4
        answer = pg.reflect("kb", "할인 상품도 환불되나요?")
        assert answer.supported and "(refund.md, § 환불 정책 › 예외)" in answer.answer
        edited = MARKDOWN.replace("할인 상품은 환불되지 않습니다.", "할인 상품은 교환만 됩니다.")
        changed = pg.ingest("kb", edited.encode(), document_id="refund.md")
        assert changed.chunks_skipped == changed.chunks_total - 1 and changed.facts_removed >= 1
        with pytest.raises(CorruptDocumentError):
            pg.ingest("kb", make_pdf(PAGES)[:700], document_id="broken.pdf")
        assert [s.id for s in pg.sources("kb")] == ["policy.pdf", "refund.md"]
