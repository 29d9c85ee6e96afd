"""The knowledge side as one object the composition root builds and the pipeline uses."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sqlalchemy.engine import Engine
from sqlalchemy.ext.asyncio import AsyncEngine

from knowledge.cache import TtlCache
from knowledge.documents import GlossaryEntry, Triple
from knowledge.embeddings import Embedder
from knowledge.index import prepare_index
from knowledge.ingest import Ingestor
from knowledge.loaders.faq import Paraphraser
from knowledge.retrieval import Budget, RetrievalResult, Retriever
from knowledge.store import glossary as glossary_store
from knowledge.store import triples as triple_store
from knowledge.store import vocabulary as vocabulary_store
from knowledge.store.chunks import ChunkStore


@dataclass
class Knowledge:
    engine: Engine
    embedder: Embedder
    chunks: ChunkStore
    ingestor: Ingestor
    retriever: Retriever
    cache: TtlCache = field(default_factory=lambda: TtlCache(seconds=60))

    def retrieve(self, query: str, *, scopes: Sequence[str], budget: Budget) -> RetrievalResult:
        return self.retriever.retrieve(query, scopes=scopes, budget=budget)

    def glossary(self, scopes: Sequence[str]) -> list[GlossaryEntry]:
        def load() -> list[GlossaryEntry]:
            with self.engine.connect() as conn:
                return glossary_store.entries(conn, scopes=scopes)

        return self.cache.get(("glossary", *scopes), load)

    def entity_names(self, scopes: Sequence[str]) -> set[str]:
        def load() -> set[str]:
            with self.engine.connect() as conn:
                return triple_store.entity_names(conn, scopes=scopes)

        return self.cache.get(("entities", *scopes), load)

    def vocabulary(self, scopes: Sequence[str]) -> set[str]:
        """Words the indexed knowledge uses (for correcting misspellings in questions)."""

        def load() -> set[str]:
            with self.engine.connect() as conn:
                return vocabulary_store.words(conn, scopes=scopes)

        return self.cache.get(("vocabulary", *scopes), load)

    def facts_about(
        self, entity_keys: Iterable[str], scopes: Sequence[str], *, hops: int = 1
    ) -> list[Triple]:
        with self.engine.connect() as conn:
            return triple_store.facts_about(conn, entity_keys, scopes=scopes, hops=hops)


def open_knowledge(
    engine: Engine,
    async_engine: AsyncEngine,
    embedder: Embedder,
    *,
    paraphraser: Paraphraser | None = None,
) -> Knowledge:
    """Check the index's model matches `embedder` (or record it) and wire the parts."""
    dim = prepare_index(engine, embedder)
    chunks = ChunkStore(engine, async_engine, dim=dim)
    return Knowledge(
        engine=engine,
        embedder=embedder,
        chunks=chunks,
        ingestor=Ingestor(engine, chunks, embedder, paraphraser=paraphraser),
        retriever=Retriever(chunks, embedder),
    )
