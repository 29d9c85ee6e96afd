"""Slack Socket Mode (to be built: issue 5)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.wiring import Services


async def start_socket_mode(services: Services) -> Callable[[], Awaitable[None]]:
    raise NotImplementedError("Slack Socket Mode is not built yet.")
