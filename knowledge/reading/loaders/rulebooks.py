"""Rulebook files (PDF, DOCX, Markdown, HTML, text) to chunks ready to embed.

This is what ingest calls. Each format's reader turns the file into paragraphs and tables;
`knowledge.reading.chunking` splits those along the document's own outline. Anything that stops a
file from being used becomes a SourceError that says what to do about it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from knowledge.documents import ChunkDraft
from knowledge.errors import SourceError
from knowledge.reading.blocks import Block
from knowledge.reading.chunking import chunk_document
from knowledge.reading.loaders.docx import read_docx
from knowledge.reading.loaders.markup import read_html, read_markdown, read_text
from knowledge.reading.loaders.pdf import read_pdf

Reader = Callable[[Path], list[Block]]

_READERS: dict[str, Reader] = {
    ".pdf": read_pdf,
    ".docx": read_docx,
    ".md": read_markdown,
    ".markdown": read_markdown,
    ".html": read_html,
    ".htm": read_html,
    ".txt": read_text,
}

RULEBOOK_SUFFIXES: frozenset[str] = frozenset(_READERS)


def load_rulebook(path: Path) -> list[ChunkDraft]:
    """Read a rulebook file and split it into rulebook and table chunks.

    Blocking (PDF parsing takes seconds): call it from a worker thread or process.
    Raises SourceError for unsupported, missing, empty, encrypted, damaged or textless files.
    """
    reader = _READERS.get(path.suffix.lower())
    if reader is None:
        supported = ", ".join(sorted(RULEBOOK_SUFFIXES))
        raise SourceError(
            str(path),
            f"unsupported file type '{path.suffix or '(none)'}'; rulebooks must be one of "
            f"{supported} — save or export the document in one of those formats",
        )
    _check_file(path)
    chunks = chunk_document(reader(path), file_name=path.name)
    if not chunks:
        raise SourceError(str(path), _no_text_reason(path))
    return chunks


def _check_file(path: Path) -> None:
    if not path.is_file():
        raise SourceError(str(path), "file not found; check the path and that it is a file")
    if path.stat().st_size == 0:
        raise SourceError(str(path), "the file is empty (0 bytes); copy the full document again")


def _no_text_reason(path: Path) -> str:
    if path.suffix.lower() == ".pdf":
        return "no text could be extracted (scanned PDF?); run OCR on it first and ingest that"
    return "no text found in the document; check that this is the right file and not blank"
