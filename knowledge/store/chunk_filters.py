"""The conditions and rank expressions chunk queries share: which scopes, sources and
readers a query may see, and the full-text rank of a chunk for a question's words."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg
from sqlalchemy.dialects.postgresql import TSQUERY

from knowledge.store import fulltext
from knowledge.store.tables import chunks

SCOPE_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")
TEXTS = pg.ARRAY(sa.Text)  # a text[] literal, as access lists are


def check_scope(scope: str) -> str:
    """Scopes end up inside SQL filters built by PGVectorStore, so only plain names pass."""
    if not SCOPE_PATTERN.match(scope):
        raise ValueError(
            f"Invalid scope {scope!r}: use letters, digits, '_', '-', '.', ':' (max 64 chars)."
        )
    return scope


def source_is(source_id: int) -> sa.ColumnElement[bool]:
    return chunks.c.metadata_["source_id"].astext.cast(sa.BigInteger) == source_id


def scope_in(scopes: Sequence[str]) -> sa.ColumnElement[bool]:
    return chunks.c.metadata_["scope"].astext.in_([check_scope(s) for s in scopes])


def source_in(sources: Sequence[int] | None) -> list[sa.ColumnElement[bool]]:
    """No condition when every source may answer; else only chunks of `sources`."""
    if sources is None:
        return []
    return [chunks.c.metadata_["source_id"].astext.cast(sa.BigInteger).in_(list(sources))]


def readable_by(readers: Sequence[str]) -> sa.ColumnElement[bool]:
    """The chunk's access list names one of `readers` (served by the GIN index)."""
    return chunks.c.access.op("&&")(sa.cast(list(readers), TEXTS))


def access_filter(readers: Sequence[str] | None) -> list[sa.ColumnElement[bool]]:
    """No condition when nothing is restricted; else only chunks `readers` may read."""
    return [] if readers is None else [readable_by(readers)]


def full_text_rank(plan: fulltext.TextQuery) -> sa.ColumnElement[float]:
    """BM25's term weighting without its length and frequency terms: the sum of the
    inverse document frequencies of the question's words the chunk holds. Measured against
    ts_rank (no document frequencies at all) on InsuranceQA and COVID-FAQ: better on both,
    alone and fused (see benchmarks/README.md)."""
    held = (
        sa.case((chunks.c.text_search_tsv.op("@@")(tsquery(fulltext.quote(lex))), w), else_=0.0)
        for lex, w in plan.weights.items()
    )
    return sum(held, sa.literal(0.0))


def tsquery(text: str) -> sa.ColumnElement[Any]:
    """Lexemes already normalised by Postgres: cast, never parsed by a text configuration."""
    return sa.cast(text, TSQUERY)
