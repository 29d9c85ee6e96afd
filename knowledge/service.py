"""The knowledge side as one object the composition root builds and the pipeline uses."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TypeVar

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.ext.asyncio import AsyncEngine

from knowledge.access import Reader
from knowledge.cache import TtlCache
from knowledge.documents import GlossaryEntry, Triple
from knowledge.ingest.index import prepare_index
from knowledge.ingest.ingestor import Ingestor
from knowledge.ingest.reports import OnChange
from knowledge.models.embeddings import Embedder
from knowledge.models.remembered import RememberedEmbedder
from knowledge.reading.loaders.faq import Paraphraser
from knowledge.search.budget import Budget
from knowledge.search.naming import DocumentName, name_words, narrowed
from knowledge.search.retrieved import Hints, RetrievalResult
from knowledge.search.retriever import Retriever
from knowledge.search.stages import Stage
from knowledge.store import glossary as glossary_store
from knowledge.store import sources as source_store
from knowledge.store import triples as triple_store
from knowledge.store import vocabulary as vocabulary_store
from knowledge.store.chunks import ChunkStore

T = TypeVar("T")


@dataclass
class Knowledge:
    engine: Engine
    embedder: RememberedEmbedder
    chunks: ChunkStore
    ingestor: Ingestor
    retriever: Retriever
    cache: TtlCache = field(default_factory=lambda: TtlCache(seconds=60))

    def retrieve(
        self,
        query: str,
        *,
        scopes: Sequence[str],
        budget: Budget,
        reader: Reader | None = None,
    ) -> RetrievalResult:
        """Hybrid retrieval of what `reader` may read (None: everything), kept to the
        documents the question names (when it names some but not all of them). The names
        are left out of the embedded text: within the named documents they tell no chunk
        apart by meaning, and would only pull the question toward the chunks about the
        name itself (a cover page, a list of subsidiaries). Full text still sees them,
        weighed by their rarity."""
        on = self.retriever.stages
        readers = reader.filter() if reader is not None else None
        every = self.document_names(scopes, readers=readers) if Stage.NAMING in on else []
        named, sources, searched = narrowed(query, every, leave_out=Stage.NAME_OUT in on)
        result = self.retriever.retrieve(
            searched,
            scopes=scopes,
            budget=budget,
            sources=sources,
            hints=Hints(searched),
            text_query=query,
            readers=readers,
        )
        result.named = tuple(named)
        result.searched = searched if searched != query else ""
        return result

    def document_names(
        self, scopes: Sequence[str], *, readers: Sequence[str] | None = None
    ) -> list[DocumentName]:
        """The names of the rulebooks in `scopes` that `readers` may read (None: all), from
        their file names."""
        every = self._document_names(scopes)
        if readers is None or not every:
            return every
        ids = [n.source_id for n in every]
        readable = self.cache.get(
            ("readable", *scopes, "|", *readers),
            lambda: self.chunks.readable_sources(ids, readers),
        )
        return [n for n in every if n.source_id in readable]

    def _document_names(self, scopes: Sequence[str]) -> list[DocumentName]:
        def names(conn: Connection) -> list[DocumentName]:
            rows = [r for scope in scopes for r in source_store.list_sources(conn, scope=scope)]
            ok = [r for r in rows if r.kind == "rulebook" and r.status == "ok"]
            return [DocumentName(r.id, r.uri, name_words(r.uri)) for r in ok]

        return self._read(("documents", *scopes), names)

    def glossary(self, scopes: Sequence[str]) -> list[GlossaryEntry]:
        return self._read(("glossary", *scopes), partial(glossary_store.entries, scopes=scopes))

    def entity_names(self, scopes: Sequence[str]) -> set[str]:
        return self._read(("entities", *scopes), partial(triple_store.entity_names, scopes=scopes))

    def _read(self, key: tuple[str, ...], read: Callable[[Connection], T]) -> T:
        """What `read` finds in the database, kept for a minute under `key`."""

        def load() -> T:
            with self.engine.connect() as conn:
                return read(conn)

        return self.cache.get(key, load)

    def similarity(self, query: str, texts: Sequence[str]) -> list[float]:
        """Cosine similarity of each text to `query` under the index's embedding model
        (for choosing which retrieved passage answers best; a text or question embedded
        lately is not embedded again)."""
        if not texts:
            return []
        vectors = self.embedder.embed_documents(list(texts))
        wanted = self.embedder.embed_query(query)
        return [_cosine(wanted, v) for v in vectors]

    def may_read(
        self,
        reader: Reader,
        *,
        source_ids: Sequence[int] = (),
        chunk_ids: Sequence[str] = (),
        uris: Sequence[str] = (),
        urls: Sequence[str] = (),
    ) -> bool:
        """Whether `reader` may read every one of these indexed sources (a verified answer
        relies on them). A chunk, uri or link the index does not hold restricts nothing:
        only what is indexed carries an access list."""
        readers = reader.filter()
        if readers is None:
            return True
        ids = set(source_ids)
        if uris:
            with self.engine.connect() as conn:
                ids |= {r.id for r in source_store.find_by_uris(conn, uris)}
        if ids:
            indexed = self.chunks.readable_sources(sorted(ids), None)
            if indexed - self.chunks.readable_sources(sorted(ids), readers):
                return False
        lists = list(self.chunks.access_of(chunk_ids).values()) + self.chunks.access_by_url(urls)
        return all(reader.may_read(access) for access in lists)

    def chunk_sources(self, node_ids: Sequence[str]) -> dict[str, tuple[int, str]]:
        """The source (id, uri) of each chunk: what a verified answer citing a chunk relies on."""
        return self.chunks.sources_of(node_ids)

    @property
    def embedding_model(self) -> str:
        return self.embedder.model_name

    def embeddings(self, texts: Sequence[str]) -> list[list[float]]:
        """The index's embedding of each text, in one batch (a claim and the passages it
        is compared with, to judge its support by meaning)."""
        return self.embedder.embed_documents(list(texts)) if texts else []

    def vocabulary(self, scopes: Sequence[str]) -> set[str]:
        """Words the indexed knowledge uses (for correcting misspellings in questions)."""
        return self._read(("vocabulary", *scopes), partial(vocabulary_store.words, scopes=scopes))

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
    on_change: OnChange | None = None,
) -> Knowledge:
    """Check the index's model matches `embedder` (or record it) and wire the parts."""
    dim = prepare_index(engine, embedder)
    chunks = ChunkStore(engine, async_engine, dim=dim)
    answering = RememberedEmbedder(embedder)  # ingest's texts are new: it embeds directly
    return Knowledge(
        engine=engine,
        embedder=answering,
        chunks=chunks,
        ingestor=Ingestor(engine, chunks, embedder, paraphraser=paraphraser, on_change=on_change),
        retriever=Retriever(chunks, answering),
    )


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0
