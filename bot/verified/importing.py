"""Verified answers into the store, embedded under the index's model; and embedded again when
that model changes (their similarities are only ever compared under one model)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace

from bot.conversation.verified import Embed, VerifiedSource
from bot.store.verified import NewVerified, VerifiedStore
from bot.verified.entries import Entry

log = logging.getLogger(__name__)

# chunk ids -> the (source id, uri) each came from (Knowledge.chunk_sources)
Locate = Callable[[Sequence[str]], dict[str, tuple[int, str]]]


def import_entries(
    store: VerifiedStore,
    entries: Sequence[Entry],
    *,
    embed: Embed,
    model: str,
    locate: Locate | None = None,
) -> list[int]:
    """Embed questions and answers in one batch and store them all in one transaction.
    `locate` names the knowledge source of each source given only as a chunk id, so that a
    change of that source suspends the answer."""
    if locate is not None:
        entries = located(entries, locate)
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


def located(entries: Sequence[Entry], locate: Locate) -> list[Entry]:
    wanted = [s.chunk_id for e in entries for s in e.sources if s.chunk_id and s.source_id is None]
    found = locate(wanted) if wanted else {}
    return [replace(e, sources=tuple(_with_source(s, found) for s in e.sources)) for e in entries]


def _with_source(source: VerifiedSource, found: dict[str, tuple[int, str]]) -> VerifiedSource:
    if source.source_id is not None or source.chunk_id not in found:
        return source
    source_id, uri = found[source.chunk_id]
    return replace(source, source_id=source_id, uri=source.uri or uri)


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
