"""The scheduler: APScheduler's asyncio scheduler running the configured jobs, in
`knowbot serve` (by default) or alone in `knowbot scheduler`."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from bot.errors import KnowbotError
from bot.jobs.runner import GRACE, JobRunner, JobSpec
from bot.jobs.tasks import configured_jobs
from bot.wiring import Services

log = logging.getLogger(__name__)

Stop = Callable[[], Awaitable[None]]


class JobScheduler:
    """Each job fires on its trigger in every process; the runner's claim lets one of them
    run each slot. Missed slots (the process was down) run once, late, within GRACE."""

    def __init__(self, specs: Sequence[JobSpec], runner: JobRunner, *, timezone: str) -> None:
        self._specs = {s.name: s for s in specs}
        self._runner = runner
        self._timezone = timezone
        self._scheduler: AsyncIOScheduler | None = None

    @property
    def jobs(self) -> list[str]:
        return list(self._specs)

    def start(self) -> None:
        """Start on the running event loop."""
        scheduler = AsyncIOScheduler(timezone=self._timezone, event_loop=asyncio.get_running_loop())
        for spec in self._specs.values():
            scheduler.add_job(
                self._runner.fire,
                trigger=spec.trigger,
                args=[spec],
                id=spec.name,
                name=spec.name,
                coalesce=True,
                max_instances=1,
                misfire_grace_time=int(GRACE.total_seconds()),
            )
        scheduler.start()
        self._scheduler = scheduler

    async def stop(self) -> None:
        if self._scheduler is not None and self._scheduler.running:
            self._scheduler.shutdown(wait=False)

    def next_runs(self) -> dict[str, datetime | None]:
        if self._scheduler is None:
            return {}
        return {job.id: job.next_run_time for job in self._scheduler.get_jobs()}

    async def run_now(self, name: str) -> str:
        """Run one job immediately (its slot is now, so it never collides with a schedule)."""
        spec = self._specs.get(name)
        if spec is None:
            raise KnowbotError(
                f"No job named {name!r} is configured; configured: {', '.join(self._specs)}."
            )
        return await self._runner.run(spec, datetime.now().astimezone())


def build_scheduler(services: Services) -> JobScheduler:
    return JobScheduler(
        configured_jobs(services),
        JobRunner(services.job_runs),
        timezone=services.settings.schedule_timezone,
    )


async def start_scheduler(services: Services) -> Stop:
    """Called by `knowbot serve`: start the jobs; the returned coroutine stops them."""
    scheduler = build_scheduler(services)
    scheduler.start()
    for name, when in scheduler.next_runs().items():
        log.info("job %s: next run %s", name, when)
    return scheduler.stop
