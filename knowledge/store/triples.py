"""Knowledge-graph triples, looked up by entity name (one or two hops)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from knowledge.documents import Triple
from knowledge.store.tables import kb_triples


def entity_key(name: str) -> str:
    """How names are matched: case, punctuation and spacing do not matter."""
    return re.sub(r"[^a-z0-9]+", " ", name.lower()).strip()


def replace(conn: Connection, *, source_id: int, scope: str, triples: Sequence[Triple]) -> None:
    conn.execute(sa.delete(kb_triples).where(kb_triples.c.source_id == source_id))
    if triples:
        conn.execute(
            sa.insert(kb_triples),
            [
                {
                    "source_id": source_id,
                    "scope": scope,
                    "subject": t.subject,
                    "relation": t.relation,
                    "object": t.object,
                    "subject_key": entity_key(t.subject),
                    "object_key": entity_key(t.object),
                }
                for t in triples
            ],
        )


def entity_names(conn: Connection, *, scopes: Sequence[str]) -> set[str]:
    """Every subject and object key in these scopes (for linking entities in questions)."""
    subjects = sa.select(kb_triples.c.subject_key).where(kb_triples.c.scope.in_(list(scopes)))
    objects = sa.select(kb_triples.c.object_key).where(kb_triples.c.scope.in_(list(scopes)))
    return {row[0] for row in conn.execute(sa.union(subjects, objects))}


def facts_about(
    conn: Connection, keys: Iterable[str], *, scopes: Sequence[str], hops: int = 1, limit: int = 50
) -> list[Triple]:
    """Triples touching these entities; with hops=2 also those touching their neighbours."""
    frontier = set(keys)
    found: dict[tuple[str, str, str], Triple] = {}
    for _ in range(max(1, hops)):
        if not frontier:
            break
        rows = conn.execute(
            sa.select(kb_triples)
            .where(
                kb_triples.c.scope.in_(list(scopes)),
                sa.or_(
                    kb_triples.c.subject_key.in_(frontier), kb_triples.c.object_key.in_(frontier)
                ),
            )
            .order_by(kb_triples.c.id)
            .limit(limit)
        ).all()
        next_frontier: set[str] = set()
        for r in rows:
            triple = Triple(r.subject, r.relation, r.object)
            if (r.subject, r.relation, r.object) not in found:
                found[(r.subject, r.relation, r.object)] = triple
                next_frontier.update({r.subject_key, r.object_key})
        frontier = next_frontier - frontier
    return list(found.values())[:limit]
