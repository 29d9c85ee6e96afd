"""knowledge: who may read each chunk (the access list of the item it came from)

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26

Every chunk carries its item's access list (e-mail addresses, Entra object ids,
"group:<id or name>", or "everyone"), lower-cased. Existing rows, and every chunk of a
folder or SQL source, are open to everyone. Retrieval matches the list against the asker's
principals with `&&`, which the GIN index serves.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql as pg

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "data_kb_chunks",
        sa.Column("access", pg.ARRAY(sa.Text), nullable=False, server_default="{everyone}"),
    )
    op.execute("CREATE INDEX kb_chunks_access ON data_kb_chunks USING gin (access)")


def downgrade() -> None:
    op.execute("DROP INDEX kb_chunks_access")
    op.drop_column("data_kb_chunks", "access")
