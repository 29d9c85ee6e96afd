"""With several bot processes on one database, each job runs once per scheduled time."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

from apscheduler.triggers.cron import CronTrigger
from sqlalchemy.engine import URL

from bot.db.engine import create_engine
from bot.jobs.runner import JobRunner, JobSpec, Outcome, slot_of
from bot.jobs.runtime import JobScheduler
from bot.store.job_runs import JobRunStore


class RecordingRunner(JobRunner):
    """A runner that remembers what happened to every firing it saw."""

    def __init__(self, runs: JobRunStore, name: str) -> None:
        super().__init__(runs, name=name)
        self.outcomes: list[tuple[datetime, Outcome]] = []

    async def run(self, spec: JobSpec, scheduled_for: datetime) -> Outcome:
        outcome = await super().run(spec, scheduled_for)
        self.outcomes.append((scheduled_for, outcome))
        return outcome


async def wait_for(condition: Callable[[], bool], timeout_s: float = 30.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.05)


async def test_two_schedulers_on_one_database_run_each_slot_once(db_url: URL) -> None:
    executions: list[tuple[str, datetime]] = []
    engines = [create_engine(db_url), create_engine(db_url)]  # as two processes would have
    runners = [RecordingRunner(JobRunStore(e), f"process-{i}") for i, e in enumerate(engines)]
    every_second = CronTrigger(second="*", timezone="UTC")

    def job(process: str) -> JobSpec:
        async def body() -> str:
            executions.append((process, slot_of(every_second, datetime.now(UTC))))
            await asyncio.sleep(0.2)  # still running when the other process fires
            return "ticked"

        return JobSpec("tick", every_second, body)

    schedulers = [
        JobScheduler([job(f"process-{i}")], runner, timezone="UTC")
        for i, runner in enumerate(runners)
    ]
    try:
        for scheduler in schedulers:
            scheduler.start()
        await wait_for(lambda: len(executions) >= 4 and all(r.outcomes for r in runners))
    finally:
        for scheduler in schedulers:
            await scheduler.stop()
        await asyncio.sleep(0.3)  # let running bodies finish before the engines go
    fired = Counter(slot for r in runners for slot, _ in r.outcomes)
    taken = sum(1 for r in runners for _, outcome in r.outcomes if outcome == "taken")
    assert taken > 0 and max(fired.values()) == 2  # both processes fired the same slots
    started = Counter(slot for _, slot in executions)
    assert all(count == 1 for count in started.values()), executions  # never twice a slot
    runs = JobRunStore(engines[0]).runs(job="tick")
    assert set(started) <= {r.scheduled_for for r in runs}  # each ran under its own claim
    for engine in engines:
        engine.dispose()


def test_a_slot_is_claimed_by_exactly_one_of_many_concurrent_callers(db_url: URL) -> None:
    engine = create_engine(db_url, pool_size=8)
    store = JobRunStore(engine)
    slot = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    try:
        with ThreadPoolExecutor(8) as pool:
            claims = list(pool.map(lambda i: store.claim("digest", slot, runner=f"p{i}"), range(8)))
    finally:
        engine.dispose()
    assert len([c for c in claims if c is not None]) == 1


def test_every_process_computes_the_same_slot_for_a_firing() -> None:
    weekly = CronTrigger.from_crontab("0 9 * * mon", timezone="UTC")
    monday_nine = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    assert slot_of(weekly, monday_nine) == monday_nine
    assert slot_of(weekly, monday_nine.replace(second=2, microsecond=5000)) == monday_nine
    assert slot_of(weekly, monday_nine.replace(minute=7)) == monday_nine  # a late start
