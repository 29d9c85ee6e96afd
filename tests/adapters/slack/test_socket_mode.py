"""Socket Mode through a local fake of Slack's websocket endpoint: the real slack_sdk
Socket Mode client connects, receives envelopes, acks them and the bot answers."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest

from bot.adapters.slack.socket import start_socket_mode
from bot.errors import KnowbotError
from bot.wiring import Services
from tests.adapters.slack.payloads import CHANNEL, mention
from tests.fakes.slack_server import FakeSlack


def envelope(payload: dict[str, Any], *, retry: int = 0) -> dict[str, Any]:
    return {
        "envelope_id": str(uuid.uuid4()),
        "payload": payload,
        "type": "events_api",
        "accepts_response_payload": False,
        "retry_attempt": retry,
        "retry_reason": "timeout" if retry else "",
    }


async def test_over_socket_mode_events_are_acked_at_once_and_answered_once(
    services: Services, fake_slack: FakeSlack
) -> None:
    stop = await start_socket_mode(services)
    try:
        await fake_slack.wait_for(lambda: fake_slack._sockets)
        question = mention("what is the PED waiting period?")
        first = envelope(question)

        pushed = time.perf_counter()
        await fake_slack.push(first)
        await fake_slack.wait_for(lambda: fake_slack.socket_acks)
        acked_in = time.perf_counter() - pushed

        await fake_slack.wait_for(lambda: fake_slack.posts())
        redelivery = envelope(question, retry=1)
        await fake_slack.push(redelivery)
        await fake_slack.wait_for(lambda: len(fake_slack.socket_acks) == 2)
    finally:
        await stop()  # lets work in progress finish

    assert [a["envelope_id"] for a in fake_slack.socket_acks] == [
        first["envelope_id"],
        redelivery["envelope_id"],
    ]
    assert acked_in < 0.5
    [post] = fake_slack.posts()
    assert post.args["channel"] == CHANNEL and post.args["thread_ts"] == question["event"]["ts"]
    assert "36 months" in post.shown
    [opened] = fake_slack.of("apps.connections.open")
    assert opened.token == "xapp-test-token"


async def test_a_refused_app_token_stops_start_up_with_a_readable_error(
    services: Services, fake_slack: FakeSlack
) -> None:
    fake_slack.fail("apps.connections.open", error="invalid_auth")

    with pytest.raises(KnowbotError, match=r"SLACK_APP_TOKEN.*invalid_auth"):
        await start_socket_mode(services)


async def test_a_refused_bot_token_stops_start_up_with_a_readable_error(
    services: Services, fake_slack: FakeSlack
) -> None:
    fake_slack.auth_error = "invalid_auth"

    with pytest.raises(KnowbotError, match=r"SLACK_BOT_TOKEN.*invalid_auth"):
        await start_socket_mode(services)
