"""Starting the Teams endpoint: a half configuration is refused, no configuration is loud."""

from __future__ import annotations

import logging

import pytest
from aiohttp import web
from typer.testing import CliRunner

from bot.adapters.teams.http import add_teams_routes
from bot.cli.main import app as cli
from bot.errors import KnowbotError
from bot.settings import Settings
from bot.wiring import open_services
from tests.fakes.knowledge_base import bot_settings


def test_an_app_id_without_its_password_is_refused(settings: Settings) -> None:
    half = bot_settings(settings, MICROSOFT_APP_ID="knowbot-app-id")
    with (
        open_services(half) as services,
        pytest.raises(KnowbotError, match="MICROSOFT_APP_PASSWORD"),
    ):
        add_teams_routes(web.Application(), services)


def test_serve_teams_refuses_it_before_starting_anything(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MICROSOFT_APP_ID", "knowbot-app-id")
    result = CliRunner().invoke(cli, ["serve", "teams"])
    assert isinstance(result.exception, KnowbotError)
    assert "MICROSOFT_APP_PASSWORD" in str(result.exception)


def test_running_without_credentials_warns_loudly(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    with open_services(bot_settings(settings)) as services, caplog.at_level(logging.WARNING):
        add_teams_routes(web.Application(), services)
    [warning] = [r for r in caplog.records if "UNAUTHENTICATED" in r.getMessage()]
    assert warning.levelno == logging.WARNING and "MICROSOFT_APP_ID" in warning.getMessage()
