"""An embedder that remembers the vectors of texts it embedded lately.

Answering one question embeds some texts twice: the question for retrieval and again to
order passages by meaning, a quoted line to pick it and again to judge its support. Those
repeats cost the model's time (about 10 ms a text on two cores) and change nothing, so
answering goes through this memo; ingesting does not (its texts are new, and would only
push out the ones answers repeat).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence

from knowledge.models.embeddings import Embedder


class RememberedEmbedder:
    """`embedder`, each of the last `size` texts embedded once. A question is embedded
    as a passage is: every embedder here embeds a query as it embeds a document, and the
    checks compare the question with passages it was retrieved by."""

    def __init__(self, embedder: Embedder, *, size: int = 4096) -> None:
        self.inner = embedder
        self._size = size
        self._vectors: OrderedDict[str, list[float]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        known = self._recall(texts)
        new = [t for t in dict.fromkeys(texts) if t not in known]
        if new:
            known |= self._keep(zip(new, self.inner.embed_documents(new), strict=True))
        return [list(known[t]) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]

    def forget(self) -> None:
        """Drop every remembered vector (benchmarks measure questions about new texts)."""
        with self._lock:
            self._vectors.clear()

    def _recall(self, texts: Sequence[str]) -> dict[str, list[float]]:
        with self._lock:
            found = {t: self._vectors[t] for t in texts if t in self._vectors}
            for text in found:
                self._vectors.move_to_end(text)
        return found

    def _keep(self, pairs: Iterable[tuple[str, list[float]]]) -> dict[str, list[float]]:
        kept = dict(pairs)
        with self._lock:
            self._vectors.update(kept)
            while len(self._vectors) > self._size:
                self._vectors.popitem(last=False)
        return kept
