"""The statement tables stage: the tables of the financial statement a question asks about,
joined to the candidates by their heading when neither search brought them."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence

from knowledge.search.retrieved import Hints, Retrieved, retrieved
from knowledge.search.statements import (
    measure_inputs,
    statement_weight,
    statements_asked,
    title_words,
)
from knowledge.store.chunks import ChunkHit, ChunkStore

STATEMENT_POOL = 200  # tables of the statements asked about, looked up by their headings
STATEMENT_TAKEN = 3  # ... of which this many (at least two a statement) join the candidates
TITLE_AS_TEXT = 0.5  # a heading naming the statement asked about, as a full-text match


def statement_tables(
    store: ChunkStore,
    vector: list[float],
    hints: Hints,
    found: list[Retrieved],
    scopes: Sequence[str],
    sources: Sequence[int] | None,
    *,
    readers: Sequence[str] | None = None,
    text_weight: float,
    timings: dict[str, float],
) -> list[Retrieved]:
    """The best few tables of the financial statement the question asks about ("has
    the quick ratio improved?": the balance sheet), found by their heading when neither
    search brought them: a statement is mostly figures and shares few words with a
    question about a measure read off it. A heading naming what was asked counts as
    half a full-text match (`text_weight`: the fusion's full-text weight); its similarity
    is at least the dense list's floor."""
    asked = statements_asked(hints.question)
    if not asked:
        return []
    started = time.perf_counter()
    hits = store.titled_tables(
        vector,
        title_words(asked),
        scopes=scopes,
        limit=STATEMENT_POOL,
        sources=sources,
        readers=readers,
    )
    timings["statements"] = round((time.perf_counter() - started) * 1000, 2)
    have = {c.node_id for c in found}
    floor = min((c.dense_similarity for c in found if c.dense_similarity), default=0.0)
    inputs = measure_inputs(hints.question)
    taken: list[ChunkHit] = []
    per_statement = max(2, STATEMENT_TAKEN // len(asked))
    for kind in sorted(asked):
        own = [
            h
            for h in hits
            if h.node_id not in have
            and statement_weight(str(h.metadata.get("section") or ""), frozenset({kind})) == 1.0
        ]
        own.sort(key=lambda h: not _holds_input(h.text, inputs))  # stable: nearest next
        taken += [h for h in own[:per_statement] if h not in taken]
    base = text_weight * TITLE_AS_TEXT
    return [retrieved(h, max(h.score, floor) + base, {}, h.score) for h in taken]


def _holds_input(text: str, inputs: Sequence[re.Pattern[str]]) -> bool:
    """A table chunk holds a line a measure asked about is computed from."""
    labels = [line.split(" | ", 1)[0].strip() for line in text.splitlines() if " | " in line]
    return any(p.search(label) for p in inputs for label in labels)
