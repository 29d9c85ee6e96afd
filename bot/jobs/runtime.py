"""Starting the scheduler inside `knowbot serve` (to be built: issue 7)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.wiring import Services


async def start_scheduler(services: Services) -> Callable[[], Awaitable[None]]:
    async def stop() -> None:
        return None

    return stop  # no jobs are configured until the scheduler is built
