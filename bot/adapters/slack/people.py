"""Who asked, as access lists name people: a Slack user's e-mail address (`users.info`,
which needs the `users:read.email` scope), cached, turned into a reader with their groups."""

from __future__ import annotations

import asyncio
import logging
import time

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.people.readers import Readers
from knowledge.access import Reader

log = logging.getLogger(__name__)

EMAIL_TTL_S = 3600.0  # an address rarely changes
FAILURE_TTL_S = 60.0


class SlackPeople:
    def __init__(self, client: AsyncWebClient, readers: Readers) -> None:
        self._client = client
        self._readers = readers
        self._emails: dict[str, tuple[float, str | None]] = {}

    async def reader(self, user: str) -> Reader:
        """The reader of Slack user `user`; known by no identity (so shown only what is
        open to everyone) when Slack gives no address."""
        email = await self.email(user)
        return await asyncio.to_thread(self._readers.reader_for, [email] if email else [])

    async def email(self, user: str) -> str | None:
        now = time.monotonic()
        cached = self._emails.get(user)
        if cached and cached[0] > now:
            return cached[1]
        try:
            response = await self._client.users_info(user=user)
        except (SlackApiError, aiohttp.ClientError, TimeoutError) as exc:
            log.warning("no e-mail address for Slack user %s (users.info: %s)", user, exc)
            self._emails[user] = (now + FAILURE_TTL_S, None)
            return None
        profile = (response.get("user") or {}).get("profile") or {}
        email = profile.get("email") if isinstance(profile.get("email"), str) else None
        if not email:
            log.warning(
                "Slack gives no e-mail address for %s: add the users:read.email scope", user
            )
        self._emails[user] = (now + EMAIL_TTL_S, email or None)
        return email or None
