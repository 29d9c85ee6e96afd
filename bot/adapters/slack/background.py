"""Work that runs after Slack has its ack: answering, rating, forgetting.

The tasks are held here, not fired and forgotten: asyncio keeps only weak references to
running tasks, and shutdown should let an answer in progress reach its user."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger(__name__)


class Background:
    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()
        self._idle = asyncio.Event()
        self._idle.set()

    def spawn(self, work: Coroutine[Any, Any, None], *, name: str) -> None:
        task = asyncio.get_running_loop().create_task(work, name=name)
        self._tasks.add(task)
        self._idle.clear()
        task.add_done_callback(self._done)

    @property
    def pending(self) -> int:
        return len(self._tasks)

    async def idle(self) -> None:
        """Return once nothing is running (tests and benchmarks wait on this)."""
        await self._idle.wait()

    async def drain(self, timeout_s: float) -> None:
        """Let running work finish for up to `timeout_s`, then cancel what is left."""
        if not self._tasks:
            return
        _, running = await asyncio.wait(set(self._tasks), timeout=timeout_s)
        for task in running:
            log.warning("shutting down: cancelling %s", task.get_name())
            task.cancel()
        if running:
            await asyncio.wait(running, timeout=1)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not self._tasks:
            self._idle.set()
        error = None if task.cancelled() else task.exception()
        if error is not None:  # one line; the traceback with --debug
            log.error("%s failed: %s: %s", task.get_name(), type(error).__name__, error)
            log.debug("%s failed", task.get_name(), exc_info=error)
