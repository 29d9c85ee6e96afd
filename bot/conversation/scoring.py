"""The checks of an answer against its question and context, and the confidence level
their failures allow.

Each check is computed in code, never by asking a model, so a score means the same thing
on every run and a failing check tells a reviewer what to look at. The level is a gate,
not a vote: one wrong number or one flipped "not" makes an answer wrong however many
other checks pass, so

- High: every critical check passes;
- Medium: one critical check fails;
- Low: two or more critical checks fail, or the knowledge cannot answer the question
  (answerability), or there is no context at all.

Critical checks: qa_continuity (answers what was asked), numbers, not_copied,
numeric_sense (directions agree with signs), contextual_continuity (each bullet supported
by the block it cites) and polarity. context_focus is shown but does not gate.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bot.conversation.checks.cells import levels_agree
from bot.conversation.checks.copying import not_copied
from bot.conversation.checks.coverage import (
    answerable,
    answers_elsewhere,
    context_focused,
    quoted_close,
    said_elsewhere,
    speaks_to_question,
)
from bot.conversation.checks.meaning import Meaning
from bot.conversation.checks.numbers import numbers_grounded
from bot.conversation.checks.polarity import same_polarity
from bot.conversation.checks.support import citations_hold
from bot.conversation.checks.trends import directions_agree
from bot.conversation.focus import Focus, focus_of
from bot.conversation.types import Bullet, CheckScores, Confidence, Source

CRITICAL = (
    "qa_continuity",
    "numbers",
    "not_copied",
    "numeric_sense",
    "contextual_continuity",
    "polarity",
)


def score_answer(
    *,
    question: str,
    bullets: Sequence[Bullet],
    sources: Sequence[Source],
    instructions: str,
    known_terms: Iterable[str] = (),
    focus: Focus | None = None,
    meaning: Meaning | None = None,
    quoted: float | None = None,
) -> CheckScores:
    """Run every check; an answer with no bullets fails them all. Without a `focus` the
    question is read here (no document names to ignore, no vocabulary). `meaning`: the
    embedding model's similarity, to judge a reworded claim's support (else shared words
    judge it). `quoted`: for passages quoted as they stand (no language model), picked
    for the words they share with the question, the closest one's similarity to it."""
    if not bullets:
        return CheckScores.none()
    focus = focus if focus is not None else focus_of(question)
    terms = tuple(known_terms)
    support = citations_hold(question, bullets, sources, terms=terms, meaning=meaning)
    return CheckScores(
        qa_continuity=int(
            speaks_to_question(
                question,
                bullets,
                support.matches,
                sources,
                focus=focus,
                terms=terms,
                meaning=meaning,
            )
            and quoted_close(quoted, meaning)
            and not answers_elsewhere(question, bullets, sources, meaning)
            and (quoted is not None or not said_elsewhere(question, bullets, sources, meaning))
        ),
        numbers=int(numbers_grounded(question, bullets, sources)),
        not_copied=int(not_copied(question, bullets, sources, instructions)),
        numeric_sense=int(directions_agree(bullets, sources) and levels_agree(bullets, sources)),
        context_focus=int(context_focused(question, sources, terms)),
        contextual_continuity=int(support.held),
        polarity=int(all(same_polarity(m) for m in support.matches)),
        answerability=int(answerable(bullets, support.matches, focus=focus)),
    )


def critical_failures(scores: CheckScores) -> list[str]:
    return [name for name in CRITICAL if not scores.as_dict()[name]]


def confidence_for(scores: CheckScores, *, has_context: bool) -> Confidence:
    """The gate: High needs every critical check; one failure caps at Medium; two, or an
    unanswerable question, or no context, give Low."""
    if not has_context or not scores.answerability:
        return Confidence.LOW
    failed = critical_failures(scores)
    if len(failed) >= 2:
        return Confidence.LOW
    return Confidence.MEDIUM if failed else Confidence.HIGH
