"""Table handles for the knowledge side. Migrations own the schema; a test checks these
match it. `data_kb_chunks` follows LlamaIndex PGVectorStore's layout (index name kb_chunks)."""

from __future__ import annotations

import sqlalchemy as sa
from pgvector.sqlalchemy import Vector
from sqlalchemy.dialects import postgresql as pg

CHUNK_INDEX_NAME = "kb_chunks"  # PGVectorStore table_name -> table data_kb_chunks

metadata = sa.MetaData()

kb_index = sa.Table(
    "kb_index",
    metadata,
    sa.Column("id", sa.SmallInteger, primary_key=True),
    sa.Column("embed_model", sa.Text, nullable=False),
    sa.Column("embed_dim", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
)

kb_sources = sa.Table(
    "kb_sources",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
    sa.Column("scope", sa.Text, nullable=False),
    sa.Column("uri", sa.Text, nullable=False),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("content_hash", sa.Text),
    sa.Column("options", pg.JSONB, nullable=False),
    sa.Column("status", sa.Text, nullable=False),
    sa.Column("error", sa.Text),
    sa.Column("chunk_count", sa.Integer, nullable=False),
    sa.Column("ingested_at", sa.DateTime(timezone=True)),
    sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
)

chunks = sa.Table(
    "data_kb_chunks",
    metadata,
    sa.Column("id", sa.BigInteger, primary_key=True),
    sa.Column("text", sa.String, nullable=False),
    sa.Column("metadata_", pg.JSONB),
    sa.Column("node_id", sa.String),
    sa.Column("embedding", Vector()),
)

kb_glossary = sa.Table(
    "kb_glossary",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
    sa.Column("source_id", sa.BigInteger, nullable=False),
    sa.Column("scope", sa.Text, nullable=False),
    sa.Column("term", sa.Text, nullable=False),
    sa.Column("expansion", sa.Text, nullable=False),
    sa.Column("definition", sa.Text, nullable=False),
)

kb_triples = sa.Table(
    "kb_triples",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
    sa.Column("source_id", sa.BigInteger, nullable=False),
    sa.Column("scope", sa.Text, nullable=False),
    sa.Column("subject", sa.Text, nullable=False),
    sa.Column("relation", sa.Text, nullable=False),
    sa.Column("object", sa.Text, nullable=False),
    sa.Column("subject_key", sa.Text, nullable=False),
    sa.Column("object_key", sa.Text, nullable=False),
)
