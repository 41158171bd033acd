"""Documents: does recall find the right chunk, does reflect cite the right page or section, and
does it refuse what the documents do not say?

The QA set (``bench/data/documents_qa.json``, written by hand for gieok) holds eight small documents
— two PDFs, two Markdown files, one HTML page, two DOCX files and one text file, half Korean — and
66 questions (33 Korean), 15 of them not answered by any document. The files are generated here
(PDF by ``tests/pdf_fixture.py``, DOCX by python-docx), ingested into one bank with
``Memory.ingest``, and every question is asked with ``recall`` and offline ``reflect``. Reported,
for all questions and per language:

* **R@1 chunk** — share of answerable questions whose evidence chunk is the first memory recalled;
* **R@5 chunk** — share of answerable questions whose evidence chunk (the chunk whose span holds the
  evidence sentence) is among the top 5 recalled memories; **R@5 document** — the right file at all;
* **answered** — share of answerable questions reflect answers (not "not in these documents");
* **evidence quoted** — of those answered, the share whose answer quotes the evidence text;
* **citation exact** — of those answered, the share citing the right file *and* the right page
  (PDF) or heading path (Markdown / HTML / DOCX) — the text file has neither, so the file counts;
* **refused** — share of unanswerable questions refused (higher is better).

Throughput: a synthetic PDF of ``--pages`` pages (the QA PDFs' pages, repeated and numbered) is
parsed (pages/s of the text-layer reader and chunker alone) and ingested (pages/s end to end,
embedding included), into its own bank.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from pdf_fixture import make_pdf  # noqa: E402

from gieok import Memory  # noqa: E402
from gieok.documents import chunk_blocks, parse_document  # noqa: E402

DEFAULT_DATA = Path(__file__).parent / "data" / "documents_qa.json"
TOP_K = 5


def _docx(blocks: list[list[Any]]) -> bytes:
    import docx

    document = docx.Document()
    for kind, value in blocks:
        if kind in ("h1", "h2", "h3"):
            document.add_heading(value, int(kind[1]))
        elif kind == "p":
            document.add_paragraph(value)
        elif kind == "table":
            table = document.add_table(rows=len(value), cols=len(value[0]))
            for i, row in enumerate(value):
                for j, cell in enumerate(row):
                    table.cell(i, j).text = cell
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def build_files(documents: list[dict[str, Any]], folder: Path) -> dict[str, Path]:
    """Write every document of the QA set as the file it stands for."""
    paths = {}
    for doc in documents:
        path = folder / doc["id"]
        if doc["format"] == "pdf":
            path.write_bytes(make_pdf(doc["pages"]))
        elif doc["format"] == "docx":
            path.write_bytes(_docx(doc["blocks"]))
        else:
            path.write_text(doc["text"], encoding="utf-8")
        paths[doc["id"]] = path
    return paths


def _squash(text: str) -> str:
    return " ".join(text.split())


def _language(question: str) -> str:
    return "ko" if re.search("[가-힣]", question) else "en"


def _evidence_span(texts: dict[str, str], question: dict[str, Any]) -> tuple[int, int]:
    text = texts[question["document"]]
    start = text.find(question["evidence"])
    if start < 0:
        raise SystemExit(f"evidence {question['evidence']!r} is not in {question['document']}: fix the QA set")
    return start, start + len(question["evidence"])


def _right_place(entry_location: dict[str, Any] | None, question: dict[str, Any]) -> bool:
    location = entry_location or {}
    if "page" in question and location.get("page") != question["page"]:
        return False
    if "section" in question and location.get("section") != question["section"]:
        return False
    return True


def _throughput(mem: Memory, documents: list[dict[str, Any]], pages: int) -> dict[str, float]:
    pool = [page for doc in documents if doc["format"] == "pdf" for page in doc["pages"]]
    synthetic = [[f"Page {i + 1} / 쪽 {i + 1}", *pool[i % len(pool)]] for i in range(pages)]
    data = make_pdf(synthetic)
    started = time.perf_counter()
    parsed = parse_document(data, "synthetic.pdf")
    chunks = chunk_blocks(parsed, int(mem.settings.chunk_chars))
    parse_seconds = time.perf_counter() - started
    started = time.perf_counter()
    result = mem.ingest("throughput", data, document_id="synthetic.pdf", media_type="application/pdf")
    ingest_seconds = time.perf_counter() - started
    return {"pages": pages, "chunks": len(chunks), "facts": result.facts_added,
            "parse_pages_per_s": round(pages / parse_seconds, 1),
            "ingest_pages_per_s": round(pages / ingest_seconds, 1),
            "ingest_seconds": round(ingest_seconds, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--embedder", default="e5-small")
    parser.add_argument("--fake", action="store_true", help="a hashing embedder instead of a model (fast, lexical)")
    parser.add_argument("--pages", type=int, default=200, help="pages of the synthetic PDF for throughput (0: skip)")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    parser.add_argument("--dump", default=None, help="write each question's result here as JSON lines")
    args = parser.parse_args()

    from rich.console import Console
    from rich.table import Table

    console = Console(stderr=args.json)
    embedder = args.embedder
    if args.fake:
        from _hash_embedder import hash_embedder

        embedder = hash_embedder("bench-documents-hash")
    data = json.loads(Path(args.data).read_text(encoding="utf-8"))
    documents, questions = data["documents"], data["questions"]
    tmp = tempfile.TemporaryDirectory()
    folder = Path(tmp.name)
    paths = build_files(documents, folder)
    texts = {doc_id: parse_document(path.read_bytes(), path.name).text for doc_id, path in paths.items()}
    stats: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    dump = open(args.dump, "w", encoding="utf-8") if args.dump else None  # noqa: SIM115
    with Memory(str(folder / "documents.db"), embedder=embedder, refresh_on_recall=False) as mem:
        started = time.perf_counter()
        pdf_pages = 0
        for path in paths.values():
            result = mem.ingest("kb", path)
            pdf_pages += result.pages or 0
        ingest_seconds = time.perf_counter() - started
        for q in questions:
            buckets = ("all", _language(q["question"]))
            recalled = mem.recall("kb", q["question"], limit=TOP_K).memories[:TOP_K]
            result = mem.reflect("kb", q["question"])
            row: dict[str, Any] = {"question": q["question"], "document": q["document"], "answered": result.supported,
                                   "answer": result.answer}
            if q["document"] is None:
                for bucket in buckets:
                    stats[bucket]["refused"].append(float(not result.supported))
            else:
                start, end = _evidence_span(texts, q)
                chunk_hit = any(m.source_id == q["document"] and m.location is not None
                                and m.location["start"] <= start and end <= m.location["end"] for m in recalled)
                doc_hit = any(m.source_id == q["document"] for m in recalled)
                first_hit = bool(recalled) and recalled[0].source_id == q["document"] and \
                    recalled[0].location is not None and recalled[0].location["start"] <= start <= end <= \
                    recalled[0].location["end"]
                quoted = result.supported and _squash(q["evidence"]) in _squash(result.answer)
                exact = result.supported and any(b["source_id"] == q["document"] and _right_place(b.get("location"), q)
                                                 for b in result.based_on)
                row.update({"chunk_hit": chunk_hit, "quoted": quoted, "citation_exact": exact,
                            "citations": [b.get("citation") for b in result.based_on]})
                for bucket in buckets:
                    stats[bucket]["R@1 chunk"].append(float(first_hit))
                    stats[bucket]["R@5 chunk"].append(float(chunk_hit))
                    stats[bucket]["R@5 document"].append(float(doc_hit))
                    stats[bucket]["answered"].append(float(result.supported))
                    if result.supported:
                        stats[bucket]["evidence quoted"].append(float(quoted))
                        stats[bucket]["citation exact"].append(float(exact))
            if dump:
                dump.write(json.dumps(row, ensure_ascii=False) + "\n")
        throughput = _throughput(mem, documents, args.pages) if args.pages else {}
    if dump:
        dump.close()

    def mean(values: list[float]) -> str:
        return f"{sum(values) / len(values):.3f}" if values else "-"

    columns = ("R@1 chunk", "R@5 chunk", "R@5 document", "answered", "evidence quoted", "citation exact", "refused")
    rows = {bucket: {k: (mean(stats[bucket][k]), len(stats[bucket][k])) for k in columns} for bucket in
            ("all", "ko", "en")}
    summary = {"data": args.data, "embedder": embedder, "documents": len(documents), "questions": len(questions),
               "qa_ingest_seconds": round(ingest_seconds, 2), "qa_pdf_pages": pdf_pages, "rows": rows,
               "throughput": throughput}
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=2))
        return
    table = Table(title=f"Documents ({embedder}): {len(documents)} files, {len(questions)} questions")
    table.add_column("questions")
    table.add_column("n", justify="right")
    for column in columns:
        table.add_column(column, justify="right")
    for bucket, r in rows.items():
        table.add_row(bucket, f"{r['R@5 chunk'][1]}+{r['refused'][1]}", *(r[c][0] for c in columns))
    console.print(table)
    if throughput:
        console.print(f"throughput: a {throughput['pages']}-page PDF parsed and chunked at "
                      f"{throughput['parse_pages_per_s']} pages/s; ingested (embedding included) at "
                      f"{throughput['ingest_pages_per_s']} pages/s ({throughput['chunks']} chunks, "
                      f"{throughput['facts']} facts, {throughput['ingest_seconds']} s)")


if __name__ == "__main__":
    main()
