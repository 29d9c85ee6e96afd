"""Each bullet is supported by the block it cites, whatever the rest of the context says.

For every claim (a sentence of a bullet) the passage of its cited blocks that says the
same thing is found (see claims.align); the claim fails when it cites nothing real, when
that passage shares too little of what it says, when one of its numbers is in no cited
block as the same quantity, when it names a sibling of what the passage names ("Plan C"
beside the row for Plan A), or when it carries a word the knowledge uses somewhere else
but not here (an entity swapped for another one from the same document).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bot.conversation.checks.claims import Match, align, claims, entity_in, holds, passages_of
from bot.conversation.checks.numbers import derived
from bot.conversation.focus import conflicts, ids_in
from bot.conversation.passages import Passage
from bot.conversation.quantities import Quantity, merged, quantities
from bot.conversation.text import content_words, entities, readable
from bot.conversation.types import Bullet, Source

MIN_OVERLAP = 0.5  # share of a claim's words its passage (with its context) must hold
MIN_WORDS = 4  # shorter claims are checked on their numbers and names only


@dataclass(frozen=True)
class Support:
    held: bool
    matches: list[Match]


def citations_hold(
    question: str,
    bullets: Sequence[Bullet],
    sources: Sequence[Source],
    *,
    terms: Iterable[str] = (),
) -> Support:
    """Every claim cites a real source whose passage says what the claim says."""
    known = tuple(terms)
    rare = _rare_words(sources)
    everywhere = set().union(*(content_words(readable(s.text)) for s in sources))
    asked = set(content_words(question)) - everywhere  # the asker's own details ("Rs 56,000")
    held = True
    matches: list[Match] = []
    for claim in claims(bullets, sources):
        if claim.dangling or not claim.cited:
            held = False
            continue
        match = align(claim)
        matches.append(match)
        if not _supported(match, question, asked, rare, known):
            held = False
    return Support(held, matches)


def _supported(
    match: Match, question: str, own: set[str], rare: frozenset[str], terms: Sequence[str]
) -> bool:
    if match.passage is None:
        return False
    claim = match.claim
    said_words = set(content_words(claim.text))
    if len(said_words) >= MIN_WORDS and match.overlap < MIN_OVERLAP:
        return False
    if not _numbers_cited(match, question):
        return False
    if conflicts(match.said, ids_in(claim.text)):
        return False
    cited = "\n".join(readable(s.text) for s in claim.cited)
    names = entities(claim.text, terms)
    if not all(entity_in(cited, name) or entity_in(question, name) for name in names):
        return False
    said = set(content_words(match.said))
    return not (said_words & rare) - said - own


def _numbers_cited(match: Match, question: str) -> bool:
    """Each number is a quantity of a cited block (or of the question, or computed from
    such numbers in the same claim); with numbers at all, its passage holds one of them."""
    assert match.passage is not None
    amounts = merged(quantities(match.claim.text))
    if not amounts:
        return True
    pool = [q for s in match.claim.cited for p in passages_of(s) for q in _in(p)]
    given = merged(quantities(question))
    found = [q for q in amounts if any(q.matches(o) for o in [*pool, *given])]
    if any(q not in found and not derived(q, found) for q in amounts):
        return False
    cited = [q for q in found if not any(q.matches(g) for g in given)]
    return not cited or any(holds(match.passage, q) for q in cited)


def _in(passage: Passage) -> list[Quantity]:
    return merged(quantities(f"{passage.context}\n{passage.text}"))


def _rare_words(sources: Sequence[Source]) -> frozenset[str]:
    """Words only one source uses: names of particular things (a disease, a plan, a
    benefit). One of them in a claim beside a passage that lacks it was borrowed."""
    if len(sources) < 2:
        return frozenset()
    seen: dict[str, int] = {}
    for source in sources:
        for word in set(content_words(readable(source.text))):
            seen[word] = seen.get(word, 0) + 1
    return frozenset(w for w, n in seen.items() if n == 1 and len(w) >= 4)
