"""Fixtures for the Teams adapter: the real pipeline on the test's own Postgres, the bot's
aiohttp app on 127.0.0.1, and a fake Bot Framework connector it replies to."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests
import sqlalchemy as sa

from bot.adapters.teams.http import add_teams_routes
from bot.adapters.teams.options import TeamsOptions
from bot.server import build_web_app
from bot.settings import Settings
from bot.wiring import Services, open_services
from knowledge.ingest.options import IngestOptions
from tests.fakes.bot_connector import FakeConnector, fake_connector
from tests.fakes.knowledge_base import bot_settings
from tests.fakes.openai_server import serve_app

FAST = TeamsOptions(retry_delays_s=(0.05, 0.1, 0.2), typing_interval_s=0.5)


@dataclass
class TeamsBot:
    """The bot's HTTP endpoint as Teams sees it."""

    url: str
    connector: FakeConnector
    services: Services

    def post(
        self,
        activity: dict[str, Any] | bytes,
        *,
        token: str | None = None,
        content_type: str = "application/json",
    ) -> requests.Response:
        """POST like the Bot Framework does: a dict as JSON, bytes as they are."""
        headers = {"Content-Type": content_type}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        body = json.dumps(activity).encode() if isinstance(activity, dict) else activity
        return requests.post(f"{self.url}/api/messages", data=body, headers=headers, timeout=30)

    def stored_answers(self) -> list[dict[str, Any]]:
        with self.services.db.engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT * FROM answers ORDER BY id"))
            return [dict(r._mapping) for r in rows]


@pytest.fixture
def connector() -> Iterator[FakeConnector]:
    with fake_connector() as fake:
        yield fake


@contextmanager
def running_bot(
    settings: Settings,
    knowledge_dir: Path,
    connector: FakeConnector,
    options: TeamsOptions | None = FAST,
) -> Iterator[TeamsBot]:
    """Services on the test's database with the knowledge ingested, served over HTTP."""
    with open_services(settings) as services:
        services.knowledge.ingestor.ingest_paths([knowledge_dir], IngestOptions())
        if options is None:  # exactly what `knowbot serve teams` builds
            app = build_web_app(services, teams=True)
        else:
            app = build_web_app(services)
            add_teams_routes(app, services, options=options)
        with serve_app(app) as url:
            yield TeamsBot(url=url, connector=connector, services=services)


BotFactory = Callable[..., AbstractContextManager[TeamsBot]]


@pytest.fixture
def start_bot(settings: Settings, knowledge_dir: Path, connector: FakeConnector) -> BotFactory:
    """`with start_bot(options=..., **settings) as bot:` for tests that need their own knobs."""

    def start(
        options: TeamsOptions | None = FAST, **extra: str
    ) -> AbstractContextManager[TeamsBot]:
        return running_bot(bot_settings(settings, **extra), knowledge_dir, connector, options)

    return start


@pytest.fixture
def bot(start_bot: BotFactory) -> Iterator[TeamsBot]:
    with start_bot() as running:
        yield running
