"""The words indexed chunks use, straight from Postgres full-text statistics.

Only chunks open to everyone count: the words correct misspellings in anyone's question, and
a correction must not reveal a word only restricted documents use. Every word counts, however
rarely used: a word left out would make its question "never mentioned" and declined."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from knowledge.access import EVERYONE


def words(conn: Connection, *, scopes: Sequence[str]) -> set[str]:
    """Unstemmed words of 5+ letters (the 'simple' configuration keeps surface forms)."""
    inner = (
        "SELECT to_tsvector('simple', text) FROM data_kb_chunks "
        "WHERE metadata_ ->> 'scope' = ANY(ARRAY[{}]::text[]) AND access && ARRAY[{}]::text[]"
    ).format(", ".join(_literal(s) for s in scopes) or "''", _literal(EVERYONE))
    rows = conn.execute(
        sa.text("SELECT word FROM ts_stat(:inner) WHERE length(word) >= 5 AND word ~ '^[a-z-]+$'"),
        {"inner": inner},
    )
    return {row[0] for row in rows}


def _literal(scope: str) -> str:
    return "'" + scope.replace("'", "''") + "'"
