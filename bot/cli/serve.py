"""`knowbot serve slack|teams|all`: run the bot (and, by default, the scheduler) in-process."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from bot.adapters.teams.credentials import (
    UNAUTHENTICATED_WARNING,
    check_credentials,
    is_authenticated,
)
from bot.cli.state import state
from bot.errors import KnowbotError
from bot.settings import Settings

if TYPE_CHECKING:
    from bot.wiring import Services

app = typer.Typer(help="Run the bot.", no_args_is_help=True)
err = Console(stderr=True)
log = logging.getLogger(__name__)

Stop = Callable[[], Awaitable[None]]

PORT = typer.Option(None, "--port", help="HTTP port (default KNOWBOT_PORT).")
HOST = typer.Option(
    None, "--host", help="Address to listen on (default KNOWBOT_HOST: 127.0.0.1; 0.0.0.0 for all)."
)
SCHEDULER = typer.Option(True, "--scheduler/--no-scheduler", help="Run jobs here.")


@app.command("slack")
def serve_slack(
    ctx: typer.Context,
    socket: bool = typer.Option(False, "--socket", help="Socket Mode (SLACK_APP_TOKEN)."),
    http: bool = typer.Option(False, "--http", help="Events API at POST /slack/events."),
    port: int | None = PORT,
    host: str | None = HOST,
    scheduler: bool = SCHEDULER,
) -> None:
    """Serve Slack over Socket Mode or the HTTP Events API."""
    if socket == http:
        raise KnowbotError("Choose one of --socket or --http.")
    settings = state(ctx).settings
    _require(settings, slack=True, socket=socket)
    where = _where(settings, host, port)
    _run(settings, slack=True, teams=False, socket=socket, where=where, scheduler=scheduler)


@app.command("teams")
def serve_teams(
    ctx: typer.Context,
    port: int | None = PORT,
    host: str | None = HOST,
    scheduler: bool = SCHEDULER,
) -> None:
    """Serve Microsoft Teams (Bot Framework) at POST /api/messages."""
    settings = state(ctx).settings
    check_credentials(settings)
    where = _where(settings, host, port)
    _run(settings, slack=False, teams=True, socket=False, where=where, scheduler=scheduler)


@app.command("all")
def serve_all(
    ctx: typer.Context,
    port: int | None = PORT,
    host: str | None = HOST,
    scheduler: bool = SCHEDULER,
) -> None:
    """Serve every configured platform in one process (Slack via Socket Mode when
    SLACK_APP_TOKEN is set, else over HTTP; Teams when MICROSOFT_APP_ID is set, or for local
    use with the Bot Framework Emulator when nothing else is configured)."""
    settings = state(ctx).settings
    slack = settings.slack_bot_token is not None
    teams = settings.microsoft_app_id is not None or not slack
    socket = slack and settings.slack_app_token is not None
    if slack:
        _require(settings, slack=True, socket=socket)
    if teams:
        check_credentials(settings)
    where = _where(settings, host, port)
    _run(settings, slack=slack, teams=teams, socket=socket, where=where, scheduler=scheduler)


def _announce_teams(settings: Settings) -> None:
    if is_authenticated(settings):
        app_id = settings.microsoft_app_id
        err.print(f"Teams: POST /api/messages, Bot Framework tokens checked for app {app_id}")
    else:
        err.print(f"[bold red]WARNING: {UNAUTHENTICATED_WARNING}[/]", highlight=False)


def _require(settings: Settings, *, slack: bool, socket: bool) -> None:
    if slack and settings.slack_bot_token is None:
        raise KnowbotError("SLACK_BOT_TOKEN is not set: create the Slack app (README) first.")
    if socket and settings.slack_app_token is None:
        raise KnowbotError("Socket Mode needs SLACK_APP_TOKEN (an xapp- token).")
    if slack and not socket and settings.slack_signing_secret is None:
        raise KnowbotError("The HTTP Events API needs SLACK_SIGNING_SECRET to verify requests.")


def _where(settings: Settings, host: str | None, port: int | None) -> tuple[str, int]:
    return host or settings.host, port or settings.port


def _run(
    settings: Settings,
    *,
    slack: bool,
    teams: bool,
    socket: bool,
    where: tuple[str, int],
    scheduler: bool,
) -> None:
    if settings.embed_threads is None:
        # Leave a core to the event loop so acks stay fast while answers are embedded.
        cores = os.cpu_count() or 2
        settings = settings.model_copy(update={"embed_threads": max(1, cores - 1)})
    from bot.wiring import open_services

    with open_services(settings) as services:
        asyncio.run(
            _serve(
                services,
                slack_http=slack and not socket,
                slack_socket=slack and socket,
                teams=teams,
                where=where,
                scheduler=scheduler,
            )
        )


async def _serve(
    services: Services,
    *,
    slack_http: bool,
    slack_socket: bool,
    teams: bool,
    where: tuple[str, int],
    scheduler: bool,
) -> None:
    """Listen at once (/healthz: live), warm up, then report ready (/readyz) and connect
    Socket Mode and the scheduler."""
    from aiohttp import web

    from bot.server import build_web_app
    from bot.warmup import Readiness, warm_up

    stops: list[Stop] = []
    readiness = Readiness()
    web_app = build_web_app(services, slack=slack_http, teams=teams, readiness=readiness)
    runner = web.AppRunner(web_app)
    await runner.setup()
    host, port = where
    await web.TCPSite(runner, host, port).start()
    stops.append(runner.cleanup)
    err.print(f"knowbot listening on {host}:{port} (GET /healthz live, GET /readyz ready)")
    try:
        if teams:
            _announce_teams(services.settings)
        seconds = await asyncio.to_thread(warm_up, services)
        readiness.mark_ready()
        err.print(f"knowbot ready (warmed up in {seconds:.1f} s)")
        if slack_socket:
            from bot.adapters.slack.socket import start_socket_mode

            stops.append(await start_socket_mode(services))
        if scheduler:
            from bot.jobs.runtime import start_scheduler

            stops.append(await start_scheduler(services))
        await _until_stopped()
    finally:
        for stop in reversed(stops):
            await stop()


async def _until_stopped() -> None:
    """Wait for SIGTERM or Ctrl-C, then let the caller shut down in order (the embedded
    database is stopped on the way out instead of being left running)."""
    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopped.set)
    await stopped.wait()
    err.print("knowbot: shutting down")
