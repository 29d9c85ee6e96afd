"""Reranking fused candidates: a table under the financial statement the question names
ranks up.

"What was the capital expenditure in the cash flow statement?" is answered by the table
under "Consolidated Statements of Cash Flows", not by a discussion of the same figures in
the MD&A. Chunks carry their section path in metadata, so the statement a table sits under
is known without another query; the boost is small next to the fused score (cosine
similarity plus a scaled full-text rank), enough to order close candidates, not to lift an
unrelated chunk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from knowledge.search.fitted import fitted
from knowledge.search.retrieved import Hints, Retrieved
from knowledge.search.stages import ALL_STAGES, Stage
from knowledge.search.statements import statement_weight, statements_asked

# a table under the financial statement the question names; fitted on one half of the dev
# questions (`python -m benchmarks.fit_retrieval --number statement`)
STATEMENT_WEIGHT = fitted("statement_weight", 0.15)


def rerank(
    chunks: Sequence[Retrieved], hints: Hints, stages: frozenset[Stage] = ALL_STAGES
) -> list[Retrieved]:
    """Candidates re-ordered by their score plus the statement boost."""
    if Stage.STATEMENT_BOOST not in stages:
        return list(chunks)
    asked = statements_asked(hints.question)
    boosted = []
    for chunk in chunks:
        boost = _boost(chunk, asked)
        boosted.append(replace(chunk, score=chunk.score + boost, boost=boost))
    return sorted(boosted, key=lambda c: c.score, reverse=True)


def _boost(chunk: Retrieved, asked: frozenset[str]) -> float:
    section = str(chunk.metadata.get("section") or "")
    if not asked or chunk.kind != "table" or not section:
        return 0.0
    return STATEMENT_WEIGHT * statement_weight(section, asked)
