"""Hybrid retrieval latency at 100k chunks, excluding the query embedding.

Target (issue 3): p50 under 30 ms. Chunks are synthetic (Zipf-distributed words over a
5,000-word vocabulary, random unit vectors) so the table can be filled in a minute; the
HNSW index is built after loading, as a bulk ingest would.
"""

from __future__ import annotations

import json
import random
import sys
import time
import uuid
from collections.abc import Callable
from typing import Any, cast

import numpy as np
import psycopg
import sqlalchemy as sa

from benchmarks.setup import bench_database, report
from bot.db.engine import create_async_engine
from knowledge.models.embeddings import HashingEmbedder
from knowledge.search.budget import DEFAULT_BUDGET
from knowledge.service import open_knowledge
from knowledge.store import fulltext, index_meta

DIM = 384


def vocabulary(rng: random.Random, size: int = 5000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choice(letters) for _ in range(rng.randint(4, 10))) for _ in range(size)]


def fill(
    engine: sa.Engine,
    n: int,
    rng: random.Random,
    words: list[str],
    *,
    model: str = "bench-random",
    scope: str = "filler",
    access: Callable[[int], list[str]] | None = None,
) -> None:
    """`access`: the access list of chunk i (unset: open to everyone)."""
    weights = [1 / (i + 1) for i in range(len(words))]
    vectors = np.random.default_rng(3).standard_normal((n, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    with engine.begin() as conn:
        index_meta.record(conn, index_meta.IndexInfo(model, DIM))
        conn.execute(sa.text("DROP INDEX IF EXISTS kb_chunks_embedding"))
        raw = cast(psycopg.Connection[Any], conn.connection.dbapi_connection)
        with (
            raw.cursor() as cur,
            cur.copy(
                "COPY data_kb_chunks (text, metadata_, node_id, embedding, access) FROM STDIN"
            ) as copy,
        ):
            for i in range(n):
                text = " ".join(rng.choices(words, weights, k=60))
                meta = {
                    "scope": scope if i % 10 else "other",
                    "kind": "rulebook",
                    "title": f"doc{i // 50}",
                    "location": f"p. {i % 50}",
                    "key": str(i),
                    "hash": str(i),
                    "source_id": 1,
                }
                vec = "[" + ",".join(f"{x:.5f}" for x in vectors[i]) + "]"
                who = access(i) if access else ["everyone"]
                copy.write_row((text, json.dumps(meta), str(uuid.uuid4()), vec, who))
        started = time.perf_counter()
        index_meta.create_vector_index(conn)
        print(f"HNSW index over {n} chunks built in {time.perf_counter() - started:.0f} s")
        started = time.perf_counter()  # as an ingest does when it changed chunks:
        fulltext.refresh_scope_terms(conn, [scope, "other"])
        fulltext.refresh_stats(conn)
        print(f"words of {n} chunks counted in {time.perf_counter() - started:.1f} s")


def main(n: int = 100_000, queries: int = 200) -> None:
    rng = random.Random(11)
    words = vocabulary(rng)
    with bench_database() as (engine, url):
        fill(engine, n, rng, words)
        kb = open_knowledge(engine, create_async_engine(url), HashingEmbedder(DIM, "bench-random"))
        query_vectors = np.random.default_rng(5).standard_normal((queries, DIM))
        timings: dict[str, list[float]] = {"dense": [], "sparse": [], "total": []}
        for i in range(queries):
            text = " ".join(rng.choices(words[:2000], k=6))
            vector = (query_vectors[i] / np.linalg.norm(query_vectors[i])).tolist()
            started = time.perf_counter()
            result = kb.retriever.retrieve(
                text, scopes=["filler"], budget=DEFAULT_BUDGET, query_embedding=vector
            )
            timings["total"].append((time.perf_counter() - started) * 1000)
            timings["dense"].append(result.timings_ms.get("dense", 0.0))
            timings["sparse"].append(result.timings_ms.get("sparse", 0.0))
            assert result.chunks, "filtered query came back empty"
        for name, values in timings.items():
            report(name, values, width=6)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
