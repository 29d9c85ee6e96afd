"""Retrieval for readers who may read little: latency and how full their result lists are.

Synthetic chunks as in `retrieval_latency` (random unit vectors, Zipf words); all but one
in twenty are readable only by one group. Three readers ask the same questions: the
operator (no filter), someone outside the group (5% of the chunks readable: the iterative
HNSW scan must walk far to fill the dense list), and a group member. Reports per reader
the p50/p95 of the whole retrieval and of its dense query, and the share of dense lists that
came back full (50 chunks).

    python -m benchmarks.access_latency [CHUNKS]
"""

from __future__ import annotations

import random
import sys
import time

import numpy as np

from benchmarks.retrieval_latency import DIM, fill, vocabulary
from benchmarks.setup import bench_database, report
from bot.db.engine import create_async_engine
from knowledge.models.embeddings import HashingEmbedder
from knowledge.search.budget import DEFAULT_BUDGET
from knowledge.service import open_knowledge

READERS: dict[str, list[str] | None] = {
    "operator": None,
    "outsider": ["everyone", "eve@example.com"],
    "member": ["everyone", "dana@example.com", "group:finance"],
}


def main(n: int = 20_000, queries: int = 100) -> None:
    rng = random.Random(11)
    words = vocabulary(rng)
    with bench_database() as (engine, url):
        fill(
            engine,
            n,
            rng,
            words,
            access=lambda i: ["everyone"] if i % 20 == 1 else ["group:finance"],
        )
        kb = open_knowledge(engine, create_async_engine(url), HashingEmbedder(DIM, "bench-random"))
        vectors = np.random.default_rng(5).standard_normal((queries, DIM))
        texts = [" ".join(rng.choices(words[:2000], k=6)) for _ in range(queries)]
        for name, readers in READERS.items():
            total, dense, full = [], [], 0
            for i in range(queries):
                vector = (vectors[i] / np.linalg.norm(vectors[i])).tolist()
                started = time.perf_counter()
                result = kb.retriever.retrieve(
                    texts[i], scopes=["filler"], budget=DEFAULT_BUDGET, query_embedding=vector,
                    readers=readers,
                )  # fmt: skip
                total.append((time.perf_counter() - started) * 1000)
                dense.append(result.timings_ms.get("dense", 0.0))
                hits = kb.chunks.dense(vector, scopes=["filler"], limit=50, readers=readers)
                full += len(hits) == 50
            report(f"{name} total", total, width=6)
            report(f"{name} dense", dense, width=6)
            print(f"{name}: {full}/{queries} dense lists full")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
