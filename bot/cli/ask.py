"""`knowbot ask` (one question) and `knowbot chat` (a conversation in the terminal)."""

from __future__ import annotations

import json
import uuid

import typer
from rich.console import Console

from bot.cli.state import state

out = Console()


def ask(
    ctx: typer.Context,
    question: str = typer.Argument(..., help="The question to answer."),
    thread: str | None = typer.Option(None, "--thread", help="Continue this thread id."),
    scope: list[str] = typer.Option(["default"], "--scope", help="Knowledge scope(s) to use."),
    as_json: bool = typer.Option(False, "--json", help="Print the answer as JSON."),
    as_person: str | None = typer.Option(
        None,
        "--as",
        metavar="EMAIL",
        help="Answer as this person would be answered in a direct message: only what they "
        "may read (their groups from Microsoft Graph when it is configured).",
    ),
) -> None:
    """Answer one question from the knowledge base, with sources and a confidence."""
    if as_person is not None and not as_person.strip():
        raise typer.BadParameter(
            "give the person's e-mail address (or Entra object id)", param_hint="--as"
        )
    from bot.adapters.console import answer_json, console_turn, print_answer
    from bot.wiring import open_services

    with open_services(state(ctx).settings) as services:
        asker = services.readers.reader_for([as_person.strip()]) if as_person else None
        turn = console_turn(
            question, thread=thread or str(uuid.uuid4()), scopes=tuple(scope), asker=asker
        )
        answer = services.pipeline.answer_now(turn)
    assert answer is not None  # console events are never redelivered
    if as_json:
        print(json.dumps(answer_json(answer), ensure_ascii=False, indent=2))
    else:
        print_answer(out, answer)


def chat(
    ctx: typer.Context,
    scope: list[str] = typer.Option(["default"], "--scope", help="Knowledge scope(s) to use."),
) -> None:
    """A conversation in the terminal (one thread; follow-ups work). Ctrl-D to leave."""
    from bot.adapters.console import console_turn, print_answer
    from bot.wiring import open_services

    thread = f"chat-{uuid.uuid4()}"
    with open_services(state(ctx).settings) as services:
        out.print("Ask a question (Ctrl-D to quit).", style="dim")
        while True:
            try:
                question = out.input("[bold]you>[/] ")
            except (EOFError, KeyboardInterrupt):
                out.print()
                return
            if not question.strip():
                continue
            answer = services.pipeline.answer_now(
                console_turn(question, thread=thread, scopes=tuple(scope))
            )
            if answer is not None:
                print_answer(out, answer)
