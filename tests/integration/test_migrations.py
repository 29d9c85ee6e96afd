"""Migrations are the only way the schema changes: one head, empty -> head, up and down."""

from __future__ import annotations

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import URL

from bot.db import migrate
from bot.db.engine import create_engine
from bot.db.tables import metadata as bot_metadata


def test_there_is_a_single_head() -> None:
    script = ScriptDirectory.from_config(migrate.alembic_config())
    assert len(script.get_heads()) == 1


def test_upgrade_from_empty_to_head_then_again_is_a_no_op(empty_db_url: URL) -> None:
    engine = create_engine(empty_db_url)
    try:
        assert migrate.current_revision(engine) is None
        applied = migrate.upgrade(engine)
        assert applied and applied[-1] == migrate.head_revision()
        assert migrate.current_revision(engine) == migrate.head_revision()
        names = set(sa.inspect(engine).get_table_names())
        assert {"threads", "messages", "processed_events"} <= names
        assert migrate.upgrade(engine) == []
        assert migrate.pending_revisions(engine) == []
    finally:
        engine.dispose()


def test_downgrade_to_base_and_back_up(empty_db_url: URL) -> None:
    engine = create_engine(empty_db_url)
    try:
        migrate.upgrade(engine)
        migrate.downgrade(engine, "base")
        assert migrate.current_revision(engine) is None
        assert "threads" not in sa.inspect(engine).get_table_names()
        migrate.upgrade(engine)
        assert migrate.current_revision(engine) == migrate.head_revision()
    finally:
        engine.dispose()


def test_table_handles_match_what_migrations_create(db_url: URL) -> None:
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), bot_metadata)
        ours = {t.name for t in bot_metadata.sorted_tables}
        relevant = [d for d in diff if _table_of(d) in ours]
        assert relevant == []
    finally:
        engine.dispose()


def _table_of(diff: object) -> str | None:
    item = diff[0] if isinstance(diff, list) else diff
    for part in item if isinstance(item, tuple) else ():
        table = getattr(part, "table", None)
        if table is not None:
            return str(table.name)
        name = getattr(part, "name", None)
        if isinstance(part, sa.Table):
            return str(name)
    return None
