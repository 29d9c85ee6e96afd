"""A quoted answer (passages picked by the words they share with the question, no language
model) is High only when one of its lines is also close to the question by meaning
(issue 19): shared words can be a coincidence. A model's answer is not held to it."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from bot.conversation.checks.meaning import Meaning, fitted, fitted_quoted_closeness
from bot.conversation.declining import closeness
from bot.conversation.scoring import confidence_for, score_answer
from bot.conversation.types import Bullet, CheckScores, Confidence, Source

INSTRUCTIONS = "Answer only from the numbered context and cite every source you use."
QUESTION = "How many years did net income exceed $1,000 million?"
COINCIDENCE = (
    "For contracts that exceed one year, deferred income that relates to unsatisfied "
    "performance obligations at year end is shown as a liability."
)
ANSWER = "Net income exceeded $1,000 million in two of the three years, 2019 and 2017."
SOURCES = [
    Source(1, "chunk-1", "rulebook", "annual_report.pdf", "p. 40", f"Revenue\n{COINCIDENCE}"),
    Source(2, "chunk-2", "rulebook", "annual_report.pdf", "p. 12", f"Results\n{ANSWER}"),
]


def _never_embed(texts: Sequence[str]) -> list[list[float]]:
    raise AssertionError("quoted lines are judged by their words and the measured closeness")


def _scores(
    line: str, number: int, *, quoted: float | None, floor: float | None = 0.5
) -> CheckScores:
    return score_answer(
        question=QUESTION,
        bullets=[Bullet(line, (number,))],
        sources=SOURCES,
        instructions=INSTRUCTIONS,
        meaning=Meaning(_never_embed, threshold=0.5, quoted=floor),
        quoted=quoted,
    )


def _level(scores: CheckScores) -> Confidence:
    return confidence_for(scores, has_context=True)


def test_a_quoted_line_that_only_shares_the_questions_words_is_not_high() -> None:
    scores = _scores(COINCIDENCE, 1, quoted=0.2)
    assert scores.qa_continuity == 0
    assert _level(scores) == Confidence.MEDIUM
    assert scores.contextual_continuity == 1  # true to its source, just not about this


def test_a_quoted_line_close_to_the_question_stays_high() -> None:
    assert _level(_scores(ANSWER, 2, quoted=0.8)) == Confidence.HIGH


def test_without_a_fitted_closeness_words_alone_judge_a_quoted_answer() -> None:
    assert _level(_scores(COINCIDENCE, 1, quoted=0.2, floor=None)) == Confidence.HIGH


def test_a_models_answer_is_not_held_to_the_quoted_closeness() -> None:
    """The same line written by a model (no closeness measured): the model chose it for
    what it says, and on the confidence benchmark closeness told faithful model answers
    from wrong ones no better than chance, so it is not asked of them."""
    assert _level(_scores(COINCIDENCE, 1, quoted=None)) == Confidence.HIGH


@pytest.mark.slow
def test_the_bundled_model_places_the_coincidence_below_the_fitted_closeness() -> None:
    from knowledge.models.embeddings import LOCAL_DEFAULT, LocalEmbedder

    floor = fitted_quoted_closeness(LOCAL_DEFAULT)
    assert floor is not None and fitted(LOCAL_DEFAULT) is not None, "no fit for the model"
    embedder = LocalEmbedder(LOCAL_DEFAULT, runtime="torch")
    question = embedder.embed_query(QUESTION)
    lines = embedder.embed_documents([COINCIDENCE, ANSWER])
    coincidence, answer = (sum(a * b for a, b in zip(question, v, strict=True)) for v in lines)
    assert coincidence < floor <= answer


class _Likeness:
    """Similarities given per line; remembers which lines were measured."""

    def __init__(self, similarities: dict[str, float]) -> None:
        self.similarities = similarities
        self.measured: list[str] = []

    def __call__(self, texts: Sequence[str]) -> list[float]:
        self.measured.extend(texts)
        return [self.similarities[t] for t in texts]


def test_a_first_line_close_enough_spares_measuring_the_others() -> None:
    """The answer's first line (quoting's best passage, already embedded when quoting
    ordered passages by meaning) settles the verdict: the other lines are not embedded."""
    likeness = _Likeness({"best": 0.7, "second": 0.9})
    bullets = [Bullet("best", (1,)), Bullet("second", (2,))]
    assert closeness(bullets, likeness, 0.5) >= 0.5
    assert likeness.measured == ["best"]


@pytest.mark.parametrize("first,second", [(0.7, 0.2), (0.2, 0.7), (0.2, 0.3), (0.45, 0.1)])
def test_the_verdict_is_the_closest_lines(first: float, second: float) -> None:
    bullets = [Bullet("first", (1,)), Bullet("second", (2,))]
    likeness = _Likeness({"first": first, "second": second})
    for enough in (0.421, 0.425, 0.5):
        assert (closeness(bullets, likeness, enough) >= enough) == (max(first, second) >= enough)
    assert closeness(bullets, likeness) == max(first, second)
