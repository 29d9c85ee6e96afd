"""Financial statements by their names: which one a question asks about, and whether a
table is that statement.

A statement goes by several names ("cash flow statement", "Consolidated Statements of Cash
Flows"), and a measure read off one points to it as surely as its name ("has the quick ratio
improved?" is answered from the balance sheet). A filing prints the statement itself once,
directly under its financial statements; the same title inside a note ("Note 22 Deed of
Cross Guarantee > Consolidated Statements of Income") or for a part of the entity
("Statement of Income for Obligor Group") is a supplementary one.

The names, measures and headings are vocabulary, not code: they come from the vocabulary
packs in use (`knowledge.vocabulary`, bundled `knowledge/packs/finance.toml`). With no pack
that names a statement, every function here finds nothing and weighs nothing.
"""

from __future__ import annotations

import re
from functools import lru_cache

from knowledge.documents import PATH_SEPARATOR
from knowledge.vocabulary import Vocabulary, active

SUPPLEMENTARY_SHARE = 1 / 3  # what a statement for a part, or inside a note, counts for


def title_words(asked: frozenset[str]) -> list[str]:
    """Words a heading of one of the `asked` statements holds (a coarse filter: check
    each heading found with `statement_weight`)."""
    vocabulary = active()
    return sorted(
        {w for k in asked if (s := vocabulary.statement(k)) is not None for w in s.title_words}
    )


def measure_inputs(question: str) -> tuple[re.Pattern[str], ...]:
    """The labels of the statement lines the measures `question` asks about are
    computed from, one pattern per input."""
    return _measure_inputs(question, active())


def statements_asked(question: str) -> frozenset[str]:
    """The statements a question names, or whose measures it asks about."""
    return _statements_asked(question, active())


def statement_weight(section: str, asked: frozenset[str]) -> float:
    """How surely the table under `section` is the statement asked about: 1 for the
    statement itself, a share for one for a part of the entity or inside a note (a
    guarantor's or the parent's own statement), 0 for any other table."""
    return _statement_weight(section, asked, active())


@lru_cache(maxsize=4096)
def _measure_inputs(question: str, vocabulary: Vocabulary) -> tuple[re.Pattern[str], ...]:
    found = [
        label
        for measure in vocabulary.measures
        if measure.asks.search(question)
        for label in measure.inputs
    ]
    return tuple({p.pattern: p for p in found}.values())


@lru_cache(maxsize=4096)
def _statements_asked(question: str, vocabulary: Vocabulary) -> frozenset[str]:
    measured = (s.key for s in vocabulary.statements if s.measures and s.measures.search(question))
    return _statements_named(question, vocabulary) | frozenset(measured)


@lru_cache(maxsize=4096)
def _statements_named(text: str, vocabulary: Vocabulary) -> frozenset[str]:
    return frozenset(s.key for s in vocabulary.statements if s.names.search(text))


@lru_cache(maxsize=4096)
def _statement_weight(section: str, asked: frozenset[str], vocabulary: Vocabulary) -> float:
    if not asked or not asked & _statements_named(section, vocabulary):
        return 0.0
    *above, title = section.split(PATH_SEPARATOR)
    note, about, part = vocabulary.note_heading, vocabulary.about_title, vocabulary.part_title
    primary = (
        asked & _statements_named(title, vocabulary)
        and not (note and any(note.match(h.strip()) for h in above))
        and not (about and about.search(title))
        and not (part and part.search(title))
    )
    return 1.0 if primary else SUPPLEMENTARY_SHARE
