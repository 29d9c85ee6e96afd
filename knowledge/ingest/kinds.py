"""Deciding what kind of source a file is, when the user did not say."""

from __future__ import annotations

import csv
from enum import StrEnum
from pathlib import Path

from knowledge.errors import SourceError
from knowledge.reading.loaders.rulebooks import RULEBOOK_SUFFIXES

TABLE_SUFFIXES = frozenset({".csv", ".tsv"})
FAQ_SUFFIXES = frozenset({".jsonl"})
KNOWN_SUFFIXES = RULEBOOK_SUFFIXES | TABLE_SUFFIXES | FAQ_SUFFIXES

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


def detect_kind(path: Path) -> SourceKind:
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
        f"{', '.join(sorted(KNOWN_SUFFIXES))}",
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
