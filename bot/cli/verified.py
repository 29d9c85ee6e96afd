"""`knowbot verified ...`: answers a person vouches for, served before the bot's own when a
new question means the same (import, list, export, retire)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.table import Table

from bot.cli.state import state
from bot.errors import KnowbotError

if TYPE_CHECKING:
    from bot.conversation.verified import VerifiedAnswer

app = typer.Typer(
    help="Verified answers: a person's answer, served first when a question means the same.",
    no_args_is_help=True,
)
out = Console()


@app.command("import")
def import_file(
    ctx: typer.Context,
    file: Path = typer.Argument(
        ..., help='JSON lines: {"question", "answer", "author", optional "scope", "sources"}.'
    ),
) -> None:
    """Import verified answers; a file with any bad line imports nothing and names the lines."""
    from bot.verified.entries import read_entries
    from bot.verified.importing import import_entries
    from bot.wiring import open_services

    entries = read_entries(file)
    with open_services(state(ctx).settings) as services:
        kb = services.knowledge
        ids = import_entries(
            services.verified,
            entries,
            embed=kb.embeddings,
            model=kb.embedding_model,
            locate=kb.chunk_sources,
        )
    scopes = sorted({e.scope for e in entries})
    out.print(
        f"Imported {len(ids)} verified answer(s) (ids {ids[0]}-{ids[-1]}) into scope(s) "
        f"{', '.join(scopes)}.",
        highlight=False,
    )


@app.command("list")
def list_verified(
    ctx: typer.Context,
    suspended: bool = typer.Option(
        False, "--suspended", help="Show the suspended ones (not served until confirmed)."
    ),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per line."),
) -> None:
    """Show the active verified answers (or the suspended ones)."""
    from bot.wiring import open_services

    status = "suspended" if suspended else "active"
    with open_services(state(ctx).settings) as services:
        rows = services.verified.with_status(status)
        rated = services.verified.ratings([r.id for r in rows])
    if as_json:
        for row in rows:
            up, down = rated.get(row.id, (0, 0))
            print(json.dumps({**_json(row), "up": up, "down": down}, ensure_ascii=False))
        return
    if not rows:
        out.print(f"No {status} verified answers.", highlight=False)
        return
    table = Table(title=f"{status.capitalize()} verified answers")
    for column in ("id", "scope", "question", "author", "verified", "sources", "why"):
        table.add_column(column)
    for r in rows:
        table.add_row(
            str(r.id),
            r.scope,
            r.question,
            r.author,
            f"{r.verified_at:%Y-%m-%d}",
            str(len(r.sources)),
            r.status_reason,
        )
    out.print(table)


@app.command("export")
def export(ctx: typer.Context) -> None:
    """Print every verified answer that is not retired as JSON lines (the import format,
    plus id, status and verified_at)."""
    from bot.wiring import open_services

    with open_services(state(ctx).settings) as services:
        rows = services.verified.with_status("active", "suspended")
    for row in rows:
        print(json.dumps(_json(row), ensure_ascii=False))


@app.command("retire")
def retire(
    ctx: typer.Context, verified_id: int = typer.Argument(..., help="The id `list` shows.")
) -> None:
    """Never serve this verified answer again (it stays on record)."""
    found = _set_status(ctx, verified_id, "retired", "retired by command", "list")
    out.print(f"Retired verified answer {verified_id}: {found.question}", highlight=False)


@app.command("restore")
def restore(
    ctx: typer.Context, verified_id: int = typer.Argument(..., help="The id `list` shows.")
) -> None:
    """Serve a suspended (or retired) verified answer again: someone confirmed it still holds."""
    found = _set_status(ctx, verified_id, "active", "", "list --suspended")
    out.print(f"Verified answer {verified_id} is served again: {found.question}", highlight=False)


def _set_status(
    ctx: typer.Context, verified_id: int, status: str, reason: str, listing: str
) -> VerifiedAnswer:
    """Give one verified answer `status`; an unknown id says which `list` shows the ids."""
    from bot.wiring import open_services

    with open_services(state(ctx).settings) as services:
        found = services.verified.get(verified_id)
        if found is None:
            raise KnowbotError(
                f"There is no verified answer {verified_id}; `knowbot verified {listing}` "
                "shows them."
            )
        services.verified.set_status(verified_id, status, reason=reason)
    return found


def _json(row: VerifiedAnswer) -> dict[str, object]:
    return {
        "id": row.id,
        "question": row.question,
        "answer": row.answer,
        "author": row.author,
        "scope": row.scope,
        "sources": [s.as_json() for s in row.sources],
        "status": row.status,
        "status_reason": row.status_reason,
        "verified_at": row.verified_at.isoformat(),
    }
