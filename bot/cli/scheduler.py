"""`knowbot scheduler`: the scheduled jobs without the chat endpoints (for a deployment that
runs them in their own process; `knowbot serve` runs them in-process by default)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from bot.cli.state import state

if TYPE_CHECKING:
    from bot.jobs.runtime import JobScheduler

err = Console(stderr=True)


def scheduler(
    ctx: typer.Context,
    run: str | None = typer.Option(
        None, "--run", help="Run this job once now and exit: expire, reingest or digest."
    ),
) -> None:
    """Run the scheduled jobs: re-ingest sources, expire old memory, post the digest."""
    from bot.jobs.runtime import build_scheduler
    from bot.wiring import open_services

    with open_services(state(ctx).settings) as services:
        jobs = build_scheduler(services)
        if run is not None:
            outcome = asyncio.run(jobs.run_now(run))
            err.print(f"job {run}: {outcome}", highlight=False)
            if outcome != "ok":
                raise typer.Exit(1)
            return
        asyncio.run(_forever(jobs))


async def _forever(jobs: JobScheduler) -> None:
    jobs.start()
    for name, when in jobs.next_runs().items():
        err.print(f"job {name}: next run {when:%Y-%m-%d %H:%M %Z}", highlight=False)
    try:
        await asyncio.Event().wait()
    finally:
        await jobs.stop()
