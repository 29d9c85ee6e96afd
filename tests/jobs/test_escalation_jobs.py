"""Scheduled parts of the experts' loop: the digest's gaps per experts channel, and old
verified answers put to their experts again."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import sqlalchemy as sa

from bot.conversation.types import Answer, ThreadRef, Turn
from bot.conversation.verified import VerifiedSource
from bot.db.tables import verified_answers
from bot.jobs.digest import DIGEST_JOB
from bot.jobs.runtime import build_scheduler
from bot.jobs.tasks import EXPIRE_JOB
from bot.settings import Settings
from bot.verified.entries import Entry
from bot.verified.importing import import_entries
from bot.wiring import Services
from tests.fakes.knowledge_base import bot_settings
from tests.feedback.helpers import open_bot, write_kb
from tests.jobs.fake_chat import fake_slack

VET = "Do you cover veterinary bills for my dog?"


def ask(services: Services, text: str, *, user: str, channel: str = "C1") -> Answer:
    thread = f"{uuid.uuid4().int % 10**6}.{uuid.uuid4().int % 10**6:06d}"
    turn = Turn(ThreadRef("slack", "T1", channel, thread), f"ev-{uuid.uuid4()}", user, text)
    answer = services.pipeline.answer_now(turn)
    assert answer is not None
    services.answers.record_delivery(
        answer.id, platform="slack", channel=channel, message_id=f"{thread}1"
    )
    return answer


async def test_the_digest_lists_declined_and_rated_down_questions_per_experts_channel(
    settings: Settings, tmp_path: Path
) -> None:
    with fake_slack() as slack:
        config = bot_settings(
            settings,
            SLACK_BOT_TOKEN="xoxb-digest",
            SLACK_API_URL=slack.url,
            KNOWBOT_DIGEST_SLACK_CHANNEL="C_DIGEST",
            KNOWBOT_ESCALATION_SLACK_CHANNEL="C0EXPERTS",
            KNOWBOT_SLACK_WORKSPACE_URL="https://acme.slack.com",
        )
        with open_bot(config, write_kb(tmp_path / "kb")) as services:
            for user in ("U1", "U2", "U2"):  # declined, asked by two people (one twice)
                ask(services, VET, user=user)
            rated = ask(services, "What is the PED waiting period?", user="U3")
            escalated = services.escalator.escalate(answer_id=rated.id, user_id="U3", rating=-1)
            assert escalated is not None
            services.escalator.store.posted(escalated.view.escalation.id, "1700000001.000100")
            services.escalator.escalate(
                answer_id=ask(services, "What is the PED waiting period?", user="U4").id,
                user_id="U4",
                rating=-1,
            )
            assert await build_scheduler(services).run_now(DIGEST_JOB) == "ok"
    text = slack.calls[0]["text"]
    section = text.split("Questions declined or rated down, for <#C0EXPERTS>", 1)[1]
    vet = next(line for line in section.splitlines() if "veterinary" in line)
    assert "(2 askers)" in vet
    ped = next(line for line in section.splitlines() if "waiting period" in line)
    assert "(2 askers)" in ped
    assert "<https://acme.slack.com/archives/C0EXPERTS/p1700000001000100|[1]>" in ped


async def test_a_verified_answer_older_than_the_limit_is_put_to_its_experts_again(
    settings: Settings,
) -> None:
    config = bot_settings(
        settings, KNOWBOT_ESCALATION_SLACK_CHANNEL="C0EXPERTS", KNOWBOT_VERIFIED_MAX_AGE_DAYS="30"
    )
    with open_bot(config) as services:
        kb = services.knowledge
        source = VerifiedSource(title="HR policy", source_id=None)
        old, fresh = import_entries(
            services.verified,
            [
                Entry(1, "Can I carry over leave?", "Five days.", "Ana", "default", (source,)),
                Entry(2, "Who approves expenses?", "Finance.", "Bo", "default", ()),
            ],
            embed=kb.embeddings,
            model=kb.embedding_model,
        )
        with services.db.engine.begin() as conn:
            conn.execute(
                sa.update(verified_answers)
                .where(verified_answers.c.id == old)
                .values(verified_at=datetime.now(UTC) - timedelta(days=31))
            )
        scheduler = build_scheduler(services)
        assert await scheduler.run_now(EXPIRE_JOB) == "ok"
        [request] = services.escalator.store.claim_pending("slack")
        assert (request.kind, request.verified_id, request.experts_channel) == (
            "confirm",
            old,
            "C0EXPERTS",
        )
        assert "not confirmed for 30 days" in request.answer_text
        assert fresh != old
        # still waiting for the experts: not asked twice
        assert services.escalator.ask_again_old(max_age=timedelta(days=30)) == []
        services.escalator.confirm(old, by="Ana")
        assert services.verified.get(old).verified_at > datetime.now(UTC) - timedelta(minutes=1)  # type: ignore[union-attr]
        assert services.escalator.ask_again_old(max_age=timedelta(days=30)) == []
