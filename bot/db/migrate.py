"""Applying the Alembic revisions in `migrations/` — the only way the schema changes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection, Engine

import migrations

# Two processes starting at once must not both apply the same revision.
MIGRATION_LOCK_ID = 0x6B6E6F77  # "know"


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(Path(migrations.__file__).parent))
    return config


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


@dataclass(frozen=True)
class PendingRevision:
    revision: str
    doc: str


def pending_revisions(engine: Engine) -> list[PendingRevision]:
    script = ScriptDirectory.from_config(alembic_config())
    current = current_revision(engine)
    revs = script.iterate_revisions("heads", current)  # newest first
    return [PendingRevision(r.revision, r.doc or "") for r in reversed(list(revs))]


def upgrade(engine: Engine, target: str = "head") -> list[str]:
    """Apply pending revisions; return the ids applied (empty when already at head)."""
    if not pending_revisions(engine):
        return []
    with engine.begin() as conn:
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:id)"), {"id": MIGRATION_LOCK_ID})
        before = MigrationContext.configure(conn).get_current_revision()
        _run(conn, "upgrade", target)
        after = MigrationContext.configure(conn).get_current_revision()
    if before == after:  # another process applied them while we waited for the lock
        return []
    script = ScriptDirectory.from_config(alembic_config())
    return [r.revision for r in reversed(list(script.iterate_revisions(after, before)))]


def downgrade(engine: Engine, target: str) -> None:
    with engine.begin() as conn:
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:id)"), {"id": MIGRATION_LOCK_ID})
        _run(conn, "downgrade", target)


def _run(conn: Connection, verb: str, target: str) -> None:
    config = alembic_config()
    config.attributes["connection"] = conn
    if verb == "upgrade":
        command.upgrade(config, target)
    else:
        command.downgrade(config, target)
