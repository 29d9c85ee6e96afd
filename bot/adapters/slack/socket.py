"""Socket Mode: Slack pushes events over a websocket the bot opens (SLACK_APP_TOKEN), so no
public URL is needed. Same bolt app, same listeners as over HTTP."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_sdk.errors import SlackApiError

from bot.adapters.slack.app import SlackBot
from bot.errors import KnowbotError
from bot.wiring import Services

Stop = Callable[[], Awaitable[None]]


async def start_socket_mode(services: Services) -> Stop:
    """Connect and return the coroutine function that disconnects (after letting answers in
    progress finish)."""
    if services.settings.slack_app_token is None:
        raise KnowbotError("Socket Mode needs SLACK_APP_TOKEN (an xapp- token).")
    app_token = services.settings.slack_app_token.get_secret_value()
    bot = await SlackBot.open(services, signing_secret=None)
    handler = AsyncSocketModeHandler(bot.app, app_token, web_client=bot.client)
    try:
        # Asked here, not in the handler: its connect loop retries a bad token forever.
        opened = await bot.client.apps_connections_open(app_token=app_token)
    except SlackApiError as exc:
        await handler.close_async()
        await bot.close()
        raise KnowbotError(
            f"Slack refused SLACK_APP_TOKEN ({exc.response.get('error')}): create an app-level "
            "token with the connections:write scope (Basic Information → App-Level Tokens)."
        ) from exc
    handler.client.wss_uri = opened["url"]
    await handler.connect_async()

    async def stop() -> None:
        await handler.close_async()
        await bot.close()

    return stop
