"""Running one scheduled job once per slot, whichever process fires it, and never letting a
failure escape: it is logged, recorded for the next digest, and the bot keeps answering."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

from apscheduler.triggers.base import BaseTrigger

from bot.store.job_runs import JobRunStore

log = logging.getLogger(__name__)

JobBody = Callable[[], Awaitable[str]]  # returns a one-line account of what it did
Outcome = Literal["ok", "failed", "taken", "unclaimed"]

# How late a firing may start and still count for its slot (APScheduler's misfire grace).
GRACE = timedelta(minutes=10)


class JobFailed(Exception):
    """The job ran but part of its work failed; the message says which part."""


@dataclass(frozen=True)
class JobSpec:
    name: str
    trigger: BaseTrigger
    body: JobBody


def runner_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def slot_of(trigger: BaseTrigger, now: datetime, lookback: timedelta = GRACE) -> datetime:
    """The scheduled time a firing at `now` belongs to: the trigger's latest fire time at or
    before `now`. Every process computes the same slot, which is what makes the claim work
    (APScheduler 3 does not hand the scheduled time to the job)."""
    slot = None
    fire = trigger.get_next_fire_time(None, now - lookback)
    while fire is not None and fire <= now:
        slot = fire
        fire = trigger.get_next_fire_time(fire, fire + timedelta(microseconds=1))
    return slot or now


class JobRunner:
    def __init__(self, runs: JobRunStore, *, name: str | None = None) -> None:
        self._runs = runs
        self._name = name or runner_id()

    async def fire(self, spec: JobSpec) -> Outcome:
        """What the scheduler calls: run the slot that is due now, if nobody else has."""
        return await self.run(spec, slot_of(spec.trigger, datetime.now(UTC)))

    async def run(self, spec: JobSpec, scheduled_for: datetime) -> Outcome:
        try:
            run_id = await asyncio.to_thread(
                self._runs.claim, spec.name, scheduled_for, runner=self._name
            )
        except Exception:
            log.exception("job %s: cannot claim its %s run; skipped", spec.name, scheduled_for)
            return "unclaimed"
        if run_id is None:
            log.info("job %s at %s: another process runs it", spec.name, scheduled_for)
            return "taken"
        try:
            ok, detail = await _run_body(spec)
        except asyncio.CancelledError:  # the scheduler is shutting down with the process
            self._finish(spec, run_id, ok=False, detail="interrupted: the process stopped")
            raise
        await asyncio.to_thread(self._finish, spec, run_id, ok=ok, detail=detail)
        return "ok" if ok else "failed"

    def _finish(self, spec: JobSpec, run_id: int, *, ok: bool, detail: str) -> None:
        try:
            self._runs.finish(run_id, ok=ok, detail=detail)
        except Exception:
            log.exception("job %s: cannot record how its run ended", spec.name)


async def _run_body(spec: JobSpec) -> tuple[bool, str]:
    try:
        detail = await spec.body()
    except JobFailed as exc:
        log.error("job %s failed: %s", spec.name, exc)
        return False, str(exc)
    except Exception as exc:
        log.exception("job %s failed", spec.name)
        return False, f"{type(exc).__name__}: {exc}"
    log.info("job %s: %s", spec.name, detail)
    return True, detail
