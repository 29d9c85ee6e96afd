"""The Events API over HTTP: POST /slack/events on the bot's shared aiohttp app.

In the style of slack-bolt's own aiohttp adapter, plus what that adapter leaves to chance:
the signature is checked before anything is parsed, so an unsigned request is a 401 and a
signed one whose body is not JSON a 400, never a 500; and the bot starts and stops with the
web app."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.signature import SignatureVerifier

from bot.adapters.slack.app import SlackBot
from bot.errors import KnowbotError
from bot.wiring import Services

log = logging.getLogger(__name__)

PATH = "/slack/events"


class SlackEvents:
    """The endpoint; its bot exists while the web app runs."""

    def __init__(self, services: Services, signing_secret: str) -> None:
        self._services = services
        self._secret = signing_secret  # bolt checks it again: harmless, and bolt's default
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
            bolt_request = AsyncBoltRequest(
                body=raw.decode("utf-8"), query=request.query_string, headers={**headers}
            )
        except ValueError as exc:  # signed, but not JSON where JSON was due
            log.warning("Slack sent a signed request whose body could not be read: %s", exc)
            return web.json_response({"error": "malformed payload"}, status=400)
        return await to_aiohttp_response(await self.bot.app.async_dispatch(bolt_request))

    def _is_signed(self, raw: bytes, headers: dict[str, str]) -> bool:
        """Signed with our secret within the last five minutes (slack_sdk's check, which
        raises instead of saying no on a non-numeric timestamp or a non-UTF-8 body)."""
        try:
            return self._verifier.is_valid_request(raw, headers)
        except ValueError:
            return False


SLACK_EVENTS = web.AppKey("slack_events", SlackEvents)


def add_slack_routes(app: web.Application, services: Services) -> None:
    secret = services.settings.slack_signing_secret
    if secret is None:
        raise KnowbotError("The HTTP Events API needs SLACK_SIGNING_SECRET to verify requests.")
    endpoint = SlackEvents(services, secret.get_secret_value())
    app[SLACK_EVENTS] = endpoint
    app.router.add_post(PATH, endpoint.handle)
    app.cleanup_ctx.append(endpoint.lifecycle)
