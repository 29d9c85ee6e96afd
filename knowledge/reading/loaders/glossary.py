"""Glossary of acronyms and terms from CSV/TSV, for query expansion and definitions.

Glossaries come from spreadsheets and ontology exports with varying column names, with or
without a header; the loader finds the term, expansion and definition columns by name and
ignores the rest (IRIs, source files).
"""

from __future__ import annotations

from pathlib import Path

from knowledge.documents import ChunkDraft, ChunkKind, GlossaryEntry
from knowledge.errors import SourceError
from knowledge.nlp import normalize_whitespace
from knowledge.reading.loaders.rows import Record, listing, read_records

TERM_NAMES = frozenset({"term", "abbreviation", "abbrev", "acronym", "short form", "initialism"})
EXPANSION_NAMES = frozenset(
    {"expansion", "expansion label", "meaning", "stands for", "long form", "full form", "name"}
)
DEFINITION_NAMES = frozenset({"definition", "description", "explanation", "notes"})


def read_glossary(path: Path) -> list[GlossaryEntry]:
    """Entries in file order; the same term with the same expansion is kept once.

    An acronym may stand for several things (ABS: asset-backed security, absolute
    prepayment rate), so the same term with different expansions gives several entries.
    """
    records = read_records(path)
    term, expansion, definition, body = _layout(path, records)
    entries: dict[tuple[str, str], GlossaryEntry] = {}
    incomplete: list[str] = []
    for record in body:
        cells = [normalize_whitespace(c) for c in record.cells]
        entry = GlossaryEntry(
            term=_cell(cells, term),
            expansion=_cell(cells, expansion),
            definition=_cell(cells, definition),
        )
        if not entry.term or not (entry.expansion or entry.definition):
            incomplete.append(str(record.line))
            continue
        entries.setdefault((entry.term, entry.expansion.lower()), entry)
    if incomplete:
        raise SourceError(
            str(path),
            f"lines {listing(incomplete)} lack a term or both its expansion and definition; "
            "fill them in or remove them",
        )
    return list(entries.values())


def _layout(path: Path, records: list[Record]) -> tuple[int, int | None, int | None, list[Record]]:
    """Column indexes of term, expansion and definition, and the records holding entries.

    Without a recognised header the columns are taken in that order: term, expansion,
    then an optional definition.
    """
    names = [_column_name(c) for c in records[0].cells]
    if not any(n in TERM_NAMES | EXPANSION_NAMES | DEFINITION_NAMES for n in names):
        width = max(len(r.cells) for r in records)
        if width < 2:
            raise SourceError(
                str(path), "found one column; a glossary needs a term and its expansion"
            )
        return 0, 1, (2 if width > 2 else None), records
    term = _find(names, TERM_NAMES)
    expansion, definition = _find(names, EXPANSION_NAMES), _find(names, DEFINITION_NAMES)
    if term is None or (expansion is None and definition is None):
        raise SourceError(
            str(path),
            f"header {', '.join(records[0].cells)} needs a term column (one of "
            f"{', '.join(sorted(TERM_NAMES))}) and an expansion or definition column "
            f"(one of {', '.join(sorted(EXPANSION_NAMES | DEFINITION_NAMES))})",
        )
    return term, expansion, definition, records[1:]


def _column_name(cell: str) -> str:
    return normalize_whitespace(cell.replace("_", " ").replace("-", " ")).lower()


def _find(names: list[str], wanted: frozenset[str]) -> int | None:
    return next((i for i, name in enumerate(names) if name in wanted), None)


def _cell(cells: list[str], index: int | None) -> str:
    return cells[index] if index is not None and index < len(cells) else ""


def glossary_chunks(entries: list[GlossaryEntry], *, source: str) -> list[ChunkDraft]:
    """One GLOSSARY chunk per entry: "PED (pre-existing disease): definition"."""
    return [_chunk(entry, source) for entry in entries]


def _chunk(entry: GlossaryEntry, source: str) -> ChunkDraft:
    text = entry.term + (f" ({entry.expansion})" if entry.expansion else "")
    text += f": {entry.definition}" if entry.definition else ""
    return ChunkDraft(
        key=f"glossary:{entry.term}:{entry.expansion}",
        kind=ChunkKind.GLOSSARY,
        text=text,
        title=source,
        location=entry.term,
        metadata={"term": entry.term, "expansion": entry.expansion},
    )
