"""Bot Framework endpoint for Teams: `POST /api/messages` on the bot's shared aiohttp app.

botbuilder's own aiohttp handler answers 500 to malformed JSON, a missing Content-Type or
an undecodable token; this one reads and authenticates the request itself, so bad input gets
400/415 and bad credentials 401 with nothing processed, then hands the activity to the
CloudAdapter."""

from __future__ import annotations

import json
import logging
from typing import Any

import requests
from aiohttp import web
from botbuilder.integration.aiohttp import CloudAdapter
from botbuilder.schema import Activity, ActivityTypes

from bot.adapters.teams.answering import Answering, ReplyTasks
from bot.adapters.teams.auth import build_authentication
from bot.adapters.teams.bot import KnowbotTeamsBot
from bot.adapters.teams.options import TeamsOptions
from bot.wiring import Services

log = logging.getLogger(__name__)

MESSAGES_PATH = "/api/messages"


def add_teams_routes(
    app: web.Application, services: Services, *, options: TeamsOptions | None = None
) -> None:
    options = options or TeamsOptions()
    authentication = build_authentication(services.settings, options.endpoints)
    adapter = CloudAdapter(authentication)
    adapter.on_turn_error = _on_turn_error
    replies = ReplyTasks()
    bot = KnowbotTeamsBot(services, Answering(services, options, replies))
    endpoint = MessagesEndpoint(adapter=adapter, authentication=authentication, bot=bot)
    app.router.add_post(MESSAGES_PATH, endpoint.handle)

    async def drain(_: web.Application) -> None:
        await replies.drain(options.drain_timeout_s)

    app.on_shutdown.append(drain)


class MessagesEndpoint:
    def __init__(self, *, adapter: Any, authentication: Any, bot: KnowbotTeamsBot) -> None:
        self._adapter = adapter
        self._authentication = authentication
        self._bot = bot

    async def handle(self, request: web.Request) -> web.Response:
        activity = await read_activity(request)
        if isinstance(activity, web.Response):
            return activity
        header = request.headers.get("Authorization")
        try:
            authenticated = await self._authentication.authenticate_request(activity, header)
        except requests.RequestException as exc:
            log.error("teams: cannot fetch Bot Framework signing keys: %s", exc)
            return _error(503, "cannot check the request's token right now")
        except Exception as exc:  # botbuilder signals bad tokens with assorted exceptions
            log.warning("teams: rejected activity %s: %s", activity.id, exc or type(exc).__name__)
            return _error(401, "missing or invalid Bot Framework token")
        invoke = await self._adapter.process_activity(authenticated, activity, self._bot.on_turn)
        if invoke is not None:
            if invoke.body is None:
                return web.Response(status=invoke.status)
            return web.json_response(invoke.body, status=invoke.status)
        if activity.type == ActivityTypes.invoke:  # the handler failed before answering
            return _error(500, "the invoke could not be handled")
        return web.Response(status=200)


async def read_activity(request: web.Request) -> Any:
    """The request's Activity, or the error response saying what was wrong with it."""
    if request.content_type != "application/json":
        return _error(415, f"expected application/json, got {request.content_type or 'none'}")
    try:
        body = json.loads(await request.read())
    except ValueError as exc:
        return _error(400, f"the body is not valid JSON: {exc}")
    if not isinstance(body, dict) or not isinstance(body.get("type"), str):
        return _error(400, "the body must be a Bot Framework Activity with a 'type'")
    if not isinstance(body.get("serviceUrl"), str):
        return _error(400, "the Activity has no 'serviceUrl' to reply to")
    try:
        return Activity().deserialize(body)
    except Exception as exc:
        return _error(400, f"the body is not a valid Activity: {exc}")


async def _on_turn_error(context: Any, error: Exception) -> None:
    log.error(
        "teams: unhandled error on %s activity %s",
        context.activity.type,
        context.activity.id,
        exc_info=error,
    )


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)
