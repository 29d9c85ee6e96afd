"""Answer without a language model: quote the passages that answer the question.

This keeps the bot useful when no LLM is configured (or the LLM is down): each bullet is a
sentence, list item, table line or row taken verbatim from a retrieved source (led by the
clause it belongs to when it would not stand alone), so it can be wrong only by being
off-topic, never by inventing a number. Being off-topic is what this module works
against: the passage that answers comes first, passages about another plan are dropped,
and when no passage speaks to what was asked the answer says so instead of quoting
loosely related text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from bot.conversation.acronyms import with_acronyms
from bot.conversation.focus import Focus, conflicts
from bot.conversation.passage_fit import (
    input_of,
    phrase_bonus,
    quantity_bonus,
    statement_bonus,
    states_inputs,
    states_wanted,
)
from bot.conversation.passages import Passage, passages
from bot.conversation.periods import other_period
from bot.conversation.quantities import quantities
from bot.conversation.text import content_words, readable
from bot.conversation.types import Bullet, Source
from knowledge.search.fitted import fitted
from knowledge.search.stages import ALL_STAGES, Stage
from knowledge.search.statements import statements_asked

MAX_BULLET_CHARS = 400
MAX_LIST_BULLET_CHARS = 700
_MIN_WORDS = 4  # shorter passages are headings ("3.1 Room rent"), not answers
# below this share of the question's weight, nothing answers it ("could not find"):
# benchmarks/fit_answers.py, like the next two
ANSWER_FLOOR = fitted("quote_answer_floor", 0.3)
# How much meaning (embedding similarity to the question) adds
SEMANTIC_WEIGHT = fitted("quote_semantic_weight", 0.6)
# How much a better-ranked source adds (the first source all of it)
RANK_WEIGHT = fitted("quote_rank_weight", 0.1)
# How much a passage loses per place after its clause's first (up to 6): the rule first
POSITION_WEIGHT = fitted("quote_position_weight", 0.015)
# How much the question's words in the clause a passage belongs to count, against its own
CONTEXT_WEIGHT = fitted("quote_context_weight", 0.6)
_SEMANTIC_POOL = 30  # the best passages by words that meaning may reorder
_LIKENESS_SPAN = 0.6  # how far apart the similarities of two passages to a question fall
Likeness = Callable[[Sequence[str]], Sequence[float]]  # passages -> similarity to question
_INPUT_BONUS = 0.35  # a line the measure asked about is computed from


@dataclass(frozen=True)
class Quoted:
    """The quoted answer, or why there is none."""

    bullets: list[Bullet]
    answered: bool
    reason: str = ""
    related: list[Source] = field(default_factory=list)  # closest sources, for a not-found
    inputs_only: bool = False  # no line states what was asked, only what it is worked out from


@dataclass(frozen=True)
class _Scored:
    score: float
    lexical: float
    passage: Passage


def quote(
    focus: Focus,
    sources: Sequence[Source],
    *,
    max_bullets: int = 3,
    likeness: Likeness | None = None,
    closeness: float | None = None,
    stages: frozenset[Stage] = ALL_STAGES,
) -> Quoted:
    """The passages that answer `focus`, best first, each citing its source.

    A passage is weighed by the question's topic words it (and the clause it belongs to)
    holds, each word weighted by how rare it is across the sources; the phrase asked for
    counts extra. A passage gains for carrying the kind of quantity asked for, for coming
    early in its clause (the rule before its exceptions) and from a better-ranked source.
    Passages about a sibling of an asked id ("Plan C" for "Plan B") are dropped.
    `likeness` (the embedding model's similarity to the question) reorders the best of
    them by meaning: "What industry does it operate in?" is answered by "a global leader
    in packaging", which shares no word with it. A question using a word the knowledge
    never uses is declined unless the best passage is within `closeness` of it by meaning
    (see _never_used); so is one whose asked words no passage uses ("What were the main
    components of ...?" answered by what "consisted primarily of"). `stages`: which of
    these rules apply.
    """
    related = list(sources[:3])
    focus = with_acronyms(focus, (s.text for s in sources))
    forgiving = likeness is not None and closeness is not None
    if focus.unknown_head and not forgiving:
        return Quoted([], False, _why_not(focus, sources), related)
    held = set().union(*(content_words(readable(s.text)) for s in sources)) if sources else set()
    terms = (focus.all_terms or frozenset(content_words(focus.question))) & held
    statement = Stage.QUOTE_STATEMENT in stages
    if not terms and not (statement and statements_asked(focus.question)):  # its lines may
        return Quoted([], False, "no source mentions what was asked", related)
    candidates = [p for rank, s in enumerate(sources) for p in passages(s, rank)]
    weights = _weights(terms, focus, sources)
    scored = [
        _score(p, focus, weights, len(sources), stages)
        for p in candidates
        if _eligible(p, terms, focus, stages)
    ]
    if not scored:
        return Quoted([], False, "no passage in the sources speaks to the question", related)
    scored.sort(key=lambda s: s.score, reverse=True)
    if likeness is not None and Stage.QUOTE_MEANING in stages:
        scored = _by_meaning(scored, likeness)
    if statement:
        scored = _first(scored, lambda p: statement_bonus(p, focus) > 0)
    best = _answering(scored, focus)
    if best is None and _close(scored[0], likeness, closeness):
        best = scored[0]  # no passage names the asked word; the best says it in others
    pointed = statement and statement_bonus(best.passage, focus) if best else False
    if best is None or (best.lexical < ANSWER_FLOOR and not pointed):
        return Quoted([], False, _why_not(focus, sources), related)
    if never := _never_used(best, focus, likeness, closeness):
        return Quoted([], False, f"the knowledge base never mentions {never}", related)
    chosen = _choose(best, scored, max_bullets + focus.listing)
    bullets = [Bullet(_shown(s.passage, focus), (s.passage.source.number,)) for s in chosen]
    inputs_only = not states_wanted(best.passage, focus) and states_inputs(best.passage, focus)
    return Quoted(bullets, True, inputs_only=inputs_only)


def _weights(terms: frozenset[str], focus: Focus, sources: Sequence[Source]) -> dict[str, float]:
    """Inverse document frequency across the sources; the asked phrase weighs more."""
    stems = [set(content_words(readable(s.text))) for s in sources]
    n = len(stems)
    out = {}
    for term in terms:
        idf = math.log(1 + n / (1 + sum(term in s for s in stems))) + 0.1
        out[term] = idf * (1.5 if term in focus.asked else 1.0)
    return out


def _eligible(p: Passage, terms: frozenset[str], focus: Focus, stages: frozenset[Stage]) -> bool:
    if p.kind == "lead":
        return False  # "... provided that:" is quoted with its list, never alone
    short = len(p.text.split()) < _MIN_WORDS
    if short and p.kind == "sentence":
        return False  # a heading ("3.1 Room rent"), not an answer; items say what they list
    statement = Stage.QUOTE_STATEMENT in stages and statement_bonus(p, focus)
    if not (p.stems | p.context_stems) & terms and not statement:
        return False
    if Stage.QUOTE_PERIOD in stages and p.kind == "row" and other_period(p.text, focus.period):
        return False  # "... | Three Months Ended June 30, 2022 | 609" for "FY 2023"
    siblings = Stage.QUOTE_SIBLINGS in stages and focus.ids
    return not (siblings and conflicts(p.text + " " + p.context, focus.ids))


def _score(
    p: Passage, focus: Focus, weights: dict[str, float], n: int, stages: frozenset[Stage]
) -> _Scored:
    total = sum(weights.values()) or 1.0
    own = sum(w for t, w in weights.items() if t in p.stems) / total
    context = sum(w for t, w in weights.items() if t in p.context_stems) / total
    above = p.path_stems - p.stems - p.context_stems  # the headings the clause sits under
    headings = sum(w for t, w in weights.items() if t in above) / total
    lexical = own + CONTEXT_WEIGHT * context + 0.3 * headings
    score = lexical
    score += quantity_bonus(p, focus) if Stage.QUOTE_QUANTITY in stages else 0.0
    score += RANK_WEIGHT * (1 - p.rank / n) - POSITION_WEIGHT * min(p.position, 6)
    score += phrase_bonus(p, focus) if Stage.QUOTE_PHRASE in stages else 0.0
    if Stage.QUOTE_STATEMENT in stages:
        score += statement_bonus(p, focus)
        score += _INPUT_BONUS if input_of(p, focus) is not None else 0.0
    score -= min(0.3, 0.1 * max(0, len(p.text.split()) - 60) / 60)  # run-on text
    return _Scored(score, lexical, p)


def _never_used(
    best: _Scored, focus: Focus, likeness: Likeness | None, closeness: float | None
) -> str:
    """The question's words the knowledge never uses that leave it unanswered ("" when
    none). A word the knowledge never uses is forgiven when the passage is as close to
    the question by meaning as answers are (`closeness`, fitted with support's threshold:
    see checks.meaning.fitted_closeness): "The Group's financial position remains strong"
    answers "what is the status of the group's financial position?" at 0.73 under the
    bundled model, while a clause on hospital bills is 0.44 from "are veterinary bills
    covered?". A modifier the knowledge never uses is also forgiven when the passage
    states the amount asked for; the word the question is about is not ("claim
    settlement ratio": no percentage will do)."""
    if not focus.unknown:
        return ""
    if _close(best, likeness, closeness):
        return ""
    if focus.unknown_head:
        return focus.head_word
    if focus.wants and states_wanted(best.passage, focus):
        return ""
    return ", ".join(sorted(focus.unknown))  # "veterinary bills": no bill will do


def _close(s: _Scored, likeness: Likeness | None, closeness: float | None) -> bool:
    """As close to the question by meaning as answers are."""
    if likeness is None or closeness is None:
        return False
    return likeness([s.passage.shown()])[0] >= closeness


def _by_meaning(scored: list[_Scored], likeness: Likeness) -> list[_Scored]:
    """The best passages reordered by their similarity to the question. Only those that
    meaning could lift to the top are embedded: similarities of passages to one question
    lie within `_LIKENESS_SPAN` of each other, so a passage further behind the best than
    that span's weight stays behind it (and embedding it would only cost time)."""
    reach = scored[0].score - SEMANTIC_WEIGHT * _LIKENESS_SPAN if scored else 0.0
    pool = [s for s in scored[:_SEMANTIC_POOL] if s.score >= reach]
    similar = likeness([s.passage.shown() for s in pool])
    moved = [
        _Scored(s.score + SEMANTIC_WEIGHT * sim, s.lexical, s.passage)
        for s, sim in zip(pool, similar, strict=True)
    ]
    moved.sort(key=lambda s: s.score, reverse=True)
    return moved + scored[len(pool) :]


def _first(scored: list[_Scored], wanted: Callable[[Passage], bool]) -> list[_Scored]:
    """The passages the question asks for by kind come first, in their order: the lines
    of the statement it says to look in ("... shown in the cash flow statement")."""
    first = [s for s in scored if wanted(s.passage)]
    return first + [s for s in scored if s not in first] if first else scored


def _answering(scored: list[_Scored], focus: Focus) -> _Scored | None:
    """The best passage that speaks of what was asked (itself, or through its clause's
    headings or lead-in), holds enough of the question's words (a table line of another
    person's target does not stand in the way of the asked person's) and, when an amount
    or a period is asked for, states one; for a change, share or average no line states,
    a line stating an amount it is worked out from.

    Words the knowledge never uses are judged afterwards ("claim settlement ratio"); a
    word it uses elsewhere may be missing here ("room rent" in a table of "Room,
    Boarding and Nursing expenses"), and a line of the financial statement the question
    points to speaks of it in the statement's own words ("capital expenditure" is
    "Purchases of property, plant and equipment" there).
    """
    known = focus.asked - focus.unknown  # the others are judged by meaning (_never_used)
    if not known:
        return scored[0]
    speaking = []
    for s in scored[:12]:
        p = s.passage
        pointed = statement_bonus(p, focus)
        named = known & (p.stems | p.context_stems | p.path_stems) or pointed
        if named and (s.lexical >= ANSWER_FLOOR or pointed):
            speaking.append(s)
    stating = (s for s in speaking if states_wanted(s.passage, focus))
    inputs = (s for s in speaking if states_inputs(s.passage, focus))
    return next(stating, None) or next(inputs, None)  # a line stating it before its inputs


def _why_not(focus: Focus, sources: Sequence[Source]) -> str:
    if focus.unknown_head:
        return f"the knowledge base never mentions {focus.head_word}"
    held = set().union(*(content_words(readable(s.text)) for s in sources))
    if focus.head and focus.head not in held:
        return f"the closest sources do not speak of {focus.head_word}"
    return "no passage in the sources answers what was asked"


def _choose(best: _Scored, scored: list[_Scored], limit: int) -> list[_Scored]:
    """The best passage, then others in order of score that hold half as much of the
    question's words as it does, and say something new."""
    chosen = [best]
    for s in scored:
        if len(chosen) >= limit:
            break
        if s is best or s.lexical < 0.5 * best.lexical:
            continue
        if not any(_overlaps(s.passage, c.passage) for c in chosen):
            chosen.append(s)
    return chosen


def _overlaps(a: Passage, b: Passage) -> bool:
    if a.text in b.text or b.text in a.text:
        return True
    if _values(a.text) != _values(b.text):
        return False  # the same rule with another number ("15 days" / "30 days") is news
    if fuzz.token_set_ratio(a.text, b.text) >= 90:
        return True
    union = a.stems | b.stems
    return bool(union) and len(a.stems & b.stems) / len(union) >= 0.8


def _values(text: str) -> set[tuple[str, float]]:
    return {(q.kind, q.value) for q in quantities(text)}


def _shown(p: Passage, focus: Focus) -> str:
    text = p.shown()
    if p.kind == "record" and len(text) > MAX_BULLET_CHARS:
        text = _relevant_fields(text, focus.all_terms)
    return trim(text, MAX_LIST_BULLET_CHARS if p.kind == "list" else MAX_BULLET_CHARS)


def _relevant_fields(row: str, asked: frozenset[str]) -> str:
    """For a wide row: the first two fields (they usually identify it) and the fields
    whose key or value the question mentions."""
    fields = row.split(", ")
    keep = [f for i, f in enumerate(fields) if i < 2 or set(content_words(f)) & asked]
    return ", ".join(keep)


_ABBREVIATION_STOP = re.compile(
    r"\b(?:rs|no|nos|sr|viz|etc|i\.e|e\.g|cl|sec|art|vs|approx)\.$", re.IGNORECASE
)


def trim(text: str, limit: int = MAX_BULLET_CHARS) -> str:
    """Cut to `limit` characters at a sentence end if one is near (never at "Rs."), else
    at a clause or word boundary, with …"""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    stops = [m.end() for m in re.finditer(r"[.;](?=\s)", head)]
    for end in reversed(stops):
        if end < limit * 0.5:
            break
        if head[end - 1] == "." and _ABBREVIATION_STOP.search(head[:end]):
            continue
        return head[:end].rstrip(";")
    space = head.rfind(" ")
    cut = head[:space] if space >= limit * 0.5 else head
    return cut.rstrip(" ,;:") + "…"
