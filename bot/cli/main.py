"""The `knowbot` command: one entry point, readable errors, tracebacks only with --debug."""

from __future__ import annotations

import logging
import sys
import traceback
import warnings

import typer
from rich.console import Console

from bot.cli import channels
from bot.cli import db as db_commands
from bot.cli import evaluate as eval_commands
from bot.cli import feedback as feedback_commands
from bot.cli import serve as serve_commands
from bot.cli import verified as verified_commands
from bot.cli.ask import ask, chat
from bot.cli.ingest import ingest
from bot.cli.scheduler import scheduler
from bot.cli.state import CliState
from bot.errors import KnowbotError
from bot.settings import Settings
from knowledge.errors import KnowledgeError

app = typer.Typer(
    name="knowbot",
    help="knowbot: answers staff questions from the company's own knowledge, with sources.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.add_typer(db_commands.app, name="db")
app.command("ingest")(ingest)
app.command("ask")(ask)
app.command("chat")(chat)
app.add_typer(eval_commands.app, name="eval")
app.add_typer(serve_commands.app, name="serve")
app.add_typer(channels.app, name="channels")
app.add_typer(feedback_commands.app, name="feedback")
app.add_typer(verified_commands.app, name="verified")
app.command("scheduler")(scheduler)

err = Console(stderr=True)


@app.callback()
def main(
    ctx: typer.Context,
    debug: bool = typer.Option(False, "--debug", help="Verbose logs and full tracebacks."),
) -> None:
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    ctx.obj = CliState(settings=Settings(), debug=debug)


def run() -> None:
    """Console-script entry point. Typer's own standalone mode handles what the person typed
    wrong (an unknown command or option, a missing argument: the short usage, a hint and
    exit 2) and Ctrl-C; our errors are one readable line, with the traceback under --debug."""
    warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
    debug = "--debug" in sys.argv
    try:
        app(standalone_mode=True)
    except (KnowbotError, KnowledgeError) as exc:
        if debug:
            traceback.print_exc()
        err.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        sys.exit(1)
