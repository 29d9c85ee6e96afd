"""One answer's Slack message while the model writes it, and when it is done.

Bullets appear as the model finishes them, through Slack's chat streams (chat.startStream,
appendStream, stopStream) at most about once a second. When the answer is finished, the
stream is stopped with the rest of the bullets and the blocks below them (notice, linked
sources, confidence, feedback buttons): the message then shows exactly the stored answer.

Where Slack refuses to stream (a workspace without the AI-app surface, an API error, a
stream that expired), the draft continues as a plain message that is posted and then
edited with chat.update; and whenever the finished answer does not begin with the bullets
already shown (the model failed and quoted passages stand in, or it found nothing), the
message is replaced by the finished answer. No text is lost either way: if even the edit
fails, the caller posts the answer as a new message."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from bot.adapters.drafts import DraftFeed
from bot.adapters.slack.blocks import (
    SlackMessage,
    bullet_sections,
    context,
    markdown_bullets,
    tail_blocks,
)
from bot.adapters.slack.posting import SlackPoster, StreamTarget
from bot.conversation.types import Answer, Bullet

log = logging.getLogger(__name__)

WRITING = "_Writing…_"
STREAM, EDIT, OFF = "stream", "edit", "off"


class SlackLive:
    def __init__(self, poster: SlackPoster, target: StreamTarget, *, interval_s: float) -> None:
        self._poster = poster
        self._target = target
        self._interval_s = interval_s
        self._mode = STREAM
        self._shown: tuple[Bullet, ...] = ()
        self._unsure = False  # an update was cut off: what the message shows is unknown
        self.ts: str | None = None  # the message, once there is one

    async def follow(self, feed: DraftFeed) -> None:
        """Show each draft's settled bullets until the feed closes."""
        while (draft := await feed.next()) is not None:
            settled = draft.settled
            if self._mode == OFF or len(settled) <= len(self._shown):
                continue
            if settled[: len(self._shown)] != self._shown:
                continue  # cannot happen (settled bullets only grow); never show a mismatch
            await self._show(settled)
            await feed.pause(self._interval_s)

    def interrupted(self) -> None:
        """A draft update was cut off mid-call: what the message shows is not known, so
        the finished answer replaces it whole (after ending the stream, if one runs)."""
        self._unsure = True

    async def finish(
        self, answer: Answer, message: SlackMessage, *, rate_hint: str, escalate: bool = False
    ) -> str | None:
        """The finished answer into the message; its ts, or None when there is no message
        showing it (nothing was drafted, or Slack took no edit): the caller then posts."""
        if self.ts is None:
            return None
        if self._mode == STREAM:
            if not self._unsure and tuple(answer.bullets[: len(self._shown)]) == self._shown:
                rest = markdown_bullets(answer.bullets[len(self._shown) :])
                tail = tail_blocks(answer, rate_hint=rate_hint, searched=True, escalate=escalate)
                stopped = await self._poster.stop_stream(
                    self._target, ts=self.ts, markdown=rest, blocks=tail
                )
                if stopped.response is not None:
                    return self.ts
            else:
                await self._poster.stop_stream(self._target, ts=self.ts)
        return self.ts if await self._replace(message) else None

    async def fail(self, message: SlackMessage) -> bool:
        """The answer could not be finished: the draft becomes `message` (an apology).
        False when there is no draft to replace."""
        if self.ts is None:
            return False
        if self._mode == STREAM:
            await self._poster.stop_stream(self._target, ts=self.ts)
        return await self._replace(message)

    async def _show(self, bullets: tuple[Bullet, ...]) -> None:
        if self._mode == STREAM and await self._stream(bullets):
            self._shown = bullets
            return
        if self._mode == STREAM:
            self._mode = EDIT  # refused: carry on as a plain message, edited
            if self.ts is not None:  # a stream that broke off: end it so it can be edited
                await self._poster.stop_stream(self._target, ts=self.ts)
        if await self._edit(bullets):
            self._shown = bullets
        else:
            log.info(
                "event %s: the draft could not be shown; the answer follows when done",
                self._target.event_id,
            )
            self._mode = OFF

    async def _stream(self, bullets: tuple[Bullet, ...]) -> bool:
        if self.ts is None:
            started = await self._poster.start_stream(
                self._target, markdown=markdown_bullets(bullets)
            )
            self.ts = started.ts
            return started.ts is not None
        new = markdown_bullets(bullets[len(self._shown) :])
        appended = await self._poster.append_stream(self._target, ts=self.ts, markdown=new)
        return appended.response is not None

    async def _edit(self, bullets: Sequence[Bullet]) -> bool:
        draft = draft_message(bullets)
        if self.ts is None:
            self.ts = await self._poster.post(
                channel=self._target.channel,
                thread_ts=self._target.thread_ts,
                message=draft,
                event_id=self._target.event_id,
            )
            return self.ts is not None
        return await self._replace(draft)

    async def _replace(self, message: SlackMessage) -> bool:
        assert self.ts is not None
        return await self._poster.update(
            channel=self._target.channel,
            ts=self.ts,
            message=message,
            event_id=self._target.event_id,
        )


def draft_message(bullets: Sequence[Bullet]) -> SlackMessage:
    """A draft shown as a plain message: the bullets so far, and a note that more follow."""
    body, _ = bullet_sections(bullets, max_sections=40)
    text = "\n".join(f"• {b.render()}" for b in bullets)
    return SlackMessage(text=text, blocks=[*body, context([WRITING])])
