"""Glossary terms: used for acronym expansion and the definitions preamble."""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from knowledge.documents import GlossaryEntry
from knowledge.store.tables import kb_glossary


def replace(
    conn: Connection, *, source_id: int, scope: str, entries: Sequence[GlossaryEntry]
) -> None:
    conn.execute(sa.delete(kb_glossary).where(kb_glossary.c.source_id == source_id))
    if entries:
        conn.execute(
            sa.insert(kb_glossary),
            [
                {
                    "source_id": source_id,
                    "scope": scope,
                    "term": e.term,
                    "expansion": e.expansion,
                    "definition": e.definition,
                }
                for e in entries
            ],
        )


def entries(conn: Connection, *, scopes: Sequence[str]) -> list[GlossaryEntry]:
    """All terms visible in these scopes; the first definition of a term wins."""
    rows = conn.execute(
        sa.select(kb_glossary.c.term, kb_glossary.c.expansion, kb_glossary.c.definition)
        .where(kb_glossary.c.scope.in_(list(scopes)))
        .order_by(kb_glossary.c.term, kb_glossary.c.id)
    )
    seen: dict[str, GlossaryEntry] = {}
    for term, expansion, definition in rows:
        seen.setdefault(term, GlossaryEntry(term=term, expansion=expansion, definition=definition))
    return list(seen.values())
