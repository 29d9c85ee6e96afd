"""knowledge: sources, chunks (LlamaIndex PGVectorStore layout), glossary, triples

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21

The chunk table follows the layout LlamaIndex's PGVectorStore reads and writes
(`data_<index name>` with text, metadata_, node_id, embedding and a generated full-text
column), so the store runs with perform_setup=False and this migration owns the schema.
The vector column is sized for the default local model (all-MiniLM-L6-v2, 384 dims);
`knowbot ingest --reindex` resizes it when a different embedding model is configured.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql as pg

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

DEFAULT_DIM = 384


def _now() -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(
        "updated_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
    )


def upgrade() -> None:
    op.create_table(
        "kb_index",
        sa.Column("id", sa.SmallInteger, primary_key=True),
        sa.Column("embed_model", sa.Text, nullable=False),
        sa.Column("embed_dim", sa.Integer, nullable=False),
        _now(),
        sa.CheckConstraint("id = 1", name="ck_kb_index_single_row"),
    )
    op.create_table(
        "kb_sources",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("scope", sa.Text, nullable=False),
        sa.Column("uri", sa.Text, nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("content_hash", sa.Text),
        sa.Column("options", pg.JSONB, nullable=False, server_default=sa.text("'{}'::jsonb")),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("error", sa.Text),
        sa.Column("chunk_count", sa.Integer, nullable=False, server_default="0"),
        sa.Column("ingested_at", sa.DateTime(timezone=True)),
        _now(),
        sa.UniqueConstraint("scope", "uri", name="uq_kb_sources_scope_uri"),
        sa.CheckConstraint("status IN ('ok', 'failed', 'removed')", name="ck_kb_sources_status"),
    )
    op.execute(
        f"""
        CREATE TABLE data_kb_chunks (
            id BIGSERIAL PRIMARY KEY,
            text VARCHAR NOT NULL,
            metadata_ JSONB,
            node_id VARCHAR,
            embedding vector({DEFAULT_DIM}),
            text_search_tsv TSVECTOR GENERATED ALWAYS AS (to_tsvector('english', text)) STORED
        )
        """
    )
    op.execute("CREATE INDEX kb_chunks_idx ON data_kb_chunks USING gin (text_search_tsv)")
    op.execute("CREATE INDEX kb_chunks_idx_1 ON data_kb_chunks ((metadata_ ->> 'ref_doc_id'))")
    op.execute("CREATE UNIQUE INDEX kb_chunks_node_id ON data_kb_chunks (node_id)")
    op.execute("CREATE INDEX kb_chunks_scope ON data_kb_chunks ((metadata_ ->> 'scope'))")
    op.execute(
        "CREATE INDEX kb_chunks_source ON data_kb_chunks (((metadata_ ->> 'source_id')::bigint))"
    )
    op.execute(
        "CREATE INDEX kb_chunks_embedding ON data_kb_chunks "
        "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
    )
    op.create_table(
        "kb_glossary",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column(
            "source_id",
            sa.BigInteger,
            sa.ForeignKey("kb_sources.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("scope", sa.Text, nullable=False),
        sa.Column("term", sa.Text, nullable=False),
        sa.Column("expansion", sa.Text, nullable=False),
        sa.Column("definition", sa.Text, nullable=False, server_default=""),
    )
    op.create_index("ix_kb_glossary_scope_term", "kb_glossary", ["scope", "term"])
    op.create_table(
        "kb_triples",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column(
            "source_id",
            sa.BigInteger,
            sa.ForeignKey("kb_sources.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("scope", sa.Text, nullable=False),
        sa.Column("subject", sa.Text, nullable=False),
        sa.Column("relation", sa.Text, nullable=False),
        sa.Column("object", sa.Text, nullable=False),
        sa.Column("subject_key", sa.Text, nullable=False),
        sa.Column("object_key", sa.Text, nullable=False),
    )
    op.create_index("ix_kb_triples_subject", "kb_triples", ["scope", "subject_key"])
    op.create_index("ix_kb_triples_object", "kb_triples", ["scope", "object_key"])


def downgrade() -> None:
    op.drop_table("kb_triples")
    op.drop_table("kb_glossary")
    op.execute("DROP TABLE data_kb_chunks")
    op.drop_table("kb_sources")
    op.drop_table("kb_index")
