"""Which reactions become ratings: people's, on bot answers young enough to still count."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from bot.db.tables import answer_deliveries
from bot.feedback.reactions import Reactions
from bot.settings import Settings
from bot.wiring import Services
from tests.fakes.knowledge_base import bot_settings
from tests.feedback.helpers import ask, backdate_answer, open_bot, write_kb

BOT = "U_BOT"


@pytest.fixture
def services(settings: Settings, tmp_path: Path) -> Iterator[Services]:
    config = bot_settings(settings, KNOWBOT_FEEDBACK_MAX_AGE_DAYS="30")
    with open_bot(config, write_kb(tmp_path / "kb")) as svc:
        yield svc


def reactions(services: Services) -> Reactions:
    return Reactions(answers=services.answers, feedback=services.feedback)


def react(services: Services, message_id: str, user: str, rating: int) -> int | None:
    return reactions(services).rate_message(
        platform="slack",
        channel="C1",
        message_id=message_id,
        user_id=user,
        signal="+1" if rating > 0 else "-1",
        rating=rating,
        bot_user_ids={BOT},
    )


def message_of(services: Services, answer_id: int) -> str:
    query = sa.select(answer_deliveries.c.message_id).where(
        answer_deliveries.c.answer_id == answer_id
    )
    with services.db.engine.connect() as conn:
        return str(conn.execute(query).scalar_one())


def test_a_later_reaction_replaces_the_earlier_and_removing_it_removes_the_rating(
    services: Services,
) -> None:
    answer = ask(services, "What is the PED waiting period?")
    message = message_of(services, answer.id)
    assert react(services, message, "U1", 1) == answer.id
    assert react(services, message, "U1", -1) == answer.id
    assert [(r.user_id, r.rating) for r in services.feedback.for_answer(answer.id)] == [("U1", -1)]
    assert reactions(services).unrate_message(
        platform="slack", channel="C1", message_id=message, user_id="U1", signal="-1"
    )
    assert services.feedback.for_answer(answer.id) == []


def test_reactions_on_other_messages_by_the_bot_or_on_old_answers_are_ignored(
    services: Services,
) -> None:
    answer = ask(services, "What is the PED waiting period?")
    message = message_of(services, answer.id)
    assert react(services, "1700000000.000001", "U1", 1) is None  # someone's own message
    assert react(services, message, BOT, 1) is None  # the bot's own confidence reaction
    backdate_answer(services, answer.id, timedelta(days=31))
    assert react(services, message, "U1", -1) is None  # older than ratings are kept for
    assert services.feedback.for_answer(answer.id) == []
    backdate_answer(services, answer.id, timedelta(days=29))
    assert react(services, message, "U1", -1) == answer.id


def test_the_store_refuses_ratings_for_answers_that_do_not_exist(services: Services) -> None:
    stored = services.feedback.rate(
        answer_id=999_999, platform="teams", user_id="U1", signal="like", rating=1
    )
    assert stored is False
