"""Alembic environment. Revisions are hand-written; there is no autogenerate target.

knowbot passes its own connection in `config.attributes["connection"]`. Run by hand
(`alembic upgrade head`), it opens the database from knowbot's settings.
"""

from __future__ import annotations

from alembic import context


def run_with(connection: object) -> None:
    context.configure(connection=connection, transaction_per_migration=True)
    with context.begin_transaction():
        context.run_migrations()


def main() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        run_with(connection)
        return
    from bot.db.engine import open_database
    from bot.settings import Settings

    db = open_database(Settings())
    try:
        with db.engine.begin() as conn:
            run_with(conn)
    finally:
        db.close()


if context.is_offline_mode():
    raise SystemExit("knowbot migrations run online only; use `knowbot db upgrade`.")
main()
