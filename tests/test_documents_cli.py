"""The adapters over Memory.ingest. `gieok ingest`: files, folders and globs; one bad file reported
and skipped; --json summary; `gieok recall` and `gieok reflect` print the page or heading path.
``POST /v1/banks/{bank}/documents``: the body is the file, a bad one is a problem+json answer."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from pdf_fixture import make_pdf

from gieok import Memory
from gieok.cli import cli

PAGES = [["Refund policy", "Refunds are paid within 14 days of the request."],
         ["배송 안내", "제주 지역은 배송에 3일이 더 걸립니다."]]
MARKDOWN = "# 환불 정책\n\n환불은 7일 이내 가능합니다.\n\n## 예외\n\n할인 상품은 환불되지 않습니다.\n"


def _run(db: str, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["--db", db, "--embedder", "fake", *args])
    return result.exit_code, result.output


def _library(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    (root / "manuals").mkdir(parents=True)
    (root / "policy.pdf").write_bytes(make_pdf(PAGES))
    (root / "manuals" / "refund.md").write_text(MARKDOWN, encoding="utf-8")
    (root / "manuals" / "guide.html").write_text("<main><h1>Warranty</h1><p>Two years.</p></main>", encoding="utf-8")
    (root / ".hidden.md").write_text("# secret\n\nnot ingested", encoding="utf-8")
    (root / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n")  # not a document extension: the walk skips it
    return root


def test_ingest_a_folder_names_documents_by_their_path_and_sums_up_in_json(db_path: str, fake_embedder: object,
                                                                          tmp_path: Path) -> None:
    root = _library(tmp_path)
    code, out = _run(db_path, "ingest", "kb", str(root), "--json")
    assert code == 0, out
    summary = json.loads(out)
    assert sorted(d["source_id"] for d in summary["documents"]) == ["manuals/guide.html", "manuals/refund.md",
                                                                    "policy.pdf"]
    assert summary["failed"] == [] and summary["totals"]["files"] == 3 and summary["totals"]["pages"] == 2
    again = json.loads(_run(db_path, "ingest", "kb", str(root), "--json")[1])
    assert again["totals"]["facts_added"] == 0 and again["totals"]["chunks_unchanged"] == again["totals"]["chunks"]


def test_ingest_globs_and_reports_a_bad_file_without_stopping(db_path: str, fake_embedder: object,
                                                             tmp_path: Path) -> None:
    root = _library(tmp_path)
    (root / "broken.pdf").write_bytes(make_pdf(PAGES)[:300])
    code, out = _run(db_path, "ingest", "kb", str(root / "*.pdf"), "--json")
    assert code == 2
    summary = json.loads(out)
    assert [d["source_id"] for d in summary["documents"]] == ["policy.pdf"]
    assert summary["failed"][0]["error"] == "CorruptDocumentError" and "truncated" in summary["failed"][0]["message"]
    code, out = _run(db_path, "sources", "kb", "--json")
    assert [s["id"] for s in json.loads(out)] == ["policy.pdf"]
    code, out = _run(db_path, "ingest", "kb", str(root / "*.nothing"))
    assert code == 2 and "matches no file" in out and "Traceback" not in out


def test_recall_and_reflect_print_page_and_section(db_path: str, fake_embedder: object, tmp_path: Path) -> None:
    root = _library(tmp_path)
    code, out = _run(db_path, "ingest", "kb", str(root / "policy.pdf"), str(root / "manuals" / "refund.md"))
    assert code == 0 and "2 of 2 files ingested" in out
    code, out = _run(db_path, "recall", "kb", "제주 배송")
    assert code == 0 and "p. 2" in out
    code, out = _run(db_path, "reflect", "kb", "할인 상품도 환불되나요?")
    assert code == 0 and "§ 환불 정책 › 예외" in out and "할인 상품은 환불되지 않습니다" in out
    code, out = _run(db_path, "reflect", "kb", "Who is the CEO?")
    assert code == 0 and "not in these documents" in out


def test_document_id_needs_exactly_one_file(db_path: str, fake_embedder: object, tmp_path: Path) -> None:
    root = _library(tmp_path)
    code, out = _run(db_path, "ingest", "kb", str(root), "--document-id", "x")
    assert code == 2 and "one document" in out


def test_upload_a_document_over_http_and_recall_its_page(mem: Memory) -> None:
    import httpx
    from server_harness import serving

    from gieok.server.app import create_app

    with serving(create_app(mem, mcp=False, poll_seconds=0.05, max_body_bytes=200_000)) as url, \
            httpx.Client(base_url=url, timeout=60) as http:
        uploaded = http.post("/v1/banks/kb/documents", params={"document_id": "policy.pdf"},
                             content=make_pdf(PAGES), headers={"content-type": "application/pdf"})
        assert uploaded.status_code == 200, uploaded.text
        assert uploaded.json()["pages"] == 2 and uploaded.json()["source_id"] == "policy.pdf"
        markdown = http.post("/v1/banks/kb/documents", params={"document_id": "refund.md"},
                             content=MARKDOWN.encode())  # no content type: the id's extension says Markdown
        assert markdown.status_code == 200 and markdown.json()["media_type"] == "text/markdown"
        found = http.post("/v1/banks/kb/recall", json={"query": "제주 배송"}).json()["memories"]
        assert any(m["source_id"] == "policy.pdf" and m["location"]["page"] == 2 for m in found)
        answer = http.post("/v1/banks/kb/reflect", json={"question": "할인 상품도 환불되나요?"}).json()
        assert "§ 환불 정책 › 예외" in answer["answer"]
        broken = http.post("/v1/banks/kb/documents", params={"document_id": "broken.pdf"},
                           content=make_pdf(PAGES)[:300], headers={"content-type": "application/pdf"})
        assert broken.status_code == 422 and broken.json()["error"] == "CorruptDocumentError"
        assert "Traceback" not in broken.text and "truncated" in broken.json()["detail"]
        assert [s["id"] for s in http.get("/v1/banks/kb/sources").json()] == ["policy.pdf", "refund.md"]
