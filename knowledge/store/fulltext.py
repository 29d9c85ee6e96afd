"""Which words of a question the full-text search matches on, and what each word weighs.

An OR of every word makes a word found in a third of the chunks fetch a third of the table,
while telling the ranking almost nothing. So the search matches on the question's rarer
words, up to a budget of expected rows, and on all of its common words together (a chunk
holding all of them is a real match). Found chunks are ranked by the inverse document
frequency of the question's words they hold, as BM25 weighs terms.

How common a word is, is counted in the scopes searched (`kb_scope_terms`, kept by
ingest): a company's name is rare across every department's documents and says nothing
inside the company's own filing, where "tax rate" is what tells chunks apart. Scopes not
counted yet fall back to Postgres' statistics on the whole column
(pg_stats.most_common_elems, kept by ANALYZE).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from knowledge.store.tables import chunks, kb_scope_terms

GIN_INDEX = "kb_chunks_idx"  # on text_search_tsv (migration 0002)

# Expected rows the match may fetch and rank: a few microseconds each, so the full-text leg
# stays near 10 ms however large the table grows. On InsuranceQA and COVID-FAQ quality is
# the same as with no budget at all (benchmarks/README.md).
ROW_BUDGET = 1500


@dataclass(frozen=True)
class TermStats:
    """Share of chunks holding each tracked lexeme; untracked ones are rarer than `floor`."""

    rows: float = 0.0
    share: dict[str, float] = field(default_factory=dict)
    floor: float = 0.0

    def share_of(self, lexeme: str) -> float:
        # as the planner does: an untracked lexeme is assumed half as common as the rarest
        # tracked one
        return self.share.get(lexeme, self.floor / 2)

    def idf(self, lexeme: str) -> float:
        """BM25's inverse document frequency (1.0 for every word before any statistics)."""
        if not self.rows:
            return 1.0
        n = self.expected_rows(lexeme)
        return math.log(1 + (self.rows - n + 0.5) / (n + 0.5))

    def expected_rows(self, *lexemes: str) -> float:
        """Rows expected to hold all of `lexemes` (taken as independent)."""
        return self.rows * math.prod(self.share_of(lex) for lex in lexemes)


@dataclass(frozen=True)
class TextQuery:
    """`match` picks the rows (through the GIN index); `weights` rank them."""

    match: str
    weights: dict[str, float] = field(default_factory=dict)  # lexeme -> inverse doc frequency


def plan_query(lexemes: Sequence[str], stats: TermStats, budget: float = ROW_BUDGET) -> TextQuery:
    """Rarest words first while their expected rows fit the budget; the rest must co-occur
    (when even that would exceed the budget, the dense search alone answers for them)."""
    ordered = sorted(dict.fromkeys(lexemes), key=lambda lex: (stats.expected_rows(lex), lex))
    rare: list[str] = []
    spent = 0.0
    for lexeme in ordered:
        cost = stats.expected_rows(lexeme)
        if spent + cost > budget:
            break
        rare.append(lexeme)
        spent += cost
    common = ordered[len(rare) :]
    parts = [quote(lex) for lex in rare]
    if len(common) > 1 and spent + stats.expected_rows(*common) <= budget:
        parts.append("(" + " & ".join(quote(lex) for lex in common) + ")")
    weights = {lex: stats.idf(lex) for lex in ordered}
    return TextQuery(match=" | ".join(parts), weights=weights)


def lexemes(conn: Connection, text: str) -> list[str]:
    """The question's words as the full-text column stores them (stemmed, no stop words)."""
    vector = sa.func.to_tsvector(sa.literal_column("'english'::regconfig"), text)
    found = conn.execute(sa.select(sa.func.tsvector_to_array(vector))).scalar_one()
    return list(found or [])


def load_stats(conn: Connection) -> TermStats:
    row = conn.execute(_STATS).one_or_none()
    if row is None or not row.elems:
        return TermStats()
    elems, freqs, rows = row
    # most_common_elem_freqs ends with the minimum, maximum and null share
    share = dict(zip(elems, freqs[: len(elems)], strict=True))
    return TermStats(rows=max(float(rows), 0.0), share=share, floor=float(freqs[len(elems)]))


def refresh_stats(conn: Connection) -> None:
    """After an ingest changed the table: merge the full-text index's pending list and let
    Postgres resample the table.

    New rows wait in the GIN index's pending list (fastupdate) until autovacuum merges
    them, and every search reads that whole list; the planner, counting its pages, even
    turns to a sequential scan. Merging it made a search at 10k chunks 5-8 ms faster.
    """
    conn.execute(sa.select(sa.func.gin_clean_pending_list(sa.text(f"'{GIN_INDEX}'::regclass"))))
    conn.execute(sa.text(f"ANALYZE {chunks.name}"))


def scope_stats(conn: Connection, scopes: Sequence[str], words: Sequence[str]) -> TermStats | None:
    """How common each of `words` is in `scopes` (None when they hold nothing counted)."""
    rows = conn.execute(
        sa.select(kb_scope_terms.c.lexeme, sa.func.sum(kb_scope_terms.c.chunks))
        .where(
            kb_scope_terms.c.scope.in_(list(scopes)),
            kb_scope_terms.c.lexeme.in_(["", *dict.fromkeys(words)]),
        )
        .group_by(kb_scope_terms.c.lexeme)
    ).all()
    held = {lexeme: float(n) for lexeme, n in rows}
    size = held.pop("", 0.0)
    return TermStats(rows=size, share={w: n / size for w, n in held.items()}) if size else None


def refresh_scope_terms(conn: Connection, scopes: Sequence[str]) -> None:
    """Count again, in each of `scopes`, the chunks holding each word (a scope left empty
    loses its rows). Two ingests of one scope count one after the other (a lock held to
    the end of the caller's transaction), so neither inserts beside the other's rows."""
    for scope in sorted(set(scopes)):
        conn.execute(sa.select(sa.func.pg_advisory_xact_lock(sa.func.hashtext(f"terms:{scope}"))))
        conn.execute(sa.delete(kb_scope_terms).where(kb_scope_terms.c.scope == scope))
        conn.execute(_COUNT_SCOPE, {"scope": scope})


def known_scopes(conn: Connection) -> list[str]:
    """Every scope that holds chunks or is counted."""
    held = chunks.c.metadata_["scope"].astext
    query = sa.union(
        sa.select(held.label("scope")).where(held.is_not(None)),
        sa.select(kb_scope_terms.c.scope),
    )
    return list(conn.execute(query).scalars())


def quote(lexeme: str) -> str:
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


_STATS = sa.text(
    """
    SELECT s.most_common_elems::text::text[] AS elems, s.most_common_elem_freqs AS freqs,
           c.reltuples AS rows
      FROM pg_stats s JOIN pg_class c ON c.relname = s.tablename
     WHERE s.schemaname = current_schema() AND s.tablename = :table
       AND s.attname = 'text_search_tsv'
       AND c.relnamespace = to_regnamespace(current_schema())
    """
).bindparams(table=chunks.name)

_COUNT_SCOPE = sa.text(
    """
    INSERT INTO kb_scope_terms (scope, lexeme, chunks)
    SELECT :scope, word, ndoc
      FROM ts_stat(format(
          'SELECT text_search_tsv FROM data_kb_chunks WHERE metadata_ ->> %L = %L',
          'scope', CAST(:scope AS text)))
    UNION ALL
    SELECT :scope, '', count(*) FROM data_kb_chunks WHERE metadata_ ->> 'scope' = :scope
    HAVING count(*) > 0
    """
)
