"""The bundled model through ONNX Runtime gives the vectors PyTorch gives, and its export is
kept and reused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from knowledge.models.embeddings import LocalEmbedder

TEXTS = [
    "What is the PED waiting period?",
    "table policies. policy_number: 0000-0001; plan: Plan C; region: North; premium: 48000",
    "Pre-existing disease expenses are covered after 36 months of continuous coverage. " * 40,
    "¿Cuál es el periodo de espera?",
    "",
]


@pytest.fixture(scope="module")
def torch_vectors() -> np.ndarray:
    return np.array(LocalEmbedder(runtime="torch").embed_documents(TEXTS))


def test_onnx_vectors_match_pytorch_in_the_same_order(
    tmp_path: Path, torch_vectors: np.ndarray
) -> None:
    embedder = LocalEmbedder(cache_dir=tmp_path, batch_size=2)
    vectors = np.array(embedder.embed_documents(TEXTS))
    assert embedder.runtime == "onnx"
    assert vectors.shape == torch_vectors.shape == (len(TEXTS), 384)
    assert np.abs(vectors - torch_vectors).max() < 1e-4  # long text truncated alike
    query = np.array(embedder.embed_query(TEXTS[0]))
    assert float(query @ torch_vectors[0]) > 0.99999


def test_the_export_is_kept_reused_and_redone_when_damaged(
    tmp_path: Path, torch_vectors: np.ndarray
) -> None:
    LocalEmbedder(cache_dir=tmp_path).embed_query("warm up")
    [exported] = list(tmp_path.glob("*.onnx"))
    stamp = exported.stat().st_mtime_ns
    LocalEmbedder(cache_dir=tmp_path).embed_query("again")
    assert exported.stat().st_mtime_ns == stamp  # loaded, not exported again

    exported.write_bytes(b"not a model")  # e.g. a disk that filled up mid-write
    embedder = LocalEmbedder(cache_dir=tmp_path)
    vectors = np.array(embedder.embed_documents(TEXTS[:2]))
    assert embedder.runtime == "onnx"
    assert np.abs(vectors - torch_vectors[:2]).max() < 1e-4
    assert [p.name for p in tmp_path.iterdir()] == [exported.name]  # no partial files left
