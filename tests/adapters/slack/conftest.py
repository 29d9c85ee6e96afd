"""The Slack adapter under test: the bot's real aiohttp app (bolt inside) on 127.0.0.1, the
real answer pipeline on this test's own Postgres database, and a fake Slack that records
what the bot did. Requests are signed the way Slack signs them."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from bot.adapters.slack.http import SLACK_EVENTS
from bot.server import build_web_app
from bot.settings import Settings
from bot.wiring import Services, open_services
from knowledge.ingest.options import IngestOptions
from tests.adapters.slack.payloads import SECRET, signed_headers
from tests.fakes.knowledge_base import bot_settings
from tests.fakes.openai_server import free_port
from tests.fakes.slack_server import FakeSlack


def slack_settings(base: Settings, fake: FakeSlack, **extra: str) -> Settings:
    values = {
        "SLACK_BOT_TOKEN": "xoxb-test-token",
        "SLACK_APP_TOKEN": "xapp-test-token",
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": fake.api_url,
        "KNOWBOT_SLACK_POST_INTERVAL_S": "0",
    }
    return bot_settings(base, **{**values, **extra})


@pytest.fixture
async def fake_slack() -> AsyncIterator[FakeSlack]:
    async with FakeSlack().running() as fake:
        yield fake


@pytest.fixture
def slack_env() -> dict[str, str]:
    """Extra settings for one test (override in the test module)."""
    return {}


@pytest.fixture
def services(
    settings: Settings, fake_slack: FakeSlack, knowledge_dir: Path, slack_env: dict[str, str]
) -> Iterator[Services]:
    with open_services(slack_settings(settings, fake_slack, **slack_env)) as svc:
        svc.knowledge.ingestor.ingest_paths([knowledge_dir], IngestOptions())
        yield svc


@dataclass
class Sent:
    status: int
    body: str
    seconds: float


@dataclass
class SlackBotUnderTest:
    """The running bot, and Slack's side of the conversation with it."""

    url: str
    app: web.Application
    http: aiohttp.ClientSession
    slack: FakeSlack

    async def send(
        self,
        payload: dict[str, Any] | str,
        *,
        retry: int | None = None,
        secret: str = SECRET,
        timestamp: int | None = None,
        headers: dict[str, str] | None = None,
    ) -> Sent:
        """POST a payload to /slack/events as Slack would: JSON for events, a form for
        interactions and commands, signed unless `headers` replaces the signature."""
        body = payload if isinstance(payload, str) else json.dumps(payload)
        content_type = (
            "application/json" if body.startswith("{") else ("application/x-www-form-urlencoded")
        )
        sent_headers = {"Content-Type": content_type, "User-Agent": "Slackbot 1.0"}
        sent_headers.update(
            headers
            if headers is not None
            else signed_headers(body, secret=secret, timestamp=timestamp, retry=retry)
        )
        started = time.perf_counter()
        async with self.http.post(
            f"{self.url}/slack/events", data=body.encode(), headers=sent_headers
        ) as response:
            text = await response.text()
        return Sent(response.status, text, time.perf_counter() - started)

    async def settle(self) -> None:
        """Wait until the work started by earlier requests has finished."""
        bot = self.app[SLACK_EVENTS].bot
        assert bot is not None
        await bot.background.idle()


@asynccontextmanager
async def running_bot(services: Services, slack: FakeSlack) -> AsyncIterator[SlackBotUnderTest]:
    """The bot's web app as `knowbot serve slack --http` runs it (one replica)."""
    app = build_web_app(services, slack=True)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        async with aiohttp.ClientSession() as http:
            yield SlackBotUnderTest(f"http://127.0.0.1:{port}", app, http, slack)
    finally:
        await runner.cleanup()


@pytest.fixture
async def bot(services: Services, fake_slack: FakeSlack) -> AsyncIterator[SlackBotUnderTest]:
    async with running_bot(services, fake_slack) as running:
        yield running
