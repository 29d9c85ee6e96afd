"""Keeping to Slack's message rate: about one message per second per channel, in bursts.

Slack answers a faster sender with 429s; spacing posts out here means a busy channel gets
its answers a little later instead of some of them after a Retry-After wait."""

from __future__ import annotations

import asyncio
import time


class ChannelPacer:
    def __init__(self, interval_s: float) -> None:
        self._interval = interval_s
        self._next_slot: dict[str, float] = {}

    async def wait(self, channel: str) -> None:
        """Return when this channel may take its next message (slots are handed out in call
        order, so concurrent answers in one channel queue instead of racing)."""
        if self._interval <= 0:
            return
        now = time.monotonic()
        slot = max(now, self._next_slot.get(channel, now))
        self._next_slot[channel] = slot + self._interval
        if len(self._next_slot) > 1000:
            self._forget_idle(now)
        if slot > now:
            await asyncio.sleep(slot - now)

    def _forget_idle(self, now: float) -> None:
        for channel in [c for c, slot in self._next_slot.items() if slot < now]:
            del self._next_slot[channel]
