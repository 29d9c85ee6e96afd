"""Drafts of an answer, from the pipeline's thread to an adapter's event loop.

The pipeline calls the feed once per piece of model text, on its own thread; the adapter
sends what it shows at its own pace (about once a second). Only the latest draft matters,
so the feed keeps one: a slow chat API skips drafts, never falls behind."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from bot.conversation.drafting import Draft

log = logging.getLogger(__name__)

# How long the finished answer waits for a draft update (or other side work) still on its
# way to the chat service: the answer must go out within its deadline.
WIND_DOWN_S = 2.0


class DraftFeed:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._latest: Draft | None = None
        self._changed = asyncio.Event()
        self._done = asyncio.Event()

    def __call__(self, draft: Draft) -> None:
        """The pipeline's side (any thread)."""
        self._loop.call_soon_threadsafe(self._put, draft)

    def close(self) -> None:
        """The answer is finished (event loop side): `next` returns None from now on."""
        self._done.set()
        self._changed.set()

    @property
    def closed(self) -> bool:
        return self._done.is_set()

    async def next(self) -> Draft | None:
        """The newest draft not yet taken, waiting for one; None once closed."""
        while not self.closed:
            await self._changed.wait()
            self._changed.clear()
            if self._latest is not None and not self.closed:
                draft, self._latest = self._latest, None
                return draft
        return None

    async def pause(self, seconds: float) -> None:
        """Wait between two sends; over at once when the answer is finished."""
        if seconds > 0 and not self.closed:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._done.wait(), timeout=seconds)

    def _put(self, draft: Draft) -> None:
        if not self.closed:
            self._latest = draft
            self._changed.set()


async def wind_down(work: asyncio.Future[Any], *, what: str, grace_s: float = WIND_DOWN_S) -> bool:
    """Let side work (the draft stream, a title) finish the call it is making, for up to
    `grace_s`: True when it finished (a failure is logged, never raised: it must not cost
    the user the answer), False when it had to be cancelled."""
    done, _ = await asyncio.wait({work}, timeout=grace_s)
    if not done:
        work.cancel()
        log.warning("%s still under way after %.1fs; cancelled", what, grace_s)
        return False
    if not work.cancelled() and (error := work.exception()) is not None:
        log.error("%s failed: %s: %s", what, type(error).__name__, error)
        log.debug("%s failed", what, exc_info=error)
    return True
