"""Table handles for queries on the chat side. The schema itself is owned by migrations;
tests check that these definitions match what the migrations create."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from pgvector.sqlalchemy import Vector
from sqlalchemy.dialects import postgresql as pg

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


def _json(name: str) -> sa.Column[object]:
    return sa.Column(name, pg.JSONB, nullable=False)


answers = sa.Table(
    "answers",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
    sa.Column("thread_id", sa.BigInteger, sa.ForeignKey("threads.id", ondelete="SET NULL")),
    sa.Column("platform", sa.Text, nullable=False),
    sa.Column("event_id", sa.Text, nullable=False),
    sa.Column("user_id", sa.Text, nullable=False),
    sa.Column("question", sa.Text, nullable=False),
    sa.Column("rewritten_question", sa.Text, nullable=False),
    _json("expansions"),
    sa.Column("intent", sa.Text, nullable=False),
    sa.Column("prompt", sa.Text, nullable=False),
    sa.Column("model", sa.Text, nullable=False),
    _json("bullets"),
    _json("sources"),
    _json("retrieved"),
    _json("scores"),
    sa.Column("confidence", sa.Text, nullable=False),
    sa.Column("notice", sa.Text, nullable=False),
    _json("timings_ms"),
    _json("choices"),
    _timestamp("created_at"),
    sa.Index("ix_answers_created_at", "created_at"),
)

answer_deliveries = sa.Table(
    "answer_deliveries",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
    sa.Column(
        "answer_id", sa.BigInteger, sa.ForeignKey("answers.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("platform", sa.Text, nullable=False),
    sa.Column("channel", sa.Text, nullable=False),
    sa.Column("message_id", sa.Text, nullable=False),
    _timestamp("created_at"),
    sa.UniqueConstraint("platform", "channel", "message_id", name="uq_answer_deliveries"),
)

feedback = sa.Table(
    "feedback",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
    sa.Column(
        "answer_id", sa.BigInteger, sa.ForeignKey("answers.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("platform", sa.Text, nullable=False),
    sa.Column("user_id", sa.Text, nullable=False),
    sa.Column("signal", sa.Text, nullable=False),
    sa.Column("rating", sa.SmallInteger, nullable=False),
    sa.Column("reason", sa.Text),
    _timestamp("created_at"),
    _timestamp("updated_at"),
    sa.UniqueConstraint("answer_id", "platform", "user_id", name="uq_feedback_user"),
    sa.CheckConstraint("rating IN (-1, 1)", name="ck_feedback_rating"),
    sa.Index("ix_feedback_updated_at", "updated_at"),
)

channel_settings = sa.Table(
    "channel_settings",
    metadata,
    sa.Column("platform", sa.Text, primary_key=True),
    sa.Column("channel", sa.Text, primary_key=True),
    sa.Column("scopes", pg.ARRAY(sa.Text), nullable=False),
    sa.Column("require_mention", sa.Boolean, nullable=False, server_default=sa.false()),
    _timestamp("updated_at"),
    sa.Column("escalate_to", sa.Text),
)

job_runs = sa.Table(
    "job_runs",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
    sa.Column("job", sa.Text, nullable=False),
    sa.Column("scheduled_for", sa.DateTime(timezone=True), nullable=False),
    sa.Column("status", sa.Text, nullable=False, server_default="running"),
    sa.Column("runner", sa.Text, nullable=False, server_default=""),
    sa.Column("detail", sa.Text, nullable=False, server_default=""),
    _timestamp("started_at"),
    sa.Column("finished_at", sa.DateTime(timezone=True)),
    sa.UniqueConstraint("job", "scheduled_for", name="uq_job_runs_slot"),
    sa.CheckConstraint("status IN ('running', 'ok', 'failed')", name="ck_job_runs_status"),
    sa.Index("ix_job_runs_started_at", "started_at"),
)

verified_answers = sa.Table(
    "verified_answers",
    metadata,
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
    sa.Column("origin_escalation_id", sa.BigInteger),
    _timestamp("created_at"),
    _timestamp("updated_at"),
    sa.Column("author_id", sa.Text, nullable=False, server_default=""),
    sa.CheckConstraint(
        "status IN ('active', 'suspended', 'retired')", name="ck_verified_answers_status"
    ),
    sa.Index("ix_verified_answers_scope_status", "scope", "status"),
)

escalations = sa.Table(
    "escalations",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("platform", sa.Text, nullable=False),
    sa.Column("experts_channel", sa.Text, nullable=False),
    sa.Column("message_id", sa.Text),
    sa.Column("service_url", sa.Text, nullable=False, server_default=""),
    sa.Column("scope", sa.Text, nullable=False),
    sa.Column("question", sa.Text, nullable=False),
    sa.Column("question_key", sa.Text, nullable=False),
    sa.Column("answer_text", sa.Text, nullable=False, server_default=""),
    sa.Column("sources", pg.JSONB, nullable=False, server_default=sa.text("'[]'::jsonb")),
    sa.Column("owners", pg.ARRAY(sa.Text), nullable=False, server_default="{}"),
    sa.Column("verified_id", sa.BigInteger),
    sa.Column("answered_verified_id", sa.BigInteger),
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
    sa.Index("ix_escalations_message", "platform", "experts_channel", "message_id"),
    sa.Index("ix_escalations_key", "question_key", "created_at"),
    sa.Index("ix_escalations_status", "status"),
)

escalation_askers = sa.Table(
    "escalation_askers",
    metadata,
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
    sa.Index("ix_escalation_askers_answer", "answer_id"),
)
