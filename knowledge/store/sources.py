"""Ingested sources: what was read, its content hash, status and when."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.engine import Connection

from knowledge.store.tables import kb_sources


@dataclass(frozen=True)
class SourceRow:
    id: int
    scope: str
    uri: str
    kind: str
    content_hash: str | None
    options: dict[str, Any]
    status: str
    error: str | None
    chunk_count: int
    ingested_at: datetime | None
    updated_at: datetime | None = None
    owners: list[str] | None = None


def get(conn: Connection, scope: str, uri: str) -> SourceRow | None:
    row = conn.execute(
        sa.select(kb_sources).where(kb_sources.c.scope == scope, kb_sources.c.uri == uri)
    ).first()
    return SourceRow(**row._mapping) if row else None


def find_by_uris(conn: Connection, uris: Sequence[str]) -> list[SourceRow]:
    """The sources (of any scope) with these uris."""
    rows = conn.execute(sa.select(kb_sources).where(kb_sources.c.uri.in_(list(uris))))
    return [SourceRow(**r._mapping) for r in rows]


def list_sources(conn: Connection, *, scope: str | None = None) -> list[SourceRow]:
    query = sa.select(kb_sources).order_by(kb_sources.c.scope, kb_sources.c.uri)
    if scope is not None:
        query = query.where(kb_sources.c.scope == scope)
    return [SourceRow(**r._mapping) for r in conn.execute(query)]


def upsert(conn: Connection, *, scope: str, uri: str, kind: str, options: dict[str, Any]) -> int:
    """The source's id, creating its row (status 'failed' until a load succeeds)."""
    stmt = (
        insert(kb_sources)
        .values(scope=scope, uri=uri, kind=kind, options=options, status="failed", chunk_count=0)
        .on_conflict_do_update(
            constraint="uq_kb_sources_scope_uri",
            set_={"kind": kind, "options": options, "updated_at": sa.func.now()},
        )
        .returning(kb_sources.c.id)
    )
    return int(conn.execute(stmt).scalar_one())


def set_owners(conn: Connection, *, scope: str, uri: str, owners: Sequence[str]) -> None:
    conn.execute(
        sa.update(kb_sources)
        .where(kb_sources.c.scope == scope, kb_sources.c.uri == uri)
        .values(owners=list(owners))
    )


def owners_of(conn: Connection, source_ids: Sequence[int]) -> dict[int, list[str]]:
    """The owners of each of these sources (escalation asks them about answers from it)."""
    if not source_ids:
        return {}
    rows = conn.execute(
        sa.select(kb_sources.c.id, kb_sources.c.owners).where(kb_sources.c.id.in_(list(source_ids)))
    )
    return {int(r.id): list(r.owners) for r in rows}


def mark_ok(conn: Connection, source_id: int, *, content_hash: str, chunk_count: int) -> None:
    conn.execute(
        sa.update(kb_sources)
        .where(kb_sources.c.id == source_id)
        .values(
            status="ok",
            error=None,
            content_hash=content_hash,
            chunk_count=chunk_count,
            ingested_at=sa.func.now(),
            updated_at=sa.func.now(),
        )
    )


def mark_failed(conn: Connection, source_id: int, error: str) -> None:
    """Record the failure; chunks from the last good ingest stay searchable."""
    conn.execute(
        sa.update(kb_sources)
        .where(kb_sources.c.id == source_id)
        .values(error=error, updated_at=sa.func.now())
        .values(status=sa.case((kb_sources.c.chunk_count > 0, "ok"), else_="failed"))
    )


def mark_removed(conn: Connection, source_ids: Sequence[int]) -> None:
    conn.execute(
        sa.update(kb_sources)
        .where(kb_sources.c.id.in_(list(source_ids)))
        .values(status="removed", chunk_count=0, content_hash=None, updated_at=sa.func.now())
    )


def delete_scope(conn: Connection, scope: str) -> int:
    result = conn.execute(sa.delete(kb_sources).where(kb_sources.c.scope == scope))
    return result.rowcount or 0
