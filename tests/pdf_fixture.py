"""A minimal PDF writer for tests and the document benchmark: one text line per ``Tj``, one page per
list of lines. Latin text is set in Helvetica (a standard font, not embedded); text with Hangul uses a
non-embedded CID font with the predefined ``UniKS-UCS2-H`` CMap (Adobe-Korea1), so the text layer
holds real Unicode without shipping a font file. ``tests`` is not a package: import it as
``from pdf_fixture import write_pdf`` (the benchmark adds this folder to ``sys.path``).
"""

from __future__ import annotations

import re

__all__ = ["make_pdf", "image_only_pdf"]

_HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _show(line: str) -> str:
    if _HANGUL.search(line):
        return f"/F2 12 Tf <{line.encode('utf-16-be').hex().upper()}> Tj"
    return f"/F1 12 Tf ({_escape(line)}) Tj"


def _assemble(objects: list[bytes]) -> bytes:
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def make_pdf(pages: list[list[str]]) -> bytes:
    """A valid PDF whose page ``i`` shows the lines ``pages[i]``, top to bottom (an empty list: a blank page)."""
    fonts = (b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
             b"<< /Type /Font /Subtype /Type0 /BaseFont /HYSMyeongJo-Medium /Encoding /UniKS-UCS2-H "
             b"/DescendantFonts [6 0 R] >>",
             b"<< /Type /Font /Subtype /CIDFontType0 /BaseFont /HYSMyeongJo-Medium "
             b"/CIDSystemInfo << /Registry (Adobe) /Ordering (Korea1) /Supplement 1 >> /FontDescriptor 7 0 R >>",
             b"<< /Type /FontDescriptor /FontName /HYSMyeongJo-Medium /Flags 6 /FontBBox [0 -148 1001 880] "
             b"/ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 880 /StemV 93 >>")
    first_page = 8
    kids = " ".join(f"{first_page + 2 * i} 0 R" for i in range(len(pages)))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode(),
               b"<< /Font << /F1 4 0 R /F2 5 0 R >> >>", *fonts]
    for i, lines in enumerate(pages):
        ops = ["BT", "14 TL", "72 770 Td"] + [f"{_show(line)} T*" for line in lines] + ["ET"]
        stream = "\n".join(ops).encode("latin-1")
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources 3 0 R "
                       f"/Contents {first_page + 2 * i + 1} 0 R >>".encode())
        objects.append(f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"\nendstream")
    return _assemble(objects)


def image_only_pdf() -> bytes:
    """One page that is a picture (a 2×2 grey image) and no text layer: what a scanner makes."""
    pixels = bytes([128] * 4)
    stream = b"q 200 0 0 200 72 500 cm /Im1 Do Q"
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im1 5 0 R >> >> "
               b"/Contents 4 0 R >>",
               f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"\nendstream",
               f"<< /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray "
               f"/BitsPerComponent 8 /Length {len(pixels)} >>\nstream\n".encode() + pixels + b"\nendstream"]
    return _assemble(objects)
