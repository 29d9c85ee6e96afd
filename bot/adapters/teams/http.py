"""Bot Framework endpoint for Teams (to be built: issue 6)."""

from __future__ import annotations

from aiohttp import web

from bot.wiring import Services


def add_teams_routes(app: web.Application, services: Services) -> None:
    raise NotImplementedError("The Teams adapter is not built yet.")
