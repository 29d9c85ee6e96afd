"""The core's one list from two: dense hits and full-text hits fused by score."""

from __future__ import annotations

from dataclasses import dataclass, field

from knowledge.search.fitted import fitted
from knowledge.search.retrieved import Retrieved, retrieved
from knowledge.store.chunks import ChunkHit


@dataclass(frozen=True)
class FusionWeights:
    """Cosine similarity plus `sparse` times the chunk's ts_rank divided by the best ts_rank
    of this query (fitted: `benchmarks/fit_retrieval.py`). Postgres' ts_rank is a weaker
    ranker than BM25, and score fusion lets it break ties between close dense candidates
    without pulling weak text matches above strong semantic ones."""

    sparse: float = field(default_factory=lambda: fitted("fusion_sparse_weight", 0.2))


def fuse(
    dense: list[ChunkHit],
    sparse: list[ChunkHit],
    weights: FusionWeights,
    text_ranks: dict[str, float] | None = None,
) -> list[Retrieved]:
    """One list from the two: similarity plus the scaled full-text rank. A dense hit past
    the full-text list's cut still holds the words it holds (`text_ranks`); a full-text hit
    the dense search missed gets the dense list's floor: a rare word the question shares
    ("hydrocele") is evidence a sentence model does not weigh."""
    hits = {h.node_id: h for h in [*sparse, *dense]}
    ranks: dict[str, dict[str, int]] = {n: {} for n in hits}
    for name, ranked in (("dense", dense), ("sparse", sparse)):
        for rank, hit in enumerate(ranked, start=1):
            ranks[hit.node_id][name] = rank
    similarity = {h.node_id: h.score for h in dense}
    floor = min(similarity.values(), default=0.0)
    best_text = max((h.score for h in sparse), default=0.0) or 1.0
    text = (text_ranks or {}) | {h.node_id: h.score for h in sparse}
    scores = {
        n: similarity.get(n, floor) + weights.sparse * text.get(n, 0.0) / best_text for n in hits
    }
    # ties (chunks only one list found share its floor) go to the better-ranked, never to
    # the order of a set, which changes from one process to the next
    ordered = sorted(scores, key=lambda n: (-scores[n], min(ranks[n].values()), n))
    return [retrieved(hits[n], scores[n], ranks[n], similarity.get(n)) for n in ordered]
