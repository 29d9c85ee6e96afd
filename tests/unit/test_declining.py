"""When an answer becomes "I could not find this": only when, by words and by meaning,
nothing it says speaks to what was asked."""

from __future__ import annotations

from collections.abc import Sequence

from bot.conversation.declining import MEANING_FLOOR, declined
from bot.conversation.types import Bullet, CheckScores

MATERNITY = "Maternity expenses are covered after a waiting period of 24 months."
ANSWER = [Bullet(MATERNITY, (2,))]


def _scores(**failed: int) -> CheckScores:
    passed = dict.fromkeys(CheckScores.none().as_dict(), 1)
    return CheckScores(**(passed | failed))


def close(texts: Sequence[str]) -> list[float]:
    return [MEANING_FLOOR + 0.2 if "Maternity" in t else 0.1 for t in texts]


def far(texts: Sequence[str]) -> list[float]:
    return [MEANING_FLOOR - 0.2 for _ in texts]


def test_an_answer_whose_words_meet_the_question_is_never_declined() -> None:
    assert not declined(ANSWER, _scores(), far)


def test_a_supported_answer_close_in_meaning_is_kept_though_its_words_miss() -> None:
    assert not declined(ANSWER, _scores(answerability=0), close)


def test_an_answer_far_from_the_question_in_meaning_is_declined() -> None:
    assert declined(ANSWER, _scores(answerability=0), far)
    assert declined(ANSWER, _scores(answerability=0), None)  # no meaning to go by


def test_an_unsupported_or_uncited_answer_is_declined_however_close() -> None:
    assert declined(ANSWER, _scores(answerability=0, contextual_continuity=0), close)
    assert declined(ANSWER, _scores(answerability=0, numbers=0), close)
    assert declined([Bullet(MATERNITY)], _scores(answerability=0), close)
