"""Table handles for queries on the chat side. The schema itself is owned by migrations;
tests check that these definitions match what the migrations create."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa

metadata = sa.MetaData()


def _timestamp(name: str) -> sa.Column[datetime]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now())


threads = sa.Table(
    "threads",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
    sa.Column("platform", sa.Text, nullable=False),
    sa.Column("workspace", sa.Text, nullable=False),
    sa.Column("channel", sa.Text, nullable=False),
    sa.Column("thread_key", sa.Text, nullable=False),
    _timestamp("created_at"),
    _timestamp("updated_at"),
    sa.UniqueConstraint("platform", "workspace", "channel", "thread_key", name="uq_threads_key"),
    sa.Index("ix_threads_updated_at", "updated_at"),
)

messages = sa.Table(
    "messages",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
    sa.Column(
        "thread_id", sa.BigInteger, sa.ForeignKey("threads.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("role", sa.Text, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("platform_message_id", sa.Text),
    _timestamp("created_at"),
    sa.CheckConstraint("role IN ('user', 'assistant')", name="ck_messages_role"),
    sa.Index("ix_messages_thread", "thread_id", "id"),
)

processed_events = sa.Table(
    "processed_events",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
    sa.Column("platform", sa.Text, nullable=False),
    sa.Column("event_id", sa.Text, nullable=False),
    _timestamp("claimed_at"),
    sa.UniqueConstraint("platform", "event_id", name="uq_processed_events"),
)
