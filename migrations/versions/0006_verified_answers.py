"""verified answers: a person's answer to a question, served before the bot's own;
the owners of each knowledge source

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-26

The two vector columns carry no fixed dimension: each row records the embedding model
that made its vectors (`embed_model`), matching only ever compares rows of the model in use,
and rows of another model are re-embedded from their text (verified answers are few, so
they are compared by an exact scan, with no vector index to size).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from pgvector.sqlalchemy import Vector
from sqlalchemy.dialects import postgresql as pg

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def _timestamp(name: str) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(name, sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now())


def upgrade() -> None:
    op.create_table(
        "verified_answers",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("scope", sa.Text, nullable=False),
        sa.Column("question", sa.Text, nullable=False),
        sa.Column("answer", sa.Text, nullable=False),
        sa.Column("author", sa.Text, nullable=False),
        _timestamp("verified_at"),
        sa.Column("sources", pg.JSONB, nullable=False, server_default=sa.text("'[]'::jsonb")),
        sa.Column("status", sa.Text, nullable=False, server_default="active"),
        sa.Column("status_reason", sa.Text, nullable=False, server_default=""),
        sa.Column("question_embedding", Vector(), nullable=False),
        sa.Column("answer_embedding", Vector(), nullable=False),
        sa.Column("embed_model", sa.Text, nullable=False),
        # Set by the escalation flow (an expert's reply in a thread); NULL for imports.
        sa.Column("origin_escalation_id", sa.BigInteger),
        _timestamp("created_at"),
        _timestamp("updated_at"),
        sa.CheckConstraint(
            "status IN ('active', 'suspended', 'retired')", name="ck_verified_answers_status"
        ),
    )
    op.create_index("ix_verified_answers_scope_status", "verified_answers", ["scope", "status"])
    # Who owns a source (knowbot-sources.toml `owners`): Slack user ids, teams:<AAD id>, e-mail.
    op.add_column(
        "kb_sources",
        sa.Column("owners", pg.ARRAY(sa.Text), nullable=False, server_default="{}"),
    )


def downgrade() -> None:
    op.drop_column("kb_sources", "owners")
    op.drop_table("verified_answers")
