"""chunk sections: an index on (source, section) for widening a hit to its clause

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26

Widening reads every chunk of a clause by its source and section path. With only the
source's index, a long document's section lookup read all of that document's chunks
(a seq scan of 10k rows when one source held them all: 20-40 ms per question); with this
index it reads the clause's own rows.
"""

from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "CREATE INDEX kb_chunks_section ON data_kb_chunks "
        "(((metadata_ ->> 'source_id')::bigint), (metadata_ ->> 'section'))"
    )


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS kb_chunks_section")
