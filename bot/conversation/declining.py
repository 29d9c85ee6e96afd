"""When an answer is replaced by "I could not find this in the knowledge base.": only when
nothing answers.

The answerability check reads words: it fails when nothing the answer says or cites uses
a word of what was asked, or the word the question is about is one the knowledge never
uses. A question worded differently from its document ("Is abortion covered?" beside
"medical termination of pregnancy") fails it as surely as one the knowledge cannot answer
("veterinary bills"). Meaning tells them apart: an answer whose bullets cite their
sources and hold there (contextual_continuity and numbers pass) is kept, at Low, when the
embedding model finds one of its bullets as close to the question as answers are; it is
declined only when, by words and by meaning, it does not speak to what was asked.

MEANING_FLOOR is fitted, not chosen: `python -m benchmarks.declines_fit` on the answers of
`python -m benchmarks.declines` picks it on one half of the dev questions and reports it
on the other (benchmarks/README.md holds the run). It belongs to the embedding model it was
fitted with (all-MiniLM-L6-v2); refit it when the model changes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.conversation.types import Bullet, CheckScores

Likeness = Callable[[Sequence[str]], Sequence[float]]  # texts -> similarity to the question
MEANING_FLOOR = 0.421  # fitted by benchmarks/declines_fit.py (all-MiniLM-L6-v2)


def supported(bullets: Sequence[Bullet], scores: CheckScores) -> bool:
    """Every bullet cites a source, and the cited passages say what it says, numbers
    included."""
    cite = all(b.source_numbers for b in bullets)
    return bool(bullets) and cite and bool(scores.contextual_continuity and scores.numbers)


def closeness(bullets: Sequence[Bullet], likeness: Likeness, enough: float = float("inf")) -> float:
    """How close the answer comes to the question by meaning: its closest bullet, or its
    first when that is at least `enough` (the others, often not embedded yet, would not
    change what a caller comparing with `enough` concludes)."""
    texts = [b.text for b in bullets if b.text.strip()]
    first = likeness(texts[:1])[0] if texts else 0.0
    if first >= enough or len(texts) < 2:
        return first
    return max(first, *likeness(texts[1:]))


def speaks_by_meaning(bullets: Sequence[Bullet], likeness: Likeness | None) -> bool:
    return likeness is not None and closeness(bullets, likeness, MEANING_FLOOR) >= MEANING_FLOOR


def declined(bullets: Sequence[Bullet], scores: CheckScores, likeness: Likeness | None) -> bool:
    """Nothing answers: the answer fails answerability and is not a supported answer that
    speaks to the question by meaning."""
    if scores.answerability:
        return False
    return not (supported(bullets, scores) and speaks_by_meaning(bullets, likeness))
