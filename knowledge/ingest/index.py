"""Guarding the vector space: one embedding model per index, and a clear re-index."""

from __future__ import annotations

import logging
from collections.abc import Callable

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from knowledge.documents import ChunkDraft, ChunkKind
from knowledge.errors import IndexModelMismatch
from knowledge.ingest.embedding_text import embed_text
from knowledge.models.embeddings import Embedder
from knowledge.store import index_meta
from knowledge.store.tables import chunks

log = logging.getLogger(__name__)

REINDEX_BATCH = 256


def model_dim(embedder: Embedder) -> int:
    if not embedder.dim:
        embedder.embed_query("dimension probe")  # remote models report their size on use
    return embedder.dim


def prepare_index(engine: Engine, embedder: Embedder) -> int:
    """Return the vector dimension to use; refuse when the index holds another model."""
    with engine.begin() as conn:
        info = index_meta.get(conn)
        if info is not None and info.embed_model == embedder.model_name:
            return info.embed_dim
        stored = conn.execute(sa.select(sa.func.count()).select_from(chunks)).scalar_one()
        if info is not None and stored:
            raise IndexModelMismatch(
                f"The knowledge index was built with {info.embed_model} ({info.embed_dim} "
                f"dimensions) but KNOWBOT_EMBED_MODEL is {embedder.model_name}. Run "
                f"`knowbot ingest --reindex` to re-embed the {stored} stored chunks with the new "
                f"model, or set KNOWBOT_EMBED_MODEL back to {info.embed_model}."
            )
    dim = model_dim(embedder)
    with engine.begin() as conn:
        if index_meta.column_dim(conn) != dim:
            index_meta.resize_vectors(conn, dim)
            index_meta.create_vector_index(conn)
        index_meta.record(conn, index_meta.IndexInfo(embedder.model_name, dim))
    return dim


def reindex(
    engine: Engine, embedder: Embedder, progress: Callable[[str, int, int], None] | None = None
) -> int:
    """Re-embed every stored chunk with `embedder`, in one transaction; return the count."""
    dim = model_dim(embedder)
    with engine.connect() as conn:
        rows = conn.execute(sa.select(chunks.c.id, chunks.c.text, chunks.c.metadata_)).all()
    vectors: list[tuple[int, list[float]]] = []
    for start in range(0, len(rows), REINDEX_BATCH):
        batch = rows[start : start + REINDEX_BATCH]
        texts = [embed_text(_draft(r.text, r.metadata_ or {})) for r in batch]
        vectors.extend(
            (r.id, v) for r, v in zip(batch, embedder.embed_documents(texts), strict=True)
        )
        if progress:
            progress("re-embedding", len(vectors), len(rows))
    with engine.begin() as conn:
        index_meta.resize_vectors(conn, dim)
        for chunk_id, vector in vectors:
            conn.execute(sa.update(chunks).where(chunks.c.id == chunk_id).values(embedding=vector))
        index_meta.create_vector_index(conn)
        index_meta.record(conn, index_meta.IndexInfo(embedder.model_name, dim))
    log.info("re-embedded %d chunks with %s", len(vectors), embedder.model_name)
    return len(vectors)


def _draft(text: str, metadata: dict[str, object]) -> ChunkDraft:
    kind = str(metadata.get("kind", ChunkKind.RULEBOOK.value))
    return ChunkDraft(
        key=str(metadata.get("key", "")),
        kind=ChunkKind(kind) if kind in ChunkKind._value2member_map_ else ChunkKind.RULEBOOK,
        text=text,
        title=str(metadata.get("title", "")),
    )
