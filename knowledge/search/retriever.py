"""The one retriever the pipeline calls: dense (pgvector HNSW) plus Postgres full text,
fused by rank, scoped, with a budget per kind of source."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from knowledge.documents import ChunkKind
from knowledge.models.embeddings import Embedder
from knowledge.search.widening import one_per_clause, widen
from knowledge.search.fitted import fitted
from knowledge.search.naming import DocumentName
from knowledge.search.ranking import Hints, rerank
from knowledge.search.stages import ALL_STAGES, Stage
from knowledge.search.statements import (
    measure_inputs,
    statement_weight,
    statements_asked,
    title_words,
)
from knowledge.store.chunks import ChunkHit, ChunkStore

KIND_GROUP = {
    ChunkKind.RULEBOOK.value: "documents",
    ChunkKind.TABLE.value: "documents",
    ChunkKind.ROW.value: "rows",
    ChunkKind.FACT.value: "rows",
    ChunkKind.FAQ.value: "faq",
    ChunkKind.GLOSSARY.value: "glossary",
    ChunkKind.TRIPLE.value: "graph",
}


@dataclass(frozen=True)
class Budget:
    """How many chunks of each group may come back, and how many in all."""

    per_group: dict[str, int]
    total: int


STATEMENT_POOL = 60  # tables of the statements asked about, looked up by their headings
STATEMENT_TAKEN = 3  # ... of which this many (at least two a statement) join the candidates
TITLE_AS_TEXT = 0.5  # a heading naming the statement asked about, as a full-text match

DEFAULT_BUDGET = Budget(
    per_group={"documents": 6, "rows": 5, "faq": 2, "glossary": 2, "graph": 2}, total=8
)


@dataclass(frozen=True)
class Retrieved:
    node_id: str
    kind: str
    text: str
    title: str
    location: str
    metadata: dict[str, Any]
    score: float
    dense_rank: int | None
    sparse_rank: int | None
    dense_similarity: float | None = None  # cosine similarity, when the dense search found it
    boost: float = 0.0  # what its clause title added (see knowledge.search.ranking)


@dataclass
class RetrievalResult:
    chunks: list[Retrieved]
    timings_ms: dict[str, float] = field(default_factory=dict)
    named: tuple[DocumentName, ...] = ()  # documents the question names (search kept to them)
    searched: str = ""  # the text searched, when it differs from the question
    vector: list[float] | None = None  # the embedding of the text searched
    stages: frozenset[Stage] = ALL_STAGES  # the stages above the core that ran


@dataclass(frozen=True)
class FusionWeights:
    """How the dense and full-text lists are combined.

    "score" (default): cosine similarity plus `sparse` times the chunk's ts_rank divided by the
    best ts_rank of this query; a chunk only one list found gets the other list's floor.
    "rrf": reciprocal rank fusion, sum(weight / (k + rank)).
    Measured with `knowbot eval retrieval` on BEIR sets (see the benchmarks README): Postgres'
    ts_rank is a weaker ranker than BM25, and score fusion lets it break ties between close
    dense candidates without pulling weak text matches above strong semantic ones.
    """

    method: str = "score"
    sparse: float = field(default_factory=lambda: fitted("fusion_sparse_weight", 0.2))
    dense: float = 1.0
    k: int = 60


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
    ) -> RetrievalResult:
        """Chunks for `query` from `scopes` (and `sources`, when given) only, best first.

        mode: hybrid | dense | sparse. Candidates are reranked by their clause titles
        (`hints`, or the query itself), a clause is kept once, and rulebook hits that are a
        part of a longer clause come back widened to it. `text_query`: what the full-text leg
        searches, when it differs from what is embedded. `stages`: those above the core to
        run (default: this retriever's).
        """
        on = self.stages if stages is None else stages
        timings: dict[str, float] = {}
        if not scopes or not query.strip():
            return RetrievalResult([], timings)
        dense: list[ChunkHit] = []
        vector = query_embedding
        if mode in ("hybrid", "dense") and vector is None:
            started = time.perf_counter()  # before the database work: on two cores the
            vector = self._embedder.embed_query(query)  # model and Postgres would compete
            timings["embed_query"] = _ms(started)
        sparse: Future[list[ChunkHit]] | None = None
        if mode in ("hybrid", "sparse"):  # the two queries run side by side in Postgres
            words = text_query or query
            sparse = self._side.submit(self._sparse, words, scopes, sources, timings)
        if vector is not None and mode in ("hybrid", "dense"):
            started = time.perf_counter()
            dense = self._chunks.dense(
                vector, scopes=scopes, limit=self._dense_pool, sources=sources
            )
            timings["dense"] = _ms(started)
        hints = hints or Hints(query)
        texts = sparse.result() if sparse else []
        known: dict[str, float] = {}
        if (
            sparse is not None
            and dense
            and self.weights.method == "score"
            and (Stage.TEXT_RANKS in on)
        ):
            started = time.perf_counter()
            unmatched = sorted({h.node_id for h in dense} - {h.node_id for h in texts})
            known = self._chunks.text_ranks(unmatched, text_query or query)
            timings["text_ranks"] = _ms(started)
        fused = fuse(dense, texts, self.weights, known)
        if vector is not None and Stage.STATEMENT_TABLES in on:
            fused += self._statement_tables(vector, hints, fused, scopes, sources, timings)
        started = time.perf_counter()
        ranked = rerank(fused, hints, on)
        if Stage.WIDEN in on:  # one hit per stretch of a clause, widened to its neighbours
            chosen = widen(apply_budget(dedupe(one_per_clause(ranked)), budget), self._chunks)
        else:
            chosen = apply_budget(dedupe(ranked), budget)
        timings["rank"] = _ms(started)
        return RetrievalResult(chosen, timings, vector=vector, stages=on)

    def _statement_tables(
        self,
        vector: list[float],
        hints: Hints,
        found: list[Retrieved],
        scopes: Sequence[str],
        sources: Sequence[int] | None,
        timings: dict[str, float],
    ) -> list[Retrieved]:
        """The best few tables of the financial statement the question asks about ("has
        the quick ratio improved?": the balance sheet), found by their heading when neither
        search brought them: a statement is mostly figures and shares few words with a
        question about a measure read off it. A heading naming what was asked counts as
        half a full-text match; its similarity is at least the dense list's floor."""
        asked = statements_asked(hints.question)
        if not asked:
            return []
        started = time.perf_counter()
        hits = self._chunks.titled_tables(
            vector, title_words(asked), scopes=scopes, limit=STATEMENT_POOL, sources=sources
        )
        timings["statements"] = _ms(started)
        have = {c.node_id for c in found}
        floor = min((c.dense_similarity for c in found if c.dense_similarity), default=0.0)
        inputs = measure_inputs(hints.question)
        taken: list[ChunkHit] = []
        per_statement = max(2, STATEMENT_TAKEN // len(asked))
        for kind in sorted(asked):
            own = [
                h
                for h in hits
                if h.node_id not in have
                and statement_weight(str(h.metadata.get("section") or ""), frozenset({kind})) == 1.0
            ]
            own.sort(key=lambda h: not _holds_input(h.text, inputs))  # stable: nearest next
            taken += [h for h in own[:per_statement] if h not in taken]
        base = self.weights.sparse * TITLE_AS_TEXT
        return [_retrieved(h, max(h.score, floor) + base, {}, h.score) for h in taken]

    def _sparse(
        self,
        query: str,
        scopes: Sequence[str],
        sources: Sequence[int] | None,
        timings: dict[str, float],
    ) -> list[ChunkHit]:
        started = time.perf_counter()
        hits = self._chunks.sparse(query, scopes=scopes, limit=self._sparse_pool, sources=sources)
        timings["sparse"] = _ms(started)
        return hits


def fuse(
    dense: list[ChunkHit],
    sparse: list[ChunkHit],
    weights: FusionWeights,
    text_ranks: dict[str, float] | None = None,
) -> list[Retrieved]:
    """One list from the two; `text_ranks`: the full-text rank of dense hits beyond the
    full-text list's cut."""
    hits = {h.node_id: h for h in [*sparse, *dense]}
    ranks: dict[str, dict[str, int]] = {n: {} for n in hits}
    for name, ranked in (("dense", dense), ("sparse", sparse)):
        for rank, hit in enumerate(ranked, start=1):
            ranks[hit.node_id][name] = rank
    similarity = {h.node_id: h.score for h in dense}
    if weights.method == "rrf":
        scores = {
            n: sum(
                w / (weights.k + r[name])
                for name, w in (("dense", weights.dense), ("sparse", weights.sparse))
                if name in r
            )
            for n, r in ranks.items()
        }
    else:
        scores = _score_fusion(dense, sparse, weights, text_ranks or {})
    # ties (chunks only one list found share its floor) go to the better-ranked, never to
    # the order of a set, which changes from one process to the next
    ordered = sorted(scores, key=lambda n: (-scores[n], min(ranks[n].values()), n))
    return [_retrieved(hits[n], scores[n], ranks[n], similarity.get(n)) for n in ordered]


def _score_fusion(
    dense: list[ChunkHit],
    sparse: list[ChunkHit],
    weights: FusionWeights,
    text_ranks: dict[str, float],
) -> dict[str, float]:
    """Similarity plus the scaled full-text rank. A dense hit past the full-text list's
    cut still holds the words it holds (`text_ranks`); a full-text hit the dense search
    missed gets the dense list's floor: a rare word the question shares ("hydrocele") is
    evidence a sentence model does not weigh."""
    floor = min((h.score for h in dense), default=0.0)
    best_text = max((h.score for h in sparse), default=0.0) or 1.0
    similarity = {h.node_id: h.score for h in dense}
    text = text_ranks | {h.node_id: h.score for h in sparse}
    return {
        n: weights.dense * similarity.get(n, floor) + weights.sparse * text.get(n, 0.0) / best_text
        for n in similarity.keys() | {h.node_id for h in sparse}
    }


def dedupe(chunks: list[Retrieved]) -> list[Retrieved]:
    """One chunk per identical text, and one per FAQ (paraphrases point at the same FAQ)."""
    seen: set[str] = set()
    out = []
    for chunk in chunks:
        marks = {f"text:{chunk.metadata.get('hash') or chunk.text}"}
        if chunk.metadata.get("faq_key"):
            marks.add(f"faq:{chunk.metadata['source_id']}:{chunk.metadata['faq_key']}")
        if marks & seen:
            continue
        seen |= marks
        out.append(chunk)
    return out


def apply_budget(chunks: list[Retrieved], budget: Budget) -> list[Retrieved]:
    taken: dict[str, int] = {}
    out = []
    for chunk in chunks:
        group = KIND_GROUP.get(chunk.kind, "documents")
        if taken.get(group, 0) >= budget.per_group.get(group, 0):
            continue
        taken[group] = taken.get(group, 0) + 1
        out.append(chunk)
        if len(out) >= budget.total:
            break
    return out


def _retrieved(
    hit: ChunkHit, score: float, ranks: dict[str, int], similarity: float | None
) -> Retrieved:
    meta = hit.metadata
    return Retrieved(
        node_id=hit.node_id,
        kind=str(meta.get("kind", "rulebook")),
        text=hit.text,
        title=str(meta.get("title", "")),
        location=str(meta.get("location", "")),
        metadata=meta,
        score=score,
        dense_rank=ranks.get("dense"),
        sparse_rank=ranks.get("sparse"),
        dense_similarity=similarity,
    )


def _holds_input(text: str, inputs: Sequence[re.Pattern[str]]) -> bool:
    """A table chunk holds a line a measure asked about is computed from."""
    labels = [line.split(" | ", 1)[0].strip() for line in text.splitlines() if " | " in line]
    return any(p.search(label) for p in inputs for label in labels)


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)
