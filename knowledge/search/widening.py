"""Small to big: a hit that is one part of a longer clause is widened to the clause.

Clauses longer than the embedding model reads are split into parts, and the part that
matches a question is often a fragment — one item of a list whose lead-in ("The claim is
to be supported with the following documents:") sits in the part before, or the end of a
sentence that began in it. Widening a hit to its neighbours (up to a budget) gives the
answer, and whoever reads the source, the whole clause; parts of the same clause found
separately are kept once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from knowledge.search.retrieved import Retrieved, clause_of, part_order
from knowledge.store.chunks import ChunkHit, ChunkStore

MAX_CLAUSE_CHARS = 2200
_PAGES = re.compile(r"^pp?\. \d+(?:–\d+)?")


def widen(
    chunks: Sequence[Retrieved],
    store: ChunkStore,
    *,
    readers: Sequence[str] | None = None,
    limit: int | None = None,
) -> list[Retrieved]:
    """Best first, each chunk that no better one's widening took, grown over its clause's
    neighbouring parts `readers` may read that no better one took (up to `limit` of
    them). A widened chunk ranks by the best of its parts: widened from the part after
    the one dense search ranked first, it holds that part."""
    wanted = list(chunks if limit is None else chunks[:limit])
    clauses = {c for chunk in wanted if (c := clause_of(chunk)) is not None}
    parts: dict[tuple[object, str], list[ChunkHit]] = {}
    pairs = [(int(str(sid)), section) for sid, section in clauses]
    for hit in store.section_chunks(pairs, readers=readers) if pairs else []:
        found: tuple[object, str] = (hit.metadata.get("source_id"), str(hit.metadata["section"]))
        parts.setdefault(found, []).append(hit)
    ranks = {c.node_id: c for c in chunks}
    taken: set[str] = set()
    out = []
    for chunk in chunks:
        if chunk.node_id in taken:
            continue
        clause = clause_of(chunk)
        siblings = parts.get(clause) if clause is not None else None
        used = {chunk.node_id}
        if siblings and len(siblings) > 1:
            free = [h for h in siblings if h.node_id == chunk.node_id or h.node_id not in taken]
            chunk, used = _widened(chunk, free)
        taken |= used
        out.append(_best_of(chunk, [ranks[i] for i in used if i in ranks]))
        if limit is not None and len(out) >= limit:
            break
    return out


def _best_of(chunk: Retrieved, parts: list[Retrieved]) -> Retrieved:
    """`chunk` ranked as the best of the candidate `parts` it holds, by each search."""
    dense = [p.dense_rank for p in parts if p.dense_rank is not None]
    sparse = [p.sparse_rank for p in parts if p.sparse_rank is not None]
    similar = [p.dense_similarity for p in parts if p.dense_similarity is not None]
    return replace(
        chunk,
        dense_rank=min(dense, default=chunk.dense_rank),
        sparse_rank=min(sparse, default=chunk.sparse_rank),
        dense_similarity=max(similar, default=chunk.dense_similarity),
    )


def _order(hit: ChunkHit) -> tuple[int, int]:
    return part_order(hit.metadata)


def _widened(chunk: Retrieved, siblings: list[ChunkHit]) -> tuple[Retrieved, set[str]]:
    """`chunk` grown over its clause's neighbouring parts, and the parts it took."""
    ordered = sorted(siblings, key=lambda h: (_pages(h) or (0, 0), _order(h)))
    at = next((i for i, h in enumerate(ordered) if h.node_id == chunk.node_id), None)
    if at is None:
        return chunk, {chunk.node_id}
    head, _, _ = chunk.text.partition("\n")
    bodies = [_body(h.text, head) for h in ordered]
    lo, hi = at, at
    size = len(bodies[at])
    while True:
        grown = False
        for j in (lo - 1, hi + 1):
            edge = ordered[lo] if j < lo else ordered[hi]
            near = 0 <= j < len(bodies) and _next_part(edge, ordered[j])
            if near and size + len(bodies[j]) <= MAX_CLAUSE_CHARS:
                size += len(bodies[j])
                lo, hi = min(lo, j), max(hi, j)
                grown = True
        if not grown:
            break
    used = {h.node_id for h in ordered[lo : hi + 1]}
    if lo == hi:
        return chunk, used
    lines: list[str] = []
    for body in bodies[lo : hi + 1]:
        for line in body.splitlines():
            if line.strip() and line not in lines[-3:]:  # a part repeats the last one's end
                lines.append(line)
    text = "\n".join([head, *lines])
    metadata = {**chunk.metadata, "widened": hi - lo + 1}
    pages = [_pages(h) for h in ordered[lo : hi + 1]]
    if not all(pages):
        return replace(chunk, text=text, metadata=metadata), used
    first = min(p[0] for p in pages if p)
    last = max(p[1] for p in pages if p)
    metadata |= {"page": first, "page_end": last} if last != first else {"page": first}
    shown = f"pp. {first}–{last}" if last != first else f"p. {first}"
    location = _PAGES.sub(shown, chunk.location)
    return replace(chunk, text=text, metadata=metadata, location=location), used


def _next_part(one: ChunkHit, other: ChunkHit) -> bool:
    """Two parts of one clause: consecutive part numbers on the same or the next page (a
    heading printed again elsewhere in the document is another clause)."""
    a, b = sorted((one, other), key=_order)
    if _order(b)[0] - _order(a)[0] != 1:
        return False
    pages_a, pages_b = _pages(a), _pages(b)
    if pages_a is None or pages_b is None:
        return True
    return 0 <= pages_b[0] - pages_a[1] <= 1


def _body(text: str, head: str) -> str:
    first, _, rest = text.partition("\n")
    return rest if first == head else text


def _pages(hit: ChunkHit) -> tuple[int, int] | None:
    page = hit.metadata.get("page")
    if page is None:
        return None
    first = int(str(page))
    return first, int(str(hit.metadata.get("page_end") or first))
