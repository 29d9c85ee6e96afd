"""How the local embedder's batch size changes its speed, on the two loads it serves.

A question's scoring embeds a few dozen sentences of mixed length; an ingest embeds long
chunks. Texts are encoded longest first and each batch is padded to its longest text, so
a smaller batch pads less. Usage: `python -m benchmarks.embed_batches [SIZE ...]`.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Sequence

from bot.settings import Settings
from knowledge.models.embeddings import LocalEmbedder

TEXT = (
    "the policy covers hospital expenses incurred during the period of insurance subject to "
    "limits and exclusions stated in the schedule revenue increased compared with prior year"
)


def _texts(rng: random.Random, count: int, low: int, high: int) -> list[str]:
    words = TEXT.split()
    return [" ".join(rng.choices(words, k=rng.randint(low, high))) for _ in range(count)]


def _median_ms(embedder: LocalEmbedder, texts: Sequence[str], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        embedder.embed_documents(texts)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main(sizes: Sequence[int]) -> None:
    rng = random.Random(1)
    loads = {
        "question: 40 sentences, 5-60 words": (_texts(rng, 40, 5, 60), 15),
        "ingest: 128 chunks, 120-260 words": (_texts(rng, 128, 120, 260), 3),
    }
    cache = Settings().data_dir / "models"
    for name, (texts, repeats) in loads.items():
        for size in sizes:
            embedder = LocalEmbedder(batch_size=size, cache_dir=cache)
            embedder.embed_documents(["warm up"])
            print(f"{name:38s} batch {size:3d}: {_median_ms(embedder, texts, repeats):8.1f} ms")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [64, 16, 64, 16])
