"""Connector sync state: per source, where its change feed stands and how its last sync
went; per item, the version last indexed. Callers write these only after the batch they
cover is indexed."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.engine import Connection

from knowledge.store.tables import kb_sync_items, kb_sync_state


@dataclass(frozen=True)
class SyncState:
    source_key: str
    cursor: str | None
    listed_count: int
    last_success_at: datetime | None
    last_error: str | None
    last_error_at: datetime | None
    updated_at: datetime | None = None


def get(conn: Connection, source_key: str) -> SyncState | None:
    row = conn.execute(
        sa.select(kb_sync_state).where(kb_sync_state.c.source_key == source_key)
    ).first()
    return SyncState(**row._mapping) if row else None


def record_success(
    conn: Connection, source_key: str, *, cursor: str | None, listed_count: int, error: str | None
) -> None:
    """A sync that listed completely; `error` names items that failed to fetch, if any."""
    values = {
        "cursor": cursor,
        "listed_count": listed_count,
        "last_success_at": sa.func.now(),
        "last_error": error,
        "last_error_at": sa.func.now() if error else None,
        "updated_at": sa.func.now(),
    }
    stmt = insert(kb_sync_state).values(source_key=source_key, **values)
    conn.execute(stmt.on_conflict_do_update(index_elements=["source_key"], set_=values))


def record_failure(conn: Connection, source_key: str, error: str) -> None:
    """A sync that could not list: cursor and counts stay as they were."""
    values = {"last_error": error, "last_error_at": sa.func.now(), "updated_at": sa.func.now()}
    stmt = insert(kb_sync_state).values(source_key=source_key, **values)
    conn.execute(stmt.on_conflict_do_update(index_elements=["source_key"], set_=values))


def item_versions(conn: Connection, source_key: str) -> dict[str, str]:
    """The items indexed from this source at their last indexed version."""
    rows = conn.execute(
        sa.select(kb_sync_items.c.item_id, kb_sync_items.c.version).where(
            kb_sync_items.c.source_key == source_key
        )
    )
    return {r.item_id: r.version for r in rows}


def set_item(conn: Connection, source_key: str, item_id: str, *, scope: str, version: str) -> None:
    values = {"scope": scope, "version": version}
    stmt = insert(kb_sync_items).values(source_key=source_key, item_id=item_id, **values)
    conn.execute(stmt.on_conflict_do_update(index_elements=["source_key", "item_id"], set_=values))


def forget_items(conn: Connection, source_key: str, item_ids: list[str]) -> None:
    conn.execute(
        sa.delete(kb_sync_items).where(
            kb_sync_items.c.source_key == source_key, kb_sync_items.c.item_id.in_(item_ids)
        )
    )


def item_scopes(conn: Connection, source_key: str, item_ids: list[str]) -> dict[str, str]:
    rows = conn.execute(
        sa.select(kb_sync_items.c.item_id, kb_sync_items.c.scope).where(
            kb_sync_items.c.source_key == source_key, kb_sync_items.c.item_id.in_(item_ids)
        )
    )
    return {r.item_id: r.scope for r in rows}


def item_count(conn: Connection, source_key: str) -> int:
    """How many items the source holds as far as the index knows (after a change feed)."""
    query = sa.select(sa.func.count()).where(kb_sync_items.c.source_key == source_key)
    return int(conn.execute(query).scalar_one())
