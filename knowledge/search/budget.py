"""The core's cut: one candidate per text and per FAQ, and a budget per kind of source."""

from __future__ import annotations

from dataclasses import dataclass

from knowledge.documents import ChunkKind
from knowledge.search.retrieved import Retrieved

KIND_GROUP = {
    ChunkKind.RULEBOOK.value: "documents",
    ChunkKind.TABLE.value: "documents",
    ChunkKind.ROW.value: "rows",
    ChunkKind.FACT.value: "rows",
    ChunkKind.FAQ.value: "faq",
    ChunkKind.GLOSSARY.value: "glossary",
    ChunkKind.TRIPLE.value: "graph",
}


@dataclass(frozen=True)
class Budget:
    """How many chunks of each group may come back, and how many in all."""

    per_group: dict[str, int]
    total: int


DEFAULT_BUDGET = Budget(
    per_group={"documents": 6, "rows": 5, "faq": 2, "glossary": 2, "graph": 2}, total=8
)


def dedupe(chunks: list[Retrieved]) -> list[Retrieved]:
    """One chunk per identical text, and one per FAQ (paraphrases point at the same FAQ)."""
    seen: set[str] = set()
    out = []
    for chunk in chunks:
        marks = {f"text:{chunk.metadata.get('hash') or chunk.text}"}
        if chunk.metadata.get("faq_key"):
            marks.add(f"faq:{chunk.metadata['source_id']}:{chunk.metadata['faq_key']}")
        if marks & seen:
            continue
        seen |= marks
        out.append(chunk)
    return out


def apply_budget(chunks: list[Retrieved], budget: Budget) -> list[Retrieved]:
    """The best chunks within each group's share, up to the total. Shares divide the total
    when kinds compete; what one kind leaves unused (a scope without rows) goes to the best
    of the rest, up to the widest share any kind has: a question whose intent favours rows
    gets as many document chunks from a documents-only scope as a question about
    documents would."""
    taken: dict[str, int] = {}
    within: list[Retrieved] = []
    beyond: list[Retrieved] = []
    for chunk in chunks:
        group = group_of(chunk)
        if taken.get(group, 0) >= budget.per_group.get(group, 0):
            beyond.append(chunk)
            continue
        taken[group] = taken.get(group, 0) + 1
        within.append(chunk)
    if len(within) >= budget.total:
        return within[: budget.total]
    widest = max(budget.per_group.values(), default=0)
    extra: list[Retrieved] = []
    for chunk in beyond:
        if len(within) + len(extra) >= budget.total:
            break
        group = group_of(chunk)
        if taken.get(group, 0) < widest:
            taken[group] = taken.get(group, 0) + 1
            extra.append(chunk)
    kept = {id(c) for c in (*within, *extra)}
    return [c for c in chunks if id(c) in kept]


def group_of(chunk: Retrieved) -> str:
    """The budget group a chunk counts against."""
    return KIND_GROUP.get(chunk.kind, "documents")
