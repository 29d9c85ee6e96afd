"""`knowbot ingest`: index rulebooks, rows, glossaries, FAQ pairs and triples."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from bot.cli.state import state
from bot.errors import KnowbotError
from knowledge.errors import SourceError
from knowledge.ingest.kinds import SourceKind

if TYPE_CHECKING:
    from bot.wiring import Services
    from knowledge.ingest.options import IngestOptions
    from knowledge.ingest.reports import IngestSummary
    from knowledge.ingest.sources_file import SourceEntry

out = Console()
err = Console(stderr=True)


def ingest(
    ctx: typer.Context,
    paths: list[Path] = typer.Argument(None, help="Files or folders to ingest."),
    kind: SourceKind = typer.Option(SourceKind.AUTO, "--kind", help="What the sources are."),
    key: list[str] = typer.Option([], "--key", help="Key column(s) naming each row."),
    time_col: str | None = typer.Option(None, "--time", help="Time column (rows)."),
    group: str | None = typer.Option(None, "--group", help="Group column (rows)."),
    metric: list[str] = typer.Option([], "--metric", help="Numeric metric column(s) (rows)."),
    scope: str = typer.Option("default", "--scope", help="Knowledge scope to put chunks in."),
    name: str | None = typer.Option(None, "--name", help="Table name for rows."),
    url: str | None = typer.Option(
        None,
        "--url",
        help="Link template for citations, e.g. 'https://intranet/kb/{path}#page={page}' "
        "(files: {path} {page} {section}; rows: {table} {key}).",
    ),
    sql: str | None = typer.Option(None, "--sql", help="Table name or SELECT to read rows from."),
    db: str | None = typer.Option(None, "--db", help="SQLAlchemy URL of the database for --sql."),
    sources: Path | None = typer.Option(
        None,
        "--sources",
        help="A sources file of [[source]] entries: paths, web sites (sitemap or start URL) "
        "and SharePoint libraries or OneDrives.",
    ),
    reindex_all: bool = typer.Option(
        False, "--reindex", help="Re-embed every stored chunk with the configured model."
    ),
) -> None:
    """Ingest knowledge sources (incremental: unchanged sources cost nothing)."""
    from knowledge.ingest.options import IngestOptions
    from knowledge.ingest.source_links import BadTemplate

    try:
        options = IngestOptions(
            kind=kind,
            scope=scope,
            keys=tuple(key),
            time=time_col,
            group=group,
            metrics=tuple(metric),
            name=name,
            url=url,
        )
    except BadTemplate as exc:
        raise KnowbotError(f"--url: {exc}.") from exc
    if not paths and not sql and not reindex_all and not sources:
        raise KnowbotError(
            "Nothing to ingest: give PATH..., --sources FILE, or --sql QUERY --db URL."
        )
    entries = _read_sources(sources, options) if sources else []
    if sql and not db:
        raise KnowbotError("--sql needs --db URL (the database to read the rows from).")
    from bot.backends import build_graph_access, confluence_auth
    from bot.wiring import open_services
    from knowledge.ingest.index import reindex
    from knowledge.ingest.reports import IngestSummary
    from knowledge.ingest.sources_file import ingest_sources

    with open_services(state(ctx).settings) as services, _progress() as progress:
        task = progress.add_task("starting", total=None)

        def report(description: str, done: int, total: int) -> None:
            progress.update(
                task, description=f"embedding {description}", completed=done, total=total
            )

        if reindex_all:
            from bot.backends import build_embedder

            count = reindex(services.db.engine, build_embedder(services.settings), report)
            out.print(f"Re-embedded {count} chunks with {services.settings.embed_model}.")
            if not paths and not sql and not sources:
                return
        ingestor = services.knowledge.ingestor
        summary = IngestSummary()
        if paths:
            summary = ingestor.ingest_paths(paths, options, report)
        if sql and db:
            extra = ingestor.ingest_sql(db, sql, options, report)
            summary.reports += extra.reports
            summary.seconds += extra.seconds
        if entries:
            extra = ingest_sources(
                ingestor,
                services.db.engine,
                entries,
                report,
                confluence_auth(services.settings),
                graph=build_graph_access(services.settings),
                environ=services.settings.source_environment(),
            )
            summary.reports += extra.reports
            summary.seconds += extra.seconds
        progress.stop()
        _post_requests(services)
    print_summary(summary)
    if summary.failed:
        raise typer.Exit(1)


def _post_requests(services: Services) -> None:
    """Verified answers this ingest suspended: their experts are asked at once when this
    process has the chat credentials (else a running `knowbot serve` posts the requests)."""
    settings = services.settings
    if settings.slack_bot_token is not None:
        from bot.adapters.slack.escalating import post_pending_requests as slack

        _post(slack, services, "Slack")
    if settings.microsoft_app_id is not None:
        from bot.adapters.teams.escalating import post_pending_requests as teams

        _post(teams, services, "Teams")


def _post(
    post: Callable[[Services], Coroutine[Any, Any, int]], services: Services, where: str
) -> None:
    try:
        posted = asyncio.run(post(services))
    except Exception as exc:  # the ingest is done; a running bot will post them
        err.print(f"[yellow]warning:[/] could not post requests to confirm in {where}: {exc}")
        return
    if posted:
        out.print(f"Asked the experts to confirm {posted} verified answer(s) in {where}.")


def _read_sources(file: Path, options: IngestOptions) -> list[SourceEntry]:
    from knowledge.ingest.sources_file import read_sources

    try:
        return read_sources(file, options)
    except SourceError as exc:
        raise KnowbotError(f"--sources: {exc}") from exc


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=out,
        transient=True,
    )


def print_summary(summary: IngestSummary) -> None:
    counts = ", ".join(
        f"{summary.count(s)} {s}" for s in ("new", "changed", "unchanged", "removed", "failed")
    )
    out.print(
        f"[bold]Ingested {len(summary.reports)} sources[/]: {counts}. "
        f"{summary.chunks} chunks ({summary.embedded} embedded) in {summary.seconds:.1f} s.",
        highlight=False,
    )
    for r in summary.reports:
        if r.status == "removed":
            out.print(f"[yellow]removed[/] {r.uri} ({r.removed} chunks): the source is gone")
        elif r.status == "failed":
            out.print(f"[red]failed[/] {r.uri}: {r.error}", soft_wrap=True, highlight=False)
        if r.instruction_like:
            out.print(
                f"[yellow]flagged[/] {r.uri}: {r.instruction_like} chunk(s) read like "
                "instructions to an AI assistant; they are never quoted as an answer",
                soft_wrap=True,
                highlight=False,
            )
