"""scope terms: how many chunks of each scope hold each word, for full-text weights

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-26

The full-text search weighs a question's words by how rare they are. Postgres' own
statistics count them over the whole table, so a company's name, rare across every
department's documents, outweighed "tax rate" inside that company's own filing. These
counts are per scope (the row with lexeme '' holds the scope's chunk count); ingest
keeps them current (knowledge.store.fulltext.refresh_scope_terms). Existing scopes are
counted here.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "kb_scope_terms",
        sa.Column("scope", sa.Text, primary_key=True),
        sa.Column("lexeme", sa.Text, primary_key=True),
        sa.Column("chunks", sa.Integer, nullable=False),
    )
    op.execute(
        """
        INSERT INTO kb_scope_terms (scope, lexeme, chunks)
        SELECT s.scope, t.word, t.ndoc
          FROM (SELECT DISTINCT metadata_ ->> 'scope' AS scope FROM data_kb_chunks) s,
               LATERAL ts_stat(format(
                   'SELECT text_search_tsv FROM data_kb_chunks WHERE metadata_ ->> %L = %L',
                   'scope', s.scope)) t
         WHERE s.scope IS NOT NULL
        UNION ALL
        SELECT metadata_ ->> 'scope', '', count(*)
          FROM data_kb_chunks WHERE metadata_ ->> 'scope' IS NOT NULL
         GROUP BY 1
        """
    )


def downgrade() -> None:
    op.drop_table("kb_scope_terms")
