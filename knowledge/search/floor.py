"""The dense floor: the stages above the core may reorder and add, but the chunks plain
dense search ranks first are never cut (issue 19: knowbot never loses to its own core).

A stage can fill a budget with parts of one table, or rank a titled clause about other
things above the passage that answers: without the floor the cut then drops what plain
dense search would have listed. How many of the densest chunks the floor holds is fitted
(`python -m benchmarks.fit_retrieval --number floor`)."""

from __future__ import annotations

from collections.abc import Sequence

from knowledge.search.budget import KIND_GROUP, REACH
from knowledge.search.fitted import fitted
from knowledge.search.retrieved import Retrieved, clause_of, part_order


def floor_size() -> int:
    """How many of the densest chunks are always kept (fitted; 0 turns the floor off)."""
    return int(fitted("dense_floor", 1))


def keep_densest(kept: list[Retrieved], ranked: Sequence[Retrieved], size: int) -> list[Retrieved]:
    """`kept` with the `size` densest of `ranked` in it: each one missing takes the place of
    the last kept chunk of its kind that is not among them. The order stays `ranked`'s."""
    densest = sorted((c for c in ranked if c.dense_rank is not None), key=_dense_rank)[:size]
    floor = {c.node_id for c in densest}
    out = list(kept)
    for chunk in densest:
        if any(_covers(other, chunk) for other in out):
            continue
        group = KIND_GROUP.get(chunk.kind, "documents")
        places = [
            i
            for i, other in enumerate(out)
            if other.node_id not in floor and KIND_GROUP.get(other.kind, "documents") == group
        ]
        if places:
            out.pop(places[-1])
            out.append(chunk)
    order = {c.node_id: i for i, c in enumerate(ranked)}
    return sorted(out, key=lambda c: order.get(c.node_id, len(order)))


def _dense_rank(chunk: Retrieved) -> int:
    return chunk.dense_rank if chunk.dense_rank is not None else 1 << 30


def _covers(kept: Retrieved, chunk: Retrieved) -> bool:
    """`kept` is `chunk`, has its text, or is a part of its clause whose widening brings it."""
    if kept.node_id == chunk.node_id or kept.text == chunk.text:
        return True
    if kept.metadata.get("hash") and kept.metadata.get("hash") == chunk.metadata.get("hash"):
        return True
    clause = clause_of(chunk)
    if clause is None or clause_of(kept) != clause:
        return False
    return abs(part_order(kept.metadata)[0] - part_order(chunk.metadata)[0]) <= REACH
