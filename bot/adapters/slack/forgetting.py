"""Forgetting a conversation from Slack's menus: the `/knowbot-forget` slash command and the
"Forget this thread" message shortcut. ("forget this thread" typed in a thread is a
question-like message and lives in answering.py.)

Slack does not tell a slash command which thread it was typed in, so the command forgets
a direct-message conversation, or the thread whose link is given; the shortcut, which
does know its message, works anywhere."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

from bot.adapters.slack.config import PLATFORM
from bot.adapters.slack.events import id_of
from bot.conversation.types import ThreadRef
from bot.wiring import Services

log = logging.getLogger(__name__)

Respond = Callable[..., Awaitable[object]]

COMMAND = "/knowbot-forget"
SHORTCUT = "knowbot_forget_thread"
HOW_TO = (
    "Slack does not tell me which thread a command was typed in. In a channel thread, write "
    "`forget this thread` in the thread (mentioning me), use *Forget this thread* from the "
    "message's ⋮ menu, or give me the thread's link: `/knowbot-forget <link to the thread>`."
)
# https://acme.slack.com/archives/C0123ABCD/p1700000000123456?thread_ts=1700000000.000100
_PERMALINK = re.compile(r"/archives/([CDG][A-Z0-9]+)/p(\d{10})(\d{6})(?:\S*?thread_ts=(\d+\.\d+))?")


def thread_from_command(body: dict[str, Any]) -> ThreadRef | None:
    team, channel = str(body.get("team_id", "")), str(body.get("channel_id", ""))
    link = _PERMALINK.search(str(body.get("text") or ""))
    if link:
        linked_channel, seconds, micros, thread_ts = link.groups()
        return ThreadRef(PLATFORM, team, linked_channel, thread_ts or f"{seconds}.{micros}")
    if channel.startswith("D"):
        return ThreadRef(PLATFORM, team, channel, channel)
    return None


def thread_from_shortcut(body: dict[str, Any]) -> ThreadRef | None:
    message = body.get("message") or {}
    channel, team = id_of(body.get("channel")), id_of(body.get("team"))
    ts = message.get("thread_ts") or message.get("ts")
    if not channel or not ts:
        return None
    if channel.startswith("D") and not message.get("thread_ts"):
        return ThreadRef(PLATFORM, team, channel, channel)  # the direct-message conversation
    return ThreadRef(PLATFORM, team, channel, str(ts))


class Forgetting:
    def __init__(self, services: Services) -> None:
        self._services = services

    async def forget(self, ref: ThreadRef | None, *, respond: Respond) -> None:
        if ref is None:
            await respond(text=HOW_TO, response_type="ephemeral")
            return
        removed = await asyncio.to_thread(self._services.threads.forget, ref)
        log.info("forgot %d turns of %s", removed, ref)
        text = (
            "Done: I have forgotten that conversation."
            if removed
            else "There was nothing to forget: I keep no history of that conversation."
        )
        await respond(text=text, response_type="ephemeral")
