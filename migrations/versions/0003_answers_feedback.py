"""answers with everything that produced them, deliveries, feedback, channel settings

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql as pg

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def _created() -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(
        "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
    )


def _json(name: str, default: str) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(name, pg.JSONB, nullable=False, server_default=sa.text(f"'{default}'::jsonb"))


def upgrade() -> None:
    op.create_table(
        "answers",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("thread_id", sa.BigInteger, sa.ForeignKey("threads.id", ondelete="SET NULL")),
        sa.Column("platform", sa.Text, nullable=False),
        sa.Column("event_id", sa.Text, nullable=False),
        sa.Column("user_id", sa.Text, nullable=False),
        sa.Column("question", sa.Text, nullable=False),
        sa.Column("rewritten_question", sa.Text, nullable=False),
        _json("expansions", "[]"),
        sa.Column("intent", sa.Text, nullable=False),
        sa.Column("prompt", sa.Text, nullable=False),
        sa.Column("model", sa.Text, nullable=False),
        _json("bullets", "[]"),
        _json("sources", "[]"),
        _json("retrieved", "[]"),
        _json("scores", "{}"),
        sa.Column("confidence", sa.Text, nullable=False),
        sa.Column("notice", sa.Text, nullable=False, server_default=""),
        _json("timings_ms", "{}"),
        _json("choices", "{}"),
        _created(),
    )
    op.create_index("ix_answers_created_at", "answers", ["created_at"])
    op.create_table(
        "answer_deliveries",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column(
            "answer_id",
            sa.BigInteger,
            sa.ForeignKey("answers.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("platform", sa.Text, nullable=False),
        sa.Column("channel", sa.Text, nullable=False),
        sa.Column("message_id", sa.Text, nullable=False),
        _created(),
        sa.UniqueConstraint("platform", "channel", "message_id", name="uq_answer_deliveries"),
    )
    op.create_table(
        "feedback",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column(
            "answer_id",
            sa.BigInteger,
            sa.ForeignKey("answers.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("platform", sa.Text, nullable=False),
        sa.Column("user_id", sa.Text, nullable=False),
        sa.Column("signal", sa.Text, nullable=False),
        sa.Column("rating", sa.SmallInteger, nullable=False),
        sa.Column("reason", sa.Text),
        _created(),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.UniqueConstraint("answer_id", "platform", "user_id", name="uq_feedback_user"),
        sa.CheckConstraint("rating IN (-1, 1)", name="ck_feedback_rating"),
    )
    op.create_index("ix_feedback_updated_at", "feedback", ["updated_at"])
    op.create_table(
        "channel_settings",
        sa.Column("platform", sa.Text, primary_key=True),
        sa.Column("channel", sa.Text, primary_key=True),
        sa.Column("scopes", pg.ARRAY(sa.Text), nullable=False),
        sa.Column("require_mention", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
    )


def downgrade() -> None:
    op.drop_table("channel_settings")
    op.drop_table("feedback")
    op.drop_table("answer_deliveries")
    op.drop_table("answers")
