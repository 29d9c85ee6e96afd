"""Replies stuck on a dead serviceUrl must not hold up anyone else's answer."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from bot.adapters.teams.options import TeamsOptions
from tests.adapters.teams import activities as teams
from tests.adapters.teams.conftest import BotFactory

STUCK = 12


@pytest.fixture
def black_hole() -> Iterator[str]:
    """A serviceUrl that accepts connections and never answers (a hung connector)."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/"


def test_another_users_question_is_answered_while_replies_to_a_dead_connector_retry(
    start_bot: BotFactory, black_hole: str
) -> None:
    options = TeamsOptions(
        release_after_s=0.5,
        retry_delays_s=(0.2, 0.4, 0.8),
        connector_timeout_s=4.0,
        min_attempt_s=1.0,
        typing_interval_s=0.5,
        drain_timeout_s=0.5,  # the stuck replies are not waited for at the end
    )
    with start_bot(options=options) as bot, ThreadPoolExecutor(STUCK) as senders:
        stuck = [
            teams.message(
                black_hole,
                "How do I submit a reimbursement claim?",
                conversation=teams.personal(f"a:stuck-{n}"),
            )
            for n in range(STUCK)
        ]
        list(senders.map(bot.post, stuck))
        time.sleep(1.0)  # their replies are now hanging on the dead connector

        question = teams.message(
            bot.connector.url, "What is the PED waiting period?", sender=teams.OTHER_USER
        )
        asked = time.monotonic()
        assert bot.post(question).status_code == 200
        bot.connector.wait_for(lambda: bool(bot.connector.messages), timeout=20)
        answered_in = time.monotonic() - asked

    [reply] = bot.connector.messages
    assert reply.reply_to_id == question["id"] and "36 months" in reply.text
    assert answered_in < 3.0, answered_in
