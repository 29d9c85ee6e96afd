"""The one retriever the pipeline calls, as a chain a question passes once: the core
(dense pgvector HNSW search beside Postgres full text, fused by score), then the statement
tables stage, the statement boost, widening (each hit no better one's widening holds, grown
over its clause), the cut (deduplicated, budgeted per kind of source) and the dense floor.
Naming (which documents the question names) runs before it, in `knowledge.service`."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar

from knowledge.models.embeddings import Embedder
from knowledge.search.budget import DEFAULT_BUDGET, Budget, apply_budget, dedupe
from knowledge.search.floor import floor_size, keep_densest
from knowledge.search.fusion import FusionWeights, fuse
from knowledge.search.ranking import rerank
from knowledge.search.retrieved import Hints, RetrievalResult, Retrieved
from knowledge.search.stages import ALL_STAGES, Stage
from knowledge.search.statement_tables import statement_tables
from knowledge.search.widening import widen
from knowledge.store.chunks import ChunkHit, ChunkStore

T = TypeVar("T")


class Retriever:
    def __init__(
        self,
        chunks: ChunkStore,
        embedder: Embedder,
        *,
        dense_pool: int = 50,
        sparse_pool: int = 100,
        weights: FusionWeights | None = None,
        stages: frozenset[Stage] = ALL_STAGES,
    ) -> None:
        self._chunks = chunks
        self.stages = stages  # the stages above the core this retriever runs
        self._embedder = embedder
        self._dense_pool = dense_pool
        self._sparse_pool = sparse_pool
        # a question's full-text query runs beside its dense query
        self._side = ThreadPoolExecutor(max_workers=8, thread_name_prefix="kb-fulltext")
        self.weights = weights or FusionWeights()
        self.floor = floor_size()  # how many of the densest chunks are never cut

    def retrieve(
        self,
        query: str,
        *,
        scopes: Sequence[str],
        budget: Budget = DEFAULT_BUDGET,
        query_embedding: list[float] | None = None,
        mode: str = "hybrid",
        sources: Sequence[int] | None = None,
        hints: Hints | None = None,
        text_query: str | None = None,
        stages: frozenset[Stage] | None = None,
        readers: Sequence[str] | None = None,
    ) -> RetrievalResult:
        """Chunks for `query` from `scopes` (and `sources`, when given) that `readers` may
        read (None: all of them), best first.

        mode: hybrid | dense | sparse. Tables under the statement asked about rank up
        (`hints`, or the query itself), and rulebook hits that are a part of a longer clause
        come back widened over its neighbouring parts, each part once. `text_query`: what
        the full-text leg searches, when it differs from what is embedded. `stages`: those
        above the core to run (default: this retriever's).
        """
        on = self.stages if stages is None else stages
        timings: dict[str, float] = {}
        if not scopes or not query.strip():
            return RetrievalResult([], timings)
        dense: list[ChunkHit] = []
        vector = query_embedding
        # the question is embedded before the database work: on two cores the model and
        # Postgres would compete
        if mode in ("hybrid", "dense") and vector is None:
            vector = _timed(timings, "embed_query", self._embedder.embed_query, query)
        sparse: Future[list[ChunkHit]] | None = None
        where = {"scopes": scopes, "sources": sources, "readers": readers}
        if mode in ("hybrid", "sparse"):  # the two queries run side by side in Postgres
            words, limit = text_query or query, self._sparse_pool
            search = partial(_timed, timings, "sparse", self._chunks.sparse)
            sparse = self._side.submit(search, words, limit=limit, **where)
        if vector is not None and mode in ("hybrid", "dense"):
            limit = self._dense_pool
            dense = _timed(timings, "dense", self._chunks.dense, vector, limit=limit, **where)
        hints = hints or Hints(query)
        fused = self._fuse(dense, sparse, text_query or query, scopes, on, timings)
        if vector is not None and Stage.STATEMENT_TABLES in on:
            fused += statement_tables(
                self._chunks,
                vector,
                hints,
                fused,
                scopes,
                sources,
                readers=readers,
                text_weight=self.weights.sparse,
                timings=timings,
            )
        started = time.perf_counter()
        ranked = dedupe(rerank(fused, hints, on))
        if Stage.WIDEN in on:  # each hit no better one holds, widened to its neighbours
            ranked = widen(ranked, self._chunks, readers=readers, limit=3 * budget.total)
        kept = apply_budget(ranked, budget)
        if Stage.DENSE_FLOOR in on:
            kept = keep_densest(kept, ranked, self.floor)
        timings["rank"] = _ms(started)
        return RetrievalResult(kept, timings, stages=on)

    def _fuse(
        self,
        dense: list[ChunkHit],
        sparse: Future[list[ChunkHit]] | None,
        words: str,
        scopes: Sequence[str],
        on: frozenset[Stage],
        timings: dict[str, float],
    ) -> list[Retrieved]:
        """The core's one list; dense hits past the full-text cut keep their words' rank."""
        texts = sparse.result() if sparse else []
        known: dict[str, float] = {}
        if sparse is not None and dense and Stage.TEXT_RANKS in on:
            unmatched = sorted({h.node_id for h in dense} - {h.node_id for h in texts})
            ranks = self._chunks.text_ranks
            known = _timed(timings, "text_ranks", ranks, unmatched, words, scopes=scopes)
        return fuse(dense, texts, self.weights, known)


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)


def _timed(
    timings: dict[str, float], name: str, step: Callable[..., T], *args: Any, **kwargs: Any
) -> T:
    """`step(*args, **kwargs)`, its time noted in `timings` under `name`."""
    started = time.perf_counter()
    result = step(*args, **kwargs)
    timings[name] = _ms(started)
    return result
