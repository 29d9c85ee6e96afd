"""The six answer checks: faithful answers pass them all, each planted fault fails one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from bot.conversation.scoring import confidence_for, score_answer
from bot.conversation.types import Bullet, CheckScores, Confidence, Source

INSTRUCTIONS = """You answer staff questions about our insurance products.
Answer only from the numbered context below and cite every source you use in square brackets.
Write at most four short bullets. If the context does not contain the answer, say that it
was not found in the knowledge base.
Example: - The grace period for renewal is thirty days after the due date [1]"""


def _source(number: int, text: str, title: str = "health_plans.pdf") -> Source:
    return Source(number, f"chunk-{number}", "rulebook", title, f"p. {number + 3}", text)


PLANS = [
    _source(1, "Under Plan A, room rent is limited to 1% of the sum insured per day, and ICU "
               "charges to 2% of the sum insured per day."),
    _source(2, "Under Plan C, room rent is limited to 2% of the sum insured per day, subject "
               "to a maximum of Rs 10,000 per day."),
    _source(3, "If the room rent exceeds the limit, associated medical charges are reduced in "
               "the same proportion, for Plan A and Plan C alike."),
]  # fmt: skip
PLANS_QUESTION = "What are the room rent limits for Plan A and Plan C?"
PLANS_ANSWER = [
    Bullet("Plan A limits room rent to 1% of the sum insured per day.", (1,)),
    Bullet(
        "Plan C limits room rent to 2% of the sum insured per day, up to Rs 10,000 a day.", (2,)
    ),
    Bullet("Above the room rent limit, associated charges are reduced in proportion.", (3,)),
]

PREMIUM = [
    _source(1, "North zone motor premium fell 12% in 2024 to Rs 4.2 crore.", "premium_by_zone"),
    _source(2, "South zone motor premium rose 8% in 2024 to Rs 6.1 crore.", "premium_by_zone"),
]
PREMIUM_QUESTION = "How did motor premium change in 2024 in each zone?"
PREMIUM_ANSWER = [
    Bullet("North zone motor premium fell 12% in 2024, to Rs 4.2 crore.", (1,)),
    Bullet("South zone motor premium grew 8% in 2024, to Rs 6.1 crore.", (2,)),
]


def _score(
    bullets: Sequence[Bullet],
    sources: Sequence[Source] = PLANS,
    question: str = PLANS_QUESTION,
) -> CheckScores:
    return score_answer(
        question=question, bullets=bullets, sources=sources, instructions=INSTRUCTIONS
    )


def _failed(scores: CheckScores) -> set[str]:
    return {name for name, value in scores.as_dict().items() if value == 0}


def _replace(bullets: Sequence[Bullet], index: int, bullet: Bullet) -> list[Bullet]:
    out = list(bullets)
    out[index] = bullet
    return out


@pytest.mark.parametrize(
    ("bullets", "sources", "question"),
    [
        (PLANS_ANSWER, PLANS, PLANS_QUESTION),
        (PREMIUM_ANSWER, PREMIUM, PREMIUM_QUESTION),
    ],
)
def test_faithful_answers_pass_every_check(
    bullets: list[Bullet], sources: list[Source], question: str
) -> None:
    scores = _score(bullets, sources, question)
    assert scores.total == 6
    assert confidence_for(scores, has_context=True) == Confidence.HIGH


# Each planted fault: (answer, sources, question, the one check it must fail).
FAULTS = {
    "number not in the context": (
        _replace(PLANS_ANSWER, 1, Bullet(
            "Plan C limits room rent to 2% of the sum insured per day, up to Rs 15,000 a day.",
            (2,))),
        PLANS, PLANS_QUESTION, "numbers",
    ),
    "Plan C fact citing the Plan A source": (
        _replace(PLANS_ANSWER, 1, Bullet(
            "Plan C limits ICU charges to 2% of the sum insured per day.", (1,))),
        PLANS, PLANS_QUESTION, "contextual_continuity",
    ),
    "citation to a source that does not exist": (
        _replace(PLANS_ANSWER, 0, Bullet(PLANS_ANSWER[0].text, (7,))),
        PLANS, PLANS_QUESTION, "contextual_continuity",
    ),
    "bullet citing nothing": (
        _replace(PLANS_ANSWER, 2, Bullet(PLANS_ANSWER[2].text)),
        PLANS, PLANS_QUESTION, "contextual_continuity",
    ),
    "instructions copied into the answer": (
        _replace(PLANS_ANSWER, 0, Bullet(
            "Plan A limits room rent to 1% of the sum insured per day; I answer only from the "
            "numbered context below and cite every source you use in square brackets.", (1,))),
        PLANS, PLANS_QUESTION, "not_copied",
    ),
    "answer that never names the plans asked about": (
        [PLANS_ANSWER[2]],
        PLANS, PLANS_QUESTION, "qa_continuity",
    ),
    "sources about a mix of topics": (
        [PLANS_ANSWER[0]],
        [PLANS[0],
         _source(2, "Maternity expenses are paid after a waiting period of 24 months."),
         _source(3, "Road ambulance charges are paid up to Rs 2,000 per hospitalisation.")],
        PLANS_QUESTION.replace(" and Plan C", ""), "context_focus",
    ),
    "trend word reversed against the context": (
        _replace(PREMIUM_ANSWER, 0, Bullet(
            "North zone motor premium rose 12% in 2024, to Rs 4.2 crore.", (1,))),
        PREMIUM, PREMIUM_QUESTION, "numeric_sense",
    ),
    "direction word against the number's sign": (
        _replace(PREMIUM_ANSWER, 0, Bullet(
            "North zone motor premium increased by −12% in 2024.", (1,))),
        PREMIUM, PREMIUM_QUESTION, "numeric_sense",
    ),
}  # fmt: skip


@pytest.mark.parametrize("fault", list(FAULTS))
def test_each_planted_fault_fails_exactly_its_check(fault: str) -> None:
    bullets, sources, question, check = FAULTS[fault]
    scores = _score(bullets, sources, question)
    assert _failed(scores) == {check}
    assert scores.total == 5


def test_faults_add_up_and_lower_the_level() -> None:
    two = _replace(
        FAULTS["number not in the context"][0],
        0,
        Bullet("Plan A limits room rent to 1% of the sum insured per day.", ()),
    )
    scores = _score(two)
    assert _failed(scores) == {"numbers", "contextual_continuity"}
    assert confidence_for(scores, has_context=True) == Confidence.MEDIUM

    four = [Bullet("North zone motor premium increased by −15% [1] and South rose 9%.", (9,))]
    off_topic = [replace(s, number=s.number + 2) for s in PLANS]
    scores = _score(four, [*PREMIUM, *off_topic], PREMIUM_QUESTION)
    assert {"numbers", "numeric_sense", "contextual_continuity", "context_focus"} <= _failed(scores)
    assert confidence_for(scores, has_context=True) == Confidence.LOW


def test_confidence_levels() -> None:
    def scores(total: int) -> CheckScores:
        return CheckScores(*([1] * total + [0] * (6 - total)))

    assert [confidence_for(scores(n), has_context=True) for n in range(7)] == [
        Confidence.LOW, Confidence.LOW, Confidence.LOW, Confidence.MEDIUM, Confidence.MEDIUM,
        Confidence.HIGH, Confidence.HIGH,
    ]  # fmt: skip
    assert confidence_for(scores(6), has_context=False) == Confidence.LOW


def test_empty_answer_fails_everything() -> None:
    assert _score([]).total == 0


def test_honest_not_found_bullet_needs_no_citation() -> None:
    honest = Bullet("The knowledge base does not say whether Plan C has a co-pay.")
    bullets = [*PLANS_ANSWER[:2], honest]
    assert _score(bullets).contextual_continuity == 1


@pytest.mark.parametrize(
    ("said", "context"),
    [
        ("The deductible is 5000 per claim.", "A deductible of 5,000 applies to each claim."),
        ("A co-pay of 25 % applies.", "Co-payment: 25% of the admissible claim."),
        ("Claims paid reached 1.2 million.", "Claims paid: 1,234,567."),
        ("The loss ratio was 61.3%.", "Loss ratio 61.34%."),
        ("Cover starts after thirty days.", "Cover starts 30 days after inception."),
        ("Cover starts after 30 days.", "Cover starts thirty days after inception."),
        ("Room rent up to Rs 2 lakh.", "Room rent up to Rs 2,00,000."),
    ],
)
def test_numbers_match_after_normalisation(said: str, context: str) -> None:
    scores = score_answer(
        question="What applies?", bullets=[Bullet(said, (1,))], sources=[_source(1, context)],
        instructions=INSTRUCTIONS,
    )  # fmt: skip
    assert scores.numbers == 1


def test_a_rounded_integer_does_not_match_a_fraction() -> None:
    scores = score_answer(
        question="How long is the wait?", bullets=[Bullet("The wait is 2 years.", (1,))],
        sources=[_source(1, "The wait is 2.5 years.")], instructions=INSTRUCTIONS,
    )  # fmt: skip
    assert scores.numbers == 0


def test_question_numbers_may_be_repeated() -> None:
    scores = score_answer(
        question="Is a Rs 56,000 IVF bill covered?",
        bullets=[Bullet("A Rs 56,000 IVF bill is not covered: infertility is excluded.", (1,))],
        sources=[_source(1, "Treatment for infertility, including IVF, is excluded.")],
        instructions=INSTRUCTIONS,
    )
    assert scores.numbers == 1 and scores.contextual_continuity == 1


def test_caps_are_not_directions() -> None:
    scores = score_answer(
        question="What is the ICU limit?",
        bullets=[Bullet("ICU charges are paid up to 2% of the sum insured, whichever is lower.")],
        sources=[_source(1, "ICU charges fell to 2% of the sum insured in the new wording.")],
        instructions=INSTRUCTIONS,
    )
    assert scores.numeric_sense == 1


def test_quoting_a_source_that_the_instructions_also_quote_is_not_copying() -> None:
    sentence = "The grace period for renewal is thirty days after the due date"
    scores = score_answer(
        question="What is the grace period for renewal?",
        bullets=[Bullet(sentence + ".", (1,))],
        sources=[_source(1, sentence + ", without loss of continuity.")],
        instructions=INSTRUCTIONS,
    )
    assert scores.not_copied == 1
