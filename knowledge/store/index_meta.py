"""Which embedding model built the index: vectors from two models never mix."""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.engine import Connection

from knowledge.store.tables import kb_index

DEFAULT_DIM = 384  # what migration 0002 sized the vector column for


@dataclass(frozen=True)
class IndexInfo:
    embed_model: str
    embed_dim: int


def get(conn: Connection) -> IndexInfo | None:
    row = conn.execute(sa.select(kb_index.c.embed_model, kb_index.c.embed_dim)).first()
    return IndexInfo(row.embed_model, row.embed_dim) if row else None


def record(conn: Connection, info: IndexInfo) -> None:
    stmt = insert(kb_index).values(id=1, embed_model=info.embed_model, embed_dim=info.embed_dim)
    conn.execute(
        stmt.on_conflict_do_update(
            index_elements=["id"],
            set_={
                "embed_model": info.embed_model,
                "embed_dim": info.embed_dim,
                "updated_at": sa.func.now(),
            },
        )
    )


def column_dim(conn: Connection) -> int:
    """The vector column's declared dimension."""
    typmod = conn.execute(
        sa.text(
            "SELECT atttypmod FROM pg_attribute "
            "WHERE attrelid = 'data_kb_chunks'::regclass AND attname = 'embedding'"
        )
    ).scalar_one()
    return int(typmod)


def resize_vectors(conn: Connection, dim: int) -> None:
    """Re-size the vector column for a new model; every stored vector is dropped.

    The one schema change made outside a migration: the dimension depends on the model a
    deployment configures, which no migration can know. Call `create_vector_index` after
    filling the column (building the HNSW index once is faster than maintaining it).
    """
    conn.execute(sa.text("DROP INDEX IF EXISTS kb_chunks_embedding"))
    conn.execute(sa.text("UPDATE data_kb_chunks SET embedding = NULL"))
    conn.execute(
        sa.text(f"ALTER TABLE data_kb_chunks ALTER COLUMN embedding TYPE vector({int(dim)})")
    )


def create_vector_index(conn: Connection) -> None:
    conn.execute(
        sa.text(
            "CREATE INDEX IF NOT EXISTS kb_chunks_embedding ON data_kb_chunks "
            "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
        )
    )
