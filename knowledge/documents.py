"""What loaders produce: chunks ready to embed, plus glossary, FAQ and triple records.

Loaders never touch the database; the store turns these into rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

PATH_SEPARATOR = " > "  # between a section path's headings: "2 Definitions > 2.22 Hospital"


class ChunkKind(StrEnum):
    RULEBOOK = "rulebook"  # a passage of a policy document
    TABLE = "table"  # one row of a table inside a document, every cell with its headers
    ROW = "row"  # one structured row (CSV / SQL), as a JSON object
    FACT = "fact"  # a derived sentence computed from rows (rank, trend, anomaly)
    GLOSSARY = "glossary"  # a glossary term with its expansion and definition
    FAQ = "faq"  # a FAQ question (or a paraphrase of it) pointing at its answer
    TRIPLE = "triple"  # a knowledge-graph fact


@dataclass(frozen=True)
class ChunkDraft:
    """One searchable unit before it is stored.

    `key` is stable across re-ingests of the same source (it identifies the chunk's place,
    not its content) so a changed chunk replaces the old one instead of piling up.
    `title` and `location` are what a citation shows: "policy.pdf" / "p. 4, 3.1 Room rent",
    or "table policies" / "policy_number 0000-0001, as of 2026-11-20".
    """

    key: str
    kind: ChunkKind
    text: str
    title: str
    location: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class GlossaryEntry:
    term: str  # "PED"
    expansion: str  # "pre-existing disease"
    definition: str = ""  # optional longer definition


@dataclass(frozen=True)
class FaqEntry:
    question: str
    answer: str
    key_sentences: tuple[str, ...]  # the answer's important sentences, in answer order


@dataclass(frozen=True)
class Triple:
    subject: str
    relation: str
    object: str
