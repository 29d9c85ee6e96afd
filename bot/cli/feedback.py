"""`knowbot feedback export|report|versions`: the ratings as a dataset, as a page of charts,
and as the standings of the prompt versions that compete on them."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import typer
from rich.console import Console
from rich.table import Table

from bot.cli.state import state
from bot.errors import KnowbotError

if TYPE_CHECKING:
    from bot.feedback.export import RatingFilter
    from bot.store.rated import RatedAnswer

    Writer = Callable[[Iterable[RatedAnswer], TextIO], int]

app = typer.Typer(help="Export and report the ratings staff gave answers.", no_args_is_help=True)
err = Console(stderr=True)
out = Console()

FORMATS = ("jsonl", "csv", "qa")
RATINGS = ("negative", "positive", "all")


@app.command("export")
def export(
    ctx: typer.Context,
    fmt: str = typer.Option(
        "jsonl", "--format", help="jsonl | csv | qa (cases for `knowbot eval qa`)."
    ),
    since: str | None = typer.Option(
        None, "--since", help="Only answers rated (or re-rated) on or after this date."
    ),
    rating: str = typer.Option(
        "all", "--rating", help="negative (anyone down-voted) | positive (nobody did) | all."
    ),
    out: Path | None = typer.Option(None, "--out", help="Write here instead of stdout."),
) -> None:
    """One record per rated answer: questions, prompt, context as sent, answer, checks,
    confidence, ratings and reasons — the dataset for improving prompts."""
    if fmt not in FORMATS:
        raise KnowbotError(f"--format must be jsonl, csv or qa, not {fmt!r}.")
    chosen = rating_filter(rating)
    start = parse_since(since)
    from bot.feedback.export import select
    from bot.wiring import open_services

    with open_services(state(ctx).settings) as services:
        items = select(services.rated.rated(since=start), chosen)
    with _output(out) as stream:
        count = _writers()[fmt](items, stream)
    err.print(f"Exported {count} rated answers ({rating}).", style="dim", highlight=False)


@app.command("report")
def report(
    ctx: typer.Context,
    out: Path = typer.Option(Path("feedback-report"), "--out", help="Folder for the page."),
) -> None:
    """A static HTML page of charts: ratings over time, by confidence, intent and prompt
    version, the most down-voted questions and the sources they cite."""
    from bot.feedback.report import write_report
    from bot.wiring import open_services

    with open_services(state(ctx).settings) as services:
        items = services.rated.rated()
    page = write_report(items, out)
    err.print(f"Wrote {page} ({len(items)} rated answers).", highlight=False)


@app.command("versions")
def versions(ctx: typer.Context) -> None:
    """Which prompt version (and facts format) each intent is served, and why: the ratings
    each has earned, and which ones were retired for clearly worse ratings."""
    from bot.conversation.generate import prompt_name
    from bot.conversation.types import Intent
    from bot.feedback.bandit import FACTS
    from bot.feedback.choosing import build_bandit
    from bot.wiring import open_services

    settings = state(ctx).settings
    table = Table(title="Live versions by intent")
    for column in ("intent", "choice", "version", "up", "down", "mean", "status"):
        table.add_column(column)
    with open_services(settings) as services:
        bandit = build_bandit(settings, services.db.engine)
        for intent in Intent:
            for name in (prompt_name(intent), FACTS):
                for s in bandit.standings(name, intent.value):
                    status = "retired" if s.retired else "leader" if s.leader else "challenger"
                    table.add_row(
                        intent.value,
                        name,
                        s.arm,
                        str(s.tally.up),
                        str(s.tally.down),
                        f"{s.mean:.2f}",
                        status,
                    )
    out.print(table)
    if not settings.bandit_enabled:
        out.print("KNOWBOT_BANDIT is off: the first version listed serves every answer.")


def parse_since(text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError as exc:
        raise KnowbotError(
            f"--since {text!r} is not a date; use YYYY-MM-DD or an ISO time such as "
            "2026-01-31T09:00."
        ) from exc
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _writers() -> dict[str, Writer]:
    """The writer of each --format (imported only when an export runs)."""
    from bot.feedback.export import write_csv, write_jsonl, write_qa

    return {"jsonl": write_jsonl, "csv": write_csv, "qa": write_qa}


@contextmanager
def _output(path: Path | None) -> Iterator[TextIO]:
    if path is None:
        yield sys.stdout
        return
    with path.open("w", encoding="utf-8", newline="") as stream:
        yield stream


def rating_filter(value: str) -> RatingFilter:
    if value not in RATINGS:
        raise KnowbotError(f"--rating must be negative, positive or all, not {value!r}.")
    return "negative" if value == "negative" else "positive" if value == "positive" else "all"
