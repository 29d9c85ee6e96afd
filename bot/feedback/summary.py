"""Counting ratings the ways the report asks about them. Pure functions over rated
answers: a rating is one person's current verdict on one answer."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date

from bot.store.rated import RatedAnswer

CONFIDENCE_ORDER = ("High", "Medium", "Low")


@dataclass(frozen=True)
class Share:
    label: str
    up: int
    down: int

    @property
    def n(self) -> int:
        return self.up + self.down

    @property
    def positive(self) -> float:
        return self.up / self.n if self.n else 0.0


@dataclass
class DownVoted:
    question: str
    down: int = 0
    up: int = 0
    answers: int = 0
    reasons: list[str] = field(default_factory=list)


def totals(items: Iterable[RatedAnswer]) -> Share:
    items = list(items)
    return Share("all", sum(i.up for i in items), sum(i.down for i in items))


def by_day(items: Iterable[RatedAnswer]) -> list[tuple[date, int, int]]:
    """(day, positive, negative) for each day a rating was given or last changed."""
    up: Counter[date] = Counter()
    down: Counter[date] = Counter()
    for item in items:
        for r in item.ratings:
            (up if r.rating > 0 else down)[r.updated_at.date()] += 1
    return [(d, up[d], down[d]) for d in sorted(set(up) | set(down))]


def shares(
    items: Iterable[RatedAnswer],
    key: Callable[[RatedAnswer], str],
    order: Sequence[str] = (),
) -> list[Share]:
    """Ratings grouped by `key`; groups in `order` first (even when empty), then by size."""
    up: Counter[str] = Counter()
    down: Counter[str] = Counter()
    for item in items:
        up[key(item)] += item.up
        down[key(item)] += item.down
    rest = sorted(set(up) - set(order), key=lambda k: (-(up[k] + down[k]), k))
    return [Share(k, up[k], down[k]) for k in [*order, *rest]]


def confidence_of(item: RatedAnswer) -> str:
    return str(item.answer["confidence"])


def intent_of(item: RatedAnswer) -> str:
    return str(item.answer["intent"])


def prompt_of(item: RatedAnswer) -> str:
    return str(item.answer["prompt"])


def most_down_voted(items: Iterable[RatedAnswer], top: int = 10) -> list[DownVoted]:
    """Questions (as rewritten, so follow-ups group with what they meant) by down-votes."""
    groups: dict[str, DownVoted] = {}
    for item in items:
        if not item.down:
            continue
        text = str(item.answer["rewritten_question"] or item.answer["question"])
        group = groups.setdefault(_question_key(text), DownVoted(text))
        group.down += item.down
        group.up += item.up
        group.answers += 1
        group.reasons += item.reasons
    ranked = sorted(groups.values(), key=lambda g: (-g.down, g.up, g.question))
    return ranked[:top]


def down_voted_sources(items: Iterable[RatedAnswer], top: int = 10) -> list[tuple[str, int]]:
    """Sources cited by down-voted answers, by how many such answers cite them."""
    counts: dict[str, int] = defaultdict(int)
    for item in items:
        if item.verdict != "negative":
            continue
        for label in {_source_label(s) for s in item.answer["sources"]}:
            counts[label] += 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top]


def _source_label(source: dict[str, object]) -> str:
    title = str(source.get("title") or source.get("chunk_id") or "?")
    location = str(source.get("location") or "")
    return f"{title} — {location}" if location else title


def _question_key(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().lower()).rstrip(" ?!.")
