"""Scheduled job runs. A run is claimed by inserting (job, scheduled time); the unique pair
makes the first process to fire a slot the only one to run it, however many bot processes
share the database."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.engine import Engine

from bot.db.tables import job_runs


@dataclass(frozen=True)
class JobRun:
    id: int
    job: str
    scheduled_for: datetime
    status: str  # running | ok | failed
    runner: str
    detail: str
    started_at: datetime
    finished_at: datetime | None


class JobRunStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def claim(self, job: str, scheduled_for: datetime, *, runner: str) -> int | None:
        """The run's id for the first caller for this slot; None for every other."""
        stmt = (
            insert(job_runs)
            .values(job=job, scheduled_for=scheduled_for, runner=runner)
            .on_conflict_do_nothing(constraint="uq_job_runs_slot")
            .returning(job_runs.c.id)
        )
        with self._engine.begin() as conn:
            return conn.execute(stmt).scalar()

    def finish(self, run_id: int, *, ok: bool, detail: str = "") -> None:
        with self._engine.begin() as conn:
            conn.execute(
                sa.update(job_runs)
                .where(job_runs.c.id == run_id)
                .values(
                    status="ok" if ok else "failed",
                    detail=detail[:4000],
                    finished_at=sa.func.now(),
                )
            )

    def runs(self, *, since: datetime | None = None, job: str | None = None) -> list[JobRun]:
        query = sa.select(job_runs).order_by(job_runs.c.started_at, job_runs.c.id)
        if since is not None:
            query = query.where(job_runs.c.started_at >= since)
        if job is not None:
            query = query.where(job_runs.c.job == job)
        with self._engine.connect() as conn:
            return [JobRun(**r._mapping) for r in conn.execute(query)]

    def last_finished(self, job: str, *, status: str = "ok") -> datetime | None:
        query = sa.select(sa.func.max(job_runs.c.started_at)).where(
            job_runs.c.job == job, job_runs.c.status == status
        )
        with self._engine.connect() as conn:
            return conn.execute(query).scalar()

    def prune(self, older_than: datetime) -> int:
        with self._engine.begin() as conn:
            result = conn.execute(sa.delete(job_runs).where(job_runs.c.started_at < older_than))
            return result.rowcount or 0
