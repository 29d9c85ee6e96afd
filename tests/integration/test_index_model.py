"""Vectors from two embedding models never mix: a model change needs a clear re-index."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.engine import URL, Engine

from knowledge.errors import IndexModelMismatch
from knowledge.ingest.index import reindex
from knowledge.ingest.options import IngestOptions
from knowledge.models.embeddings import HashingEmbedder
from tests.integration.knowledge_fixtures import make_knowledge


def test_changing_the_model_refuses_until_reindexed(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    doc = tmp_path / "rules.txt"
    doc.write_text("LEAVE\n\n1.1 Annual leave\nStaff get 24 days of annual leave a year.\n")
    kb = make_knowledge(engine, db_url, HashingEmbedder(dim=384, model_name="model-a"))
    kb.ingestor.ingest_paths([doc], IngestOptions())

    bigger = HashingEmbedder(dim=512, model_name="model-b")
    with pytest.raises(IndexModelMismatch, match="knowbot ingest --reindex"):
        make_knowledge(engine, db_url, bigger)

    assert reindex(engine, bigger) == kb.chunks.count()
    moved = make_knowledge(engine, db_url, bigger)
    assert moved.chunks.dim == 512
    hits = moved.retriever.retrieve("annual leave days", scopes=["default"]).chunks
    assert hits and "24 days" in hits[0].text
