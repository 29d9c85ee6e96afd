"""A small knowledge base, real answers through the pipeline, and ratings on them."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import sqlalchemy as sa

from bot.conversation.types import Answer, ThreadRef, Turn
from bot.db.tables import answers, feedback
from bot.settings import Settings
from bot.wiring import Services, open_services
from knowledge.ingest.options import IngestOptions
from tests.fakes.knowledge_base import write_policy_kb

FACTS = "subject,relation,object\nPlan A,covers,road ambulance\nPlan A,excludes,maternity\n"
MANIFEST = '[[source]]\npath = "facts.csv"\nkind = "triples"\n'


def write_kb(folder: Path) -> Path:
    write_policy_kb(folder)
    (folder / "facts.csv").write_text(FACTS)
    (folder / "knowbot-sources.toml").write_text(MANIFEST)
    return folder


@contextmanager
def open_bot(settings: Settings, kb: Path | None = None) -> Iterator[Services]:
    with open_services(settings) as services:
        if kb is not None:
            services.knowledge.ingestor.ingest_paths([kb], IngestOptions())
        yield services


def ask(services: Services, text: str, *, platform: str = "slack", channel: str = "C1") -> Answer:
    """Answer like an adapter would: a turn in its own thread, then the posted message."""
    thread = f"{uuid.uuid4().int % 10**6}.{uuid.uuid4().int % 10**6:06d}"
    turn = Turn(
        thread=ThreadRef(platform, "T1", channel, thread),
        event_id=f"ev-{uuid.uuid4()}",
        user_id="U_ASKER",
        text=text,
    )
    answer = services.pipeline.answer_now(turn)
    assert answer is not None
    services.answers.record_delivery(
        answer.id, platform=platform, channel=channel, message_id=f"{thread}1"
    )
    return answer


def rate(services: Services, answer: Answer | int, *votes: int, reason: str | None = None) -> None:
    """Each vote from a different user."""
    answer_id = answer if isinstance(answer, int) else answer.id
    for i, vote in enumerate(votes):
        user = f"U{i}"
        signal = "+1" if vote > 0 else "-1"
        assert services.feedback.rate(
            answer_id=answer_id, platform="slack", user_id=user, signal=signal, rating=vote
        )
        if reason and vote < 0:
            services.feedback.set_reason(
                answer_id=answer_id, platform="slack", user_id=user, reason=reason
            )


def backdate_answer(services: Services, answer_id: int, age: timedelta) -> None:
    with services.db.engine.begin() as conn:
        conn.execute(
            sa.update(answers)
            .where(answers.c.id == answer_id)
            .values(created_at=sa.func.now() - age)
        )


def backdate_ratings(services: Services, answer_id: int, age: timedelta) -> None:
    with services.db.engine.begin() as conn:
        conn.execute(
            sa.update(feedback)
            .where(feedback.c.answer_id == answer_id)
            .values(updated_at=sa.func.now() - age, created_at=sa.func.now() - age)
        )
