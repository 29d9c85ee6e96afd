"""Faithful answers in the words a language model uses stay High: a paraphrase brings
common words the context uses elsewhere ("insurer", "receive", "charges"), drops a
number's unit, opens with "No." or states a date the question asked about. The faults
these rules guard against are still caught."""

from __future__ import annotations

from collections.abc import Sequence

from bot.conversation.quantities import quantities
from bot.conversation.scoring import confidence_for, score_answer
from bot.conversation.types import Bullet, CheckScores, Confidence, Source

INSTRUCTIONS = "Answer only from the numbered context and cite every source you use."


def _source(number: int, text: str, kind: str = "rulebook") -> Source:
    return Source(number, f"chunk-{number}", kind, "health_policy.pdf", f"p. {number}", text)


SETTLEMENT = [
    _source(
        1,
        "Claims > Claim Settlement\nThe Company shall settle or reject a claim within 15 days "
        "from the date of receipt of the last necessary document.",
    ),
    _source(
        2,
        "Benefits > Ambulance\nThe insured person will receive road ambulance charges up to "
        "Rs 2,000 per hospitalisation.",
    ),
]
AGES = [
    _source(
        1,
        "Co-payment\nA co-payment of 15% applies to all claims for an insured person aged "
        "greater than 75 years on policy inception.",
    ),
    _source(2, "Eligibility\nPersons aged between 18 years and 65 years may take the policy."),
]
CATARACT = [
    _source(
        1,
        "Cataract\nThe Company shall indemnify expenses for treatment of cataract up to 25% "
        "of the sum insured or Rs 40,000 per eye, whichever is lower.",
    ),
    _source(2, "Hernia\nHernia surgery is covered after a waiting period of 24 months."),
]
BONUS = [
    _source(
        1,
        "Cumulative Bonus\nThe cumulative bonus is increased by 5% for each claim free year "
        "(where no claims are reported) subject to a maximum of 50% of the sum insured.",
    )
]
BALANCES = [
    _source(
        1,
        "Deferred revenue — table 1\ncolumns: — | 2019 | 2018\n"
        "Beginning balances | 2019 | $36,836\nBeginning balances | 2018 | $42,432",
        kind="table",
    )
]
PAYABLES = [
    _source(
        1,
        "Trade and other payables\nOther payables and accruals are paid when amounts fall due.",
    )
]


def _score(bullets: Sequence[Bullet], sources: Sequence[Source], question: str) -> CheckScores:
    return score_answer(
        question=question, bullets=bullets, sources=sources, instructions=INSTRUCTIONS
    )


def _level(scores: CheckScores) -> Confidence:
    return confidence_for(scores, has_context=True)


def test_common_words_a_paraphrase_brings_are_no_swapped_name() -> None:
    """ "insurer" and "receiving" are words another block uses, but they name nothing."""
    said = Bullet(
        "You will get a decision on your claim within 15 days of the insurer receiving the "
        "last necessary document.",
        (1,),
    )
    scores = _score([said], SETTLEMENT, "When will my claim be settled?")
    assert scores.contextual_continuity == 1
    assert _level(scores) == Confidence.HIGH


def test_a_name_another_block_holds_in_place_of_the_cited_one_is_unsupported() -> None:
    said = Bullet(
        "The Company pays expenses for treatment of hernia up to 25% of the sum insured.", (1,)
    )
    scores = _score([said], CATARACT, "How much is paid for hernia?")
    assert scores.contextual_continuity == 0
    assert _level(scores) != Confidence.HIGH


def test_a_number_written_without_its_unit_of_time_is_the_same_number() -> None:
    said = Bullet("Because he is older than 75 at inception, a 15% co-payment applies.", (1,))
    scores = _score([said], AGES, "My father is 78. What co-pay applies to his claims?")
    assert scores.numbers == 1 and scores.contextual_continuity == 1
    assert _level(scores) == Confidence.HIGH
    changed = Bullet("Because he is older than 70 at inception, a 15% co-payment applies.", (1,))
    assert _level(_score([changed], AGES, "What co-pay applies to my father?")) != Confidence.HIGH


def test_quantities_read_as_a_reader_does() -> None:
    assert [q.kind for q in quantities("a 30-day grace period")] == ["duration"]
    assert all(q.kind != "money" for q in quantities("under Base Covers 1 to 5"))
    assert [q.kind for q in quantities("Rs. 500 and INR 40,000")] == ["money", "money"]


def test_a_yes_or_no_opening_the_answer_is_not_the_passage_negated() -> None:
    question = "I had cataract treatment of Rs 1,00,000. Will the full amount be paid?"
    said = Bullet(
        "No. Cataract treatment is paid up to 25% of the sum insured or Rs 40,000 per eye, "
        "whichever is lower.",
        (1,),
    )
    assert _score([said], CATARACT, question).polarity == 1
    flipped = Bullet("Cataract treatment is not paid.", (1,))
    assert _score([flipped], CATARACT, question).polarity == 0


def test_a_no_inside_an_explaining_parenthesis_is_not_the_clause_negated() -> None:
    said = Bullet(
        "For every claim-free year the cumulative bonus goes up by 5%, to at most 50% of the "
        "sum insured.",
        (1,),
    )
    scores = _score([said], BONUS, "How does the cumulative bonus work?")
    assert scores.polarity == 1
    assert _level(scores) == Confidence.HIGH


def test_a_date_the_question_states_is_a_period_not_a_name_to_repeat() -> None:
    said = Bullet("The beginning balance for 2019 was $36,836.", (1,))
    scores = _score([said], BALANCES, "What is the beginning balance as of December 31, 2019?")
    assert scores.qa_continuity == 1
    assert _level(scores) == Confidence.HIGH


def test_when_amounts_fall_due_answers_when() -> None:
    said = Bullet("Other payables and accruals are settled as the amounts become due.", (1,))
    scores = _score([said], PAYABLES, "When are other payables and accruals paid?")
    assert scores.qa_continuity == 1


EXCLUSIONS = [
    _source(
        1,
        "Specific permanent exclusions\n"
        "1. Dental treatment or surgery of any kind unless necessitated by accident.\n"
        "2. Cosmetic or aesthetic treatment of any description.",
    )
]


def test_an_item_a_heading_excludes_is_not_covered() -> None:
    question = "Is dental treatment covered?"
    covered = Bullet("Dental treatment of any kind is covered, including routine check-ups.", (1,))
    assert _score([covered], EXCLUSIONS, question).polarity == 0
    excluded = Bullet("Dental treatment is excluded unless it is needed after an accident.", (1,))
    assert _score([excluded], EXCLUSIONS, question).polarity == 1


RECLASS = [
    _source(
        1,
        "Interest and penalties\nThe increase in the gross liability for interest and penalties "
        "was primarily due to a reclass within other non-current liabilities which had no "
        "impact on the overall balance sheet.",
        "annual_report",
    )
]


def test_a_relative_clause_is_read_as_its_own_clause() -> None:
    """ "... due to a reclass ... which had no impact on the balance sheet" says two
    things: an answer may say them in two sentences, and the "no" belongs to the second.
    Flipping either one is still caught."""
    question = "Why did the gross liability for interest and penalties increase?"
    said = Bullet(
        "Mainly because of a reclass within other non-current liabilities. This had no "
        "effect on the overall balance sheet.",
        (1,),
    )
    assert _score([said], RECLASS, question).polarity == 1
    flipped = Bullet(
        "Mainly because of a reclass within other non-current liabilities, which changed the "
        "overall balance sheet. It did not come from a reclass.",
        (1,),
    )
    assert _score([flipped], RECLASS, question).polarity == 0
