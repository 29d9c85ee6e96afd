"""Chunks in pgvector, in LlamaIndex PGVectorStore's table layout and row format.

The table (`data_kb_chunks`) is created by a migration; the store runs with
perform_setup=False. Writes for one source happen on the caller's connection inside its
transaction, so a source is replaced whole or not at all.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode
from llama_index.core.vector_stores.utils import node_to_metadata_dict
from llama_index.vector_stores.postgres import PGVectorStore
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.ext.asyncio import AsyncEngine

from knowledge.access import EVERYONE, normalised
from knowledge.cache import TtlCache
from knowledge.store import fulltext
from knowledge.store.chunk_filters import (
    TEXTS,
    access_filter,
    full_text_rank,
    scope_in,
    source_in,
    source_is,
    tsquery,
)
from knowledge.store.tables import CHUNK_INDEX_NAME, chunks

HNSW = {"hnsw_m": 16, "hnsw_ef_construction": 64, "hnsw_ef_search": 100}


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
        self.llama_index = self._vector_store(engine)
        self._stats = TtlCache(seconds=60)
        self._plans: dict[tuple[str, ...], fulltext.TextQuery | None] = {}  # see _plan
        self._plans_lock = threading.Lock()

    def _vector_store(self, engine: Engine) -> PGVectorStore:
        """The same table as LlamaIndex sees it; rows written here are its rows."""
        store = PGVectorStore(
            engine=engine,
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

    def add(
        self,
        conn: Connection,
        records: Sequence[ChunkRecord],
        *,
        source_ref: str,
        access: Sequence[str] = (EVERYONE,),
    ) -> None:
        """Insert chunks on `conn` (inside the caller's transaction), readable by `access`.

        Rows are exactly what PGVectorStore.add writes (its node serialisation, its
        columns), inserted in one multi-row statement instead of one ORM object per chunk:
        the ORM path cost a quarter of ingest time next to the embedding model.
        """
        if not records:
            return
        rows = []
        for r in records:
            if clash := _LLAMA_KEYS & r.metadata.keys():
                raise ValueError(f"chunk metadata may not use LlamaIndex's keys {sorted(clash)}")
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
                        node, remove_text=True, flat_metadata=self.llama_index.flat_metadata
                    ),
                    "access": list(normalised(access)),
                }
            )
        conn.execute(sa.insert(chunks), rows)

    def delete_nodes(self, conn: Connection, node_ids: Sequence[str]) -> int:
        if not node_ids:
            return 0
        result = conn.execute(sa.delete(chunks).where(chunks.c.node_id.in_(list(node_ids))))
        return result.rowcount or 0

    def set_access(self, conn: Connection, source_id: int, access: Sequence[str]) -> int:
        """Give every chunk of a source this access list (a permission change: nothing is
        embedded again); returns how many chunks changed."""
        wanted = sa.cast(list(normalised(access)), TEXTS)
        result = conn.execute(
            sa.update(chunks)
            .where(source_is(source_id), chunks.c.access.is_distinct_from(wanted))
            .values(access=wanted)
        )
        return result.rowcount or 0

    def readable_sources(
        self, source_ids: Sequence[int], readers: Sequence[str] | None
    ) -> set[int]:
        """Those of `source_ids` with a chunk `readers` may read (None: with any chunk)."""
        if not source_ids:
            return set()
        stmt = (
            sa.select(chunks.c.metadata_["source_id"].astext.cast(sa.BigInteger))
            .where(*source_in(list(source_ids)), *access_filter(readers))
            .distinct()
        )
        with self._engine.connect() as conn:
            return {int(s) for s in conn.execute(stmt).scalars()}

    def access_of(self, node_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """The access list of each of these chunks (chunks no longer stored are left out)."""
        if not node_ids:
            return {}
        stmt = sa.select(chunks.c.node_id, chunks.c.access).where(
            chunks.c.node_id.in_(list(node_ids))
        )
        with self._engine.connect() as conn:
            return {str(n): tuple(a) for n, a in conn.execute(stmt)}

    def access_by_url(self, urls: Sequence[str]) -> list[tuple[str, ...]]:
        """The access lists of the chunks linking to any of `urls` (their page anchors
        ignored): what an answer citing only a link relies on."""
        if not urls:
            return []
        link = sa.func.split_part(chunks.c.metadata_["url"].astext, "#", 1)
        stmt = (
            sa.select(chunks.c.access)
            .where(link.in_([u.split("#", 1)[0] for u in urls]))
            .distinct()
        )
        with self._engine.connect() as conn:
            return [tuple(a) for a in conn.execute(stmt).scalars()]

    def delete_source(self, conn: Connection, source_id: int) -> int:
        result = conn.execute(sa.delete(chunks).where(source_is(source_id)))
        return result.rowcount or 0

    def fingerprints(self, conn: Connection, source_id: int) -> dict[str, str]:
        """node_id by chunk key for one source: what a re-ingest compares against."""
        rows = conn.execute(
            sa.select(chunks.c.metadata_["key"].astext, chunks.c.node_id).where(
                source_is(source_id)
            )
        )
        return {key: node_id for key, node_id in rows}

    # --- reading -------------------------------------------------------------------------

    def sources_of(self, node_ids: Sequence[str]) -> dict[str, tuple[int, str]]:
        """The source (id, uri) each of these chunks came from; chunks no longer stored are
        left out."""
        if not node_ids:
            return {}
        query = sa.select(
            chunks.c.node_id,
            chunks.c.metadata_["source_id"].astext,
            chunks.c.metadata_["source_uri"].astext,
        ).where(chunks.c.node_id.in_(list(node_ids)))
        with self._engine.connect() as conn:
            return {str(n): (int(s), u or "") for n, s, u in conn.execute(query) if s}

    def dense(
        self,
        embedding: list[float],
        *,
        scopes: Sequence[str],
        limit: int,
        sources: Sequence[int] | None = None,
        readers: Sequence[str] | None = None,
    ) -> list[ChunkHit]:
        """Nearest chunks by cosine distance over the HNSW index, within `scopes`, that
        `readers` may read (None: every chunk). The sessions scan the index iteratively
        (hnsw.iterative_scan, bot.db.engine), so a reader who may read few of the nearest
        chunks still gets `limit` of them.

        The statement PGVectorStore.query builds, run on a pooled connection whose session
        already has the HNSW settings: its own path opens a transaction with two SET
        statements per query and rebuilds a node from each row's JSON copy, which doubled
        the time of a dense query.
        """
        if not scopes:
            return []
        distance = chunks.c.embedding.cosine_distance(embedding).label("distance")
        stmt = (
            sa.select(chunks.c.node_id, chunks.c.text, _LEAN_METADATA, distance)
            .where(scope_in(scopes), *source_in(sources), *access_filter(readers))
            .order_by(distance)
            .limit(limit)
        )
        with self._engine.connect() as conn:
            return [_hit(r, 1.0 - float(r.distance)) for r in conn.execute(stmt)]

    def sparse(
        self,
        text: str,
        *,
        scopes: Sequence[str],
        limit: int,
        sources: Sequence[int] | None = None,
        readers: Sequence[str] | None = None,
    ) -> list[ChunkHit]:
        """Full-text candidates: chunks holding the question's informative words (see
        knowledge.store.fulltext), ranked by the weight of the words they hold.

        Plain SQL on the store's table rather than PGVectorStore's text mode, which builds
        a new statement type on every call (so nothing is cached), fetches each row's JSON
        copy of the node and rebuilds a LlamaIndex node per row.
        """
        if not scopes or not text.strip():
            return []
        with self._engine.connect() as conn:
            plan = self._plan(conn, text, scopes)
            if plan is None:
                return []
            rank = full_text_rank(plan).label("rank")
            stmt = (
                sa.select(chunks.c.node_id, chunks.c.text, _LEAN_METADATA, rank)
                .where(
                    chunks.c.text_search_tsv.op("@@")(tsquery(plan.match)),
                    scope_in(scopes),
                    *source_in(sources),
                    *access_filter(readers),
                )
                .order_by(rank.desc())
                .limit(limit)
            )
            return [_hit(r, float(r.rank)) for r in conn.execute(stmt)]

    def text_ranks(
        self, node_ids: Sequence[str], text: str, *, scopes: Sequence[str]
    ) -> dict[str, float]:
        """The full-text rank for `text` of each of `node_ids` (0 when it holds none of
        the words), as `sparse` would have ranked it in `scopes`."""
        if not node_ids:
            return {}
        with self._engine.connect() as conn:
            plan = self._plan(conn, text, scopes)
            if plan is None:
                return {}
            stmt = sa.select(chunks.c.node_id, full_text_rank(plan).label("rank")).where(
                chunks.c.node_id.in_(list(node_ids))
            )
            return {r.node_id: float(r.rank) for r in conn.execute(stmt)}

    def _plan(
        self, conn: Connection, text: str, scopes: Sequence[str]
    ) -> fulltext.TextQuery | None:
        """The full-text plan for `text` in `scopes`, its words weighed by how common they
        are there. The last few are kept: a question's full-text search and the ranks of
        its dense hits ask for the same plan, one after the other."""
        key = (text, *sorted(scopes))
        with self._plans_lock:
            if key in self._plans:
                return self._plans[key]
        words = fulltext.lexemes(conn, text)
        found = None
        if words:
            stats = fulltext.scope_stats(conn, scopes, words) or self._term_stats(conn)
            plan = fulltext.plan_query(words, stats)
            found = plan if plan.match else None
        with self._plans_lock:
            self._plans[key] = found
            while len(self._plans) > _RECENT_PLANS:
                del self._plans[next(iter(self._plans))]
        return found

    def section_chunks(
        self, sections: Sequence[tuple[int, str]], *, readers: Sequence[str] | None = None
    ) -> list[ChunkHit]:
        """Every rulebook chunk of the given (source id, section path) pairs that `readers`
        may read: the parts of a clause that was split to fit the embedding model, for
        widening a hit to its clause."""
        if not sections:
            return []
        pairs = sa.tuple_(
            chunks.c.metadata_["source_id"].astext.cast(sa.BigInteger),
            chunks.c.metadata_["section"].astext,
        ).in_([(int(sid), section) for sid, section in sections])
        stmt = sa.select(chunks.c.node_id, chunks.c.text, _LEAN_METADATA).where(
            pairs, chunks.c.metadata_["kind"].astext == "rulebook", *access_filter(readers)
        )
        with self._engine.connect() as conn:
            return [_hit(r, 0.0) for r in conn.execute(stmt)]

    def titled_tables(
        self,
        embedding: list[float],
        words: Sequence[str],
        *,
        scopes: Sequence[str],
        limit: int,
        sources: Sequence[int] | None = None,
        readers: Sequence[str] | None = None,
    ) -> list[ChunkHit]:
        """Table chunks whose heading path holds one of `words` (case ignored), nearest to
        `embedding` first, scored by cosine similarity."""
        if not scopes or not words:
            return []
        section = chunks.c.metadata_["section"].astext
        distance = chunks.c.embedding.cosine_distance(embedding).label("distance")
        stmt = (
            sa.select(chunks.c.node_id, chunks.c.text, _LEAN_METADATA, distance)
            .where(
                scope_in(scopes),
                *source_in(sources),
                *access_filter(readers),
                chunks.c.metadata_["kind"].astext == "table",
                sa.or_(*(section.ilike(f"%{w}%") for w in words)),
            )
            .order_by(distance)
            .limit(limit)
        )
        with self._engine.connect() as conn:
            return [_hit(r, 1.0 - float(r.distance)) for r in conn.execute(stmt)]

    def refresh_term_stats(self, conn: Connection, scopes: Sequence[str] | None = None) -> None:
        """After an ingest changed chunks of `scopes` (None: of any scope): count and
        resample, so the next question sees new words."""
        changed = fulltext.known_scopes(conn) if scopes is None else scopes
        fulltext.refresh_scope_terms(conn, changed)
        fulltext.refresh_stats(conn)
        self._stats.clear()
        with self._plans_lock:
            self._plans.clear()  # plans weigh words by the statistics just replaced

    def _term_stats(self, conn: Connection) -> fulltext.TermStats:
        return self._stats.get("terms", lambda: fulltext.load_stats(conn))

    def count(self, *, scopes: Sequence[str] | None = None) -> int:
        query = sa.select(sa.func.count()).select_from(chunks)
        if scopes is not None:
            query = query.where(chunks.c.metadata_["scope"].astext.in_(list(scopes)))
        with self._engine.connect() as conn:
            return int(conn.execute(query).scalar_one())


# LlamaIndex keeps a JSON copy of the whole node in each row: never fetched here.
_RECENT_PLANS = 4  # a question's own, and a few asked at the same time
_LEAN_METADATA = chunks.c.metadata_.op("-")(sa.literal("_node_content")).label("metadata")
# LlamaIndex writes these into each row's metadata (overwriting any of ours by that name)
_LLAMA_KEYS = frozenset({"document_id", "doc_id", "ref_doc_id"})


def _hit(row: sa.Row[Any], score: float) -> ChunkHit:
    return ChunkHit(row.node_id, row.text, _public(row.metadata or {}), score)


def _public(metadata: dict[str, Any]) -> dict[str, Any]:
    """Our metadata without LlamaIndex's bookkeeping keys."""
    return {k: v for k, v in metadata.items() if not k.startswith("_") and k not in _LLAMA_KEYS}
