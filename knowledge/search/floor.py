"""The dense floor: the stages above the core may reorder and add, but the chunks plain
dense search ranks first are never cut (issue 19: knowbot never loses to its own core).

A stage can fill a budget with parts of one table, or rank other passages above the one
that answers: without the floor the cut then drops what plain dense search would have
listed. How many of the densest chunks the floor holds is fitted
(`python -m benchmarks.fit_retrieval --number floor`)."""

from __future__ import annotations

from collections.abc import Sequence

from knowledge.search.budget import group_of
from knowledge.search.fitted import fitted
from knowledge.search.retrieved import Retrieved


def floor_size() -> int:
    """How many of the densest chunks are always kept (fitted; 0 turns the floor off)."""
    return int(fitted("dense_floor", 1))


def keep_densest(kept: list[Retrieved], ranked: Sequence[Retrieved], size: int) -> list[Retrieved]:
    """`kept` with the `size` densest of `ranked` in it: each one the cut dropped takes the
    place of the last kept chunk of its kind that is not among them. A widened chunk ranks
    by its densest part (see widening). The order stays `ranked`'s."""
    densest = sorted(
        (c for c in ranked if c.dense_rank is not None and c.dense_rank <= size),
        key=lambda c: c.dense_rank or 0,
    )
    floor = {c.node_id for c in densest}
    out = list(kept)
    for chunk in densest:
        if chunk in out:
            continue
        places = [
            i
            for i, other in enumerate(out)
            if other.node_id not in floor and group_of(other) == group_of(chunk)
        ]
        if places:
            out.pop(places[-1])
            out.append(chunk)
    order = {c.node_id: i for i, c in enumerate(ranked)}
    return sorted(out, key=lambda c: order.get(c.node_id, len(order)))
