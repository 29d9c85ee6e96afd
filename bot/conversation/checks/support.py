"""Each bullet is supported by the block it cites, whatever the rest of the context says.

For every claim (a sentence of a bullet) the passage of its cited blocks that says the
same thing is found (see claims.align); the claim fails when it cites nothing real, when
that passage shares too little of its words and — when a similarity function is given
(see meaning) — is not close enough to it in meaning either, when one of its numbers is in no cited
block as the same quantity, when a table figure is dated or named with another cell's
year, column or row (see cells), when it names a sibling of what the passage names
("Plan C" beside the row for Plan A), or when it carries a word that names another thing
of the retrieved knowledge — a word of a row label, column header, short list item,
heading or capitalised name — that its passage lacks (an entity swapped for another one
from the same document: "All directors and share-based payments have authority ..."
beside "All directors and executive management have authority ..."). The words a
paraphrase brings ("you get", "the insurer", "receive") name nothing and pass.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from bot.conversation.checks.cells import (
    cells_hold,
    dated_as_written,
    paired_as_written,
    table_cells,
)
from bot.conversation.checks.claims import (
    Claim,
    Match,
    align,
    claims,
    entity_in,
    meant,
    needs_meaning,
    passages_of,
)
from bot.conversation.checks.meaning import Meaning
from bot.conversation.checks.numbers import derived, in_units, matches_as_stated, table_scale
from bot.conversation.entities import entities
from bot.conversation.focus import conflicts, ids_in, word_pairs
from bot.conversation.passages import PATH_SEPARATOR, Passage
from bot.conversation.periods import quarter_written, years_in
from bot.conversation.quantities import Quantity, merged, quantities
from bot.conversation.text import content_words, currency_codes, framing_words, readable
from bot.conversation.types import Bullet, Source

MIN_OVERLAP = 0.5  # share of a claim's words its passage (with its context) must hold
MIN_WORDS = 4  # claims with fewer words (framing words aside): numbers and names only
NEW_RUN = 4  # words in a row a passage lacks that add a claim (fitted: see _adds_a_claim)
SHORT_ITEM_WORDS = 8  # a list item this short names a thing ("Hydrocele", "Claim form")


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
    meaning: Meaning | None = None,
) -> Support:
    """Every claim cites a real source whose passage says what the claim says. With
    `meaning`, the claims a word count cannot decide are compared with their best
    passages by meaning, all embedded in one batch."""
    known = tuple(terms)
    words = [content_words(readable(s.text)) for s in sources]
    everywhere = set().union(*words)
    asked = set(content_words(question)) - everywhere  # the asker's own details ("Rs 56,000")
    context = _Context(
        sources=tuple(sources),
        phrases={
            s.number: frozenset(itertools.pairwise(each))
            for s, each in zip(sources, words, strict=True)
        },
        rare=_rare_words(words),
        asked_names=tuple(entities(question, known)),
    )
    found = claims(bullets, sources)
    if meaning is not None:
        meaning.learn(text for claim in found for text in _compared(claim))
    held = True
    matches: list[Match] = []
    shown: list[Quantity] = []  # the figures earlier claims state, as their sources give them
    for claim in found:
        if claim.dangling or not claim.cited:
            held = False
            continue
        match = align(claim, meaning)
        matches.append(match)
        if not _supported(match, question, asked, context, known, meaning, shown):
            held = False
    return Support(held, matches)


@dataclass(frozen=True)
class _Context:
    """What the retrieved sources name and say, to tell a swapped name from a paraphrase."""

    sources: tuple[Source, ...]
    phrases: dict[int, frozenset[tuple[str, str]]]  # each source's adjacent content words
    rare: frozenset[str]  # used by one source only
    asked_names: tuple[str, ...]  # what the question names (a claim's "it" stands for it)

    @cached_property
    def names(self) -> frozenset[frozenset[str]]:
        """See _names; read only for a claim with words its passage lacks."""
        return _names(self.sources)


def _compared(claim: Claim) -> list[str]:
    """The claim and the passages it is compared with by meaning (none when its words
    decide)."""
    if claim.dangling or not claim.cited:
        return []
    pool = needs_meaning(claim)
    return [claim.text, *map(meant, pool)] if pool else []


def _supported(
    match: Match,
    question: str,
    own: set[str],
    context: _Context,
    terms: Sequence[str],
    meaning: Meaning | None = None,
    shown: list[Quantity] | None = None,
) -> bool:
    if match.passage is None:
        return False
    claim = match.claim
    said_words = set(content_words(claim.text)) - currency_codes(claim.text)
    if len(said_words - framing_words()) >= MIN_WORDS and not _says_it(match, meaning):
        return False
    if not _numbers_cited(match, question, shown) or not cells_hold(claim):
        return False
    if conflicts(match.own, ids_in(claim.text)):
        return False
    cited = "\n".join(readable(s.text) for s in claim.cited)
    # "the Group", "the Company": the reporting entity, however its source calls it
    named = [n for n in entities(claim.text, terms) if set(content_words(n)) - framing_words()]
    if not all(_named_in(name, cited) or entity_in(question, name) for name in named):
        return False
    if _sibling_in_place(match, [*named, *context.asked_names], terms):
        return False
    unsaid = _unsaid(said_words - own, match.said)
    stray = {w for w in unsaid - framing_words() if len(w) > 2}
    if _swapped(match, stray, named, question, context):
        return False
    if _adds_a_claim(claim.text, unsaid - framing_words() - set(content_words(question))):
        return False
    if not dated_as_written(claim.text, match.passage.text):
        return False
    if not paired_as_written(claim.text, match.passage.text):
        return False
    return _dated_here(match, question)


def _adds_a_claim(claim: str, new: set[str]) -> bool:
    """The claim says something its passage does not: a run of NEW_RUN words in a row that
    the passage (and the question) lacks — "..., plus one-off litigation charges". A
    paraphrase's own words come one or two at a time ("came mainly from", "roughly
    doubled"), between the passage's."""
    run = 0
    for word in content_words(claim):
        run = run + 1 if word in new else 0
        if run >= NEW_RUN:
            return True
    return False


def _named_in(name: str, cited: str) -> bool:
    return entity_in(cited, name) or quarter_written(name, cited)


def _sibling_in_place(match: Match, named: list[str], terms: Sequence[str]) -> bool:
    """The claim (or the question, which "it" stands for) names a thing its passage does
    not, and the passage names another of the same kind in its place: "the Colombian
    Credit Facility" set beside a sentence on the South African Credit Facility, "the
    International segment" beside one on the Grocery & Snacks segment (a name's kind is
    its last word, or the word after it)."""
    own = match.own
    claim = match.claim.text
    theirs = [(n, _kinds(n, own)) for n in entities(own, terms)]
    for name in (n for n in named if not entity_in(own, n)):
        kinds = _kinds(name, claim)
        if any(kinds & k and not entity_in(claim, n) for n, k in theirs):
            return True
    return False


def _kinds(name: str, text: str) -> set[str]:
    """What kind of thing a name names: the last of its words, when it has several, and
    the common noun written right after it ("segment" in "our Grocery & Snacks segment")."""
    words = name.split()
    kinds = {words[-1].lower()} if len(words) > 1 else set()
    after = re.search(rf"{re.escape(name)}\W*\s+([a-z]+)\b", text)
    if after and content_words(after.group(1)):
        kinds.add(after.group(1))
    return kinds


def _unsaid(words: set[str], text: str) -> set[str]:
    """The `words` the text does not say, as a word or as two written as one ("eyesight":
    "eye sight")."""
    unsaid = words - set(content_words(text))
    if unsaid:
        found = re.findall(r"[A-Za-z]+", text)
        unsaid -= set(content_words(" ".join(a + b for a, b in itertools.pairwise(found))))
    return unsaid


def _swapped(
    match: Match, stray: set[str], named: list[str], question: str, context: _Context
) -> set[str]:
    """The claim's words its passage lacks that name another thing of the sources: a name
    written whole (a single word only as a name, capitalised: "Premium" is a defined
    term, "the premium" a paraphrase's word), a phrase a block it does not cite uses (its
    own block may say "medical details" where the passage says "medical information"),
    or another block's own word in the passage's place. A paraphrase's own words ("the insurer",
    "receive") are none of these."""
    if not stray:
        return set()
    claim = match.claim.text
    said_words = set(content_words(claim))
    capitalised = {w for name in named for w in content_words(name)}
    whole = {w for name in context.names if name <= said_words for w in name & stray}
    whole -= {w for w in whole if frozenset({w}) in context.names and w not in capitalised}
    cited = {s.number for s in match.claim.cited}
    elsewhere = set().union(*(p for n, p in context.phrases.items() if n not in cited))
    phrases = {w for pair in word_pairs(claim) if pair in elsewhere for w in pair}
    swapped = (whole | phrases & stray) - set(content_words(question))
    assert match.passage is not None
    swapped |= _in_place_of(claim, match.passage.text, stray & context.rare, context.rare)
    return swapped


def _says_it(match: Match, meaning: Meaning | None) -> bool:
    """The passage holds most of the claim's words, or means what it says."""
    if match.overlap >= MIN_OVERLAP:
        return True
    return meaning is not None and (match.similarity or 0.0) >= meaning.threshold


def _dated_here(match: Match, question: str) -> bool:
    """A year the claim states is one its passage states: "Europe was 1,280 in 2019" is
    wrong beside "Europe | 2018 | 1,280", however many rows of 2019 the table has. When
    the sentence or row itself gives years, the claim gives one of them (or the
    question's): "In 2019, we recorded ..." beside "In 2018, we recorded ...", whatever
    years the heading or the next sentence names. A table row dates its figure only by
    its own column, caption or heading (or another cell's value: "matures on October 1,
    2021"), not by the year the question asks."""
    years = {int(q.value) for q in merged(quantities(match.claim.text)) if q.is_year}
    assert match.passage is not None
    row = match.passage.kind == "row"
    values = (line.rsplit("|", 1)[-1] for line in match.nearby.splitlines())  # row's cells
    here = years_in("\n".join([match.own, *values]) if row else f"{match.said}\n{question}")
    own = years_in(match.passage.text)
    return years <= here and not (own and years and not years & (own | years_in(question)))


def _numbers_cited(match: Match, question: str, shown: list[Quantity] | None = None) -> bool:
    """Each number (years too) is a quantity of the passage the claim was set beside —
    its text, lead-in, row label, neighbouring sentences or the other cells of its row
    (another column of that line item) — or of the question, a year its cited blocks
    name (whether it dates the figure is for cells and _dated_here), or a cell of a table the
    claim cites (another row's, or beside a sentence: cells_hold checks its row and
    column), or computed from such numbers, or from the exact figures the claim rounds,
    in this claim or one before it (`shown`). A figure of a table noted "in thousands" is
    also the amount it stands for ("$279.1 million" for 279,059). A figure moved from
    another clause of the passage's own block fails. `shown`: what earlier claims of the
    answer stated and their sources' exact figures ("That is $179.1 million more."); this
    claim's are added."""
    assert match.passage is not None
    amounts = merged(quantities(match.claim.text))
    if not amounts:
        return True
    given = merged(quantities(question))
    cells = [v for s in match.claim.cited for cell in table_cells(s.text) for v in cell.value]
    scale = table_scale(match.passage.source.text)
    nearby = in_units(_in(match.passage) + merged(quantities(match.nearby)), scale) + cells
    claim = match.claim.text
    cited_years = any(q.is_year for q in amounts)  # read the blocks only for a year
    years = years_in("\n".join(s.text for s in match.claim.cited)) if cited_years else set()
    found, exact = [], []  # a rounded figure's operand is the exact one it rounds
    for q in amounts:
        if q.is_year and int(q.value) in years:  # the periods checks date its figures
            found.append(q)
            continue
        same = [o for o in [*nearby, *given] if matches_as_stated(q, o, claim)]
        if same:
            found.append(q)
            exact.append(min(same, key=lambda o: abs(o.value - q.value)))
    sentence = match.passage.kind != "row"  # a row's other cells: cells_hold checks them
    if sentence and any(_carried_by(match, n, amounts) for n in match.nearby.splitlines()):
        return False
    operands = [*(shown or []), *found, *exact]
    if shown is not None:
        shown.extend(found + exact)
    return all(q in found or derived(q, operands, claim) for q in amounts)


def _carried_by(match: Match, neighbour: str, amounts: list[Quantity]) -> bool:
    """The claim says what the neighbouring sentence says (more of its words are that
    sentence's than the passage's) but gives a figure in place of that sentence's own:
    "a $5.7 million charge for writing off software costs" where the sentence on the
    write-off says $3.5 million, and $5.7 million is the next sentence's gain. A claim
    joining the two states the figures of both."""
    assert match.passage is not None
    claim = match.claim.text
    words = set(content_words(claim))
    if len(words & set(content_words(neighbour))) <= len(words & match.passage.stems):
        return False
    theirs = [o for o in merged(quantities(neighbour)) if not o.is_year]
    if any(matches_as_stated(q, o, claim) for q in amounts for o in theirs):
        return False
    return any(q.same_kind(o) for q in amounts if not q.is_year for o in theirs)


def _in(passage: Passage) -> list[Quantity]:
    return merged(quantities(f"{passage.context}\n{passage.text}"))


def _in_place_of(claim: str, passage: str, candidates: set[str], rare: frozenset[str]) -> set[str]:
    """The candidate words of the claim that stand where the passage has another rare word,
    between the same neighbours: "hernia" in "the treatment of hernia and infertility"
    beside "the treatment of sterility and infertility", "Hernia" in "Hernia treatment is
    paid ..." beside "Cataract treatment is paid ...". A paraphrase rewords around its
    words; a word said otherwise ("receiving" for "receipt") shares its first letters."""
    if not candidates:
        return set()
    mine, theirs = content_words(claim), content_words(passage)
    slots = {
        _around(theirs, j): word
        for j, word in enumerate(theirs)
        if word not in mine and word in rare
    }
    return {
        w
        for i, w in enumerate(mine)
        if w in candidates and (other := slots.get(_around(mine, i))) and other[:3] != w[:3]
    }


def _around(words: list[str], i: int) -> tuple[str, str]:
    """The words either side of words[i] ("" at either end)."""
    return (words[i - 1] if i else "", words[i + 1] if i + 1 < len(words) else "")


def _rare_words(words: Sequence[Sequence[str]]) -> frozenset[str]:
    """Words only one source (of `words`, each source's) uses: names of particular things
    (a disease, a plan, a benefit)."""
    if len(words) < 2:
        return frozenset()
    seen: dict[str, int] = {}
    for each in words:
        for word in set(each):
            seen[word] = seen.get(word, 0) + 1
    return frozenset(w for w, n in seen.items() if n == 1 and len(w) >= 4)


def _names(sources: Sequence[Source]) -> frozenset[frozenset[str]]:
    """The names of things in the sources, each as its words: row labels, column headers,
    short list items, headings and capitalised names. A claim naming one whole, with a
    word its passage lacks, may have swapped the passage's thing for another ("Payment
    receipts" for "Claim form", "net sales" for "gross profit")."""
    found: list[str] = []
    for source in sources:
        for p in passages_of(source):
            found += p.path.split(PATH_SEPARATOR) if p.kind != "row" else p.path.split(" | ")
            if p.kind == "row":
                found.append(p.label)
            elif p.kind == "item" and len(p.text.split()) <= SHORT_ITEM_WORDS:
                found.append(p.text)
        found += entities(readable(source.text))
    return frozenset(words for name in found if (words := frozenset(content_words(name))))
