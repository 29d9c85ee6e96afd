"""Answer without a language model: quote the passages that best answer the question.

This keeps the bot useful when no LLM is configured (or the LLM is down): each bullet is a
sentence, table line or row taken verbatim from a retrieved source, so it can be wrong
only by being off-topic, never by inventing a number.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from rapidfuzz import fuzz

from bot.conversation.text import content_words, entities, number_mentions, readable, sentences
from bot.conversation.types import Bullet, Source

MAX_BULLET_CHARS = 300
_MIN_WORDS = 4  # shorter units are headings ("3.1 Room rent"), not answers
_KEEP_RATIO = 0.35  # drop candidates scoring under this share of the best one
_ASKS_QUANTITY = re.compile(
    r"\bhow (?:much|many|long|often|soon|old)\b|\b(?:limit|amount|percent(?:age)?|rate|cost"
    r"|price|premium|fee|charges?|period|duration|deductible|co-?pay|sum insured|age|days"
    r"|months|years|number of|total|maximum|minimum|max|min)\b|%",
    re.IGNORECASE,
)


# Verbs and adjectives that frame a yes/no question ("is dental covered?") without naming
# its subject; a passage must share something besides these to count as an answer.
_PREDICATE_WORDS = (
    "cover covered include included apply applicable allow allowed eligible available pay "
    "payable get need required require offer offered mean tell explain know want give show"
)


@cache
def _predicates() -> frozenset[str]:
    return frozenset(content_words(_PREDICATE_WORDS))


@dataclass(frozen=True)
class _Unit:
    source: Source
    rank: int  # position of the source in retrieval order, 0 = best
    text: str
    stems: frozenset[str]


def extractive_answer(
    question: str, sources: Sequence[Source], *, max_bullets: int = 4
) -> list[Bullet]:
    """Up to `max_bullets` quoted passages, best first, each citing its source.

    Passages are scored by the question words they contain, each word weighted by how
    rare it is across the sources (a word every source has says little), plus a small
    bonus for the source's retrieval rank, for naming the question's entities, and for
    carrying a number when the question asks how much or how long. Returns [] when no
    passage shares a word with the question beyond framing verbs like "covered".
    """
    asked = set(content_words(question))
    subject = asked - _predicates() or asked
    if not asked or not sources:
        return []
    units = [unit for rank, source in enumerate(sources) for unit in _units(source, rank)]
    weights = _rarity(asked, sources)
    names = entities(question)
    wants_number = bool(_ASKS_QUANTITY.search(question))
    scored = [
        (_score(unit, weights, names, wants_number, len(sources)), unit)
        for unit in units
        if unit.stems & subject
    ]
    if not scored:
        return []
    scored.sort(key=lambda pair: pair[0], reverse=True)
    floor = scored[0][0] * _KEEP_RATIO
    chosen: list[_Unit] = []
    for score, unit in scored:
        if len(chosen) >= max_bullets or score < floor:
            break
        if not any(_near_duplicate(unit, other) for other in chosen):
            chosen.append(unit)
    return [Bullet(_shorten(u, asked), (u.source.number,)) for u in chosen]


def _units(source: Source, rank: int) -> list[_Unit]:
    """Rows stay whole; table chunks split by line; prose splits into sentences."""
    shown = readable(source.text)
    is_row = shown != source.text or source.kind == "row"
    if is_row:
        pieces = [shown]
    elif source.kind == "table":
        pieces = [line.strip() for line in source.text.splitlines()]
    else:
        pieces = sentences(source.text)
    out: list[_Unit] = []
    for piece in pieces:
        if len(piece.split()) >= _MIN_WORDS or (is_row and piece):
            out.append(_Unit(source, rank, piece, frozenset(content_words(piece))))
    return out


def _rarity(asked: set[str], sources: Sequence[Source]) -> dict[str, float]:
    """Inverse document frequency of each question word across the retrieved sources."""
    stems = [set(content_words(readable(s.text))) for s in sources]
    n = len(stems)
    return {w: math.log(1 + n / (1 + sum(w in s for s in stems))) + 0.1 for w in asked}


def _score(
    unit: _Unit, weights: dict[str, float], names: Sequence[str], wants_number: bool, n: int
) -> float:
    total = sum(weights.values())
    coverage = sum(weights[w] for w in unit.stems if w in weights) / total
    rank_bonus = 0.15 * (1 - unit.rank / n)
    low = unit.text.lower()
    named = sum(1 for name in names if name.lower() in low)
    number_bonus = 0.2 if wants_number and number_mentions(unit.text) else 0.0
    sprawl = min(0.3, 0.1 * max(0, len(unit.text.split()) - 45) / 45)  # lists flattened by PDFs
    return coverage + rank_bonus + min(0.2, 0.1 * named) + number_bonus - sprawl


def _near_duplicate(a: _Unit, b: _Unit) -> bool:
    if fuzz.token_set_ratio(a.text, b.text) >= 90:
        return True
    union = a.stems | b.stems
    return bool(union) and len(a.stems & b.stems) / len(union) >= 0.8


def _shorten(unit: _Unit, asked: set[str]) -> str:
    text = unit.text
    if len(text) <= MAX_BULLET_CHARS:
        return text
    if readable(unit.source.text) != unit.source.text:
        text = _relevant_fields(text, asked)
    return trim(text, MAX_BULLET_CHARS)


def _relevant_fields(row: str, asked: set[str]) -> str:
    """For a wide row: the first two fields (they usually identify it) and the fields
    whose key or value the question mentions."""
    fields = row.split(", ")
    keep = [f for i, f in enumerate(fields) if i < 2 or set(content_words(f)) & asked]
    return ", ".join(keep)


def trim(text: str, limit: int = MAX_BULLET_CHARS) -> str:
    """Cut to `limit` characters at a sentence end if one is near, else at a word, with …"""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    stop = head.rfind(". ")
    if stop >= limit * 0.5:
        return head[: stop + 1]
    space = head.rfind(" ")
    cut = head[:space] if space >= limit * 0.5 else head
    return cut.rstrip(" ,;:") + "…"
