"""Bot Framework endpoint for Teams: `POST /api/messages` on the bot's shared aiohttp app.

botbuilder's own aiohttp handler answers 500 to malformed JSON, a missing Content-Type or
an undecodable token; this one reads and authenticates the request itself, so bad input gets
400/415 and bad credentials 401 with nothing processed, then hands the activity to the
CloudAdapter. The body must be a JSON object no deeper than MAX_DEPTH with a `type` and a
usable `serviceUrl` (http or https: the reply goes there), and its strings are made
storable before botbuilder reads it."""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import urlsplit

import requests
from aiohttp import web
from botbuilder.integration.aiohttp import CloudAdapter
from botbuilder.schema import Activity, ActivityTypes

from bot.adapters.request_body import BadBody, load_object
from bot.adapters.teams.answering import Answering, ReplyTasks
from bot.adapters.teams.auth import build_authentication
from bot.adapters.teams.bot import KnowbotTeamsBot
from bot.adapters.teams.escalating import TeamsEscalating
from bot.adapters.teams.options import TeamsOptions
from bot.adapters.teams.shape import problem
from bot.adapters.teams.workers import Workers
from bot.wiring import Services

log = logging.getLogger(__name__)

MESSAGES_PATH = "/api/messages"


def add_teams_routes(
    app: web.Application, services: Services, *, options: TeamsOptions | None = None
) -> None:
    options = options or TeamsOptions()
    workers = Workers()
    authentication = build_authentication(
        services.settings, options.endpoints, connector_pool=workers.connector
    )
    adapter = CloudAdapter(authentication)
    adapter.on_turn_error = _on_turn_error
    replies = ReplyTasks()
    answering = Answering(services, options, replies, workers)
    escalating = TeamsEscalating(services, workers)
    bot = KnowbotTeamsBot(services, answering, workers, escalating)
    pending: list[asyncio.Task[None]] = []

    async def post_requests(_: web.Application) -> None:
        """Requests to confirm verified answers, left by re-ingests in any process."""
        every = services.settings.escalation_poll_s
        pending.append(asyncio.create_task(escalating.keep_posting(every)))

    async def stop_requests(_: web.Application) -> None:
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    app.on_startup.append(post_requests)
    app.on_shutdown.append(stop_requests)
    endpoint = MessagesEndpoint(adapter=adapter, authentication=authentication, bot=bot)
    app.router.add_post(MESSAGES_PATH, endpoint.handle)

    async def drain(_: web.Application) -> None:
        await replies.drain(options.drain_timeout_s)

    async def stop_workers(_: web.Application) -> None:
        workers.shutdown()

    app.on_shutdown.append(drain)
    app.on_cleanup.append(stop_workers)


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
        try:
            invoke = await self._adapter.process_activity(
                authenticated, activity, self._bot.on_turn
            )
        except Exception as exc:  # botbuilder tripped over a field it did not expect
            return _refused(activity, f"{type(exc).__name__}: {exc}")
        if invoke is not None and invoke.status != 501:
            return _invoke_response(invoke)
        if activity.type == ActivityTypes.invoke:  # the handler failed before answering
            # (botbuilder then says 501; this bot answers every invoke name it is sent)
            return _refused(activity, "the invoke could not be handled")
        return web.Response(status=200)


async def read_activity(request: web.Request) -> Any:
    """The request's Activity, or the error response saying what was wrong with it."""
    if request.content_type != "application/json":
        return _error(415, f"expected application/json, got {request.content_type or 'none'}")
    try:
        body = load_object((await request.read()).decode("utf-8"))
    except (BadBody, UnicodeDecodeError) as exc:
        return _error(400, str(exc))
    if not isinstance(body.get("type"), str):
        return _error(400, "the body must be a Bot Framework Activity with a 'type'")
    if not usable_service_url(body.get("serviceUrl")):
        return _error(400, "the Activity has no http(s) 'serviceUrl' to reply to")
    if found := problem(body):
        return _error(400, f"the body is not a valid Activity: {found}")
    try:
        return Activity().deserialize(body)
    except Exception as exc:
        return _error(400, f"the body is not a valid Activity: {exc}")


def usable_service_url(value: Any) -> bool:
    """An absolute http(s) URL with a host: anything else would send the reply nowhere
    (or, empty, to botbuilder's public default)."""
    if not isinstance(value, str):
        return False
    try:
        parts = urlsplit(value.strip())
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _invoke_response(invoke: Any) -> web.Response:
    body = invoke.body
    if body is None:
        return web.Response(status=invoke.status)
    if hasattr(body, "serialize"):  # a botbuilder model (e.g. a health check response)
        body = body.serialize()
    return web.json_response(body, status=invoke.status)


async def _on_turn_error(context: Any, error: Exception) -> None:
    log.warning(
        "teams: could not handle %s activity %s: %s: %s",
        context.activity.type,
        context.activity.id,
        type(error).__name__,
        error,
    )
    log.debug("teams: the failure in full", exc_info=error)


def _refused(activity: Any, reason: str) -> web.Response:
    log.warning("teams: refused %s activity %s: %s", activity.type, activity.id, reason)
    return _error(400, "the activity could not be handled")


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)
