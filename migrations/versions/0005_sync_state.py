"""connector sync state: per source (cursor, listed count, last success, last error) and
per item (the version last indexed, for conditional fetches and reconciliation)

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Written only after the batch a row covers is indexed: a crash mid-sync leaves the
    # previous cursor and versions, so the next sync repeats work instead of skipping it.
    op.create_table(
        "kb_sync_state",
        sa.Column("source_key", sa.Text, primary_key=True),
        sa.Column("cursor", sa.Text),
        sa.Column("listed_count", sa.Integer, nullable=False, server_default="0"),
        sa.Column("last_success_at", sa.DateTime(timezone=True)),
        sa.Column("last_error", sa.Text),
        sa.Column("last_error_at", sa.DateTime(timezone=True)),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
    )
    op.create_table(
        "kb_sync_items",
        sa.Column("source_key", sa.Text, primary_key=True),
        sa.Column("item_id", sa.Text, primary_key=True),
        sa.Column("scope", sa.Text, nullable=False),
        sa.Column("version", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("kb_sync_items")
    op.drop_table("kb_sync_state")
