"""Sending to the Bot Framework connector (the `serviceUrl` of the activity).

A reply is retried with backoff when a retry can help — HTTP 429 (honouring Retry-After),
5xx, or the connector not answering — and given up at once on other 4xx (the bot was
removed, the conversation is gone). Retries stop at the answer's deadline; each attempt's
timeout is what is left of it (within bounds). Either way nothing is raised: the answer is
already stored, and the failure is logged with the activity id so it can be traced."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from msrest.exceptions import ClientRequestError, HttpOperationError

from bot.adapters.teams.connector import call_timeout
from bot.adapters.teams.options import TeamsOptions
from bot.adapters.teams.render import typing_activity
from knowledge.models.deadline import Deadline

log = logging.getLogger(__name__)


async def send(
    context: Any, activity: Any, *, options: TeamsOptions, what: str, deadline: Deadline
) -> str | None:
    """Send `activity` as a reply; return the new message's id ("" if the connector gave
    none), or None when it could not be delivered."""
    incoming = context.activity.id
    delays = options.retry_delays_s
    for attempt in range(len(delays) + 1):
        timeout = min(options.connector_timeout_s, max(options.min_attempt_s, deadline.remaining()))
        try:
            with call_timeout(timeout):
                response = await context.send_activity(activity)
            return str(response.id or "") if response is not None else ""
        except HttpOperationError as exc:
            status = exc.response.status_code if exc.response is not None else None
            reason = f"HTTP {status}"
            retryable = status is None or status == 429 or status >= 500
            wait = _retry_after(exc.response, options.retry_after_cap_s)
        except ClientRequestError as exc:
            reason, retryable, wait = f"unreachable ({exc})", True, 0.0
        except Exception as exc:  # one line; the traceback with --debug
            log.error(
                "teams: could not send the %s for activity %s: %s: %s",
                what,
                incoming,
                type(exc).__name__,
                exc,
            )
            log.debug("teams: the failure in full", exc_info=exc)
            return None
        if not retryable or attempt == len(delays):
            log.error(
                "teams: giving up on the %s for activity %s after %d attempt(s): %s",
                what,
                incoming,
                attempt + 1,
                reason,
            )
            return None
        wait = max(wait, delays[attempt])
        if deadline.remaining() < wait + options.min_attempt_s:
            log.error(
                "teams: giving up on the %s for activity %s after %d attempt(s) (%s): "
                "the answer's deadline leaves no time for another",
                what,
                incoming,
                attempt + 1,
                reason,
            )
            return None
        log.warning(
            "teams: %s for activity %s failed (%s); retrying in %.1fs", what, incoming, reason, wait
        )
        await asyncio.sleep(wait)
    return None  # unreachable: the loop returns on its last attempt


@contextlib.asynccontextmanager
async def typing(
    context: Any, *, options: TeamsOptions, until: asyncio.Event | None = None
) -> AsyncIterator[None]:
    """Show "typing…" until the block ends, or `until` is set (a streamed answer shows
    itself); a failed indicator is not worth a retry."""
    stop = asyncio.Event()
    task = asyncio.create_task(_keep_typing(context, stop, options.typing_interval_s, until))
    try:
        yield
    finally:
        stop.set()
        # let an indicator already on its way land before the answer, not after it
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(task, timeout=2.0)


async def _keep_typing(
    context: Any, stop: asyncio.Event, interval: float, until: asyncio.Event | None
) -> None:
    while not stop.is_set() and not (until and until.is_set()):
        try:
            with call_timeout(max(interval, 2.0)):
                await context.send_activity(typing_activity())
        except Exception as exc:
            log.debug("teams: typing indicator for %s failed: %s", context.activity.id, exc)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=interval)


def _retry_after(response: Any, cap: float) -> float:
    header = response.headers.get("Retry-After") if response is not None else None
    try:
        return min(float(header), cap) if header else 0.0
    except ValueError:
        return 0.0
