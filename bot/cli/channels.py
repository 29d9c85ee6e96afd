"""`knowbot channels ...`: which knowledge scopes a channel sees, and whether the bot needs a
mention there before it answers follow-ups."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.table import Table

from bot.cli.state import state
from bot.errors import KnowbotError

if TYPE_CHECKING:
    from bot.store.channels import ChannelSettings
    from bot.wiring import Services

app = typer.Typer(
    help="Per-channel settings: knowledge scopes and whether mentions are required.",
    no_args_is_help=True,
)
out = Console()
err = Console(stderr=True)

_SLACK_CHANNEL = re.compile(r"^[CGD][A-Z0-9]{6,}$")
_SCOPE = re.compile(r"^[A-Za-z0-9][\w.-]*$")


@app.command("set")
def set_channel(
    ctx: typer.Context,
    channel: str = typer.Argument(
        ..., help="Channel ID, e.g. C0123ABCD (Slack: channel details → About, at the bottom)."
    ),
    scope: list[str] | None = typer.Option(
        None, "--scope", help="A knowledge scope the channel sees (repeat for several)."
    ),
    require_mention: bool | None = typer.Option(
        None,
        "--require-mention/--no-require-mention",
        help="Answer thread follow-ups only when the bot is mentioned.",
    ),
    escalate_to: str | None = typer.Option(
        None,
        "--escalate-to",
        help="The experts channel its rated-down questions go to (Slack channel id; with "
        "--platform teams a Teams channel or conversation id).",
    ),
    no_escalation: bool = typer.Option(
        False, "--no-escalation", help="Stop escalating this channel's questions."
    ),
    platform: str = typer.Option("slack", "--platform", help="slack or teams."),
) -> None:
    """Map a channel to knowledge scopes (replacing its current ones), set whether it needs
    mentions, and/or where its questions escalate. The channel then never sees chunks from
    any other scope."""
    if not scope and require_mention is None and escalate_to is None and not no_escalation:
        raise KnowbotError(
            "Nothing to set: give --scope NAME (repeatable), --require-mention / "
            "--no-require-mention, --escalate-to EXPERTS_CHANNEL and/or --no-escalation."
        )
    if escalate_to is not None and no_escalation:
        raise KnowbotError("Give --escalate-to or --no-escalation, not both.")
    _check(platform, channel, scope or [])
    if escalate_to is not None:
        _check_experts(platform, escalate_to)
    from bot.wiring import open_services

    with open_services(state(ctx).settings) as services:
        for name in _empty_scopes(services, scope or []):
            err.print(
                f"[yellow]warning:[/] nothing is ingested in scope {name!r} yet "
                f"(knowbot ingest PATH --scope {name})",
                highlight=False,
            )
        saved = services.channels.set(
            platform,
            channel,
            scopes=tuple(dict.fromkeys(scope)) if scope else None,
            require_mention=require_mention,
            escalate_to="" if no_escalation else escalate_to,
        )
    out.print(_describe(saved), highlight=False)


@app.command("list")
def list_channels(ctx: typer.Context) -> None:
    """Show every channel with settings of its own."""
    from bot.store.channels import DEFAULT_SCOPES
    from bot.wiring import open_services

    with open_services(state(ctx).settings) as services:
        rows = services.channels.all()
    if not rows:
        out.print(
            "No channel has settings of its own: every channel sees the "
            f"{', '.join(DEFAULT_SCOPES)!r} scope and answers thread follow-ups without a "
            "mention.",
            highlight=False,
        )
        return
    table = Table(title="Channel settings")
    for column in ("platform", "channel", "scopes", "mention required", "escalates to"):
        table.add_column(column)
    for row in rows:
        table.add_row(
            row.platform,
            row.channel,
            ", ".join(row.scopes),
            "yes" if row.require_mention else "no",
            row.escalate_to or "-",
        )
    out.print(table)


def _check(platform: str, channel: str, scopes: list[str]) -> None:
    if platform not in ("slack", "teams"):
        raise KnowbotError(f"--platform must be slack or teams, not {platform!r}.")
    if platform == "slack" and not _SLACK_CHANNEL.match(channel):
        raise KnowbotError(
            f"{channel!r} is not a Slack channel ID. Use the ID (like C0123ABCD), not the "
            "name: in Slack open the channel's details; the ID is at the bottom of About."
        )
    bad = [s for s in scopes if not _SCOPE.match(s)]
    if bad:
        raise KnowbotError(
            f"Scope name(s) {', '.join(map(repr, bad))} are not valid: use letters, digits, "
            "'_', '-' or '.', as given to knowbot ingest --scope."
        )


def _check_experts(platform: str, experts: str) -> None:
    if platform == "slack" and not _SLACK_CHANNEL.match(experts):
        raise KnowbotError(
            f"--escalate-to {experts!r} is not a Slack channel ID. Use the experts channel's "
            "ID (like C0EXPERTS), and invite the bot there (/invite @knowbot)."
        )
    if platform == "teams" and not experts.strip():
        raise KnowbotError("--escalate-to needs the Teams channel or conversation id.")


def _empty_scopes(services: Services, scopes: list[str]) -> list[str]:
    from knowledge.store.sources import list_sources

    with services.db.engine.connect() as conn:
        return [s for s in dict.fromkeys(scopes) if not list_sources(conn, scope=s)]


def _describe(saved: ChannelSettings) -> str:
    mention = "needs a mention for follow-ups" if saved.require_mention else "answers follow-ups"
    experts = f"escalates to {saved.escalate_to}" if saved.escalate_to else "no experts channel"
    return (
        f"{saved.platform} {saved.channel}: scopes {', '.join(saved.scopes)}; {mention}; {experts}."
    )
