"""Who sent a Teams message, as access lists name people: the Entra object id the activity
carries, and the user principal name from the conversation's roster (`TeamsInfo.get_member`)
when the activity has none; cached, then turned into a reader with their groups."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from botbuilder.core.teams import TeamsInfo

from bot.adapters.teams.incoming import Message
from bot.adapters.teams.workers import Workers
from bot.people.readers import Readers
from knowledge.access import Reader

log = logging.getLogger(__name__)

ROSTER_TIMEOUT_S = 3.0  # the answer must not wait long on a name
NAME_TTL_S = 3600.0
FAILURE_TTL_S = 60.0


class TeamsPeople:
    def __init__(self, readers: Readers, workers: Workers) -> None:
        self._readers = readers
        self._workers = workers
        self._names: dict[str, tuple[float, str | None]] = {}

    async def reader(self, context: Any, message: Message) -> Reader:
        identities = message.identities
        if not any("@" in i for i in identities):  # no principal name in the activity
            name = await self._principal_name(context)
            identities = (*identities, name) if name else identities
        return await self._workers.run(self._readers.reader_for, identities)

    async def _principal_name(self, context: Any) -> str | None:
        sender = context.activity.from_property
        member_id = getattr(sender, "id", None)
        if not member_id:
            return None
        now = time.monotonic()
        cached = self._names.get(member_id)
        if cached and cached[0] > now:
            return cached[1]
        try:
            member = await asyncio.wait_for(
                TeamsInfo.get_member(context, member_id), ROSTER_TIMEOUT_S
            )
        except Exception as exc:  # the roster is a nicety: the object id still stands
            log.warning("teams: no principal name for %s from the roster: %s", member_id, exc)
            self._names[member_id] = (now + FAILURE_TTL_S, None)
            return None
        name = member.user_principal_name or member.email or None
        self._names[member_id] = (now + NAME_TTL_S, name)
        return name
