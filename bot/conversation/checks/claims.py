"""An answer's claims, each set beside the passage of its cited sources that says it.

Every check that compares an answer with its sources compares a claim (a sentence of a
bullet, or one of two statements a sentence runs together) with one passage: the
sentence, list item or table row of the cited blocks that quotes it, else shares most of
its quantities, then says most nearly the same thing — by meaning when a similarity
function is given (see meaning), else by shared words. A number, a name or a "not" is
only right where that passage has it: "Plan B: 1% of sum insured" is wrong beside the row
for Plan A, even though the same block also holds a row for Plan B.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from bot.conversation.checks.meaning import Meaning
from bot.conversation.citations import is_not_found
from bot.conversation.entities import contains_phrase
from bot.conversation.passages import Passage, passages
from bot.conversation.quantities import (
    Quantity,
    merged,
    number_words,
    quantities,
    spelled_numbers,
)
from bot.conversation.text import content_words, sentences, unglued
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
    similarity: float | None = None  # by meaning, when it was measured

    @property
    def said(self) -> str:
        """The passage with what it belongs to (clause, lead-in, row label, headings) and
        its neighbours: a claim may join two sentences of its source, or two cells of a
        row."""
        return f"{self.own}\n{self.nearby}" if self.passage is not None else ""

    @property
    def own(self) -> str:
        """The passage with what it belongs to, without its neighbours."""
        if self.passage is None:
            return ""
        p = self.passage
        return f"{p.path}\n{p.context}\n{p.text}"


def claims(bullets: Sequence[Bullet], sources: Sequence[Source]) -> list[Claim]:
    """The sentences of every bullet; an honest "not found" bullet claims nothing."""
    by_number = {s.number: s for s in sources}
    out = []
    for i, bullet in enumerate(bullets):
        if is_not_found(bullet.text):
            continue
        cited = tuple(by_number[n] for n in bullet.source_numbers if n in by_number)
        dangling = not bullet.source_numbers or len(cited) < len(bullet.source_numbers)
        text = unled(bullet.text)
        whole = " | " in text or any(_quoted_whole(text, s) for s in cited)
        parts = [text] if whole else [p for s in sentences(text) for p in _said(s)]
        for sentence in parts or [text]:
            out.append(Claim(i, sentence, cited, dangling))
    return out


# "According to the report, ...", "The policy says that ...": where a claim comes from, not
# what it says (the nouns are kinds of document, not of any one domain).
_DOCUMENT = (
    r"(?:policy|policies|report|filing|notes?|document|rulebook|rules|terms|contract|agreement"
    r"|statements?|table|sources?|context|data|handbook|guide|manual|plan document|wording)"
)
_LEAD_IN = re.compile(
    rf"^(?:(?:according to|per|as per|under|as stated in|in|from) (?:the |this |our |your )?"
    rf"{_DOCUMENT},\s+|(?:in short|in summary|overall|in brief|briefly),\s+"
    r"|(?:yes|no)(?:[.,:;!]|\s[—–-])\s+"
    rf"|(?:the|this|our) {_DOCUMENT} (?:says|states|notes|shows|explains|reports|specifies"
    rf"|mentions|provides)(?: that)?,?\s+|as the {_DOCUMENT} puts it,\s+)",
    re.IGNORECASE,
)


def unled(text: str) -> str:
    """The bullet without a lead-in naming where it comes from ("Per the filing, ...")."""
    m = _LEAD_IN.match(text)
    if not m or len(text) - m.end() < 12:
        return text
    rest = text[m.end() :]
    return rest[:1].upper() + rest[1:]


_JOINS = re.compile(r";\s+|,\s+(?:and|but)\s+(?!then\b)|\s+[—–]\s+")
MIN_PART_WORDS = 3  # each statement of a run-on sentence says at least this much


def _said(sentence: str) -> list[str]:
    """The statements a sentence runs together ("A; b", "A, and b", "A, but b", "A — b"), each
    saying something of its own; else the sentence."""
    parts = [p.strip() for p in _JOINS.split(sentence) if p.strip()]
    if len(parts) < 2 or any(len(content_words(p)) < MIN_PART_WORDS for p in parts):
        return [sentence]
    return parts


Key = tuple[bool, int, float, float]
MEANING_POOL = 4  # passages (best by words and quantities) compared by meaning
VERBATIM = 0.9  # a claim sharing this share of its words with a passage needs no meaning


def candidates(claim: Claim) -> list[tuple[Key, Passage]]:
    """The cited passages, best first: one quoting the claim, then by shared quantities,
    then by the share of the claim's words they hold."""
    return list(_candidates(claim))


def _claim_words(text: str) -> set[str]:
    """The words a passage must share with a claim: its numbers, written in words too
    ("one", "thousand"), are quantities the numbers check reads."""
    return set(content_words(text)) - number_words()


@lru_cache(maxsize=512)
def _candidates(claim: Claim) -> tuple[tuple[Key, Passage], ...]:
    wanted = _claim_words(claim.text)
    amounts = [q for q in merged(quantities(claim.text)) if not q.is_year]
    quoted = _flat(claim.text)
    found: list[tuple[Key, Passage]] = []
    for source in claim.cited:
        for passage in passages_of(source):
            if passage.kind == "list" and not _quotes(quoted, passage):
                continue  # a whole list says too much to stand for one claim
            held = passage.stems | passage.context_stems | passage.path_stems
            overlap = len(wanted & held) / len(wanted) if wanted else 0.0
            shared = sum(1 for q in amounts if holds(passage, q))
            precision = len(wanted & passage.stems) / (len(passage.stems) or 1)
            found.append(((_quotes(quoted, passage), shared, overlap, precision), passage))
    found.sort(key=lambda kp: kp[0], reverse=True)
    return tuple(found)


def needs_meaning(claim: Claim) -> list[Passage]:
    """The passages to compare `claim` with by meaning; none when its words decide (it
    quotes a passage, or one holds nearly all of its words: an extractive answer)."""
    found = candidates(claim)
    if not found or found[0][0][0] or found[0][0][2] >= VERBATIM:
        return []
    return [p for _, p in found[:MEANING_POOL]]


def meant(passage: Passage) -> str:
    """What a passage says, as compared by meaning: with its clause or lead-in."""
    return passage.shown()


def align(claim: Claim, meaning: Meaning | None = None) -> Match:
    """The cited passage that quotes the claim, else the one sharing most of its
    quantities, then saying most nearly the same (by meaning when given, else by
    words)."""
    found = candidates(claim)
    if not found:
        return Match(claim, None, 0.0)
    key, passage = found[0]
    similarity = None
    pool = needs_meaning(claim) if meaning is not None else []
    if meaning is not None and pool:
        scored = [
            (k[1], meaning.similarity(claim.text, meant(p)), k, p) for k, p in found[: len(pool)]
        ]
        _, similarity, key, passage = max(scored, key=lambda s: (s[0], s[1]))
    wanted = _claim_words(claim.text)
    nearby = "\n".join(filter(None, [_neighbours(passage), *_joined_rows(claim, passage)]))
    if not nearby:
        return Match(claim, passage, key[2], similarity=similarity)
    held = passage.stems | passage.context_stems | passage.path_stems | set(content_words(nearby))
    overlap = len(wanted & held) / len(wanted) if wanted else 0.0
    return Match(claim, passage, overlap, nearby, similarity)


_PROSE = ("sentence", "item", "lead")


def _neighbours(passage: Passage) -> str:
    """The prose passages right before and after `passage` in its source; for a table
    cell, the other cells of its row (a claim may join "8.00%" and "October 1, 2021")."""
    if passage.kind == "row" and passage.label:
        return "\n".join(
            p.text
            for p in passages_of(passage.source)
            if p.kind == "row" and p.label == passage.label and p is not passage
        )
    if passage.kind not in _PROSE:
        return ""
    around = [
        p.text
        for p in passages_of(passage.source)
        if p.kind in _PROSE and abs(p.position - passage.position) == 1
    ]
    return "\n".join(around)


def _joined_rows(claim: Claim, passage: Passage) -> list[str]:
    """Other rows of the cited tables whose figure the claim states: a claim may join rows
    ("trade names at 3 years and non-compete agreements at 5"), each named beside its own
    figure (a cell's value, not a figure of its label: "up to three months"). A row
    named without its figure is not joined (a swapped label)."""
    amounts = [q for q in merged(quantities(claim.text)) if not q.is_year]
    if not amounts:
        return []
    return [
        f"{p.label} {p.text}"
        for s in claim.cited
        for p in passages_of(s)
        if p.kind == "row"
        and p.label != passage.label
        and any(q.matches(o) for q in amounts for o in _amounts(p.text.removeprefix(p.label)))
    ]


def _flat(text: str) -> str:
    return " ".join(text.lower().rstrip("…").split())


def _quoted_whole(text: str, source: Source) -> bool:
    """The bullet is one passage's own words, perhaps cut short (not: holds a passage
    among other things, as two statements run together do)."""
    flat = _flat(text)
    return len(flat) >= 20 and any(flat in _flat(p.shown()) for p in passages_of(source))


def _quotes(claim: str, passage: Passage) -> bool:
    """The claim is the passage's own words (or the passage is most of the claim: "coronary
    heart disease" is one item of a claim listing the conditions, not what it says)."""
    text = _flat(passage.text)
    if len(claim) < 20:
        return False
    return claim in _flat(passage.shown()) or (
        len(text) >= max(20, len(claim) // 2) and text in claim
    )


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
    so "Plan A" is found in a row rendered as "plan: A" but not in one about Plan C. A
    currency code is found before its amount too ("RMB" in "RMB6,712")."""
    if contains_phrase(text, name):
        return True
    text = unglued(text)
    parts = re.findall(r"[A-Za-z0-9]+", name)
    if not parts:
        return False
    for part in parts:
        flags = 0 if len(part) <= 2 else re.IGNORECASE
        if re.search(rf"(?<![A-Za-z0-9]){re.escape(part)}(?![A-Za-z0-9])", text, flags):
            continue
        if not (part.isdigit() and int(part) in spelled_numbers(text)):  # "30" as "thirty"
            return False
    return True
