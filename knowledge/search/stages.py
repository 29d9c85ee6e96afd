"""The retrieval core and the stages above it, each one switchable.

The core is dense search (pgvector) plus Postgres full text, fused by score, deduplicated
and cut to a budget per kind of source. Every stage above it changes what the core returns
and must earn its place: `benchmarks/ablation.py` measures the core alone, the core with
each stage, and all stages on every dev set, and a stage that does not pay on the broad
average is deleted (issue 19).
"""

from __future__ import annotations

from enum import StrEnum


class Stage(StrEnum):
    NAMING = "naming"  # a question naming a document is searched in that document only
    NAME_OUT = "name_out"  # ... and the names it uses are not embedded
    STATEMENT_TABLES = "statement_tables"  # the statement asked about joins by its heading
    STATEMENT_BOOST = "statement_boost"  # a table under the statement asked about ranks up
    TEXT_RANKS = "text_ranks"  # dense hits past the full-text cut keep their words' rank
    WIDEN = "widen"  # a hit grown over its clause's neighbouring parts, each part once
    DENSE_FLOOR = "dense_floor"  # the core's densest chunks are never cut (see floor.py)
    RELEVANT = "relevant"  # chunks matching neither by meaning nor by words reach no answer
    # choosing what a quoted answer (no language model) quotes
    QUOTE_MEANING = "quote_meaning"  # the passages closest in meaning to the question first
    QUOTE_PHRASE = "quote_phrase"  # the question's phrases found as phrases
    QUOTE_QUANTITY = "quote_quantity"  # a passage stating the kind of quantity asked for
    QUOTE_STATEMENT = "quote_statement"  # lines of the statement (or measure inputs) asked
    QUOTE_PERIOD = "quote_period"  # no table line for another period than the one asked
    QUOTE_SIBLINGS = "quote_siblings"  # no passage about a sibling ("Plan C" for "Plan B")


ALL_STAGES = frozenset(Stage)
