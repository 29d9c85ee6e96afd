"""Measuring retrieval on a BEIR-layout folder with the same retriever the bot uses."""

from __future__ import annotations

import csv
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from knowledge.documents import ChunkDraft, ChunkKind
from knowledge.ingest.ingestor import Ingestor
from knowledge.ingest.kinds import SourceKind
from knowledge.ingest.loading import Loaded
from knowledge.ingest.options import IngestOptions
from knowledge.search.budget import Budget
from knowledge.search.retriever import Retriever

EVAL_BUDGET = Budget(per_group={"documents": 50}, total=50)
MAX_CHARS = 1500  # long passages are indexed as several chunks of one document


@dataclass(frozen=True)
class BeirSet:
    corpus: dict[str, tuple[str, str]]  # id -> (title, text)
    queries: dict[str, str]
    qrels: dict[str, set[str]]


@dataclass
class RetrievalReport:
    queries: int
    documents: int
    recall: dict[int, float]
    mrr_at_10: float
    mode: str
    index_seconds: float
    query_ms_p50: float
    per_query: list[dict[str, object]] = field(default_factory=list)

    def as_json(self) -> dict[str, object]:
        return {
            "mode": self.mode,
            "queries": self.queries,
            "documents": self.documents,
            "recall@1": round(self.recall[1], 4),
            "recall@5": round(self.recall[5], 4),
            "recall@10": round(self.recall[10], 4),
            "mrr@10": round(self.mrr_at_10, 4),
            "index_seconds": round(self.index_seconds, 1),
            "query_ms_p50": round(self.query_ms_p50, 1),
        }


def read_beir(folder: Path) -> BeirSet:
    corpus = {}
    for line in (folder / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            doc = json.loads(line)
            corpus[str(doc["_id"])] = (str(doc.get("title") or ""), str(doc["text"]))
    queries = {}
    for line in (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            q = json.loads(line)
            queries[str(q["_id"])] = str(q["text"])
    qrels: dict[str, set[str]] = {}
    with (folder / "qrels.tsv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if int(row.get("score", 1) or 1) > 0:
                qrels.setdefault(row["query-id"], set()).add(row["corpus-id"])
    return BeirSet(corpus, {q: t for q, t in queries.items() if q in qrels}, qrels)


def corpus_drafts(data: BeirSet) -> list[ChunkDraft]:
    drafts = []
    for doc_id, (title, text) in data.corpus.items():
        body = f"{title}\n{text}".strip() if title else text
        for i, start in enumerate(range(0, max(len(body), 1), MAX_CHARS)):
            drafts.append(
                ChunkDraft(
                    key=f"{doc_id}#{i}",
                    kind=ChunkKind.RULEBOOK,
                    text=body[start : start + MAX_CHARS],
                    title=title or doc_id,
                    # a passage's title is its clause title, as a rulebook's heading is
                    metadata={"corpus_id": doc_id, **({"section": title} if title else {})},
                )
            )
    return drafts


def evaluate(
    folder: Path,
    ingestor: Ingestor,
    retriever: Retriever,
    *,
    mode: str = "hybrid",
    progress: Callable[[str, int, int], None] | None = None,
) -> RetrievalReport:
    """Index the corpus into a throwaway scope, run every query, score, remove the scope."""
    data = read_beir(folder)
    scope = f"eval-{uuid.uuid4().hex[:10]}"
    started = time.perf_counter()
    try:
        ingestor.ingest_loaded(
            f"beir:{folder.resolve()}",
            SourceKind.RULEBOOK,
            IngestOptions(scope=scope),
            Loaded(corpus_drafts(data)),
            progress,
        )
        index_seconds = time.perf_counter() - started
        return _score(data, retriever, scope, mode, index_seconds, progress)
    finally:
        ingestor.remove_scope(scope)


def _score(
    data: BeirSet,
    retriever: Retriever,
    scope: str,
    mode: str,
    index_seconds: float,
    progress: Callable[[str, int, int], None] | None,
) -> RetrievalReport:
    hits_at = {1: 0, 5: 0, 10: 0}
    reciprocal = 0.0
    latencies = []
    per_query: list[dict[str, object]] = []
    for n, (qid, text) in enumerate(data.queries.items(), start=1):
        started = time.perf_counter()
        result = retriever.retrieve(text, scopes=[scope], budget=EVAL_BUDGET, mode=mode)
        latencies.append((time.perf_counter() - started) * 1000)
        ranked = _doc_ranking([str(c.metadata.get("corpus_id")) for c in result.chunks])
        relevant = data.qrels[qid]
        for k in hits_at:
            hits_at[k] += bool(relevant & set(ranked[:k]))
        first = next((i for i, d in enumerate(ranked[:10], 1) if d in relevant), None)
        reciprocal += 1 / first if first else 0.0
        per_query.append({"query": qid, "rank": first})
        if progress and n % 50 == 0:
            progress("queries", n, len(data.queries))
    total = max(len(data.queries), 1)
    latencies.sort()
    return RetrievalReport(
        queries=len(data.queries),
        documents=len(data.corpus),
        recall={k: v / total for k, v in hits_at.items()},
        mrr_at_10=reciprocal / total,
        mode=mode,
        index_seconds=index_seconds,
        query_ms_p50=latencies[len(latencies) // 2] if latencies else 0.0,
        per_query=per_query,
    )


def _doc_ranking(doc_ids: list[str]) -> list[str]:
    """Chunks to documents: a document ranks where its best chunk ranks."""
    seen: dict[str, None] = {}
    for doc_id in doc_ids:
        seen.setdefault(doc_id, None)
    return list(seen)
