"""``gieok ingest``: files, folders and globs into a bank as located documents (Memory.ingest).

Each file is ingested on its own — a file gieok cannot read is reported with its typed error and
stores nothing, and the others still go in; the exit code is 2 when any file failed. A file found
in a folder is named by its path under that folder (``manuals/refund.md``), so two ``README.md``
in different folders stay two documents; a file named directly keeps its own name.
"""

from __future__ import annotations

import glob
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from gieok.cli._common import echo_json, open_memory, scope_arguments, scope_options, trust_option
from gieok.errors import FileFormatError, GieokError

__all__ = ["register", "expand_paths"]

# what a folder walk picks up; a file named directly is tried whatever its extension
INGESTED_EXTENSIONS = frozenset({".pdf", ".md", ".markdown", ".html", ".htm", ".xhtml", ".docx", ".txt", ".text"})


def register(cli: click.Group) -> None:
    """Add ``ingest`` to ``cli``."""
    cli.add_command(ingest)


@dataclass(frozen=True)
class _File:
    path: Path
    document_id: str


def expand_paths(items: tuple[str, ...] | list[str]) -> list[_File]:
    """Every file the arguments name: files as they are, folders walked (hidden entries skipped),
    globs (``docs/**/*.pdf``) expanded; the same file named twice is ingested once."""
    found: dict[Path, _File] = {}
    for item in items:
        path = Path(item)
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                relative = child.relative_to(path)
                if child.is_file() and child.suffix.lower() in INGESTED_EXTENSIONS \
                        and not any(part.startswith(".") for part in relative.parts):
                    found.setdefault(child.resolve(), _File(child, relative.as_posix()))
        elif path.is_file():
            found.setdefault(path.resolve(), _File(path, path.name))
        elif glob.has_magic(item):
            matches = sorted(Path(m) for m in glob.glob(item, recursive=True) if Path(m).is_file())
            if not matches:
                raise FileFormatError(f"{item}: the pattern matches no file")
            for match in matches:
                found.setdefault(match.resolve(), _File(match, match.name))
        else:
            raise FileFormatError(f"{item}: no such file or folder")
    return list(found.values())


@click.command()
@click.argument("bank")
@click.argument("paths", nargs=-1, required=True)
@click.option("--document-id", default=None, help="source id (one file only; default: the file's name)")
@click.option("--media-type", default=None, help="the files' type when the extension does not say (e.g. text/markdown)")
@scope_options()
@trust_option("default: document")
@click.option("--json", "as_json", is_flag=True, help="print a JSON summary: every file's result or error, and totals")
@click.pass_context
def ingest(ctx: click.Context, /, bank: str, paths: tuple[str, ...], document_id: str | None, media_type: str | None,
           trust: str | None, as_json: bool, **scope: Any) -> None:
    """Ingest PDF, Markdown, HTML, DOCX and text files (or folders, or globs) into BANK as documents.

    Every chunk keeps its page or heading path, which recall and reflect cite. Re-ingesting a changed
    file re-processes only its changed chunks."""
    files = expand_paths(paths)
    if document_id is not None and len(files) != 1:
        raise FileFormatError(f"--document-id names one document, but the paths give {len(files)} files")
    mem = open_memory(ctx)
    results: list[dict[str, Any]] = []
    failed: list[dict[str, str]] = []
    from rich.progress import Progress

    with Progress(transient=True, disable=as_json or not sys.stderr.isatty()) as progress:
        overall = progress.add_task("files", total=len(files))
        pages = progress.add_task("pages", total=None)
        for item in files:
            progress.update(pages, description=item.document_id, completed=0, total=None)
            try:
                result = mem.ingest(bank, item.path, document_id=document_id or item.document_id,
                                    media_type=media_type, trust=trust, **scope_arguments(scope),
                                    progress=lambda done, total: progress.update(pages, completed=done, total=total))
            except GieokError as error:
                failed.append({"path": str(item.path), "error": type(error).__name__, "message": str(error)})
                if not as_json:
                    progress.console.print(f"[red]skipped[/red] {item.path}: {error}", markup=True, highlight=False)
            else:
                results.append({"path": str(item.path), **result.to_dict()})
            progress.advance(overall)
    totals = {"files": len(results), "failed": len(failed), "pages": sum(r["pages"] or 0 for r in results),
              "chunks": sum(r["chunks_total"] for r in results),
              "chunks_unchanged": sum(r["chunks_skipped"] for r in results),
              "facts_added": sum(r["facts_added"] for r in results),
              "facts_removed": sum(r["facts_removed"] for r in results),
              "quarantined": sum(r["quarantined"] for r in results),
              "seconds": round(sum(r["seconds"] for r in results), 3)}
    if as_json:
        echo_json({"bank": bank, "documents": results, "failed": failed, "totals": totals})
    else:
        for r in results:
            pages_text = f", {r['pages']} pages" if r["pages"] else ""
            held = f", {r['quarantined']} held back as instructions" if r["quarantined"] else ""
            click.echo(f"ingested {r['source_id']} ({r['media_type']}{pages_text}): {r['facts_added']} facts added, "
                       f"{r['facts_removed']} removed, {r['chunks_skipped']}/{r['chunks_total']} chunks unchanged"
                       + held)
        click.echo(f"{totals['files']} of {len(files)} files ingested into {bank}"
                   + (f"; {len(failed)} failed" if failed else "")
                   + (f"; see `gieok quarantine {bank}`" if totals["quarantined"] else ""))
    if failed:
        sys.exit(2)
