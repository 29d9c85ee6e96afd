"""Verified answers into the store, embedded under the index's model; and embedded again when
that model changes (their similarities are only ever compared under one model)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from bot.conversation.verified import Embed
from bot.store.verified import NewVerified, VerifiedStore
from bot.verified.entries import Entry

log = logging.getLogger(__name__)


def import_entries(
    store: VerifiedStore, entries: Sequence[Entry], *, embed: Embed, model: str
) -> list[int]:
    """Embed questions and answers in one batch and store them all in one transaction."""
    vectors = embed([e.question for e in entries] + [e.answer for e in entries])
    questions, answers = vectors[: len(entries)], vectors[len(entries) :]
    return store.add(
        [
            NewVerified(
                scope=e.scope,
                question=e.question,
                answer=e.answer,
                author=e.author,
                sources=e.sources,
                question_embedding=q,
                answer_embedding=a,
                embed_model=model,
            )
            for e, q, a in zip(entries, questions, answers, strict=True)
        ]
    )


def reembed_stale(store: VerifiedStore, *, embed: Embed, model: str) -> int:
    """Embed again every verified answer another model embedded; how many there were."""
    stale = store.stale(model)
    if not stale:
        return 0
    vectors = embed([v.question for v in stale] + [v.answer for v in stale])
    for i, item in enumerate(stale):
        store.set_embeddings(
            item.id, question=vectors[i], answer=vectors[len(stale) + i], model=model
        )
    log.info("embedded %d verified answers again with %s", len(stale), model)
    return len(stale)
