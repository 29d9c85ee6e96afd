"""The bot's HTTP server: one aiohttp app carrying /healthz, /readyz and the enabled
platforms' endpoints (Slack Events API at /slack/events, Bot Framework at /api/messages).

/healthz says the process is alive and serving HTTP (restart it if not); /readyz says it
can answer at full speed: 503 while `knowbot serve` is still warming up (loading the
embedding model, opening the database pool) or while the database does not answer."""

from __future__ import annotations

import asyncio
import logging

import sqlalchemy as sa
from aiohttp import web

from bot.warmup import Readiness
from bot.wiring import Services

log = logging.getLogger(__name__)

SERVICES = web.AppKey("services", Services)
READINESS = web.AppKey("readiness", Readiness)


async def healthz(request: web.Request) -> web.Response:
    """Live: 200 whenever the process answers HTTP at all."""
    return web.json_response({"status": "live", "ready": request.app[READINESS].ready})


async def readyz(request: web.Request) -> web.Response:
    """Ready: warmed up and the database answers; 503 otherwise."""
    if not request.app[READINESS].ready:
        return web.json_response({"status": "warming up"}, status=503)
    try:
        await asyncio.to_thread(_ping, request.app[SERVICES])
    except Exception as exc:
        log.warning("readiness check: database unreachable: %s", exc)
        return web.json_response({"status": "unavailable", "database": "unreachable"}, status=503)
    return web.json_response({"status": "ready", "database": "ok"})


def _ping(services: Services) -> None:
    with services.db.engine.connect() as conn:
        conn.execute(sa.text("SELECT 1"))


def build_web_app(
    services: Services,
    *,
    slack: bool = False,
    teams: bool = False,
    readiness: Readiness | None = None,
) -> web.Application:
    """`readiness` None: ready at once (tests and tools that build the app themselves)."""
    app = web.Application(client_max_size=2 * 1024 * 1024)
    app[SERVICES] = services
    app[READINESS] = readiness or Readiness(ready=True)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    if slack:
        from bot.adapters.slack.http import add_slack_routes

        add_slack_routes(app, services)
    if teams:
        from bot.adapters.teams.http import add_teams_routes

        add_teams_routes(app, services)
    return app
