"""The Slack Web API client: one per process, pointed at SLACK_API_URL, retrying what Slack
asks to be retried (429 with Retry-After, 5xx, dropped connections)."""

from __future__ import annotations

import aiohttp
from slack_bolt.authorization import AuthorizeResult
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from bot.errors import KnowbotError
from bot.settings import Settings


def retry_handlers() -> list[AsyncRetryHandler]:
    return [
        AsyncConnectionErrorRetryHandler(max_retry_count=2),
        AsyncRateLimitErrorRetryHandler(max_retry_count=3),
        AsyncServerErrorRetryHandler(max_retry_count=2),
    ]


def web_client(settings: Settings, *, session: aiohttp.ClientSession) -> AsyncWebClient:
    if settings.slack_bot_token is None:
        raise KnowbotError("SLACK_BOT_TOKEN is not set: create the Slack app (README) first.")
    base_url = settings.slack_api_url.rstrip("/") + "/"
    return AsyncWebClient(
        token=settings.slack_bot_token.get_secret_value(),
        base_url=base_url,
        session=session,
        timeout=15,
        retry_handlers=retry_handlers(),
    )


def for_bolt(client: AsyncWebClient) -> AsyncWebClient:
    """The same client without the token: bolt takes the token from `authorize` and warns
    that a client's own token is ignored."""
    return AsyncWebClient(
        base_url=client.base_url,
        session=client.session,
        timeout=client.timeout,
        retry_handlers=retry_handlers(),
    )


async def identify(client: AsyncWebClient) -> AuthorizeResult:
    """Check the bot token once at start-up (auth.test) and keep the answer: which workspace
    and bot user this is. Every request then authorizes without another call to Slack."""
    try:
        response = await client.auth_test()
    except SlackApiError as exc:
        raise KnowbotError(
            f"Slack refused SLACK_BOT_TOKEN ({exc.response.get('error')}) at {client.base_url}: "
            "copy the Bot User OAuth Token (xoxb-...) from the app's OAuth & Permissions page."
        ) from exc
    except (aiohttp.ClientError, TimeoutError) as exc:
        raise KnowbotError(
            f"Could not reach the Slack Web API at {client.base_url} ({exc!r}): "
            "check the network or SLACK_API_URL."
        ) from exc
    return AuthorizeResult.from_auth_test_response(
        bot_token=client.token, auth_test_response=response
    )
