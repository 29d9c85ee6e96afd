"""Replying within Teams' patience, and when the connector misbehaves."""

from __future__ import annotations

import logging
import time

import pytest

from bot.adapters.teams.options import TeamsOptions
from bot.adapters.teams.render import STILL_WORKING
from tests.adapters.teams import activities as teams
from tests.adapters.teams.conftest import FAST, BotFactory, TeamsBot
from tests.adapters.teams.test_rendering import model_reply
from tests.fakes.openai_server import fake_openai


def delivered_answer(bot: TeamsBot, message_id: str) -> int | None:
    return bot.services.answers.answer_for_message(
        platform="teams", channel=teams.PERSONAL_CHAT, message_id=message_id
    )


def test_a_slow_answer_says_still_working_then_follows_up(start_bot: BotFactory) -> None:
    slow = TeamsOptions(still_working_after_s=0.3, typing_interval_s=0.2, retry_delays_s=(0.05,))
    with (
        fake_openai(model_reply, delay_s=0.7) as llm,
        start_bot(options=slow, OPENAI_BASE_URL=llm.base_url) as bot,
    ):
        question = teams.message(bot.connector.url, "Is a PED covered?")
        started = time.monotonic()
        assert bot.post(question).status_code == 200
        elapsed = time.monotonic() - started
        assert elapsed < 1.2  # Teams was not kept waiting for the model
        [notice] = bot.connector.messages
        assert notice.text == STILL_WORKING
        notice_at = bot.connector.posted.index(notice)
        _, answer = bot.connector.wait_for_messages(2)
    assert answer.reply_to_id == question["id"] == notice.reply_to_id
    assert "covered after 36 months" in answer.text
    assert any(p.type == "typing" for p in bot.connector.posted[notice_at:])
    assert delivered_answer(bot, answer.id) == bot.stored_answers()[0]["id"]


def test_a_reply_the_connector_fails_with_5xx_is_retried(bot: TeamsBot) -> None:
    bot.connector.fail_next_messages(503, 502)
    bot.post(teams.message(bot.connector.url, "How are reimbursement claims settled?"))
    [reply] = bot.connector.wait_for_messages(1)
    assert [a.status for a in bot.connector.attempts()] == [503, 502, 200]
    assert len({a.text for a in bot.connector.attempts()}) == 1
    assert delivered_answer(bot, reply.id) is not None  # ratings on it will count


def test_a_reply_refused_with_4xx_is_not_retried_but_the_answer_is_kept(
    bot: TeamsBot, caplog: pytest.LogCaptureFixture
) -> None:
    bot.connector.fail_next_messages(403)
    question = teams.message(bot.connector.url, "How are reimbursement claims settled?")
    with caplog.at_level(logging.ERROR, logger="bot.adapters.teams"):
        assert bot.post(question).status_code == 200
    time.sleep(0.3)  # longer than every retry delay FAST allows
    assert [a.status for a in bot.connector.attempts()] == [403]
    [stored] = bot.stored_answers()
    assert "30 days" in stored["bullets"][0]["text"]
    assert any(question["id"] in r.getMessage() and "403" in r.getMessage() for r in caplog.records)


def test_retries_give_up_after_the_last_delay(bot: TeamsBot) -> None:
    bot.connector.fail_next_messages(*[500] * (len(FAST.retry_delays_s) + 2))
    assert bot.post(teams.message(bot.connector.url, "How do I claim?")).status_code == 200
    assert len(bot.connector.attempts()) == len(FAST.retry_delays_s) + 1
    assert bot.connector.messages == [] and len(bot.stored_answers()) == 1


def test_a_connector_slow_to_take_the_reply_does_not_hold_teams_up(start_bot: BotFactory) -> None:
    options = TeamsOptions(release_after_s=0.5, retry_delays_s=(0.05,))
    with start_bot(options=options) as bot:
        bot.connector.delay_s = 1.5
        started = time.monotonic()
        assert bot.post(teams.message(bot.connector.url, "How do I claim?")).status_code == 200
        assert time.monotonic() - started < 1.4
        assert bot.connector.messages == []
        [reply] = bot.connector.wait_for_messages(1)  # it still arrives
        bot.connector.wait_for(lambda: delivered_answer(bot, reply.id) is not None)
