"""Posting into a Teams conversation unprompted (the feedback digest): the Bot Framework
connector's REST call `POST {serviceUrl}/v3/conversations/{id}/activities`, with the bot's
bearer token when it has credentials. Kept here so every Bot Framework import stays in
this folder."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

import aiohttp

from bot.errors import KnowbotError
from bot.settings import Settings

TokenSource = Callable[[], Awaitable[str]]


def app_token_source(settings: Settings) -> TokenSource | None:
    """The bot's connector token from its app id and password; None without an app id
    (the Bot Framework Emulator and local connectors take unauthenticated posts)."""
    if settings.microsoft_app_id is None:
        return None
    from botframework.connector.auth import MicrosoftAppCredentials

    password = settings.microsoft_app_password
    credentials = MicrosoftAppCredentials(
        settings.microsoft_app_id,
        password.get_secret_value() if password else "",
        channel_auth_tenant=settings.microsoft_app_tenant_id,
    )

    async def token() -> str:
        return str(await asyncio.to_thread(credentials.get_access_token))  # msal blocks

    return token


async def post_activity(
    *,
    service_url: str,
    conversation_id: str,
    activity: dict[str, Any],
    token: TokenSource | None,
    timeout_s: float = 15.0,
) -> str:
    """Send one activity; return the id the connector gave it."""
    url = f"{service_url.rstrip('/')}/v3/conversations/{quote(conversation_id, safe='')}/activities"
    return await _send("POST", url, activity, conversation_id, service_url, token, timeout_s)


async def update_activity(
    *,
    service_url: str,
    conversation_id: str,
    activity_id: str,
    activity: dict[str, Any],
    token: TokenSource | None,
    timeout_s: float = 15.0,
) -> str:
    """Replace a message the bot sent (an escalation card with a new count or outcome)."""
    url = (
        f"{service_url.rstrip('/')}/v3/conversations/{quote(conversation_id, safe='')}"
        f"/activities/{quote(activity_id, safe='')}"
    )
    body = {**activity, "id": activity_id}
    return await _send("PUT", url, body, conversation_id, service_url, token, timeout_s)


async def _send(
    method: str,
    url: str,
    activity: dict[str, Any],
    conversation_id: str,
    service_url: str,
    token: TokenSource | None,
    timeout_s: float,
) -> str:
    headers = {"Authorization": f"Bearer {await token()}"} if token else {}
    timeout = aiohttp.ClientTimeout(total=timeout_s)
    async with (
        aiohttp.ClientSession(timeout=timeout) as session,
        session.request(method, url, json=activity, headers=headers) as response,
    ):
        if response.status >= 300:
            detail = (await response.text())[:300]
            raise KnowbotError(
                f"Teams refused the post to conversation {conversation_id} at {service_url} "
                f"(HTTP {response.status}: {detail}). Check the conversation id, that the bot "
                "is installed there, and MICROSOFT_APP_ID / MICROSOFT_APP_PASSWORD."
            )
        body = await response.json(content_type=None)
    return str(body.get("id", "")) if isinstance(body, dict) else ""
