"""Deciding what kind of source a file is, when the user did not say."""

from __future__ import annotations

import csv
from enum import StrEnum
from pathlib import Path

from knowledge.errors import SourceError

TABLE_SUFFIXES = frozenset({".csv", ".tsv"})
FAQ_SUFFIXES = frozenset({".jsonl"})

GLOSSARY_TERM = {"term", "abbreviation", "acronym", "abbr"}
GLOSSARY_EXPANSION = {"expansion", "expansion_label", "meaning", "stands_for", "full_form"}
FAQ_QUESTION = {"question", "q"}
FAQ_ANSWER = {"answer", "a"}
TRIPLE_COLUMNS = {"subject", "relation", "object"}


class SourceKind(StrEnum):
    AUTO = "auto"
    RULEBOOK = "rulebook"
    ROWS = "rows"
    GLOSSARY = "glossary"
    FAQ = "faq"
    TRIPLES = "triples"


def known_suffixes() -> frozenset[str]:
    """Every file suffix knowbot reads. The rulebook readers (PDF, DOCX, HTML) are imported
    only when files are read: `SourceKind` alone stays cheap (the CLI's --help uses it)."""
    from knowledge.reading.loaders.rulebooks import RULEBOOK_SUFFIXES

    return RULEBOOK_SUFFIXES | TABLE_SUFFIXES | FAQ_SUFFIXES


def detect_kind(path: Path) -> SourceKind:
    from knowledge.reading.loaders.rulebooks import RULEBOOK_SUFFIXES

    suffix = path.suffix.lower()
    if suffix in RULEBOOK_SUFFIXES:
        return SourceKind.RULEBOOK
    if suffix in FAQ_SUFFIXES:
        return SourceKind.FAQ
    if suffix in TABLE_SUFFIXES:
        return _kind_from_header(_header(path))
    raise SourceError(
        str(path),
        f"unsupported file type {suffix or '(none)'}; knowbot reads "
        f"{', '.join(sorted(known_suffixes()))}",
    )


def _header(path: Path) -> set[str]:
    try:
        with path.open(encoding="utf-8-sig", errors="replace", newline="") as handle:
            first = handle.readline()
    except OSError as exc:
        raise SourceError(str(path), f"cannot read the file ({exc.strerror})") from exc
    delimiter = "\t" if first.count("\t") > first.count(",") else ","
    cells = next(csv.reader([first], delimiter=delimiter), [])
    return {c.strip().lower().replace(" ", "_") for c in cells}


def _kind_from_header(header: set[str]) -> SourceKind:
    if header & GLOSSARY_TERM and header & GLOSSARY_EXPANSION:
        return SourceKind.GLOSSARY
    if header & FAQ_QUESTION and header & FAQ_ANSWER:
        return SourceKind.FAQ
    if header >= TRIPLE_COLUMNS:
        return SourceKind.TRIPLES
    return SourceKind.ROWS
