"""Chunks in pgvector, read and written through LlamaIndex's PGVectorStore.

The table (`data_kb_chunks`) is created by a migration; the store runs with
perform_setup=False. Writes for one source happen on the caller's connection inside its
transaction, so a source is replaced whole or not at all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode
from llama_index.core.vector_stores.types import (
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
    VectorStoreQuery,
)
from llama_index.core.vector_stores.utils import node_to_metadata_dict
from llama_index.vector_stores.postgres import PGVectorStore
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.ext.asyncio import AsyncEngine

from knowledge.tables import CHUNK_INDEX_NAME, chunks

SCOPE_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")
HNSW = {"hnsw_m": 16, "hnsw_ef_construction": 64, "hnsw_ef_search": 100}


def check_scope(scope: str) -> str:
    """Scopes end up inside SQL filters built by PGVectorStore, so only plain names pass."""
    if not SCOPE_PATTERN.match(scope):
        raise ValueError(
            f"Invalid scope {scope!r}: use letters, digits, '_', '-', '.', ':' (max 64 chars)."
        )
    return scope


@dataclass(frozen=True)
class ChunkRecord:
    """A chunk ready to store: its node id, display text, metadata and vector."""

    node_id: str
    text: str
    metadata: dict[str, Any]
    embedding: list[float]


@dataclass(frozen=True)
class ChunkHit:
    node_id: str
    text: str
    metadata: dict[str, Any]
    score: float


class ChunkStore:
    def __init__(self, engine: Engine, async_engine: AsyncEngine, *, dim: int) -> None:
        self._engine = engine
        self._async_engine = async_engine
        self.dim = dim
        self._reader = self._vector_store(engine)

    def _vector_store(self, bind: Engine | Connection) -> PGVectorStore:
        store = PGVectorStore(
            engine=bind,  # type: ignore[arg-type]  # a Connection joins the caller's transaction
            async_engine=self._async_engine,
            table_name=CHUNK_INDEX_NAME,
            hybrid_search=True,
            text_search_config="english",
            embed_dim=self.dim,
            perform_setup=False,
            use_jsonb=True,
            hnsw_kwargs=dict(HNSW),
        )
        return store

    # --- writing -------------------------------------------------------------------------

    def add(self, conn: Connection, records: Sequence[ChunkRecord], *, source_ref: str) -> None:
        """Insert chunks on `conn` (inside the caller's transaction).

        Rows are exactly what PGVectorStore.add writes (its node serialisation, its
        columns), inserted in one multi-row statement instead of one ORM object per chunk:
        the ORM path cost a quarter of ingest time next to the embedding model.
        """
        if not records:
            return
        rows = []
        for r in records:
            node = TextNode(
                id_=r.node_id,
                text=r.text,
                metadata=r.metadata,
                relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id=source_ref)},
            )
            rows.append(
                {
                    "node_id": r.node_id,
                    "text": r.text,
                    "embedding": r.embedding,
                    "metadata_": node_to_metadata_dict(
                        node, remove_text=True, flat_metadata=self._reader.flat_metadata
                    ),
                }
            )
        conn.execute(sa.insert(chunks), rows)

    def delete_nodes(self, conn: Connection, node_ids: Sequence[str]) -> int:
        if not node_ids:
            return 0
        result = conn.execute(sa.delete(chunks).where(chunks.c.node_id.in_(list(node_ids))))
        return result.rowcount or 0

    def delete_source(self, conn: Connection, source_id: int) -> int:
        result = conn.execute(sa.delete(chunks).where(_source_is(source_id)))
        return result.rowcount or 0

    def fingerprints(self, conn: Connection, source_id: int) -> dict[str, str]:
        """node_id by chunk key for one source: what a re-ingest compares against."""
        rows = conn.execute(
            sa.select(chunks.c.metadata_["key"].astext, chunks.c.node_id).where(
                _source_is(source_id)
            )
        )
        return {key: node_id for key, node_id in rows}

    # --- reading -------------------------------------------------------------------------

    def dense(self, embedding: list[float], *, scopes: Sequence[str], limit: int) -> list[ChunkHit]:
        query = VectorStoreQuery(
            query_embedding=embedding, similarity_top_k=limit, filters=_scope_filter(scopes)
        )
        return _hits(self._reader.query(query))

    def sparse(self, text: str, *, scopes: Sequence[str], limit: int) -> list[ChunkHit]:
        """Full-text candidates ranked by ts_rank: any of the query's words may match.

        Plain SQL on the store's table rather than PGVectorStore's text mode, which builds
        a new statement type on every call (so nothing is cached), fetches each row's JSON
        copy of the node and rebuilds a LlamaIndex node per row.
        """
        terms = _OR_QUERY.sub(" ", text).strip()
        if not terms or not scopes:
            return []
        query = sa.func.to_tsquery(
            sa.literal_column("'english'::regconfig"), terms.replace(" ", "|")
        )
        rank = sa.func.ts_rank(chunks.c.text_search_tsv, query).label("rank")
        stmt = (
            sa.select(chunks.c.node_id, chunks.c.text, _LEAN_METADATA, rank)
            .where(
                chunks.c.text_search_tsv.op("@@")(query),
                chunks.c.metadata_["scope"].astext.in_([check_scope(s) for s in scopes]),
            )
            .order_by(rank.desc())
            .limit(limit)
        )
        with self._engine.connect() as conn:
            return [
                ChunkHit(r.node_id, r.text, _public(r.metadata or {}), float(r.rank))
                for r in conn.execute(stmt)
            ]

    def count(self, *, scopes: Sequence[str] | None = None) -> int:
        query = sa.select(sa.func.count()).select_from(chunks)
        if scopes is not None:
            query = query.where(chunks.c.metadata_["scope"].astext.in_(list(scopes)))
        with self._engine.connect() as conn:
            return int(conn.execute(query).scalar_one())


# PGVectorStore's rule: punctuation (but a dot inside a word) separates words.
_OR_QUERY = re.compile(r"(?!\b\.\b)\W+")
# LlamaIndex keeps a JSON copy of the whole node in each row: never fetched here.
_LEAN_METADATA = chunks.c.metadata_.op("-")(sa.literal("_node_content")).label("metadata")
_LLAMA_KEYS = frozenset({"document_id", "doc_id", "ref_doc_id"})


def _public(metadata: dict[str, Any]) -> dict[str, Any]:
    """Our metadata without LlamaIndex's bookkeeping keys."""
    return {k: v for k, v in metadata.items() if not k.startswith("_") and k not in _LLAMA_KEYS}


def _source_is(source_id: int) -> sa.ColumnElement[bool]:
    return chunks.c.metadata_["source_id"].astext.cast(sa.BigInteger) == source_id


def _scope_filter(scopes: Sequence[str]) -> MetadataFilters:
    values = [check_scope(s) for s in scopes]
    return MetadataFilters(
        filters=[MetadataFilter(key="scope", value=values, operator=FilterOperator.IN)]
    )


def _hits(result: Any) -> list[ChunkHit]:
    hits = []
    for node, score in zip(result.nodes, result.similarities or [], strict=False):
        metadata = {k: v for k, v in node.metadata.items() if not k.startswith("_")}
        hits.append(
            ChunkHit(
                node_id=node.node_id,
                text=node.get_content(),
                metadata=metadata,
                score=float(score),
            )
        )
    return hits
