"""The bot's HTTP server: one aiohttp app carrying /healthz and the enabled platforms'
endpoints (Slack Events API at /slack/events, Bot Framework at /api/messages)."""

from __future__ import annotations

import asyncio
import logging

import sqlalchemy as sa
from aiohttp import web

from bot.wiring import Services

log = logging.getLogger(__name__)

SERVICES = web.AppKey("services", Services)


async def healthz(request: web.Request) -> web.Response:
    """200 when the app is up and the database answers; 503 otherwise."""
    services = request.app[SERVICES]
    try:
        await asyncio.to_thread(_ping, services)
    except Exception as exc:
        log.warning("health check: database unreachable: %s", exc)
        return web.json_response({"status": "unavailable", "database": "unreachable"}, status=503)
    return web.json_response({"status": "ok", "database": "ok"})


def _ping(services: Services) -> None:
    with services.db.engine.connect() as conn:
        conn.execute(sa.text("SELECT 1"))


def build_web_app(
    services: Services, *, slack: bool = False, teams: bool = False
) -> web.Application:
    app = web.Application(client_max_size=2 * 1024 * 1024)
    app[SERVICES] = services
    app.router.add_get("/healthz", healthz)
    if slack:
        from bot.adapters.slack.http import add_slack_routes

        add_slack_routes(app, services)
    if teams:
        from bot.adapters.teams.http import add_teams_routes

        add_teams_routes(app, services)
    return app
