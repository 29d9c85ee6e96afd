"""One answer streamed into a Teams personal chat while the model writes it.

When the model starts writing, an informative update shows ("Reading the sources…"; it
also ends the wait for Teams' HTTP request). Then, at most about once a second, an update
with the bullets so far, the one being written included; finally the finished answer —
citations, AI label, feedback buttons and confidence — closes the stream. Updates are
sent one after another, each after the previous one was accepted, as Teams asks.

If Teams refuses a streaming update (403 ContentStreamNotAllowed for a user or tenant
without streaming, a stream past Teams' two minutes), nothing more is streamed; the
finished answer still closes the stream, or, if Teams will not take that either, goes out
as an ordinary message: the caller sends it when `finish` returns None."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from bot.adapters.drafts import DraftFeed
from bot.adapters.teams.connector import call_timeout
from bot.adapters.teams.delivery import send
from bot.adapters.teams.options import TeamsOptions
from bot.adapters.teams.streaming import (
    draft_markdown,
    final_activity,
    informative_activity,
    streaming_activity,
)
from knowledge.models.deadline import Deadline

log = logging.getLogger(__name__)

INFORMATIVE = "Reading the sources and writing the answer…"


class TeamsLive:
    def __init__(
        self,
        context: Any,
        options: TeamsOptions,
        deadline: Deadline,
        *,
        on_started: Callable[[], object] | None = None,
    ) -> None:
        self._context = context
        self._on_started = on_started
        self._options = options
        self._deadline = deadline
        self._sequence = 0
        self._shown = ""
        self._broken = False
        self.stream_id: str | None = None
        self.started = asyncio.Event()  # the informative update is out

    async def follow(self, feed: DraftFeed) -> None:
        """Stream each draft until the feed closes (the answer is finished)."""
        while (draft := await feed.next()) is not None:
            if self._broken:
                continue
            if self.stream_id is None:
                await self._begin()
                continue
            text = draft_markdown(draft)
            if text and text != self._shown:
                await self._update(text)
                await feed.pause(self._options.stream_interval_s)

    async def finish(self, reply: Any) -> str | None:
        """Close the stream with `reply`; the message id (the stream's), or None when
        there is no stream or Teams would not take it (the caller then sends `reply`)."""
        if self.stream_id is None:
            return None
        final = final_activity(reply, stream_id=self.stream_id)
        sent = await send(
            self._context, final, options=self._options, what="answer", deadline=self._deadline
        )
        return self.stream_id if sent is not None else None

    async def _begin(self) -> None:
        stream_id = await self._post(informative_activity(INFORMATIVE))
        if stream_id:
            self.stream_id, self._sequence = stream_id, 1
            self.started.set()
            if self._on_started is not None:
                self._on_started()
        elif stream_id == "":  # accepted, but no id to stream under: not a streaming client
            self._broken = True

    async def _update(self, text: str) -> None:
        assert self.stream_id is not None
        sequence = self._sequence + 1
        activity = streaming_activity(text, stream_id=self.stream_id, sequence=sequence)
        if await self._post(activity) is not None:
            self._sequence, self._shown = sequence, text

    async def _post(self, activity: Any) -> str | None:
        """One update, not retried (the next one carries the same text and more); a
        refusal ends the streaming. The id Teams gave it ("" for none), or None."""
        try:
            left = max(self._options.min_attempt_s, self._deadline.remaining())
            with call_timeout(min(self._options.connector_timeout_s, left)):
                response = await self._context.send_activity(activity)
        except Exception as exc:
            log.info(
                "teams: streaming into %s refused (%s: %s); the answer follows as one message",
                self._context.activity.conversation.id,
                type(exc).__name__,
                exc,
            )
            self._broken = True
            return None
        return str(getattr(response, "id", "") or "")
