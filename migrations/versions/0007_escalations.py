"""escalations: a question sent to the experts of a channel, the people who asked it, and
the expert's reply (which becomes a verified answer); who wrote a verified answer, by id

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26

One escalation row is one message in an experts channel. `kind` "question" asks the experts
for an answer (a rating down, an "Ask an expert" click); "confirm" asks them to confirm,
edit or retire a verified answer whose source changed or that has grown old. Repeats of
a question join the open row (escalation_askers), so the channel sees one message.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql as pg

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def _timestamp(name: str) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(name, sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now())


def upgrade() -> None:
    op.create_table(
        "escalations",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("platform", sa.Text, nullable=False),
        sa.Column("experts_channel", sa.Text, nullable=False),
        sa.Column("message_id", sa.Text),  # the experts' message, once posted
        sa.Column("service_url", sa.Text, nullable=False, server_default=""),  # Teams only
        sa.Column("scope", sa.Text, nullable=False),
        sa.Column("question", sa.Text, nullable=False),
        sa.Column("question_key", sa.Text, nullable=False),
        sa.Column("answer_text", sa.Text, nullable=False, server_default=""),
        sa.Column("sources", pg.JSONB, nullable=False, server_default=sa.text("'[]'::jsonb")),
        sa.Column("owners", pg.ARRAY(sa.Text), nullable=False, server_default="{}"),
        sa.Column("verified_id", sa.BigInteger),  # served (question) or to confirm (confirm)
        sa.Column("answered_verified_id", sa.BigInteger),  # the expert's reply, stored
        sa.Column("status", sa.Text, nullable=False, server_default="pending"),
        sa.Column("detail", sa.Text, nullable=False, server_default=""),
        sa.Column("answered_by", sa.Text, nullable=False, server_default=""),
        sa.Column("answered_at", sa.DateTime(timezone=True)),
        _timestamp("created_at"),
        _timestamp("updated_at"),
        sa.CheckConstraint("kind IN ('question', 'confirm')", name="ck_escalations_kind"),
        sa.CheckConstraint(
            "status IN ('pending', 'posting', 'open', 'answered', 'closed', 'unreachable')",
            name="ck_escalations_status",
        ),
    )
    op.create_index(
        "ix_escalations_message", "escalations", ["platform", "experts_channel", "message_id"]
    )
    op.create_index("ix_escalations_key", "escalations", ["question_key", "created_at"])
    op.create_index("ix_escalations_status", "escalations", ["status"])
    op.create_table(
        "escalation_askers",
        sa.Column(
            "escalation_id",
            sa.BigInteger,
            sa.ForeignKey("escalations.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("user_id", sa.Text, primary_key=True),
        sa.Column("answer_id", sa.BigInteger),
        sa.Column("rating", sa.Integer),
        sa.Column("reason", sa.Text, nullable=False, server_default=""),
        _timestamp("created_at"),
    )
    op.create_index("ix_escalation_askers_answer", "escalation_askers", ["answer_id"])
    op.add_column("channel_settings", sa.Column("escalate_to", sa.Text))
    op.add_column(
        "verified_answers", sa.Column("author_id", sa.Text, nullable=False, server_default="")
    )


def downgrade() -> None:
    op.drop_column("verified_answers", "author_id")
    op.drop_column("channel_settings", "escalate_to")
    op.drop_table("escalation_askers")
    op.drop_table("escalations")
