"""Reading one source into what it holds: chunk drafts, and glossary entries or triples
for the sources that carry them."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from knowledge.documents import ChunkDraft, GlossaryEntry, Triple
from knowledge.errors import SourceError
from knowledge.ingest.facts import derive_facts
from knowledge.ingest.kinds import SourceKind
from knowledge.ingest.options import IngestOptions
from knowledge.ingest.source_links import linked
from knowledge.reading.loaders import faq as faq_loader
from knowledge.reading.loaders import glossary as glossary_loader
from knowledge.reading.loaders import rows as rows_loader
from knowledge.reading.loaders import triples as triples_loader
from knowledge.reading.loaders.rulebooks import load_rulebook


@dataclass(frozen=True)
class Loaded:
    """What one source turned into."""

    drafts: list[ChunkDraft]
    glossary: list[GlossaryEntry] = field(default_factory=list)
    triples: list[Triple] = field(default_factory=list)


_T = TypeVar("_T")


def storable(loaded: Loaded) -> Loaded:
    """`loaded` with NUL characters dropped from every string: Postgres text and JSON cannot
    hold them, and a PDF may map a glyph (a filing's "☒" check box) to one. One such
    character must not fail a whole document."""
    return _without_nul(loaded)


def _without_nul(value: _T) -> _T:
    if isinstance(value, str):
        return value.replace("\x00", "") if "\x00" in value else value  # type: ignore[return-value]
    if isinstance(value, list | tuple):
        return type(value)(_without_nul(v) for v in value)  # type: ignore[return-value]
    if isinstance(value, dict):
        return {_without_nul(k): _without_nul(v) for k, v in value.items()}  # type: ignore[return-value]
    if is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: _without_nul(getattr(value, f.name)) for f in fields(value)}
        return replace(value, **changes)  # type: ignore[return-value]
    return value


def load_file(
    path: Path,
    kind: SourceKind,
    options: IngestOptions,
    as_of: str,
    paraphraser: faq_loader.Paraphraser | None = None,
) -> Loaded:
    source = path.name
    if kind == SourceKind.RULEBOOK:
        return Loaded(load_rulebook(path))
    if kind == SourceKind.GLOSSARY:
        entries = glossary_loader.read_glossary(path)
        return Loaded(glossary_loader.glossary_chunks(entries, source=source), glossary=entries)
    if kind == SourceKind.FAQ:
        faqs = faq_loader.read_faq(path)
        drafts = faq_loader.faq_chunks(faqs, source=source, paraphraser=paraphraser)
        return Loaded(drafts)
    if kind == SourceKind.TRIPLES:
        triples = triples_loader.read_triples(path)
        return Loaded(triples_loader.triple_chunks(triples, source=source), triples=triples)
    rows = rows_loader.read_csv_rows(path)
    return rows_loaded(rows, options, table=options.name or path.stem, as_of=as_of)


def with_links(loaded: Loaded, options: IngestOptions, link_path: str) -> Loaded:
    """Chunks carry the link to their place when the source has a url template."""
    return replace(loaded, drafts=linked(loaded.drafts, options.url, path=link_path))


def rows_loaded(
    rows: Sequence[dict[str, Any]], options: IngestOptions, *, table: str, as_of: str
) -> Loaded:
    if not options.keys:
        raise SourceError(
            table, "rows need a key column: pass --key COLUMN (the column naming each row)"
        )
    spec = rows_loader.RowsSpec(
        keys=options.keys, time=options.time, group=options.group, metrics=options.metrics
    )
    rows = _without_nul(list(rows))  # before a cell is written into a row's JSON text
    drafts = rows_loader.row_chunks(rows, spec, table=table, as_of=as_of)
    drafts += derive_facts(rows, spec, table=table, as_of=as_of)
    return Loaded(drafts)


MEDIA_SUFFIXES = {
    "text/html": ".html",
    "application/xhtml+xml": ".html",
    "application/pdf": ".pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "text/markdown": ".md",
    "text/x-markdown": ".md",
    "text/plain": ".txt",
}


def load_bytes(content: bytes, media_type: str, *, name: str, uri: str) -> Loaded:
    """A fetched document read by the same readers as a file: written to a temporary file
    named `name` (what citations show as the title) with the suffix of its media type."""
    suffix = MEDIA_SUFFIXES.get(media_type.split(";")[0].strip().lower())
    if suffix is None:
        readable = ", ".join(sorted(MEDIA_SUFFIXES))
        raise SourceError(
            uri, f"cannot read content of type {media_type or '(none)'}; knowbot reads {readable}"
        )
    stem = re.sub(r"[\\/:*?\"<>|\x00-\x1f]+", " ", name).strip()[:100] or "page"
    with tempfile.TemporaryDirectory(prefix="knowbot-fetched-") as folder:
        path = Path(folder) / f"{stem}{suffix}"
        path.write_bytes(content)
        try:
            return Loaded(load_rulebook(path))
        except SourceError as exc:
            raise SourceError(uri, exc.reason) from exc
