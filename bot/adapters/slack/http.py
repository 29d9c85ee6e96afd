"""The Events API over HTTP: POST /slack/events on the bot's shared aiohttp app.

In the style of slack-bolt's own aiohttp adapter, plus what that adapter leaves to chance.
The signature is checked on the raw bytes before anything is parsed (an unsigned request
is a 401). The body is then read here, not by bolt: it must be a JSON object (or a form
whose `payload` is one) no deeper than MAX_DEPTH, with the fields bolt reads of the right
types, and its strings storable; anything else is a 400 with one log line. bolt gets the
checked body re-serialised, so its own signature check is off (this one has run). Whatever
still goes wrong inside bolt is a 400 too, never a 500 with a traceback."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qsl

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.signature import SignatureVerifier

from bot.adapters.request_body import BadBody, load_object, storable_json
from bot.adapters.slack.app import SlackBot
from bot.adapters.slack.shape import problem
from bot.errors import KnowbotError
from bot.wiring import Services

log = logging.getLogger(__name__)

PATH = "/slack/events"


class SlackEvents:
    """The endpoint; its bot exists while the web app runs."""

    def __init__(self, services: Services, signing_secret: str) -> None:
        self._services = services
        self._secret = signing_secret
        self._verifier = SignatureVerifier(signing_secret)
        self.bot: SlackBot | None = None

    async def lifecycle(self, _: web.Application) -> AsyncIterator[None]:
        self.bot = await SlackBot.open(self._services, signing_secret=self._secret)
        yield
        await self.bot.close()

    async def handle(self, request: web.Request) -> web.Response:
        if self.bot is None:
            return web.json_response({"error": "starting up"}, status=503)
        raw = await request.read()
        headers = {k.lower(): v for k, v in request.headers.items()}
        if not self._is_signed(raw, headers):
            return web.json_response({"error": "invalid request"}, status=401)
        try:
            body = read_body(raw.decode("utf-8"), request.content_type)
        except (BadBody, UnicodeDecodeError) as exc:  # signed, but not what Slack sends
            return _refused(str(exc))
        headers["content-type"] = "application/json"
        bolt_request = AsyncBoltRequest(
            body=json.dumps(body), query=request.query_string, headers={**headers}
        )
        try:
            response = await self.bot.app.async_dispatch(bolt_request)
        except Exception as exc:
            return _refused(f"bolt could not handle it ({type(exc).__name__}: {exc})")
        return await to_aiohttp_response(response)

    def _is_signed(self, raw: bytes, headers: dict[str, str]) -> bool:
        """Signed with our secret within the last five minutes (slack_sdk's check, which
        raises instead of saying no on a non-numeric timestamp or a non-UTF-8 body)."""
        try:
            return self._verifier.is_valid_request(raw, headers)
        except ValueError:
            return False


def read_body(text: str, content_type: str) -> dict[str, Any]:
    """The body as bolt would parse it (JSON; a form's `payload` JSON; or the form itself,
    as slash commands send it), checked and cleaned; BadBody says what is wrong."""
    if content_type == "application/json" or text.lstrip().startswith("{"):
        body = load_object(text)
    else:
        form = dict(parse_qsl(text, keep_blank_values=True))
        if "payload" in form:
            body = load_object(form["payload"], what="the form's payload")
        else:
            body = storable_json(form)
    found = problem(body)
    if found:
        raise BadBody(found)
    return body


def _refused(reason: str) -> web.Response:
    log.warning("slack: refused a signed request: %s", reason)
    return web.json_response({"error": "malformed payload", "detail": reason}, status=400)


SLACK_EVENTS = web.AppKey("slack_events", SlackEvents)


def add_slack_routes(app: web.Application, services: Services) -> None:
    secret = services.settings.slack_signing_secret
    if secret is None:
        raise KnowbotError("The HTTP Events API needs SLACK_SIGNING_SECRET to verify requests.")
    endpoint = SlackEvents(services, secret.get_secret_value())
    app[SLACK_EVENTS] = endpoint
    app.router.add_post(PATH, endpoint.handle)
    app.cleanup_ctx.append(endpoint.lifecycle)
