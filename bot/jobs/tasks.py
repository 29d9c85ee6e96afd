"""The scheduled jobs: re-ingest configured sources, expire old memory (and ask experts to
confirm verified answers older than KNOWBOT_VERIFIED_MAX_AGE_DAYS), post the digest.
Blocking work (embedding, SQL) runs in a worker thread so the event loop that serves the
chat platforms is never held up by a job."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from apscheduler.triggers.cron import CronTrigger

from bot.backends import build_graph_access, confluence_auth
from bot.errors import KnowbotError
from bot.jobs.digest import DIGEST_JOB, GapsOf, build_digest, link_to
from bot.jobs.posters import DigestPoster, build_posters
from bot.jobs.runner import JobBody, JobFailed, JobSpec
from bot.settings import Settings
from bot.verified.gaps import ExpertsGaps, weekly_gaps
from bot.wiring import Services
from knowledge.errors import SourceError
from knowledge.ingest.options import IngestOptions
from knowledge.ingest.reports import IngestSummary
from knowledge.ingest.sources_file import ingest_sources, read_sources

REINGEST_JOB = "reingest"
EXPIRE_JOB = "expire"
EVENT_CLAIMS_KEPT = timedelta(days=7)  # platforms redeliver within minutes; a week is ample
JOB_RUNS_KEPT = timedelta(days=180)


def configured_jobs(services: Services) -> list[JobSpec]:
    """Memory expiry always; re-ingest when sources are configured; the digest when it has
    somewhere to go. Every schedule is checked, used or not, so a typo shows at start."""
    s = services.settings
    expire_at = cron(s, "KNOWBOT_EXPIRE_CRON", s.expire_cron)
    reingest_at = cron(s, "KNOWBOT_REINGEST_CRON", s.reingest_cron)
    digest_at = cron(s, "KNOWBOT_DIGEST_CRON", s.digest_cron)
    jobs = [JobSpec(EXPIRE_JOB, expire_at, expire(services))]
    if s.reingest_paths or s.reingest_sources:
        body = reingest(services, s.reingest_paths, s.reingest_sources)
        jobs.append(JobSpec(REINGEST_JOB, reingest_at, body))
    posters = build_posters(s)
    if posters:
        jobs.append(JobSpec(DIGEST_JOB, digest_at, digest(services, posters)))
    return jobs


def cron(settings: Settings, variable: str, expression: str) -> CronTrigger:
    try:
        return CronTrigger.from_crontab(expression, timezone=settings.schedule_timezone)
    except (ValueError, LookupError) as exc:
        raise KnowbotError(
            f"{variable}={expression!r} is not a usable schedule ({exc}). Use five cron fields, "
            f"minute hour day month day-of-week, e.g. '0 9 * * mon', and an IANA time zone in "
            f"KNOWBOT_SCHEDULE_TZ (now {settings.schedule_timezone!r})."
        ) from exc


def reingest(services: Services, paths: Sequence[Path], sources: Path | None = None) -> JobBody:
    async def run() -> str:
        summary = await asyncio.to_thread(_reingest, services, paths, sources)
        counts = ", ".join(
            f"{summary.count(s)} {s}" for s in ("new", "changed", "unchanged", "removed")
        )
        detail = f"{len(summary.reports)} sources ({counts}); {summary.embedded} chunks embedded"
        if summary.failed:
            failures = "; ".join(f"{r.uri}: {r.error}" for r in summary.failed)
            raise JobFailed(f"{len(summary.failed)} source(s) failed: {failures}. {detail}")
        return detail

    return run


def _reingest(services: Services, paths: Sequence[Path], sources: Path | None) -> IngestSummary:
    """The paths, then the sources file (read at each run, so edits apply next time)."""
    ingestor = services.knowledge.ingestor
    summary = ingestor.ingest_paths(list(paths), IngestOptions()) if paths else IngestSummary()
    if sources is not None:
        try:
            entries = read_sources(sources, IngestOptions())
        except SourceError as exc:
            raise JobFailed(f"KNOWBOT_SOURCES: {exc}") from exc
        auth = confluence_auth(services.settings)
        graph = build_graph_access(services.settings)
        environ = services.settings.source_environment()
        extra = ingest_sources(
            ingestor, services.db.engine, entries, None, auth, graph=graph, environ=environ
        )
        summary.reports += extra.reports
    return summary


def expire(services: Services) -> JobBody:
    async def run() -> str:
        now = datetime.now(UTC)
        max_age = timedelta(days=services.settings.memory_max_age_days)
        threads = await asyncio.to_thread(services.threads.expire, now - max_age)
        claims = await asyncio.to_thread(services.events.expire, now - EVENT_CLAIMS_KEPT)
        runs = await asyncio.to_thread(services.job_runs.prune, now - JOB_RUNS_KEPT)
        verified_age = timedelta(days=services.settings.verified_max_age_days)
        asked = await asyncio.to_thread(services.escalator.ask_again_old, max_age=verified_age)
        days = services.settings.memory_max_age_days
        return (
            f"expired {threads} threads idle over {days:g} days, "
            f"{claims} event claims, {runs} job runs; "
            f"{len(asked)} old verified answers put to their experts again"
        )

    return run


def gaps_of(services: Services) -> GapsOf:
    """The digest's gaps: escalated and declined questions grouped by meaning under the
    index's embedding model."""
    url = services.settings.slack_workspace_url

    def of(since: datetime, until: datetime) -> tuple[ExpertsGaps, ...]:
        return weekly_gaps(
            services.escalator,
            services.rated,
            since=since,
            until=until,
            embed=lambda texts: services.knowledge.embeddings(texts),  # loaded if needed
            link=lambda d: link_to(d, url),
        )

    return of


def digest(services: Services, posters: Sequence[DigestPoster]) -> JobBody:
    async def run() -> str:
        report = await asyncio.to_thread(
            build_digest,
            services.rated,
            services.job_runs,
            until=datetime.now(UTC),
            slack_workspace_url=services.settings.slack_workspace_url,
            gaps=gaps_of(services),
        )
        failed = []
        for poster in posters:  # one unreachable target must not silence the others
            try:
                await poster.post(report)
            except Exception as exc:
                failed.append(f"{poster.target}: {type(exc).__name__}: {exc}")
        targets = ", ".join(p.target for p in posters)
        detail = f"{report.rated_answers} rated answers, {len(report.failures)} job failures"
        if failed:
            raise JobFailed(f"could not post to {'; '.join(failed)} ({detail})")
        return f"posted to {targets}: {detail}"

    return run
