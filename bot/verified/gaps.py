"""Gaps for the weekly digest: per experts channel, the questions of the week that were
declined or rated down, grouped by meaning, with how many different people asked, each
group linking to its escalation (or, for a decline nobody escalated, to the answer)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from bot.conversation.verified import Embed
from bot.store.rated import Delivery, RatedAnswerStore
from bot.verified.escalation import Escalator

# Questions at least this close (cosine) are one gap. Chosen by eye on paraphrases with
# the bundled MiniLM (same question reworded: 0.8-0.95; different questions on one
# policy: below 0.7); a tighter value only splits a group in two, nothing is lost.
SAME_MEANING = 0.8

Link = Callable[[Delivery], str | None]


@dataclass
class Gap:
    question: str  # the first asking, as rewritten
    askers: set[str] = field(default_factory=set)
    links: list[str] = field(default_factory=list)
    vector: Sequence[float] = ()


@dataclass(frozen=True)
class ExpertsGaps:
    platform: str
    experts_channel: str
    gaps: tuple[Gap, ...]


@dataclass(frozen=True)
class _Item:
    platform: str
    experts: str
    question: str
    askers: tuple[str, ...]
    link: str | None


def weekly_gaps(
    escalator: Escalator,
    rated: RatedAnswerStore,
    *,
    since: datetime,
    until: datetime,
    embed: Embed | None,
    link: Link,
) -> tuple[ExpertsGaps, ...]:
    items = _escalated(escalator, since, until, link) + _declined(
        escalator, rated, since, until, link
    )
    if not items:
        return ()
    vectors = embed([i.question for i in items]) if embed else [[] for _ in items]
    groups: dict[tuple[str, str], list[Gap]] = {}
    for item, vector in zip(items, vectors, strict=True):
        gaps = groups.setdefault((item.platform, item.experts), [])
        gap = next((g for g in gaps if _same(g, item, vector)), None)
        if gap is None:
            gap = Gap(item.question, vector=vector)
            gaps.append(gap)
        gap.askers.update(item.askers)
        if item.link and item.link not in gap.links:
            gap.links.append(item.link)
    return tuple(
        ExpertsGaps(platform, experts, tuple(sorted(gaps, key=lambda g: -len(g.askers))))
        for (platform, experts), gaps in sorted(groups.items())
    )


def _escalated(escalator: Escalator, since: datetime, until: datetime, link: Link) -> list[_Item]:
    return [
        _Item(
            e.platform,
            e.experts_channel,
            e.question,
            askers,
            link(Delivery(e.platform, e.experts_channel, e.message_id)) if e.message_id else None,
        )
        for e, askers in escalator.store.questions_between(since, until)
    ]


def _declined(
    escalator: Escalator, rated: RatedAnswerStore, since: datetime, until: datetime, link: Link
) -> list[_Item]:
    declined = escalator.store.declined_between(since, until)
    deliveries = rated.deliveries([d.answer_id for d in declined])
    items = []
    for d in declined:
        experts = escalator.experts_for(d.platform, d.channel)
        if experts:
            where = deliveries.get(d.answer_id)
            items.append(
                _Item(d.platform, experts, d.question, (d.user_id,), link(where) if where else None)
            )
    return items


def _same(gap: Gap, item: _Item, vector: Sequence[float]) -> bool:
    if gap.vector and vector:
        return _cosine(gap.vector, vector) >= SAME_MEANING
    return gap.question.lower() == item.question.lower()


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0
