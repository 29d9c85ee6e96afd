"""Whether an answer answers what was asked, and whether its sources are about it.

- qa_continuity: the answer (with the passages it cites) speaks of everything the
  question asks about — the phrase asked for, the ids it names ("Plan B"); a reply about
  notice periods to "what does the system notice say?" does not. An answer that misses
  some of the question's words still speaks to it when one of its bullets is as close to
  the question by meaning as answers are (the closeness fitted with support's threshold,
  see meaning.fitted_closeness) and no word it misses is one another retrieved block
  uses; the ids, periods, quantity and names asked for are still checked by their words.
  A statement line the measure asked about is computed from (a vocabulary pack's
  "Purchases of property, plant and equipment" for capital expenditure) speaks of it.
  A quoted answer (lines picked by their words, no language model) also needs one line
  close to the question by meaning (fitted on quoted answers, see quoted_close).
  A model's answer far from the question by meaning, citing blocks the search found
  clearly less close to it than one it leaves uncited, answers something else
  (answers_elsewhere); so does one whose words are all further from the question than
  a passage of a block it leaves uncited, by a clear margin (said_elsewhere).
- answerability: the knowledge holds what was asked at all. It fails when the thing asked
  about is a word the knowledge never uses ("claim settlement ratio") or when nothing the
  answer cites speaks of any part of the phrase asked for; the answer then becomes "I
  could not find this in the knowledge base." at Low.
- context_focus: most sources are about the question's topic, not a mix of neighbours.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import cache

from bot.conversation.checks.claims import Match, entity_in, meant, passages_of
from bot.conversation.checks.meaning import Meaning
from bot.conversation.checks.trends import asks_a_change, only_changes
from bot.conversation.entities import entities
from bot.conversation.focus import WANTED_KINDS, Focus, conflicts, states_loosely
from bot.conversation.passage_fit import input_of
from bot.conversation.periods import other_period
from bot.conversation.quantities import figure_row, is_date, quantities, states_figure
from bot.conversation.text import content_words, readable
from bot.conversation.types import Bullet, Source

_GENERIC_WORDS = (
    "tell explain know please want need much many long give show list mean get detail "
    "details information question answer kind type find let help like would could"
)


@cache
def _generic() -> frozenset[str]:
    """Stems of words that shape a question without saying what it is about."""
    return frozenset(content_words(_GENERIC_WORDS))


def spoken(bullets: Sequence[Bullet], matches: Sequence[Match]) -> set[str]:
    """What an answer speaks of: its own words and those of the blocks it cites (a terse
    "North America was 4,802 in 2019" speaks of revenue when it cites the revenue table)."""
    words = set(content_words(" ".join(b.text for b in bullets)))
    for match in matches:
        words |= set(content_words(match.said))
    for source in _cited(matches).values():
        words |= set(content_words(_source_text(source)))
    return words


def _cited(matches: Iterable[Match]) -> dict[int, Source]:
    """The blocks the answer's claims cite, by number."""
    return {s.number: s for m in matches for s in m.claim.cited}


def _uncited(sources: Sequence[Source], matches: Iterable[Match]) -> list[Source]:
    cited = _cited(matches)
    return [s for s in sources if s.number not in cited]


def speaks_to_question(
    question: str,
    bullets: Sequence[Bullet],
    matches: Sequence[Match],
    sources: Sequence[Source],
    *,
    focus: Focus | None,
    terms: Sequence[str],
    meaning: Meaning | None = None,
) -> bool:
    """The answer, with the blocks it cites, speaks of what was asked: every word of a
    short phrase asked for ("system notice", not just "notice"), most words of a longer
    one, or else half of the question's topic words the sources know; it states the kind
    of quantity asked for ("what are the limits?" wants an amount); and it names most of
    the names the question names; a table line it quotes reports the period asked; and
    asked what an item was in a period, it states a figure, not only how far it moved."""
    if bullets and all(b.text.rstrip().endswith(":") for b in bullets):
        return False  # "... as follows:" leads to a list or table it does not give
    said = spoken(bullets, matches)
    if focus is not None and focus.ids and any(conflicts(b.text, focus.ids) for b in bullets):
        return False
    if focus is not None and any(other_period(b.text, focus.period) for b in bullets):
        return False  # a line for another year (or a quarter for a year) answers another question
    stated = focus is not None and any(_states(b.text, focus) for b in bullets)
    missing = (
        set()
        if _inputs_quoted(matches, focus)
        else _unspoken(question, said, sources, focus, stated, bullets, matches)
    )
    if missing and not _rescued(missing, question, bullets, matches, sources, meaning):
        return False
    if focus is not None and focus.wants and not stated:
        return False
    if focus is not None and focus.figure and not _states_level(question, bullets, focus):
        return False  # "what was X in 2019?" answered with why X changed, or by how much
    if focus is not None and focus.describes and all(figure_row(b.text) for b in bullets):
        return False  # "what does X represent?" answered with X's figure
    return _names_spoken(question, bullets, matches, focus, terms)


def _unspoken(
    question: str,
    said: set[str],
    sources: Sequence[Source],
    focus: Focus | None,
    stated: bool,
    bullets: Sequence[Bullet],
    matches: Sequence[Match],
) -> set[str]:
    """The question's words the answer misses, when it misses too many of them (else
    none): any of a short phrase asked for, a third of a longer one (spoken together in
    one of `units`), or half of the question's topic words the sources know."""
    if focus is not None and focus.asked:
        units = _units(bullets, matches)
        missing = min(
            ({w for w in focus.asked if not _said(w, unit)} for unit in units),
            key=len,
            default=set(focus.asked),
        )
        if stated:  # "36 months" says what the waiting period is without the words
            missing -= focus.measure
        allowed = 0 if len(focus.asked) <= 2 else len(focus.asked) // 3
        if missing and _spoken_elsewhere(focus.asked, _uncited(sources, matches)):
            allowed = 0  # "cash flow" where another block says "free cash flow"
        return missing if len(missing) > allowed else set()
    topic = _topic_held(question, sources, focus)
    return topic - said if topic and len(topic & said) < 0.5 * len(topic) else set()


def _states_level(question: str, bullets: Sequence[Bullet], focus: Focus) -> bool:
    """Asked what an item was, the answer states a figure, and not only how much the item
    moved ("decreased $477 million" does not say what it was), unless a change is asked."""
    figures = [b.text for b in bullets if states_figure(b.text)]
    if not figures:
        return False
    moved = focus.computed or asks_a_change(question)
    return moved or not all(map(only_changes, figures))


def _spoken_elsewhere(asked: frozenset[str], uncited: Sequence[Source]) -> bool:
    """A block the answer does not cite says the phrase asked for as a phrase: its words
    in a row ("free cash flow" where the answer says "cash flow")."""
    n = len(asked)
    for source in uncited:
        text = readable(source.text)
        held = set(content_words(text))
        if not all(_said(w, held) for w in asked):
            continue
        for line in text.splitlines():
            words = content_words(line)
            on_line = set(words)
            if not all(_said(w, on_line) for w in asked):
                continue
            for i in range(len(words) - n + 1):
                if all(any(_said(w, {x}) for x in words[i : i + n]) for w in asked):
                    return True
    return False


def _units(bullets: Sequence[Bullet], matches: Sequence[Match]) -> list[set[str]]:
    """Where the words of an asked phrase must be spoken together ("cost of sales", not
    "staff costs" in one sentence and "sales" in another): each bullet, each passage it
    quotes with its headings and the sentences it joins, and the blocks it cites (see
    _block_units)."""
    units = [set(content_words(b.text)) for b in bullets]
    units += [set(content_words(match.said)) for match in matches]
    return units + [u for source in _cited(matches).values() for u in _block_units(source)]


def _block_units(source: Source) -> list[set[str]]:
    """Each passage of a block (sentence, list item) with its heading lines (title, first
    line), and its table as a whole: a row of a revenue table is revenue though its label
    says "Support"."""
    lines = readable(source.text).splitlines()
    table = [x for x in lines[1:] if "|" in x]
    heading = set(content_words(" ".join([source.title, source.location, *lines[:1], *table])))
    prose = (p.text for p in passages_of(source) if p.kind != "row")
    return [heading, *(heading | set(content_words(text)) for text in prose)]


def _rescued(
    missing: set[str],
    question: str,
    bullets: Sequence[Bullet],
    matches: Sequence[Match],
    sources: Sequence[Source],
    meaning: Meaning | None,
) -> bool:
    """Meaning forgives wording, not a change of subject. The answer speaks to the
    question in other words when some bullet is as close to it by meaning as answers are
    ("persons between 18 and 65 can join as proposer" for "the entry age for the
    proposer"), and no word it misses is one another retrieved block uses: "joint
    replacement is covered after 48 months" reads close to "when is cataract surgery
    covered?", but the block that says "cataract" is not the one it cites."""
    if meaning is None or meaning.closeness is None:
        return False
    others = _uncited(sources, matches)
    elsewhere = set().union(*(content_words(_source_text(s)) for s in others))
    if any(_said(w, elsewhere) for w in missing):
        return False
    meaning.learn([question, *(b.text for b in bullets)])  # one batch
    return any(meaning.similarity(question, b.text) >= meaning.closeness for b in bullets)


def answers_elsewhere(
    question: str, bullets: Sequence[Bullet], sources: Sequence[Source], meaning: Meaning | None
) -> bool:
    """True to its source, but about something else: no bullet is near the question by
    meaning, and the search found a block the answer does not cite clearly closer to the
    question than any it cites (`meaning.elsewhere`, fitted by benchmarks/fit_support.py
    --elsewhere). "The largest of the increases in operating expenses was in headcount"
    shares "largest" with "who was the largest customer?" and is true to its block, while
    the block on customers sits uncited. Quoted passages are judged the same way: they
    are picked for the words they share, which is how they land on another block."""
    if meaning is None or meaning.elsewhere is None:
        return False
    cited = {n for b in bullets for n in b.source_numbers}
    near = [s.similarity for s in sources if s.number in cited and s.similarity is not None]
    other = [s.similarity for s in sources if s.number not in cited and s.similarity is not None]
    if not near or not other or max(other) - max(near) <= meaning.elsewhere.gap:
        return False
    meaning.learn([question, *(b.text for b in bullets)])  # one batch
    return all(meaning.similarity(question, b.text) < meaning.elsewhere.far for b in bullets)


def said_elsewhere(
    question: str, bullets: Sequence[Bullet], sources: Sequence[Source], meaning: Meaning | None
) -> bool:
    """Another block says it more nearly: some passage of a block the answer does not
    cite is closer to the question by meaning than every bullet and every passage the
    answer cites, by more than `meaning.elsewhere.said_gap` (fitted by
    benchmarks/fit_support.py --said-elsewhere). "Cataract surgery is covered after two
    years" sits uncited while the answer to "is cataract surgery covered?" quotes the
    day-care clause's special case: true to its block, holding every word asked, and too
    near the question for the block-level test (answers_elsewhere)."""
    gap = _said_gap(meaning)
    if meaning is None or gap is None:
        return False
    margin = said_margin(question, bullets, sources, meaning)
    return margin is not None and margin > gap


def said_margin(
    question: str, bullets: Sequence[Bullet], sources: Sequence[Source], meaning: Meaning
) -> float | None:
    """How much closer to the question the nearest passage of an uncited block is than
    the nearest bullet or cited passage (None: every block is cited)."""
    cited = {n for b in bullets for n in b.source_numbers}
    own = [b.text for b in bullets]
    other: list[str] = []
    for source in sources:
        (own if source.number in cited else other).extend(meant(p) for p in passages_of(source))
    if not other or not own:
        return None
    meaning.learn([question, *own, *other])  # one batch
    nearest = max(meaning.similarity(question, t) for t in own)
    return max(meaning.similarity(question, t) for t in other) - nearest


def _said_gap(meaning: Meaning | None) -> float | None:
    """said_elsewhere's fitted margin (None: the rule is off)."""
    return meaning.elsewhere.said_gap if meaning is not None and meaning.elsewhere else None


@contextmanager
def learning_ahead(
    meaning: Meaning | None, question: str, sources: Sequence[Source]
) -> Iterator[None]:
    """Embed the question and every passage of the sources in the background while the
    body runs (a language model writing the answer): the checks compare them with the
    answer by meaning afterwards (coverage.said_elsewhere), and need not wait for them
    then. A failure here is left to the checks, which embed again and report it."""
    if meaning is None or _said_gap(meaning) is None:
        yield
        return
    texts = [question, *(meant(p) for s in sources for p in passages_of(s))]  # as said_margin
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(meaning.learn, texts)
        yield


def quoted_close(closeness: float | None, meaning: Meaning | None) -> bool:
    """A quoted answer's lines were picked for the words they share with the question;
    one of them must also be close to it by meaning (`closeness`, the closest line's
    similarity, at least `meaning.quoted`), or the shared words may be a coincidence:
    "For contracts that exceed one year, deferred income ..." shares "exceed" and "year"
    with "how many years did net income exceed $1,000 million?" and says nothing of it.
    None: not a quoted answer, or nothing to measure with."""
    if closeness is None or meaning is None or meaning.quoted is None:
        return True
    return closeness >= meaning.quoted


def _inputs_quoted(matches: Sequence[Match], focus: Focus | None) -> bool:
    """The answer quotes a statement line the measure asked about is computed from (a
    vocabulary pack's: "Purchases of property, plant and equipment" for capital
    expenditure): it speaks of the measure in the statement's own words."""
    if focus is None:
        return False
    return any(m.passage is not None and input_of(m.passage, focus) is not None for m in matches)


def _states(text: str, focus: Focus) -> bool:
    """The text states a quantity of the kind the question wants (a year is none)."""
    if not focus.wants:
        return False
    wanted = WANTED_KINDS[focus.wants]
    if focus.figure and focus.wants != "percent" and _share_of_asked(text, focus):
        wanted = wanted - {"percent", "fraction"}  # "70 basis points as a percentage of X"
    if any(q.kind in wanted and not q.is_year for q in quantities(text)):
        return True
    return states_loosely(text, focus)


_SHARE_OF = re.compile(
    r"(?:percent(?:age)?|%|basis points|share|proportion)\s+of\s+((?:[\w'-]+\s+){0,4}[\w'-]+)", re.I
)


def _share_of_asked(text: str, focus: Focus) -> bool:
    """The text gives a share of the thing asked for ("... as a percentage of net sales"),
    not that thing's figure."""
    return any(
        all(_said(w, set(content_words(m.group(1)))) for w in focus.asked)
        for m in _SHARE_OF.finditer(text)
    )


def _names_spoken(
    question: str,
    bullets: Sequence[Bullet],
    matches: Sequence[Match],
    focus: Focus | None,
    terms: Sequence[str],
) -> bool:
    """The answer, the passages it quotes or the blocks it cites name what the question
    names (a plan, a region, an acronym they may spell out), the documents a question
    picks excepted."""
    ignored = focus.ignored if focus is not None else frozenset()
    named = [n for n in entities(question, terms) if not _names_a_document(n, ignored)]
    if not named:
        return True
    text = "\n".join(
        [*(b.text for b in bullets), *(m.said for m in matches)]
        + [_source_text(s) for s in _cited(matches).values()]
    )
    stems = set(content_words(text))
    hits = sum(  # a date is the period asked, checked as such (other_period)
        is_date(n) or entity_in(text, n) or _spelled_in(n, stems, focus) for n in named
    )
    return hits >= 0.5 * len(named)


def _spelled_in(name: str, said: set[str], focus: Focus | None) -> bool:
    """An acronym the texts only spell out ("NCD" as "No Claim Discount")."""
    if focus is None or not name.isupper():
        return False
    return bool(focus.terms & said) and name.lower() not in focus.terms


def _said(stem: str, said: set[str]) -> bool:
    """A word is spoken as itself or as a longer form of it ("co-pay": "co-payment"), or
    by a shorter form of six letters or more ("surrogacy": "surrogate", stemmed "surrog")."""
    return stem in said or any(
        (len(stem) >= 3 and w.startswith(stem)) or (len(w) >= 6 and stem.startswith(w))
        for w in said
    )


def _names_a_document(name: str, ignored: frozenset[str]) -> bool:
    """ "Family Medicare" in a question about that policy picks the document; an answer
    from it need not repeat the name."""
    parts = [w.lower() for w in re.findall(r"[A-Za-z0-9]+", name)]
    return bool(parts) and all(p in ignored for p in parts)


def _topic_held(question: str, sources: Sequence[Source], focus: Focus | None) -> set[str]:
    """The question's topic words (no document names, no framing verbs) that the sources
    use at all."""
    held = set().union(*(content_words(readable(s.text)) for s in sources)) if sources else set()
    topic = set(focus.terms) if focus is not None else set(content_words(question)) - _generic()
    return topic & held


def answerable(bullets: Sequence[Bullet], matches: Sequence[Match], *, focus: Focus | None) -> bool:
    if focus is None:
        return True
    if focus.unknown_head:
        return False
    if not focus.asked:
        return True
    said = spoken(bullets, matches)
    if focus.asked <= focus.measure and any(_states(b.text, focus) for b in bullets):
        return True  # "what is the grace period?" answered "30 days"
    if _inputs_quoted(matches, focus):
        return True
    return any(_said(w, said) for w in focus.asked)


def context_focused(question: str, sources: Sequence[Source], terms: Sequence[str]) -> bool:
    """Most sources are about what was asked, not a mix of neighbouring topics.

    Entity words ("plan" in "Plan A") are left out of the topic: every chunk of Plan A's
    rulebook names Plan A, whatever it is about.
    """
    if not sources:
        return False
    topic = _topic_words(question, terms)
    if not topic:
        return True
    need = min(3, max(1, math.ceil(len(topic) / 2)))
    on_topic = sum(len(topic & set(content_words(_source_text(s)))) >= need for s in sources)
    return on_topic * 2 >= len(sources)


def _topic_words(question: str, terms: Sequence[str]) -> set[str]:
    entity_words = set(content_words(" ".join(entities(question, terms))))
    topic = set(content_words(question)) - _generic()
    return (topic - entity_words) or topic


def _source_text(source: Source) -> str:
    return f"{source.title}\n{source.location}\n{readable(source.text)}"
