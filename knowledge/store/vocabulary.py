"""The words indexed chunks use, straight from Postgres full-text statistics."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Connection

MAX_WORDS = 20000


def words(conn: Connection, *, scopes: Sequence[str]) -> set[str]:
    """Unstemmed words of 5+ letters (the 'simple' configuration keeps surface forms)."""
    inner = (
        "SELECT to_tsvector('simple', text) FROM data_kb_chunks "
        "WHERE metadata_ ->> 'scope' = ANY(ARRAY[{}]::text[])"
    ).format(", ".join(_literal(s) for s in scopes) or "''")
    rows = conn.execute(
        sa.text(
            "SELECT word FROM ts_stat(:inner) WHERE length(word) >= 5 AND word ~ '^[a-z-]+$' "
            "ORDER BY ndoc DESC LIMIT :limit"
        ),
        {"inner": inner, "limit": MAX_WORDS},
    )
    return {row[0] for row in rows}


def _literal(scope: str) -> str:
    return "'" + scope.replace("'", "''") + "'"
