"""The scheduled jobs themselves: memory expiry, incremental re-ingest, and failures that are
recorded for the digest without ever stopping the bot from answering."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from apscheduler.triggers.cron import CronTrigger
from typer.testing import CliRunner

from bot.cli.main import app
from bot.conversation.types import ThreadRef, Turn
from bot.db.tables import processed_events, threads
from bot.errors import KnowbotError
from bot.jobs.runner import JobRunner, JobSpec
from bot.jobs.runtime import JobScheduler, build_scheduler, start_scheduler
from bot.settings import Settings
from bot.store.job_runs import JobRun
from bot.wiring import Services
from tests.fakes.knowledge_base import bot_settings
from tests.feedback.helpers import ask, open_bot, write_kb


def age_thread(engine: sa.Engine, ref: ThreadRef, days: float) -> None:
    with engine.begin() as conn:
        conn.execute(
            sa.update(threads)
            .where(threads.c.thread_key == ref.thread)
            .values(updated_at=sa.func.now() - timedelta(days=days))
        )


async def wait_for(condition: Callable[[], bool], timeout_s: float = 30.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not condition():
            await asyncio.sleep(0.05)


async def test_memory_older_than_the_configured_age_is_forgotten(
    settings: Settings, tmp_path: Path
) -> None:
    config = bot_settings(settings, KNOWBOT_MEMORY_MAX_AGE_DAYS="14")
    with open_bot(config, write_kb(tmp_path / "kb")) as services:
        stale = ask(services, "What is the PED waiting period?")
        fresh = ask(services, "What is the room rent limit for Plan A?")
        age_thread(services.db.engine, stale.thread, days=15)
        age_thread(services.db.engine, fresh.thread, days=13)
        with services.db.engine.begin() as conn:
            conn.execute(
                sa.update(processed_events).values(claimed_at=sa.func.now() - timedelta(days=8))
            )
        assert await build_scheduler(services).run_now("expire") == "ok"
        assert services.threads.history(stale.thread) == []
        assert len(services.threads.history(fresh.thread)) == 2
        assert services.answers.get(stale.id) is not None  # ratings and exports keep working
        with services.db.engine.connect() as conn:
            assert (
                conn.execute(sa.select(sa.func.count()).select_from(processed_events)).scalar() == 0
            )
        [run] = services.job_runs.runs(job="expire")
        assert run.status == "ok" and "expired 1 threads" in run.detail


async def test_reingest_embeds_only_what_changed(settings: Settings, tmp_path: Path) -> None:
    kb = write_kb(tmp_path / "kb")
    config = bot_settings(settings, KNOWBOT_REINGEST_PATHS=str(kb))
    with open_bot(config) as services:
        scheduler = build_scheduler(services)
        assert await scheduler.run_now("reingest") == "ok"
        policy = kb / "policy.txt"
        policy.write_text(policy.read_text().replace("36 months", "24 months"))
        assert await scheduler.run_now("reingest") == "ok"
        first, second = services.job_runs.runs(job="reingest")
        assert "3 new" in first.detail
        assert "1 changed, 2 unchanged" in second.detail
        answer = ask(services, "What is the PED waiting period?")
        assert any("24 months" in b.text for b in answer.bullets)


def finished(services: Services) -> list[JobRun]:
    return [r for r in services.job_runs.runs(job="reingest") if r.status != "running"]


async def test_a_failing_job_is_recorded_and_the_bot_keeps_answering(
    settings: Settings, tmp_path: Path
) -> None:
    with open_bot(bot_settings(settings), write_kb(tmp_path / "kb")) as services:

        async def broken() -> str:
            raise RuntimeError("the share with the rulebooks is not mounted")

        every_second = CronTrigger(second="*", timezone="UTC")
        scheduler = JobScheduler(
            [JobSpec("reingest", every_second, broken)],
            JobRunner(services.job_runs),
            timezone="UTC",
        )
        scheduler.start()
        try:
            await wait_for(lambda: len(finished(services)) >= 1)
            turn = Turn(ThreadRef("slack", "T1", "C1", "1.1"), "ev-1", "U1", "What is PED?")
            answer = await services.pipeline.answer(turn)
            assert answer is not None and answer.bullets
            await wait_for(lambda: len(finished(services)) >= 2)  # and it keeps firing
        finally:
            await scheduler.stop()  # may interrupt a later run: only finished ones count
        failed = finished(services)
        assert {r.status for r in failed} == {"failed"}
        assert "RuntimeError: the share with the rulebooks is not mounted" in failed[0].detail


async def test_a_source_that_fails_to_ingest_fails_the_run_and_says_which(
    settings: Settings, tmp_path: Path
) -> None:
    kb = write_kb(tmp_path / "kb")
    (kb / "knowbot-sources.toml").write_text("[[source]\nbroken")
    config = bot_settings(settings, KNOWBOT_REINGEST_PATHS=str(kb))
    with open_bot(config) as services:
        assert await build_scheduler(services).run_now("reingest") == "failed"
        [run] = services.job_runs.runs(job="reingest")
        assert "knowbot-sources.toml" in run.detail and "TOML" in run.detail


def test_which_jobs_run_follows_the_settings(settings: Settings, tmp_path: Path) -> None:
    def jobs(**extra: str) -> set[str]:
        with open_bot(bot_settings(settings, **extra)) as services:
            return set(build_scheduler(services).jobs)

    assert jobs() == {"expire"}
    assert jobs(KNOWBOT_REINGEST_PATHS=str(tmp_path)) == {"expire", "reingest"}
    assert jobs(KNOWBOT_DIGEST_SLACK_CHANNEL="C9", SLACK_BOT_TOKEN="xoxb-1") == {
        "expire",
        "digest",
    }


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"KNOWBOT_DIGEST_CRON": "every monday"}, "KNOWBOT_DIGEST_CRON='every monday'"),
        ({"KNOWBOT_SCHEDULE_TZ": "Mars/Olympus"}, "KNOWBOT_SCHEDULE_TZ"),
        ({"KNOWBOT_DIGEST_SLACK_CHANNEL": "C9"}, "SLACK_BOT_TOKEN"),
        ({"KNOWBOT_DIGEST_TEAMS_CONVERSATION": "19:x"}, "KNOWBOT_DIGEST_TEAMS_SERVICE_URL"),
    ],
)
def test_a_misconfigured_schedule_is_refused_with_what_to_fix(
    settings: Settings, extra: dict[str, str], message: str
) -> None:
    with open_bot(bot_settings(settings, **extra)) as services, pytest.raises(KnowbotError) as err:
        build_scheduler(services)
    assert message in str(err.value)


async def test_serve_starts_the_scheduler_and_stops_it(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bot.jobs.runtime")
    with open_bot(bot_settings(settings, KNOWBOT_EXPIRE_CRON="15 4 * * *")) as services:
        stop = await start_scheduler(services)
        await stop()
    [line] = [r.getMessage() for r in caplog.records if "next run" in r.getMessage()]
    assert line.startswith("job expire: next run") and "04:15:00+00:00" in line


def test_knowbot_scheduler_runs_one_job_on_request(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert settings.database_url
    monkeypatch.setenv("DATABASE_URL", settings.database_url)
    monkeypatch.setenv("KNOWBOT_DATA_DIR", str(settings.data_dir))
    result = CliRunner().invoke(app, ["scheduler", "--run", "expire"])
    assert result.exit_code == 0, result.output
    assert "job expire: ok" in result.output
    unknown = CliRunner().invoke(app, ["scheduler", "--run", "digest"])
    assert unknown.exit_code != 0 and "configured: expire" in str(unknown.exception)
