"""Helpers for knowledge tests: a Knowledge on the test's own database, fake embeddings."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.engine import URL, Engine

from bot.db.engine import create_async_engine
from knowledge.models.embeddings import HashingEmbedder
from knowledge.service import Knowledge, open_knowledge


class CountingEmbedder(HashingEmbedder):
    """Counts how many texts were embedded (to prove unchanged sources cost nothing)."""

    def __init__(self, fail_after: int | None = None) -> None:
        super().__init__()
        self.embedded = 0
        self.fail_after = fail_after

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if self.fail_after is not None and self.embedded + len(texts) > self.fail_after:
            raise KeyboardInterrupt  # the user pressed Ctrl-C mid-ingest
        self.embedded += len(texts)
        return super().embed_documents(texts)


def make_knowledge(engine: Engine, url: URL, embedder: HashingEmbedder | None = None) -> Knowledge:
    return open_knowledge(engine, create_async_engine(url), embedder or CountingEmbedder())
