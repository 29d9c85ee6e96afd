"""The record of a search stored with each answer: every chunk retrieval brought back, and
what was sent to the model, numbered and exactly as sent."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.conversation.types import Source
from knowledge.search.retrieved import Retrieved


def retrieval_record(
    chunks: Sequence[Retrieved], sources: Sequence[Source]
) -> list[dict[str, Any]]:
    """Everything retrieval brought back; what was sent to the model carries its [number]
    and the text exactly as sent (definitions and graph facts included), so the stored
    answer is a complete example for rewriting or retraining a prompt."""
    sent = {s.chunk_id: s for s in sources}
    out: list[dict[str, Any]] = []
    for c in chunks:
        row: dict[str, Any] = {
            "chunk_id": c.node_id,
            "score": round(c.score, 5),
            "kind": c.kind,
            "text": c.text,
        }
        if (s := sent.pop(c.node_id, None)) is not None:
            row.update(number=s.number, text=s.text, title=s.title, location=s.location)
        out.append(row)
    out += [
        {"chunk_id": s.chunk_id, "score": s.score, "kind": s.kind, "text": s.text}
        | {"number": s.number, "title": s.title, "location": s.location}
        for s in sent.values()
    ]
    return out
