"""pgvector, thread memory and processed events

Revision ID: 0001
Revises:
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("CREATE EXTENSION IF NOT EXISTS vector")
    op.create_table(
        "threads",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("platform", sa.Text, nullable=False),
        sa.Column("workspace", sa.Text, nullable=False),
        sa.Column("channel", sa.Text, nullable=False),
        sa.Column("thread_key", sa.Text, nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.UniqueConstraint(
            "platform", "workspace", "channel", "thread_key", name="uq_threads_key"
        ),
    )
    op.create_index("ix_threads_updated_at", "threads", ["updated_at"])
    op.create_table(
        "messages",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column(
            "thread_id",
            sa.BigInteger,
            sa.ForeignKey("threads.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("role", sa.Text, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("platform_message_id", sa.Text),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.CheckConstraint("role IN ('user', 'assistant')", name="ck_messages_role"),
    )
    op.create_index("ix_messages_thread", "messages", ["thread_id", "id"])
    op.create_table(
        "processed_events",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("platform", sa.Text, nullable=False),
        sa.Column("event_id", sa.Text, nullable=False),
        sa.Column(
            "claimed_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.UniqueConstraint("platform", "event_id", name="uq_processed_events"),
    )


def downgrade() -> None:
    op.drop_table("processed_events")
    op.drop_index("ix_messages_thread", table_name="messages")
    op.drop_table("messages")
    op.drop_index("ix_threads_updated_at", table_name="threads")
    op.drop_table("threads")
