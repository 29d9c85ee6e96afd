"""Drafts of an answer, from the pipeline's thread to an adapter's event loop.

The pipeline calls the feed once per piece of model text, on its own thread; the adapter
sends what it shows at its own pace (about once a second). Only the latest draft matters,
so the feed keeps one: a slow chat API skips drafts, never falls behind."""

from __future__ import annotations

import asyncio
import contextlib

from bot.conversation.drafting import Draft


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
