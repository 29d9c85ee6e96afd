"""`knowbot db ...`: apply migrations and show the database's state."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.table import Table

from bot.cli.state import state

if TYPE_CHECKING:
    from bot.wiring import Services

app = typer.Typer(help="Database: apply migrations, show status.", no_args_is_help=True)
out = Console()
UPGRADE_HINT = "(run: knowbot db upgrade)"


@app.command("upgrade")
def upgrade(ctx: typer.Context) -> None:
    """Apply pending schema migrations (safe to run again: does nothing when up to date)."""
    from bot.db import migrate
    from bot.wiring import open_services

    with open_services(state(ctx).settings, apply_migrations=False) as services:
        applied = migrate.upgrade(services.db.engine)
        if applied:
            out.print(f"Applied {len(applied)} migration(s): {', '.join(applied)}")
        else:
            out.print(f"Already up to date (revision {migrate.head_revision()}).")
        out.print(f"Database: {services.db.where}")


@app.command("status")
def status(ctx: typer.Context) -> None:
    """Show where the database is, its versions, schema revision and what it holds."""
    from bot.wiring import open_services

    with open_services(state(ctx).settings, apply_migrations=False) as services:
        out.print(_status_table(services))


def _status_table(services: Services) -> Table:
    import sqlalchemy as sa

    from bot.db import migrate

    engine = services.db.engine
    current = migrate.current_revision(engine)
    pending = migrate.pending_revisions(engine)
    table = Table(title="knowbot database", show_header=False)
    table.add_column("what", style="bold")
    table.add_column("value")
    with engine.connect() as conn:
        version = conn.execute(sa.text("SHOW server_version")).scalar()
        vector = conn.execute(
            sa.text("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        ).scalar()
    table.add_row("server", services.db.where)
    table.add_row("PostgreSQL", str(version))
    table.add_row("pgvector", str(vector) if vector else f"not installed yet {UPGRADE_HINT}")
    table.add_row("schema revision", f"{current or 'empty'} (head {migrate.head_revision()})")
    table.add_row(
        "pending migrations",
        f"{', '.join(p.revision for p in pending)} {UPGRADE_HINT}" if pending else "none",
    )
    if not pending:
        for name, count in _counts(services).items():
            table.add_row(name, str(count))
    return table


def _counts(services: Services) -> dict[str, int]:
    import sqlalchemy as sa

    with services.db.engine.connect() as conn:
        return {
            name: int(conn.execute(sa.text(f"SELECT count(*) FROM {name}")).scalar_one())
            for name in ("threads", "messages")
        }
