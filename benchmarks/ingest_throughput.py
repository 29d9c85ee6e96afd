"""Ingest throughput for short row chunks with the default local model, and re-ingest speed.

Target (issue 3): >= 150 chunks/s on 2 cores; re-ingesting unchanged data >= 20x faster.
"""

from __future__ import annotations

import csv
import random
import tempfile
import time
from pathlib import Path

from benchmarks.setup import bench_database
from bot.db.engine import create_async_engine
from knowledge.ingest.options import IngestOptions
from knowledge.models.embeddings import LocalEmbedder
from knowledge.service import open_knowledge

ROWS = 3000
REGIONS = ["North", "South", "East", "West", "Central"]
PLANS = ["Plan A", "Plan B", "Plan C"]


def write_rows(path: Path, n: int) -> None:
    rng = random.Random(7)
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["policy_number", "holder", "plan", "region", "premium", "status"])
        for i in range(n):
            writer.writerow(
                [
                    f"{i:08d}",
                    f"Holder {rng.randint(1, 99999)}",
                    rng.choice(PLANS),
                    rng.choice(REGIONS),
                    rng.randint(5000, 60000),
                    rng.choice(["active", "lapsed", "renewal due"]),
                ]
            )


def main() -> None:
    embedder = LocalEmbedder()
    embedder.embed_documents(["warm up the model"])  # model load is not ingest work
    with tempfile.TemporaryDirectory() as tmp, bench_database() as (engine, url):
        path = Path(tmp) / "policies.csv"
        write_rows(path, ROWS)
        kb = open_knowledge(engine, create_async_engine(url), embedder)
        options = IngestOptions(keys=("policy_number",))
        started = time.perf_counter()
        first = kb.ingestor.ingest_paths([path], options)
        cold = time.perf_counter() - started
        started = time.perf_counter()
        again = kb.ingestor.ingest_paths([path], options)
        warm = time.perf_counter() - started
    assert not first.failed and again.count("unchanged") == 1
    print(
        f"first ingest: {first.chunks} chunks in {cold:.1f} s = {first.chunks / cold:.0f} chunks/s"
    )
    print(f"re-ingest unchanged: {warm * 1000:.0f} ms = {cold / warm:.0f}x faster")


if __name__ == "__main__":
    main()
