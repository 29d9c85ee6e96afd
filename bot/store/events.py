"""Claiming platform events exactly once, across replicas (Slack and Teams redeliver)."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.engine import Engine

from bot.db.tables import processed_events


class EventClaims:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def claim(self, platform: str, event_id: str) -> bool:
        """True for the first caller with this (platform, event id); False for every repeat."""
        stmt = (
            insert(processed_events)
            .values(platform=platform, event_id=event_id)
            .on_conflict_do_nothing(constraint="uq_processed_events")
            .returning(processed_events.c.id)
        )
        with self._engine.begin() as conn:
            return conn.execute(stmt).scalar() is not None

    def expire(self, older_than: datetime) -> int:
        with self._engine.begin() as conn:
            result = conn.execute(
                sa.delete(processed_events).where(processed_events.c.claimed_at < older_than)
            )
            return result.rowcount or 0
