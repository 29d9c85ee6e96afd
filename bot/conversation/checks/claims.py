"""An answer's claims, each set beside the passage of its cited sources that says it.

Every check that compares an answer with its sources compares a claim (a sentence of a
bullet) with one passage: the sentence, list item or table row of the cited blocks that
shares most of its quantities and words. A number, a name or a "not" is only right where
that passage has it: "Plan B: 1% of sum insured" is wrong beside the row for Plan A, even
though the same block also holds a row for Plan B.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from bot.conversation.citations import is_not_found
from bot.conversation.passages import Passage, passages
from bot.conversation.quantities import Quantity, merged, quantities
from bot.conversation.text import contains_phrase, content_words, sentences
from bot.conversation.types import Bullet, Source


@dataclass(frozen=True)
class Claim:
    bullet: int  # index of the bullet it comes from
    text: str
    cited: tuple[Source, ...]  # the sources its bullet cites (that exist)
    dangling: bool  # the bullet cites nothing, or a source that does not exist


@dataclass(frozen=True)
class Match:
    """A claim and the cited passage that best says the same thing."""

    claim: Claim
    passage: Passage | None
    overlap: float  # share of the claim's words in the passage, its context and neighbours
    nearby: str = ""  # the sentences right before and after it, when the claim runs on

    @property
    def said(self) -> str:
        """The passage with what it belongs to (clause, lead-in, row label, headings) and,
        for prose, its neighbours: a claim may join two sentences of its source."""
        if self.passage is None:
            return ""
        p = self.passage
        return f"{p.path}\n{p.context}\n{p.text}\n{self.nearby}"


def claims(bullets: Sequence[Bullet], sources: Sequence[Source]) -> list[Claim]:
    """The sentences of every bullet; an honest "not found" bullet claims nothing."""
    by_number = {s.number: s for s in sources}
    out = []
    for i, bullet in enumerate(bullets):
        if is_not_found(bullet.text):
            continue
        cited = tuple(by_number[n] for n in bullet.source_numbers if n in by_number)
        dangling = not bullet.source_numbers or len(cited) < len(bullet.source_numbers)
        whole = " | " in bullet.text or any(_quoted_whole(bullet.text, s) for s in cited)
        parts = [bullet.text] if whole else sentences(bullet.text)
        for sentence in parts or [bullet.text]:
            out.append(Claim(i, sentence, cited, dangling))
    return out


def align(claim: Claim) -> Match:
    """The cited passage that quotes the claim, else the one sharing most of its
    quantities, then of its words."""
    wanted = set(content_words(claim.text))
    amounts = [q for q in merged(quantities(claim.text)) if not q.is_year]
    quoted = _flat(claim.text)
    best: tuple[tuple[bool, int, float, float], Passage] | None = None
    for source in claim.cited:
        for passage in passages_of(source):
            if passage.kind == "list" and not _quotes(quoted, passage):
                continue  # a whole list says too much to stand for one claim
            held = passage.stems | passage.context_stems | passage.path_stems
            overlap = len(wanted & held) / len(wanted) if wanted else 0.0
            shared = sum(1 for q in amounts if holds(passage, q))
            precision = len(wanted & passage.stems) / (len(passage.stems) or 1)
            key = (_quotes(quoted, passage), shared, overlap, precision)
            if best is None or key > best[0]:
                best = (key, passage)
    if best is None:
        return Match(claim, None, 0.0)
    passage = best[1]
    nearby = _neighbours(passage)
    if not nearby:
        return Match(claim, passage, best[0][2])
    held = passage.stems | passage.context_stems | passage.path_stems | set(content_words(nearby))
    overlap = len(wanted & held) / len(wanted) if wanted else 0.0
    return Match(claim, passage, overlap, nearby)


_PROSE = ("sentence", "item", "lead")


def _neighbours(passage: Passage) -> str:
    """The prose passages right before and after `passage` in its source."""
    if passage.kind not in _PROSE:
        return ""
    around = [
        p.text
        for p in passages_of(passage.source)
        if p.kind in _PROSE and abs(p.position - passage.position) == 1
    ]
    return "\n".join(around)


def _flat(text: str) -> str:
    return " ".join(text.lower().rstrip("…").split())


def _quoted_whole(text: str, source: Source) -> bool:
    flat = _flat(text)
    return any(_quotes(flat, p) for p in passages_of(source))


def _quotes(claim: str, passage: Passage) -> bool:
    """The claim is the passage's own words (or the passage is all of the claim)."""
    text = _flat(passage.text)
    return len(claim) >= 20 and (claim in _flat(passage.shown()) or text in claim)


def holds(passage: Passage, q: Quantity) -> bool:
    """The passage (its text, row label or lead-in) states quantity `q`."""
    return any(q.matches(other) for other in _amounts(f"{passage.context}\n{passage.text}"))


@lru_cache(maxsize=4096)
def passages_of(source: Source) -> tuple[Passage, ...]:
    return tuple(passages(source, 0))


@lru_cache(maxsize=4096)
def _amounts(text: str) -> tuple[Quantity, ...]:
    return tuple(merged(quantities(text)))


def entity_in(text: str, name: str) -> bool:
    """A phrase match, or every word of the name present (ids like 'A' case-sensitively),
    so "Plan A" is found in a row rendered as "plan: A" but not in one about Plan C."""
    if contains_phrase(text, name):
        return True
    parts = re.findall(r"[A-Za-z0-9]+", name)
    if not parts:
        return False
    for part in parts:
        flags = 0 if len(part) <= 2 else re.IGNORECASE
        if not re.search(rf"(?<![A-Za-z0-9]){re.escape(part)}(?![A-Za-z0-9])", text, flags):
            return False
    return True
