"""Slack Events API over HTTP (to be built: issue 5)."""

from __future__ import annotations

from aiohttp import web

from bot.wiring import Services


def add_slack_routes(app: web.Application, services: Services) -> None:
    raise NotImplementedError("The Slack adapter is not built yet.")
