"""Six binary checks of an answer against its question and context, and the confidence
level they add up to.

Each check is computed in code, never by asking a model, so a score means the same thing
on every run and the failing check tells a reviewer what to look at.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from bot.conversation.citations import is_not_found
from bot.conversation.text import (
    NumberMention,
    contains_phrase,
    content_words,
    entities,
    number_mentions,
    readable,
    sentences,
    spelled_numbers,
    words,
)
from bot.conversation.types import Bullet, CheckScores, Confidence, Source

COPY_RUN = 10  # this many consecutive words shared with the instructions is a copy

_GENERIC_WORDS = (
    "tell explain know please want need much many long give show list mean get detail "
    "details information question answer kind type find let help like would could"
)


@cache
def _generic() -> frozenset[str]:
    """Stems of words that shape a question without saying what it is about."""
    return frozenset(content_words(_GENERIC_WORDS))


def score_answer(
    *,
    question: str,
    bullets: Sequence[Bullet],
    sources: Sequence[Source],
    instructions: str,
    known_terms: Iterable[str] = (),
) -> CheckScores:
    """Run the six checks; an answer with no bullets fails them all."""
    if not bullets:
        return CheckScores(0, 0, 0, 0, 0, 0)
    terms = tuple(known_terms)
    return CheckScores(
        qa_continuity=int(_speaks_to_question(question, bullets, terms)),
        numbers=int(_numbers_grounded(question, bullets, sources)),
        not_copied=int(_not_copied(question, bullets, sources, instructions)),
        numeric_sense=int(_directions_agree(bullets, sources)),
        context_focus=int(_context_focused(question, sources, terms)),
        contextual_continuity=int(_citations_hold(question, bullets, sources, terms)),
    )


def confidence_for(scores: CheckScores, *, has_context: bool) -> Confidence:
    """High from 5 checks up, Medium at 3-4, else Low; always Low with no context at all."""
    if not has_context:
        return Confidence.LOW
    if scores.total >= 5:
        return Confidence.HIGH
    if scores.total >= 3:
        return Confidence.MEDIUM
    return Confidence.LOW


def _answer_text(bullets: Sequence[Bullet]) -> str:
    return "\n".join(b.text for b in bullets)


def _source_text(source: Source) -> str:
    return f"{source.title}\n{source.location}\n{readable(source.text)}"


# ---- qa_continuity -------------------------------------------------------------------------


def _speaks_to_question(question: str, bullets: Sequence[Bullet], terms: Sequence[str]) -> bool:
    """The answer names most of what was asked about: its entities and topic words."""
    answer = _answer_text(bullets)
    asked = set(content_words(question)) - _generic()
    if asked:
        said = set(content_words(answer))
        if len(asked & said) < 0.4 * len(asked):
            return False
    named = entities(question, terms)
    if named:
        hits = sum(_entity_in(answer, name) for name in named)
        if hits < 0.5 * len(named):
            return False
    return True


def _entity_in(text: str, name: str) -> bool:
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


# ---- numbers -------------------------------------------------------------------------------


def _numbers_grounded(question: str, bullets: Sequence[Bullet], sources: Sequence[Source]) -> bool:
    """Every number the answer states is in the context (or was given in the question)."""
    pool = _context_numbers(question, sources)
    spelled = set().union(*(spelled_numbers(s.text) for s in sources)) if sources else set()
    for mention in number_mentions(_answer_text(bullets)):
        if not _found(mention, pool) and abs(mention.value) not in spelled:
            return False
    return True


def _context_numbers(question: str, sources: Sequence[Source]) -> list[NumberMention]:
    pool = number_mentions(question)
    for source in sources:
        pool.extend(number_mentions(_source_text(source)))
    return pool


def _found(mention: NumberMention, pool: Sequence[NumberMention]) -> bool:
    return any(_same_number(mention, other) for other in pool)


def _same_number(said: NumberMention, seen: NumberMention) -> bool:
    """Equal after normalisation, ignoring sign; a rounded figure ("1.2 million",
    "12.3%") also matches the exact one it rounds ("1,234,567", "12.34%")."""
    seen_values = (abs(seen.value), abs(seen.raw))
    if any(math.isclose(v, abs(said.value)) or math.isclose(v, abs(said.raw)) for v in seen_values):
        return True
    scaled = said.raw != 0 and not math.isclose(said.value, said.raw)
    if said.decimals == 0 and not scaled:
        return False
    unit = abs(said.value / said.raw) if said.raw else 1.0
    return any(math.isclose(round(v / unit, said.decimals), abs(said.raw)) for v in seen_values)


# ---- not_copied ----------------------------------------------------------------------------


def _not_copied(
    question: str, bullets: Sequence[Bullet], sources: Sequence[Source], instructions: str
) -> bool:
    """No bullet repeats a run of COPY_RUN words from the prompt's instructions or examples.

    A run that also occurs in the question or a source is allowed: quoting the rulebook is
    the point, even when the instructions happen to quote it too.
    """
    copied = _runs(instructions)
    if not copied:
        return True
    allowed = _runs(question).union(*(_runs(s.text) for s in sources))
    return not any((_runs(b.text) & copied) - allowed for b in bullets)


def _runs(text: str) -> set[tuple[str, ...]]:
    tokens = [w.lower() for w in words(text)]
    return {tuple(tokens[i : i + COPY_RUN]) for i in range(len(tokens) - COPY_RUN + 1)}


# ---- numeric_sense -------------------------------------------------------------------------

_UP = re.compile(
    r"\b(?:increas\w*|ris(?:e|es|ing|en)|rose|gr[eo]w(?:s|n|ing|th)?|growth|up|higher|gain\w*"
    r"|climb\w*|jump\w*|surg(?:e|ed|es|ing)|soar\w*|rall(?:y|ied|ies)|hike[sd]?|spik\w*)\b",
    re.IGNORECASE,
)
_DOWN = re.compile(
    r"\b(?:decreas\w*|fall(?:s|ing|en)?|fell|declin\w*|drop\w*|down|lower|reduc\w*"
    r"|shr[iau]nk\w*|dip(?:s|ped|ping)?|slump\w*|plung\w*|slid(?:e|es|ing)?)\b",
    re.IGNORECASE,
)
# Direction words that state a cap or a choice, not a change: "up to 1%", "whichever is lower".
_NOT_A_CHANGE = re.compile(
    r"\bup\s*to\b|\bupto\b|\bwhichever is (?:higher|lower|more|less)\b"
    r"|\b(?:higher|lower) of\b",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(
    r";|,\s|\b(?:but|while|whereas|although|though|however|and)\b", re.IGNORECASE
)
_DETACHED = re.compile(r"\b(?:to|from|at|of about|reaching)\b", re.IGNORECASE)


@dataclass(frozen=True)
class _Claim:
    """A number with the direction a clause gives it: +1 up, -1 down."""

    number: NumberMention
    direction: int
    worded: bool  # the direction comes from a word, not only from the number's sign


def _directions_agree(bullets: Sequence[Bullet], sources: Sequence[Source]) -> bool:
    """Direction words agree with the signs beside them, and with what the context says
    about the same number ("fell 12%" in a source, "rose 12%" in the answer fails)."""
    said = [c for b in bullets for c in _claims(b.text)]
    if any(_against_own_sign(claim) for claim in said):
        return False
    seen = [c for s in sources for c in _claims(readable(s.text))]
    for claim in said:
        same = [c.direction for c in seen if _same_number(claim.number, c.number)]
        if same and claim.direction not in same:
            return False
    return True


def _against_own_sign(claim: _Claim) -> bool:
    """'increased by −5%' or 'fell +3%'. A fall written with a minus ('declined -5%') is
    how finance tables write it, so that is not a contradiction."""
    sign = claim.number.explicit_sign
    return claim.worded and sign == ("-" if claim.direction > 0 else "+")


def _claims(text: str) -> list[_Claim]:
    out: list[_Claim] = []
    for sentence in sentences(text):
        for clause in _clauses(sentence):
            out.extend(_clause_claims(clause))
    return out


def _clauses(sentence: str) -> list[str]:
    return [p for p in _CLAUSE_BREAK.split(sentence) if p.strip()]


def _clause_claims(clause: str) -> list[_Claim]:
    scrubbed = _NOT_A_CHANGE.sub(lambda m: " " * len(m.group(0)), clause)
    cues = [(m.start(), 1) for m in _UP.finditer(scrubbed)]
    cues += [(m.start(), -1) for m in _DOWN.finditer(scrubbed)]
    claims: list[_Claim] = []
    for number in number_mentions(scrubbed):
        if _is_year(scrubbed, number):
            continue  # "rose 12% in 2023": the year dates the change, it does not move
        direction = _nearest_cue(scrubbed, number, cues)
        if direction:
            claims.append(_Claim(number, direction, worded=True))
        elif number.explicit_sign:
            claims.append(_Claim(number, 1 if number.explicit_sign == "+" else -1, False))
    return claims


def _is_year(clause: str, number: NumberMention) -> bool:
    written = clause[number.start : number.end].strip("() ")
    return bool(re.fullmatch(r"(?:19|20)\d\d", written))


def _nearest_cue(clause: str, number: NumberMention, cues: Sequence[tuple[int, int]]) -> int:
    """The direction of the closest direction word not cut off by 'to'/'from' ("rose to 5%"
    gives a level, not a change)."""
    best: tuple[int, int] | None = None
    for position, direction in cues:
        lo, hi = sorted((position, number.start))
        if _DETACHED.search(clause[lo:hi]):
            continue
        distance = abs(position - number.start)
        if best is None or distance < best[0]:
            best = (distance, direction)
    return best[1] if best else 0


# ---- context_focus -------------------------------------------------------------------------


def _context_focused(question: str, sources: Sequence[Source], terms: Sequence[str]) -> bool:
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


# ---- contextual_continuity -----------------------------------------------------------------


def _citations_hold(
    question: str, bullets: Sequence[Bullet], sources: Sequence[Source], terms: Sequence[str]
) -> bool:
    """Each bullet cites real sources and those sources carry its entities and numbers.

    A number found nowhere in the context is the numbers check's fault, not this one's;
    here a number fails only when it sits in some other source than the ones cited. An
    honest "not found in the knowledge base" bullet needs no citation.
    """
    by_number = {s.number: s for s in sources}
    everywhere = _context_numbers(question, sources)
    asked = number_mentions(question)
    for bullet in bullets:
        if is_not_found(bullet.text):
            continue
        if not bullet.source_numbers or any(n not in by_number for n in bullet.source_numbers):
            return False
        cited = "\n".join(_source_text(by_number[n]) for n in bullet.source_numbers)
        if not _bullet_supported(bullet.text, cited, everywhere, asked, terms):
            return False
    return True


def _bullet_supported(
    text: str,
    cited: str,
    everywhere: Sequence[NumberMention],
    asked: Sequence[NumberMention],
    terms: Sequence[str],
) -> bool:
    if not all(_entity_in(cited, name) for name in entities(text, terms)):
        return False
    cited_numbers = number_mentions(cited)
    for mention in number_mentions(text):
        misplaced = _found(mention, everywhere) and not _found(mention, asked)
        if misplaced and not _found(mention, cited_numbers):
            return False
    stems = set(content_words(text))
    return len(stems) < 4 or len(stems & set(content_words(cited))) >= 0.25 * len(stems)
