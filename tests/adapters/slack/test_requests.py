"""What reaches POST /slack/events that is not a good question: forged, stale, broken or
unknown requests get the status Slack expects and nothing is processed."""

from __future__ import annotations

import json
import time

import pytest
import sqlalchemy as sa

from bot.wiring import Services
from tests.adapters.slack.conftest import SlackBotUnderTest
from tests.adapters.slack.payloads import event_callback, mention, signed_headers


async def nothing_happened(bot: SlackBotUnderTest, services: Services) -> None:
    await bot.settle()
    assert [c.method for c in bot.slack.calls] == ["auth.test"]  # only the start-up check
    with services.db.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM processed_events")).scalar() == 0


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"X-Slack-Request-Timestamp": str(int(time.time())), "X-Slack-Signature": "v0=deadbeef"},
        {"X-Slack-Request-Timestamp": "yesterday", "X-Slack-Signature": "v0=deadbeef"},
    ],
    ids=["missing signature", "bad signature", "garbled timestamp"],
)
async def test_unsigned_or_forged_requests_are_refused(
    bot: SlackBotUnderTest, services: Services, headers: dict[str, str]
) -> None:
    sent = await bot.send(mention("what is the PED waiting period?"), headers=headers)

    assert sent.status == 401
    await nothing_happened(bot, services)


async def test_a_request_signed_with_another_secret_is_refused(
    bot: SlackBotUnderTest, services: Services
) -> None:
    sent = await bot.send(mention("what is the PED waiting period?"), secret="not-our-secret")

    assert sent.status == 401
    await nothing_happened(bot, services)


async def test_a_replayed_request_older_than_five_minutes_is_refused(
    bot: SlackBotUnderTest, services: Services
) -> None:
    sent = await bot.send(mention("what is PED?"), timestamp=int(time.time()) - 6 * 60)

    assert sent.status == 401
    await nothing_happened(bot, services)


@pytest.mark.parametrize("signed", [True, False])
async def test_a_body_that_is_not_json_gets_a_client_error_not_a_crash(
    bot: SlackBotUnderTest, services: Services, signed: bool
) -> None:
    body = '{"type": "event_callback", "event": {'
    headers = signed_headers(body) if signed else {}

    sent = await bot.send(body, headers=headers)

    assert sent.status == (400 if signed else 401)
    await nothing_happened(bot, services)
    assert (await bot.send(mention("still alive?"))).status == 200


async def test_bytes_that_are_not_text_are_refused_not_crashed_on(
    bot: SlackBotUnderTest, services: Services
) -> None:
    headers = signed_headers("{}")  # a genuine timestamp; no signature can match these bytes
    async with bot.http.post(f"{bot.url}/slack/events", data=b"\xff\xfe{", headers=headers) as r:
        assert r.status == 401
    await nothing_happened(bot, services)


async def test_the_url_verification_challenge_is_answered(bot: SlackBotUnderTest) -> None:
    challenge = {
        "token": "legacy-verification-token",
        "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
        "type": "url_verification",
    }

    sent = await bot.send(challenge)

    assert sent.status == 200
    assert json.loads(sent.body)["challenge"] == challenge["challenge"]


async def test_unknown_event_types_are_acknowledged_and_dropped(
    bot: SlackBotUnderTest, services: Services
) -> None:
    unknown = event_callback({"type": "emoji_changed", "subtype": "add", "name": "knowbot"})
    started = event_callback(
        {
            "type": "assistant_thread_context_changed",
            "assistant_thread": {
                "user_id": "U0ALICE",
                "context": {"channel_id": "C0HR", "team_id": "T0KNOWBOT"},
                "channel_id": "D0ALICE",
                "thread_ts": "1700000000.000100",
            },
            "event_ts": "1700000000.000200",
        }
    )

    assert (await bot.send(unknown)).status == 200
    assert (await bot.send(started)).status == 200
    await nothing_happened(bot, services)


async def test_health_answers_while_the_slack_endpoint_runs(bot: SlackBotUnderTest) -> None:
    async with bot.http.get(f"{bot.url}/healthz") as response:
        assert response.status == 200
    async with bot.http.get(f"{bot.url}/readyz") as response:
        assert response.status == 200
        assert (await response.json())["database"] == "ok"
