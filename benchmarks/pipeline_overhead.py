"""Pipeline time without a language model, with the local embedding model, at 10k chunks.

Target (issue 4): p50 under 60 ms, p95 under 150 ms on 2 cores. The index holds the bundled
example knowledge (embedded for real) plus synthetic filler chunks up to 10k; questions go
through the whole pipeline (claim, history, rewrite, intent, retrieval, context, quoted
answer, scoring, persistence). The scorer's tokenisation cache is emptied before each
question, so repeating the questions does not flatter it.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
import uuid
from pathlib import Path

from benchmarks.retrieval_latency import fill, vocabulary
from benchmarks.setup import bench_database, report
from bot.adapters.console import console_turn
from bot.conversation.text import clear_caches
from bot.settings import Settings
from bot.wiring import open_services
from knowledge.ingest.options import IngestOptions

QUESTIONS = [
    "What is the PED waiting period?",
    "Is cataract surgery covered for Plan B?",
    "How do I submit a reimbursement claim?",
    "Which region had the highest claims paid in 2026-09?",
    "Is the claims paid in East increasing?",
    "What documents are needed for a death claim?",
    "What is the room rent limit for Plan A?",
    "and for Plan C?",
    "How long does the TPA take to decide on cashless requests?",
    "Who handles claims for Acme Health Shield?",
]


def main(total_chunks: int = 10_000, rounds: int = 5) -> None:
    examples = Path(__file__).resolve().parent.parent / "examples" / "knowledge"
    with bench_database() as (engine, url):
        settings = Settings(_env_file=None, DATABASE_URL=url.render_as_string(hide_password=False))  # type: ignore[call-arg]
        with open_services(settings) as services:
            kb = services.knowledge
            kb.ingestor.ingest_paths([examples], IngestOptions())
            rng = random.Random(1)
            fill(
                engine,
                total_chunks - kb.chunks.count(),
                rng,
                vocabulary(rng),
                model=settings.embed_model,
                scope="default",
            )
            services.pipeline.answer_now(console_turn("warm up", thread="w", scopes=("default",)))
            steps: dict[str, list[float]] = {}
            for _ in range(rounds):
                thread = str(uuid.uuid4())
                for q in QUESTIONS:
                    clear_caches()  # as if every chunk and answer were new to the scorer
                    kb.embedder.forget()  # and to the embedding model
                    started = time.perf_counter()
                    answer = services.pipeline.answer_now(
                        console_turn(q, thread=thread, scopes=("default",))
                    )
                    assert answer is not None
                    wall = (time.perf_counter() - started) * 1000
                    steps.setdefault("end to end (with storing)", []).append(wall)
                    for name, ms in answer.timings_ms.items():
                        steps.setdefault(name, []).append(ms)
            print(f"{kb.chunks.count()} chunks, {rounds * len(QUESTIONS)} questions")
            for name, values in sorted(steps.items(), key=lambda kv: -statistics.median(kv[1])):
                report(name, values)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
