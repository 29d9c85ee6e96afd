"""The records every search stage reads and writes: the question's hints, a retrieved
chunk, the result of one search, and where a chunk sits in its clause."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from knowledge.search.naming import DocumentName
from knowledge.search.stages import ALL_STAGES, Stage
from knowledge.store.chunks import ChunkHit

_PART = re.compile(r"-c(\d+)(?:-(\d+))?$")


@dataclass(frozen=True)
class Hints:
    """What the question is about, as the answer side read it."""

    question: str  # without the names of documents it names


@dataclass(frozen=True)
class Retrieved:
    node_id: str
    kind: str
    text: str
    title: str
    location: str
    metadata: dict[str, Any]
    score: float
    dense_rank: int | None
    sparse_rank: int | None
    dense_similarity: float | None = None  # cosine similarity, when the dense search found it
    boost: float = 0.0  # what its heading added to the score: the statement boost (search.ranking)


@dataclass
class RetrievalResult:
    chunks: list[Retrieved]
    timings_ms: dict[str, float] = field(default_factory=dict)
    named: tuple[DocumentName, ...] = ()  # documents the question names (search kept to them)
    searched: str = ""  # the text searched, when it differs from the question
    stages: frozenset[Stage] = ALL_STAGES  # the stages above the core that ran


def retrieved(
    hit: ChunkHit, score: float, ranks: dict[str, int], similarity: float | None
) -> Retrieved:
    """A store hit as a candidate with its fused `score` and its rank in each list."""
    meta = hit.metadata
    return Retrieved(
        node_id=hit.node_id,
        kind=str(meta.get("kind", "rulebook")),
        text=hit.text,
        title=str(meta.get("title", "")),
        location=str(meta.get("location", "")),
        metadata=meta,
        score=score,
        dense_rank=ranks.get("dense"),
        sparse_rank=ranks.get("sparse"),
        dense_similarity=similarity,
    )


def clause_of(chunk: Retrieved) -> tuple[object, str] | None:
    """(source, section) of a rulebook chunk that is one part of a longer clause."""
    section = chunk.metadata.get("section")
    sid = chunk.metadata.get("source_id")
    if chunk.kind != "rulebook" or not section or sid is None:
        return None
    if not _PART.search(str(chunk.metadata.get("key") or "")):
        return None
    return (sid, str(section))


def part_order(metadata: dict[str, object]) -> tuple[int, int]:
    """A clause part's place in its clause, from its key ("...-c3-1" -> (3, 1))."""
    m = _PART.search(str(metadata.get("key") or ""))
    return (int(m.group(1)), int(m.group(2) or 0)) if m else (0, 0)
