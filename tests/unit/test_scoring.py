"""The answer checks and the gate they feed: faithful answers pass every check and are
High; each planted fault fails the check made for it and never stays High."""

from __future__ import annotations

import re
from collections.abc import Sequence

import pytest

from bot.conversation.checks.trends import only_changes
from bot.conversation.focus import focus_of
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
    assert scores.failed() == []
    assert confidence_for(scores, has_context=True) == Confidence.HIGH


PED = [
    _source(
        1,
        "Expenses related to a pre-existing disease shall be excluded until the "
        "expiry of 36 (thirty six) months of continuous coverage after inception.",
    )
]
PED_QUESTION = "What is the waiting period for a pre-existing disease?"
COSMETIC = [
    _source(
        1,
        "Cosmetic surgery is not covered unless it is needed to treat an injury from an accident.",
    )
]
NOTICE = [
    _source(
        1,
        "Notify the TPA at least 48 hours before a planned admission, and within "
        "24 hours of an emergency admission.",
    )
]
TABLE = [
    Source(
        1,
        "chunk-1",
        "table",
        "health_plans.pdf",
        "p. 7",
        "4 BENEFITS BY PLAN — table 1\nRoom rent | Plan A | 1% of sum insured per day\n"
        "Room rent | Plan B | 2% of sum insured per day\nICU | Plan A | Actuals",
    )
]
CLAUSES = [
    _source(1, "Cataract treatment is paid up to 25% of sum insured or Rs 40,000 per eye."),
    _source(2, "Hernia surgery has a waiting period of 24 months from inception."),
]
PROVISION = [
    Source(
        1,
        "chunk-1",
        "table",
        "annual_report.pdf",
        "p. 61",
        "Trade receivables — table 2\ncolumns: — | 2019 | 2018\n"
        "Less: provision for doubtful receivables | 2019 | (16,377)\n"
        "Less: provision for doubtful receivables | 2018 | (16,086)",
    )
]
REGIONS = [
    Source(
        1,
        "chunk-1",
        "table",
        "annual_report.pdf",
        "p. 40",
        "Revenue by region — table 1\ncolumns: — | 2019 | 2018\n"
        "Europe | 2019 | 2,459\nEurope | 2018 | 1,280\n"
        "North America | 2019 | 4,802\nNorth America | 2018 | 6,444",
    )
]
DEBT = [
    Source(
        1,
        "chunk-1",
        "table",
        "annual_report.pdf",
        "p. 52",
        "Other subsidiary debt — table 1\n"
        "columns: — | Carrying Value (1) 2019 | 2018 | Interest Rate\n"
        "Kenya Debt (5) | Carrying Value (1) 2019 | 29.6\nKenya Debt (5) | 2018 | 51.8\n"
        "Kenya Debt (5) | Interest Rate | 8.00%",
    )
]
JOINTS = [
    _source(
        1,
        "4 Exclusions > 4.2 Specified disease waiting period\n36 Months waiting "
        "period: Treatment for joint replacement unless arising from accident.",
    )
]
ROOMS = [
    Source(
        1,
        "chunk-1",
        "table",
        "policy.pdf",
        "p. 9",
        "Room rent limits — table 1\nRs. 5 Lacs and Above | Limit per day | Actuals\n"
        "Below Rs. 5 Lacs | Limit per day | 1% of sum insured",
    )
]
IMPAIRMENT = [
    _source(
        1,
        "Prepaid expenses consisted of the following at December 31, 2019 and 2018. In "
        "2018, we recorded impairment charges of $0.4 million related to prepaid licenses "
        "and production tooling. These charges are included in restructuring expenses.",
    ),
]
IMPAIRMENT_QUESTION = "What impairment charges were recorded for prepaid licenses?"
ACCOUNTS = [
    Source(
        1, "chunk-1", "table", "annual_report.pdf", "p. 48",
        "Note 5 Accounts receivable — table 1\ncolumns: — | December 31, 2019 | December 31,2018\n"
        "Less: provision for doubtful receivables | December 31, 2019 | (16,377)\n"
        "Less: provision for doubtful receivables | December 31,2018 | (16,086)",
    )
]  # fmt: skip
MORATORIUM = [
    _source(
        1,
        "After completion of sixty continuous months of coverage, no claim shall be "
        "contestable by the Company on grounds of non-disclosure, except on grounds of "
        "established fraud. This period is called the Moratorium Period.",
    ),
]
STAY = [
    _source(
        1,
        "Expenses of Hospitalization for a minimum period of 24 consecutive hours only "
        "shall be admissible. However, the time limit shall not apply in respect of Day "
        "Care Treatment.",
    ),
]
CATARACT_WAIT = [_source(1, "A 12-month waiting period applies to cataract surgery.")]
SUMS = [_source(1, "Sum insured options: INR 6/ 7/ 8 Lac. Co-payment is 10% for every claim.")]

# Each planted fault: (answer, sources, question, the check made to catch it).
FAULTS = {
    "number not in the context": (
        _replace(PLANS_ANSWER, 1, Bullet(
            "Plan C limits room rent to 2% of the sum insured per day, up to Rs 15,000 a day.",
            (2,))),
        PLANS, PLANS_QUESTION, "numbers",
    ),
    "number in parentheses changed with its words": (
        [Bullet("A pre-existing disease is covered only after 48 (forty eight) months of "
                "continuous coverage.", (1,))],
        PED, PED_QUESTION, "numbers",
    ),
    "7% is not the 7 of 7 Lac": (
        [Bullet("The co-payment is 7% for every claim.", (1,))],
        SUMS, "What is the co-payment?", "numbers",
    ),
    "Plan C fact citing the Plan A source": (
        _replace(PLANS_ANSWER, 1, Bullet(
            "Plan C limits ICU charges to 2% of the sum insured per day.", (1,))),
        PLANS, PLANS_QUESTION, "contextual_continuity",
    ),
    "the right fact citing the wrong source": (
        _replace(PLANS_ANSWER, 0, Bullet(PLANS_ANSWER[0].text, (2,))),
        PLANS, PLANS_QUESTION, "contextual_continuity",
    ),
    "plan swapped inside one table": (
        [Bullet("Room rent for Plan B is 1% of sum insured per day.", (1,))],
        TABLE, "What is the room rent for Plan B?", "contextual_continuity",
    ),
    "a term borrowed from another clause": (
        [Bullet("Hernia treatment is paid up to 25% of sum insured or Rs 40,000 per eye.", (1,))],
        CLAUSES, "How much is paid for hernia treatment?", "contextual_continuity",
    ),
    "an extra bullet the source does not support": (
        [*PLANS_ANSWER, Bullet("Plan A also pays for a private nurse at home after discharge.",
                               (1,))],
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
    "not covered turned into covered": (
        [Bullet("Cosmetic surgery is covered unless it is needed to treat an accident injury.",
                (1,))],
        COSMETIC, "Is cosmetic surgery covered?", "polarity",
    ),
    "before turned into after": (
        [Bullet("Notify the TPA at least 48 hours after a planned admission.", (1,))],
        NOTICE, "When must I notify the TPA of a planned admission?", "polarity",
    ),
    "a table figure dated with another column's year": (
        [Bullet("Europe's revenue was 1,280 in 2019.", (1,))],
        REGIONS, "What was Europe's revenue in 2019?", "contextual_continuity",
    ),
    "a table line quoted for another year than asked": (
        [Bullet("Revenue by region: Europe | 2018 | 1,280", (1,))],
        REGIONS, "What was Europe's revenue in 2019?", "qa_continuity",
    ),
    "a sentence's year changed, another sentence naming the new one": (
        [Bullet("In 2019, we recorded impairment charges of $0.4 million for prepaid licenses "
                "and production tooling.", (1,))],
        IMPAIRMENT, IMPAIRMENT_QUESTION, "contextual_continuity",
    ),
    "a row's year changed, the columns naming the new one": (
        [Bullet("In 2019, the provision for doubtful receivables was (16,086).", (1,))],
        ACCOUNTS, "What was the provision for doubtful receivables in 2018?",
        "contextual_continuity",
    ),
    "a table figure given another row's label": (
        [Bullet("North America's revenue was 2,459 in 2019.", (1,))],
        REGIONS, "What was North America's revenue in 2019?", "contextual_continuity",
    ),
    "a table figure named with another column": (
        [Bullet("For Kenya Debt, the interest rate was 29.6.", (1,))],
        DEBT, "What was the interest rate of the Kenya Debt?", "contextual_continuity",
    ),
    "a comparison against its own figures": (
        [Bullet("Europe's revenue was 2,459 in 2019, lower than 1,280 in 2018.", (1,))],
        REGIONS, "How did Europe's revenue change in 2019?", "numeric_sense",
    ),
    "a computed change off by one": (
        [Bullet("Europe's revenue rose from 1,280 in 2018 to 2,459 in 2019, an increase of "
                "1,178.", (1,))],
        REGIONS, "How did Europe's revenue change in 2019?", "numbers",
    ),
    "a rise called a decrease": (
        [Bullet("Europe's revenue rose from 1,280 in 2018 to 2,459 in 2019, a decrease of "
                "1,179.", (1,))],
        REGIONS, "How did Europe's revenue change in 2019?", "numeric_sense",
    ),
    "unless turned into only if": (
        [Bullet("36 Months waiting period: Treatment for joint replacement only if arising "
                "from accident.", (1,))],
        JOINTS, "Is joint replacement covered from the start?", "polarity",
    ),
    "and above turned into and below": (
        [Bullet("Rs. 5 Lacs and Below: room rent is paid at actuals.", (1,))],
        ROOMS, "What is the room rent limit for a Rs 3 lakh sum insured?", "polarity",
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
def test_each_planted_fault_fails_its_check_and_is_never_high(fault: str) -> None:
    bullets, sources, question, check = FAULTS[fault]
    scores = _score(bullets, sources, question)
    assert check in _failed(scores)
    assert confidence_for(scores, has_context=True) != Confidence.HIGH


@pytest.mark.parametrize(
    ("said", "sources", "question"),
    [
        ("A pre-existing disease is covered only after 36 months of continuous coverage.",
         PED, PED_QUESTION),  # "excluded until" said as "covered after"
        ("Cosmetic surgery is not covered, except to treat an injury from an accident.",
         COSMETIC, "Is cosmetic surgery covered?"),
        ("Room rent for Plan B is 2% of sum insured per day.",
         TABLE, "What is the room rent for Plan B?"),
        ("Europe's revenue rose from 1,280 in 2018 to 2,459 in 2019, an increase of 1,179.",
         REGIONS, "How did Europe's revenue change in 2019?"),
        ("The provision for doubtful receivables fell from (16,086) in 2018 to (16,377) in "
         "2019, a decrease of 291.", PROVISION, "How did the provision change in 2019?"),
        ("Europe's revenue rose from 1,280 in 2018 to 2,459 in 2019, up about 1,180 or 92%.",
         REGIONS, "How did Europe's revenue change in 2019?"),
        ("Europe's revenue was 1,280 and 2,459 in 2018 and 2019, respectively.",
         REGIONS, "What was Europe's revenue in 2018 and 2019?"),
        ("For Kenya Debt, the carrying value was 51.8 in 2018 and 29.6 in 2019.",
         DEBT, "What was the carrying value of the Kenya Debt?"),
        ("Impairment charges of $0.4 million for prepaid licenses and production tooling "
         "were recorded in 2018.", IMPAIRMENT, IMPAIRMENT_QUESTION),
        ("At December 31, 2018, the provision for doubtful receivables was (16,086).",
         ACCOUNTS, "What was the provision for doubtful receivables in 2018?"),
        ("Once you have been covered for sixty months in a row, no claim can be contested for "
         "non-disclosure, except on grounds of established fraud.", MORATORIUM,
         "What is the moratorium period?"),
        ("The hospital stay must last at least 24 consecutive hours, although day care "
         "treatment is exempt from that time limit.", STAY,
         "What is the minimum hospital stay for a claim?"),
        ("Cataract surgery has a waiting period of 12 months.", CATARACT_WAIT,
         "What is the waiting period for cataract surgery?"),
        ("Treatment for joint replacement is not covered for 36 months, unless it arises "
         "from an accident.", JOINTS, "Is joint replacement covered from the start?"),
    ],
)  # fmt: skip
def test_faithful_rewordings_pass(said: str, sources: list[Source], question: str) -> None:
    scores = _score([Bullet(said, (1,))], sources, question)
    assert scores.failed() == []


DAY_CARE = [
    _source(
        1,
        "Day care treatment means medical treatment which is:\n"
        "i. undertaken in a hospital in less than twenty-four hours, and\n"
        "ii. which would have otherwise required a hospitalisation of more than twenty-four "
        "hours. Treatment normally taken on an out-patient basis is not included in the scope "
        "of this definition.",
    )
]
MATERNITY = [
    _source(
        1,
        "The Company's maximum liability per delivery shall be limited to Rs. 40000 for a "
        "normal delivery and Rs. 60000 for a caesarean section and in no case shall the "
        "Company pay for more than two deliveries.",
    )
]
CLAIM_TIMES = [
    _source(
        1,
        "Type of claim | Prescribed Time limit\nReimbursement of hospitalisation expenses | "
        "Within thirty days of date of discharge from hospital",
    )
]


@pytest.mark.parametrize(
    ("said", "sources", "question"),
    [
        ("Until the expiry of 36 months of continuous coverage after inception, expenses "
         "related to a pre-existing disease will be excluded.", PED, PED_QUESTION),
        ("Such treatment would have otherwise required a hospitalisation of more than 24 "
         "hours.", DAY_CARE, "What counts as day care treatment?"),
        ("The Company's maximum liability per delivery will be limited to Rs. 60000 for a "
         "caesarean section.", MATERNITY, "What is the most paid for a caesarean delivery?"),
        ("Reimbursement of hospitalisation expenses: Within 30 days of date of discharge "
         "from hospital.", CLAIM_TIMES, "Within how many days of discharge must I claim?"),
    ],
)  # fmt: skip
def test_reordered_sentences_and_digits_for_spelled_numbers_pass(
    said: str, sources: list[Source], question: str
) -> None:
    """A model moves a period to the front of its sentence, writes "24" for
    "twenty-four" and "30" for "thirty"; the passage's next sentence ("... is not
    included") and its "and in no case ..." are not part of the clause the claim
    restates."""
    scores = _score([Bullet(said, (1,))], sources, question)
    assert scores.failed() == []


def test_a_not_before_excluded_says_covered() -> None:
    said = (
        "Until the expiry of 36 months of continuous coverage after inception, expenses "
        "related to a pre-existing disease will not be excluded."
    )
    scores = _score([Bullet(said, (1,))], PED, PED_QUESTION)
    assert "polarity" in _failed(scores)
    assert confidence_for(scores, has_context=True) != Confidence.HIGH


def test_sources_about_a_mix_of_topics_are_shown_but_do_not_lower_the_level() -> None:
    sources = [
        PLANS[0],
        _source(2, "Maternity expenses are paid after a waiting period of 24 months."),
        _source(3, "Road ambulance charges are paid up to Rs 2,000 per hospitalisation."),
    ]
    scores = _score([PLANS_ANSWER[0]], sources, PLANS_QUESTION.replace(" and Plan C", ""))
    assert _failed(scores) == {"context_focus"}
    assert confidence_for(scores, has_context=True) == Confidence.HIGH


def test_the_gate() -> None:
    def with_failed(*names: str) -> CheckScores:
        return CheckScores(**{k: int(k not in names) for k in CheckScores.none().as_dict()})

    def level(*names: str) -> Confidence:
        return confidence_for(with_failed(*names), has_context=True)

    assert level() == Confidence.HIGH
    assert level("numbers") == Confidence.MEDIUM
    assert level("polarity") == Confidence.MEDIUM
    assert level("numbers", "contextual_continuity") == Confidence.LOW
    assert level("answerability") == Confidence.LOW
    assert level("context_focus") == Confidence.HIGH
    assert confidence_for(with_failed(), has_context=False) == Confidence.LOW


def test_a_question_about_what_the_knowledge_never_mentions_is_unanswerable() -> None:
    question = "What is the claim settlement ratio?"
    focus = focus_of(question, vocabulary={"claim", "settlement", "settled", "within"})
    scores = score_answer(
        question=question,
        bullets=[Bullet("Claims are settled within 30 days of the last document.", (1,))],
        sources=[_source(1, "Claims are settled within 30 days of the last document.")],
        instructions=INSTRUCTIONS,
        focus=focus,
    )
    assert scores.answerability == 0
    assert confidence_for(scores, has_context=True) == Confidence.LOW


CASH_FLOWS = Source(
    1, "c1", "table", "10-K", "p. 60",
    "Item 8 > Consolidated Statements of Cash Flows — table 42\n(Millions)\n"
    "columns: — | 2018 | 2017\n"
    "Purchases of property, plant and equipment (PP&E) | 2018 | (1,577)\n"
    "Cash and cash equivalents at end of year | 2018 | 2,853\n"
    "Net increase (decrease) in cash and cash equivalents | 2018 | (200)",
)  # fmt: skip


def test_a_statement_line_answers_a_measure_named_in_other_words() -> None:
    """The cash flow statement calls capital expenditure "Purchases of property, plant and
    equipment" (the bundled finance pack says so): quoting that line answers the question."""
    question = "What was the capital expenditure in 2018 as shown in the cash flow statement?"
    line = "(Millions): Purchases of property, plant and equipment (PP&E) | 2018 | (1,577)"
    scores = score_answer(
        question=question,
        bullets=[Bullet(line, (1,))],
        sources=[CASH_FLOWS],
        instructions=INSTRUCTIONS,
        focus=focus_of(question),
    )
    assert scores.answerability == scores.qa_continuity == 1
    assert confidence_for(scores, has_context=True) == Confidence.HIGH


def test_a_table_line_quoted_whole_is_named_with_its_own_label() -> None:
    """ "and" inside a row's label does not hand the figure to a shorter label that shares
    the words after it ("Cash and cash equivalents at end of year")."""
    question = "What was the net change in cash and cash equivalents in 2018?"
    whole = "(Millions): Net increase (decrease) in cash and cash equivalents | 2018 | (200)"
    moved = "(Millions): Cash and cash equivalents at end of year | 2018 | (200)"
    assert _score([Bullet(whole, (1,))], [CASH_FLOWS], question).contextual_continuity == 1
    assert _score([Bullet(moved, (1,))], [CASH_FLOWS], question).contextual_continuity == 0


def test_computed_numbers_pass_when_the_bullet_shows_its_operands() -> None:
    sources = [_source(1, "Revenue was 1,200 in 2022 and 1,500 in 2023.")]
    question = "How did revenue change in 2023?"
    shown = Bullet("Revenue rose from 1,200 to 1,500 in 2023, an increase of 300 (25%).", (1,))
    bare = Bullet("Revenue rose by 300 in 2023.", (1,))
    assert _score([shown], sources, question).numbers == 1
    assert _score([bare], sources, question).numbers == 0


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
        # a list number quoted after its heading is the list's number, as on its own line
        (
            "Non-medical expenses: 25. EXTRA DIET OF PATIENT | Not Payable",
            "Non-medical expenses\n25. EXTRA DIET OF PATIENT | Not Payable",
        ),
    ],
)
def test_numbers_match_after_normalisation(said: str, context: str) -> None:
    scores = score_answer(
        question="What applies?", bullets=[Bullet(said, (1,))], sources=[_source(1, context)],
        instructions=INSTRUCTIONS,
    )  # fmt: skip
    assert scores.numbers == 1


def test_a_number_ending_a_sentence_is_checked_like_any_other() -> None:
    """ "... age 65. The policy" ends a sentence on 65; it is no list number to skip."""
    source = _source(1, "Entry is allowed up to age 65. The policy renews for life.")
    for said, held in (
        ("Entry is allowed up to age 65. It renews for life.", 1),
        ("Entry is allowed up to age 60. The policy renews for life.", 0),
    ):
        scores = score_answer(
            question="Up to what age can I join?",
            bullets=[Bullet(said, (1,))],
            sources=[source],
            instructions=INSTRUCTIONS,
        )
        assert scores.numbers == held, said


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


@pytest.mark.parametrize(
    ("question", "said", "source"),
    [
        ("When are multi-year agreement customers invoiced?",
         "For multi-year agreements, we generally invoice customers annually at the "
         "beginning of each annual coverage period.",
         "Billing\nFor multi-year agreements, we generally invoice customers annually at the "
         "beginning of each annual coverage period."),
        ("What was the percentage change in cash and cash equivalents?",
         "Cash and cash equivalents, beginning of the year (Change %): (59.9)",
         "Cash flow summary\nCash and cash equivalents, beginning of the year (Change %): "
         "(59.9)"),
        ("By how many basis points did selling expenses increase as a percentage of sales?",
         "Selling expenses increased approximately 70 basis points as a percentage of sales.",
         "Results\nSelling expenses increased approximately 70 basis points as a percentage "
         "of sales in 2019."),
    ],
)  # fmt: skip
def test_an_answer_of_the_kind_asked_need_not_write_its_unit(
    question: str, said: str, source: str
) -> None:
    scores = _score([Bullet(said, (1,))], [_source(1, source)], question)
    assert "qa_continuity" not in _failed(scores)
    assert confidence_for(scores, has_context=True) == Confidence.HIGH


@pytest.mark.parametrize(
    "question",
    [
        "What accounted for the decrease in the share of net earnings of the joint venture?",
        "What led to the decrease in the share of net earnings of the joint venture?",
        "How did the share of net earnings of the joint venture come to decrease?",
    ],
)
def test_a_question_about_causes_is_answered_by_the_causes_without_an_amount(
    question: str,
) -> None:
    """A question asking what caused a change wants the causes, not a figure: the answer
    that gives them, true to its source, is High."""
    notes = [
        _source(1, "Note 5 Joint venture\nThe decrease in our share of net earnings of the "
                   "joint venture was due to lower vessel utilisation and a fair value "
                   "adjustment on its swaps.", "annual_report.pdf"),
    ]  # fmt: skip
    answer = [
        Bullet(
            "The decrease in the share of net earnings of the joint venture was due to lower "
            "vessel utilisation and a fair value adjustment on its swaps.",
            (1,),
        )
    ]
    scores = _score(answer, notes, question)
    assert _failed(scores) <= {"context_focus"}
    assert confidence_for(scores, has_context=True) == Confidence.HIGH


FINANCING = [
    _source(1, "Liquidity\nFinancing activities: net cash used in financing activities during "
               "the fiscal year ended August 31, 2019 was primarily due to the repurchase of "
               "our common stock and dividend payments.", "annual_report.pdf"),
    _source(2, "Cash flows (in thousands)\ncolumns: — | 2019 | 2018\nNet cash used in "
               "financing activities | 2019 | (41,230)\nNet cash used in financing activities "
               "| 2018 | (12,904)", "annual_report.pdf"),
]  # fmt: skip


def test_asked_what_an_item_was_in_a_year_an_answer_without_its_figure_is_not_high() -> None:
    """ "What was X in 2019?" asks for a figure: the sentence on why X moved is true to its
    source and shares every word of the question, but does not answer it."""
    question = "What was the net cash used in financing activities in 2019?"
    why = Bullet(
        "Net cash used in financing activities during the fiscal year ended August 31, 2019 was "
        "primarily due to the repurchase of our common stock and dividend payments.",
        (1,),
    )
    figure = Bullet("Net cash used in financing activities | 2019 | (41,230)", (2,))
    focus = focus_of(question)

    def level(bullet: Bullet) -> Confidence:
        scores = score_answer(
            question=question,
            bullets=[bullet],
            sources=FINANCING,
            instructions=INSTRUCTIONS,
            focus=focus,
        )
        return confidence_for(scores, has_context=True)

    assert level(figure) == Confidence.HIGH
    assert level(why) != Confidence.HIGH


MOVED = [
    _source(1, "Cash flows\nNet cash used in financing activities increased $28,326 thousand "
               "in 2019, driven by an increase in share repurchases of $20,100 thousand.",
            "annual_report.pdf"),
    FINANCING[1],
]  # fmt: skip


@pytest.mark.parametrize(
    ("question", "said", "high"),
    [
        ("What was the net cash used in financing activities in 2019?",
         "Net cash used in financing activities increased $28,326 thousand in 2019, driven by "
         "an increase in share repurchases of $20,100 thousand.", False),
        ("What was the increase in net cash used in financing activities in 2019?",
         "Net cash used in financing activities increased $28,326 thousand in 2019, driven by "
         "an increase in share repurchases of $20,100 thousand.", True),
        ("What was the net cash used in financing activities in 2019?",
         "Net cash used in financing activities | 2019 | (41,230)", True),
    ],
)  # fmt: skip
def test_asked_what_an_item_was_how_much_it_moved_is_not_its_figure(
    question: str, said: str, high: bool
) -> None:
    """ "What was X in 2019?" wants X; "X increased $28,326 thousand" is true to its
    source and says only how far X moved, unless the question asks that."""
    source = 1 if "increased" in said else 2
    scores = _score([Bullet(said, (source,))], MOVED, question)
    assert (confidence_for(scores, has_context=True) == Confidence.HIGH) is high


@pytest.mark.parametrize(
    ("text", "moved"),
    [
        ("Sales of NAND products for 2019 decreased 12% as compared to 2018.", True),
        ("An increase in cash income tax payments of $346 million.", True),
        ("a $3.2 million decline in revenue", True),
        ("Revenue rose 5% to $2.1 billion in 2019.", False),
        ("Revenue was $5 million, up 3%.", False),
        ("Room rent is covered up to 1% of the sum insured.", False),
    ],
)
def test_a_figure_is_a_change_only_when_a_direction_word_moves_it(text: str, moved: bool) -> None:
    assert only_changes(text) is moved


RESERVE = [
    _source(1, "Unrecognized tax benefits\nAbsent resolution of significant tax controversy, "
               "the associated impact on the reserve balance is estimated to be a decrease in "
               "the range of $4.6 to $6.6 million during 2020.", "annual_report.pdf"),
]  # fmt: skip


def test_what_a_question_forecasts_of_its_subject_is_not_part_of_the_subject() -> None:
    """ "How much is the reserve balance expected to decrease?" asks about the reserve
    balance; "expected" is what is said of it. Read as part of the subject, it was a word
    the knowledge never uses ("estimated" there), and the right answer became Low."""
    question = "How much is the reserve balance expected to decrease during 2020?"
    vocabulary = {w for w in re.findall(r"[a-z]+", RESERVE[0].text.lower()) if len(w) >= 5}
    focus = focus_of(question, vocabulary=vocabulary)
    bullet = Bullet(
        "Absent a resolution of significant tax controversy, the reserve balance should fall "
        "by about $4.6 million to $6.6 million during 2020.",
        (1,),
    )
    scores = score_answer(
        question=question,
        bullets=[bullet],
        sources=RESERVE,
        instructions=INSTRUCTIONS,
        focus=focus,
    )
    assert focus.asked == {"reserv", "balanc"}
    assert scores.answerability == 1
    assert confidence_for(scores, has_context=True) == Confidence.HIGH, _failed(scores)


def test_a_figure_asked_for_is_not_stated_by_the_number_of_a_standard() -> None:
    """ "IFRS 16" names a standard; the sentence dated by it gives no figure."""
    question = "What was the net cash used in financing activities in 2019?"
    standard = Bullet(
        "Following the adoption of IFRS 16 on 1 January 2019, lease payments are shown within "
        "net cash used in financing activities.",
        (1,),
    )
    sources = [
        _source(1, "Cash flows\nFollowing the adoption of IFRS 16 on 1 January 2019, lease "
                   "payments are shown within net cash used in financing activities.",
                "annual_report.pdf"),
        FINANCING[1],
    ]  # fmt: skip
    scores = _score([standard], sources, question)
    assert "qa_continuity" in _failed(scores)
    assert confidence_for(scores, has_context=True) != Confidence.HIGH


KEY_PEOPLE = [
    _source(1, "Related parties\nKey management personnel are the directors and the members "
               "of the executive committee. Compensation for the Group's key management "
               "personnel is as follows:", "annual_report.pdf"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("said", "high"),
    [
        ("Compensation for the Group's key management personnel is as follows:", False),
        ("Key management personnel are the directors and the members of the executive "
         "committee.", True),
    ],
)  # fmt: skip
def test_an_answer_that_only_leads_into_a_list_it_does_not_give_is_not_high(
    said: str, high: bool
) -> None:
    question = "Who are the key management personnel of the Group?"
    scores = _score([Bullet(said, (1,))], KEY_PEOPLE, question)
    assert (confidence_for(scores, has_context=True) == Confidence.HIGH) is high


@pytest.mark.parametrize(
    ("question", "figure"),
    [
        ("What was the net cash used in financing activities in 2019?", True),
        ("How much was the gross profit for FY2022?", True),
        ("What was the reason for the increase in selling expenses in 2019?", False),
        ("What was the net cash used in financing activities?", False),  # no period asked
    ],
)
def test_a_figure_is_asked_for_by_what_an_item_was_in_a_period(question: str, figure: bool) -> None:
    assert focus_of(question).figure is figure


AFFILIATES = [
    _source(1, "Note 9 Affiliates\nThe share of net earnings in other affiliates represents our "
               "portion of the results of companies we own 20% to 50% of.\ncolumns: — | 2019 | "
               "2018\nShare of net earnings in other affiliates | 2019 | 2,918\nShare of net "
               "earnings in other affiliates | 2018 | 3,711", "annual_report.pdf"),
]  # fmt: skip


def test_asked_what_an_item_represents_its_figure_alone_is_not_high() -> None:
    """A table line gives the item's amount, not what the item is."""
    question = "What does the share of net earnings in other affiliates represent?"
    row = Bullet("Share of net earnings in other affiliates | 2018 | 3,711", (1,))
    meaning = Bullet(
        "The share of net earnings in other affiliates represents our portion of the results "
        "of companies we own 20% to 50% of.",
        (1,),
    )
    levels = [
        confidence_for(_score([b], AFFILIATES, question), has_context=True) for b in (meaning, row)
    ]
    assert levels[0] == Confidence.HIGH
    assert levels[1] != Confidence.HIGH


FEES = [
    _source(1, "Note 20 Auditor's fees\nAudit fees include the annual audit of the consolidated "
               "statements and the reviews of the quarterly reports.\ncolumns: — | 2019 | 2018"
               "\nAudit fees | 2019 | 1,240\nAudit fees | 2018 | 1,180", "annual_report.pdf"),
]  # fmt: skip


@pytest.mark.parametrize(
    "question", ["What do audit fees include?", "What is included in audit fees?"]
)
def test_asked_what_an_amount_includes_its_figure_alone_is_not_high(question: str) -> None:
    """ "What is included in X?" asks what X covers, as "What does X include?" does; X's
    fee line says how much, not what for."""
    row = Bullet("Audit fees | 2019 | 1,240", (1,))
    meaning = Bullet(
        "Audit fees include the annual audit of the consolidated statements and the reviews "
        "of the quarterly reports.",
        (1,),
    )
    levels = [confidence_for(_score([b], FEES, question), has_context=True) for b in (meaning, row)]
    assert levels[0] == Confidence.HIGH
    assert levels[1] != Confidence.HIGH


def test_asked_which_years_an_item_was_reported_for_its_figures_answer() -> None:
    """ "In which years was X reported for?" ends on its preposition but asks which years
    hold a figure: the table lines giving X for each year answer it at High."""
    question = "In which years was the share of net earnings in other affiliates reported for?"
    rows = [
        Bullet("Share of net earnings in other affiliates | 2019 | 2,918", (1,)),
        Bullet("Share of net earnings in other affiliates | 2018 | 3,711", (1,)),
    ]
    scores = _score(rows, AFFILIATES, question)
    assert confidence_for(scores, has_context=True) == Confidence.HIGH, _failed(scores)


BEFORE_AFTER = [
    _source(1, "We will cover, on a reimbursement basis:\n"
               "a. Pre-hospitalisation expenses incurred up to 45 days prior to admission; and\n"
               "b. Post-hospitalisation expenses incurred up to 90 days after the discharge."),
]  # fmt: skip
CHECK_UP = [
    _source(1, "Health check-up costs are paid up to 2% of the sum insured of the preceding 4 "
               "years, for a block of every four claim-free years."),
]  # fmt: skip
ALLOWANCE = [
    _source(1, "Daily allowance\ncolumns: Sum insured | Allowance\nUp to Rs. 4 lakh | Rs. 400 "
               "per day, at most Rs. 4000 a year\nAbove Rs. 4 lakh and up to Rs. 10 lakh | Rs. "
               "800 per day, at most Rs. 8000 a year"),
]  # fmt: skip
AFRESH = [
    _source(1, "Waiting periods\nOn enhancement of the sum insured, the waiting periods shall "
               "apply afresh to the extent of the increase in sum insured."),
]  # fmt: skip
SURROGATE = [_source(1, "Special conditions\nSurrogate or vicarious pregnancy is not covered.")]


@pytest.mark.parametrize(
    ("said", "sources", "question"),
    [
        ("Costs from the 45 days before admission and the 90 days after discharge are "
         "reimbursed.", BEFORE_AFTER, "How long are pre- and post-hospitalisation costs covered?"),
        ("It pays up to 2% of the sum insured, averaged over each of the previous four years.",
         CHECK_UP, "How much is paid for a health check-up?"),
        ("The waiting periods start again, but only for the increase in sum insured.",
         AFRESH, "What happens to the waiting period if I increase my sum insured?"),
        ("No. A surrogate pregnancy is not covered.", SURROGATE, "Is surrogacy covered?"),
    ],
)  # fmt: skip
def test_a_model_joining_sentences_or_using_other_forms_of_a_word_passes(
    said: str, sources: list[Source], question: str
) -> None:
    """ "before" and "after" in one claim joining two items of its source; "up to" bounds
    the share, not the years after it; "what happens to X" asks for a description, not a
    duration; "surrogacy" is spoken by "surrogate"."""
    scores = _score([Bullet(said, (1,))], sources, question)
    assert scores.failed() == []


@pytest.mark.parametrize(
    ("said", "sources", "question", "check"),
    [
        ("For a sum insured up to Rs. 4 lakh, the allowance is Rs. 800 per day, up to "
         "Rs. 8,000 a year.",
         ALLOWANCE, "What daily allowance is paid on a Rs 3 lakh sum insured?", "polarity"),
        ("The check-up is paid after every block of two claim-free years.",
         CHECK_UP, "How often is a health check-up paid?", "numbers"),
    ],
)  # fmt: skip
def test_a_figure_from_the_other_band_or_a_changed_count_of_years_is_not_high(
    said: str, sources: list[Source], question: str, check: str
) -> None:
    """The row's figure said of the band the row is not ("up to" for "above"); "two
    claim-free years" counts years like "two years"."""
    scores = _score([Bullet(said, (1,))], sources, question)
    assert check in _failed(scores)
    assert confidence_for(scores, has_context=True) != Confidence.HIGH


ADVENTURE = [
    _source(1, "7 EXCLUSIONS > 7.6 Hazardous sports (Code - Excl 09)\nExpenses related to any "
               "treatment necessitated due to participation as a professional in hazardous "
               "sports, including but not limited to rock climbing or scuba diving."),
]  # fmt: skip
GENDER = [
    _source(1, "7 EXCLUSIONS > 7.4 Change-of-Gender treatments (Code - Excl 07)\nExpenses related "
               "to any treatment, including surgical management, to change characteristics of "
               "the body to those of the opposite sex."),
]  # fmt: skip
SHARE = [
    _source(1, "The decrease in the share of net earnings in Harbour Partners is a result of a "
               "decrease in the underlying performance of Harbour Partners in 2018.",
               "annual_report.pdf"),
]  # fmt: skip
EYES = [
    _source(1, "Expenses for correction of eye sight due to refractive error less than 6.5 "
               "dioptres are excluded."),
    _source(2, "Routine eyesight tests are paid once in two years."),
]  # fmt: skip
SETTLEMENT = [
    _source(1, "Claim Settlement\nThe Company shall settle or reject a claim within 20 days from "
               "the date of receipt of the last necessary document."),
    _source(2, "The insurer may cancel the policy on grounds of fraud; the insurer shall refund "
               "the premium for the unexpired period."),
]  # fmt: skip


@pytest.mark.parametrize(
    ("said", "sources", "question"),
    [
        ("No. Treatment to change the body's characteristics to those of the opposite sex, "
         "including surgery, is excluded.", GENDER, "Is a change-of-gender treatment covered?"),
        ("Eyesight correction for a refractive error below 6.5 dioptres is not covered.", EYES,
         "Is correction of a refractive error covered?"),
        ("Claims are settled or rejected within 20 days of receiving the last necessary "
         "document.", SETTLEMENT, "How long does the insurer take to settle a claim?"),
    ],
)  # fmt: skip
def test_a_model_s_own_phrasing_of_an_exclusion_or_a_deadline_passes(
    said: str, sources: list[Source], question: str
) -> None:
    """ "including ..., is excluded" under an exclusions heading; "eyesight" for "eye
    sight"; "how long does the insurer take to settle a claim?" asks about settling a
    claim, which the answer speaks of, not about the insurer."""
    scores = _score([Bullet(said, (1,))], sources, question)
    assert scores.failed() == []


@pytest.mark.parametrize(
    ("said", "sources", "question"),
    [
        ("Yes. Treatment needed because of professional participation in hazardous sports, "
         "such as scuba diving, is covered.", ADVENTURE, "Is scuba diving covered?"),
        ("Yes. Treatment to change the body's characteristics to those of the opposite sex, "
         "including surgery, is covered.", GENDER, "Is gender reassignment surgery covered?"),
        ("The decrease in the share of net earnings in Harbour Partners is because of an "
         "increase in the underlying performance of Harbour Partners in 2018.", SHARE,
         "What caused the decrease in the share of net earnings in Harbour Partners?"),
    ],
)  # fmt: skip
def test_an_excluded_item_said_to_be_covered_or_a_flipped_cause_is_not_high(
    said: str, sources: list[Source], question: str
) -> None:
    """ "is covered" left alone after a comma still belongs to its clause; a cause's
    direction flips though the claim also repeats the effect's own word."""
    scores = _score([Bullet(said, (1,))], sources, question)
    assert "polarity" in _failed(scores)
    assert confidence_for(scores, has_context=True) != Confidence.HIGH


@pytest.mark.parametrize(
    ("question", "wants"),
    [
        ("If the company cancels my policy for non-disclosure, do I get a refund?", ""),
        ("If I have two health policies, can I choose which insurer pays?", ""),
        ("If I cancel my policy after two months, how much premium do I get back?", "money"),
        ("How much notice must I give before a planned admission?", "duration"),
        ("What happens to the waiting period if I increase my sum insured?", ""),
        ("What was behind the lower spending on equipment this year?", ""),
        ("What pushed operating income up in 2019?", ""),
        ("What goes into the cost of support revenues?", ""),
        ("How much did operating income rise, and what was behind it?", "money"),
    ],
)
def test_the_kind_of_answer_a_question_wants(question: str, wants: str) -> None:
    """A yes/no question stays one after the case it asks about; notice is a time; what
    was behind a change, pushed it or goes into a cost asks for causes or parts, not an
    amount, unless the question also asks how much."""
    assert focus_of(question).wants == wants


CHANGES = [
    _source(1, "Note 12 Restructuring\ncolumns: — | 2019 | 2018 | Change %\nRestructuring "
               "expenses | 2019 | 443\nRestructuring expenses | 2018 | 588\nRestructuring "
               "expenses | Change % | -25%", "annual_report.pdf"),
]  # fmt: skip


def test_a_fall_written_as_its_size_matches_the_signed_change_and_a_rise_does_not() -> None:
    """ "-25%" in a change column is a number (its minus is no hyphen), and "fell 25%"
    states it; "rose 25%" does not."""
    question = "How did restructuring expenses change in 2019?"
    fell = _score(
        [Bullet("Restructuring expenses fell 25% in 2019, to 443.", (1,))], CHANGES, question
    )
    rose = _score(
        [Bullet("Restructuring expenses rose 25% in 2019, to 443.", (1,))], CHANGES, question
    )
    assert "numbers" not in _failed(fell)
    assert "numbers" in _failed(rose)


# The first block answers; the second, true to itself, is about something near it.
ASKED_FORMS = [
    ("How is external revenue detailed?",
     "Note 12 Segments\nThe tables below detail external revenue by location of customers.",
     "Revenue recognition\nDistributions from investments are recognised as revenue when the "
     "right to receive payment is established.",
     "External revenue is detailed by the location of customers."),
    ("What does the credit risk rating of 7 and higher refer to?",
     "Credit quality\nCredit risk ratings of 7 and higher correspond to substandard loans.",
     "Concentrations\nThe company is not exposed to any significant credit risk with respect to "
     "its trade customers.",
     "A credit risk rating of 7 or higher means the loan is substandard."),
    ("Where is there more information about the restructuring expenses?",
     "Charges\nThese charges are included in restructuring expenses in the statements of "
     "operations (see Note 15).",
     "Operating expenses\nOperating expenses rose, the largest increase being in salaries and "
     "related benefits.",
     "They are included in restructuring expenses; Note 15 has more information."),
    ("How does the company estimate warranty reserves?",
     "Warranties\nThe company estimates warranty reserves from the repair costs of past "
     "claims.",
     "Restructuring\nThe company estimates restructuring reserves from the expected costs of "
     "each plan.",
     "Warranty reserves are set from what repairs under past claims cost."),
]  # fmt: skip


@pytest.mark.parametrize(
    ("question", "answering", "near", "said"),
    ASKED_FORMS,
    ids=["how-is-x-detailed", "what-does-x-refer-to", "more-information-about-x", "how-does-it-x"],
)
def test_a_true_sentence_of_a_block_about_something_else_does_not_answer_these_questions(
    question: str, answering: str, near: str, said: str
) -> None:
    """ "How is X detailed?", "What does X refer to?", "Where is there more information
    about X?" ask about X: a sentence of the block beside it, quoted word for word and
    sharing some of the question's words, is not High; the answer from X's block is."""
    sources = [_source(1, answering, "annual_report.pdf"), _source(2, near, "annual_report.pdf")]
    neighbour = near.split("\n")[1]
    wrong = _score([Bullet(neighbour, (2,))], sources, question)
    assert "qa_continuity" in _failed(wrong)
    assert confidence_for(wrong, has_context=True) != Confidence.HIGH
    right = _score([Bullet(said, (1,))], sources, question)
    assert confidence_for(right, has_context=True) == Confidence.HIGH, _failed(right)


GRACE = [
    _source(1, "Definitions > Grace Period\nGrace Period means the specified period of time "
               "immediately following the premium due date during which payment can be made "
               "to renew the policy without loss of continuity."),
]  # fmt: skip


def test_a_timing_word_answers_when_not_how_long() -> None:
    """ "Immediately following the due date" tells when a grace period starts, not how long
    it is: asked for the period, the definition is not High; asked when, it answers."""
    said = GRACE[0].text.split("\n")[1]
    asked_length = _score([Bullet(said, (1,))], GRACE, "What grace period do I get on renewal?")
    assert "qa_continuity" in _failed(asked_length)
    assert confidence_for(asked_length, has_context=True) != Confidence.HIGH
    asked_when = _score([Bullet(said, (1,))], GRACE, "When does the grace period start?")
    assert confidence_for(asked_when, has_context=True) == Confidence.HIGH, _failed(asked_when)


OBLIGATIONS = [
    Source(
        1, "chunk-1", "table", "annual_report.pdf", "p. 31",
        "Contractual obligations — table 1\n"
        "columns: Contractual Obligations | Total | Less than 1 Year | 1-3 Years | 3-5 Years\n"
        "Operating leases | Total | 47,774\nOperating leases | Less than 1 Year | $15,363\n"
        "Operating leases | 1-3 Years | $22,919\nOperating leases | 3-5 Years | $ 9,382\n"
        "Long-term debt | Total | 55,000\nLong-term debt | Less than 1 Year | —\n"
        "Long-term debt | 1-3 Years | —\nLong-term debt | 3-5 Years | 55,000",
    )
]  # fmt: skip


@pytest.mark.parametrize(
    ("said", "high"),
    [
        ("Operating leases of $15,363 thousand fall due in less than one year.", True),
        ("Operating leases of $22,919 thousand fall due in less than one year.", False),
        ("Operating leases of $15,363 thousand fall due in 1-3 years.", False),
        ("All $55,000 thousand of long-term debt falls due in 3-5 years.", True),
        ("All $55,000 thousand of long-term debt falls due in less than one year.", False),
    ],
)
def test_a_figure_is_said_of_its_own_band_of_years(said: str, high: bool) -> None:
    """Columns that differ only by their numbers ("Less than 1 Year", "1-3 Years"): a claim
    names the band its figure sits in, written in figures or words, or it moved the
    figure to another band."""
    scores = _score([Bullet(said, (1,))], OBLIGATIONS, "When are the contractual obligations due?")
    assert (confidence_for(scores, has_context=True) == Confidence.HIGH) == high, _failed(scores)
    assert ("contextual_continuity" in _failed(scores)) != high


def test_a_number_written_in_words_is_a_quantity_not_a_word_the_cell_must_share() -> None:
    """ "Of that, $15,363 thousand is due in less than one year" beside "Operating leases |
    Less than 1 Year | $15,363": the cell writes "1" and no scale; the claim's "one" and
    "thousand" are its quantity, checked as such, not words the cell lacks."""
    said = "Of that, $15,363 thousand is due in less than one year."
    scores = _score(
        [Bullet(said, (1,))], OBLIGATIONS, "How much of the operating leases is due soon?"
    )
    assert confidence_for(scores, has_context=True) == Confidence.HIGH, _failed(scores)


WEEKS = [
    Source(
        1, "chunk-1", "table", "annual_report.pdf", "p. 12",
        "Group performance — table 1\ncolumns: — | 53 WEEKS | 52 WEEKS\n"
        "ROFE (%) | 53 WEEKS | 9.6\nROFE (%) | 52 WEEKS | 9.3",
    )
]  # fmt: skip


FAIR_VALUE_LEVELS = [
    Source(
        1, "chunk-1", "table", "annual_report.pdf", "p. 88",
        "Fair value hierarchy — table 7\n"
        "As at 31 December 2019; columns: — | Level 1 RMB’Million | Level 2 RMB’Million"
        " | Level 3 RMB’Million\n"
        "Bonds | Level 1 RMB’Million | 14,766\nBonds | Level 2 RMB’Million | 5,091\n"
        "Bonds | Level 3 RMB’Million | 116,079",
    )
]  # fmt: skip


MARGINS = [
    Source(
        1, "chunk-1", "table", "annual_report.pdf", "p. 31",
        "Margins — table 4\ncolumns: — | 2019 | 2018\n"
        "Operating margin % | 2019 | 34%\nOperating margin % | 2018 | 34%\n"
        "Revenue | 2019 | 120\nRevenue | 2018 | 100",
    )
]  # fmt: skip


OPERATING_COSTS = [
    _source(1, "Operating expenses\nStaff costs rose 4% to $12.0 million on new hires. Rent "
               "was unchanged. Travel expenses fell by a third.\nAs a percentage of sales, "
               "marketing expenses decreased to 5% from 6%.",
            "annual_report.pdf"),
    _source(2, "Gross margin\nCost of sales decreased by $2.1 million, or 9%, as compared to "
               "last year.", "annual_report.pdf"),
]  # fmt: skip


SOFTWARE_REVENUE = [
    Source(
        1, "chunk-1", "table", "annual_report.pdf", "p. 40",
        "Revenue by type — table 2\ncolumns: — | 2019 | 2018\n"
        "Subscriptions | 2019 | 31,200\nSubscriptions | 2018 | 27,450\n"
        "Support | 2019 | 4,310\nSupport | 2018 | 4,020\n"
        "Total software revenues | 2019 | 35,510\nTotal software revenues | 2018 | 31,470",
    )
]  # fmt: skip


def test_a_table_speaks_as_a_whole_of_what_its_rows_count() -> None:
    """A row of a revenue table is revenue though its own label says only "Support"."""
    question = "What was support revenue in 2019?"
    scores = _score([Bullet("Support | 2019 | 4,310", (1,))], SOFTWARE_REVENUE, question)
    assert confidence_for(scores, has_context=True) == Confidence.HIGH, _failed(scores)


FREE_CASH_FLOW = [
    _source(1, "Cash generation\nFree cash flow | 2019 | 18.4\nFree cash flow | 2018 | 11.9\n"
               "3 Free cash flow is operating cash flow less capital expenditure and lease "
               "payments.", "annual_report.pdf"),
]  # fmt: skip


def test_a_note_s_marker_is_not_the_figure_asked_for() -> None:
    """ "3 Free cash flow is ..." opens a note; its "3" is no figure for 2019."""
    question = "What was the free cash flow in 2019?"
    note = FREE_CASH_FLOW[0].text.splitlines()[-1]
    scores = _score([Bullet(note, (1,))], FREE_CASH_FLOW, question)
    assert "qa_continuity" in _failed(scores)
    assert confidence_for(scores, has_context=True) != Confidence.HIGH
    figure = _score([Bullet("Free cash flow | 2019 | 18.4", (1,))], FREE_CASH_FLOW, question)
    assert confidence_for(figure, has_context=True) == Confidence.HIGH, _failed(figure)


FREE_AND_OTHER_CASH_FLOWS = [
    _source(1, "Cash generation\nFree cash flow rose by $4.1 million to $12.0 million, on "
               "lower capital spending.", "annual_report.pdf"),
    _source(2, "Liquidity\nThe year-to-year increase in cash flow of $19.5 million was driven "
               "by new borrowing.", "annual_report.pdf"),
]  # fmt: skip


SHARES = [
    _source(1, "Income statement (in millions)\ncolumns: — | 2021 | 2020\nRevenue | 2021 | 48.2\n"
               "Revenue | 2020 | 44.9", "annual_report.pdf"),
    _source(2, "Expenses\nMarketing costs rose 40 basis points as a percentage of revenue in "
               "2021.", "annual_report.pdf"),
]  # fmt: skip


BESIDE_THE_ANSWER = [
    (OPERATING_COSTS, "How much did the cost of sales decrease by?",
     "Cost of sales decreased by $2.1 million, or 9%, as compared to last year.", 2,
     "As a percentage of sales, marketing expenses decreased to 5% from 6%.", 1),
    (FREE_AND_OTHER_CASH_FLOWS, "What was the change in free cash flow?",
     "Free cash flow rose by $4.1 million, to $12.0 million.", 1,
     "The year-to-year increase in cash flow of $19.5 million was driven by new borrowing.", 2),
    (SHARES, "What was revenue in 2021?",
     "Revenue | 2021 | 48.2", 1,
     "Marketing costs rose 40 basis points as a percentage of revenue in 2021.", 2),
]  # fmt: skip


@pytest.mark.parametrize(
    ("sources", "question", "answer", "answering", "beside", "cited"),
    BESIDE_THE_ANSWER,
    ids=["words-strewn-over-a-block", "another-block-says-the-whole-phrase", "share-of-the-item"],
)
def test_the_block_that_answers_is_high_and_the_one_beside_it_is_not(
    sources: list[Source], question: str, answer: str, answering: int, beside: str, cited: int
) -> None:
    """A true sentence of the block beside the answer is not High:
    - "cost of sales" is not spoken by "staff costs" in one sentence and "sales" in
      another: the block on operating expenses has both words, never together;
    - a long phrase may lose a word to rewording ("cash flow" for "free cash flow"),
      unless a block the answer does not cite says the whole phrase;
    - asked what revenue was, a cost's share of revenue gives no figure of it."""
    right = _score([Bullet(answer, (answering,))], sources, question)
    assert confidence_for(right, has_context=True) == Confidence.HIGH, _failed(right)
    wrong = _score([Bullet(beside, (cited,))], sources, question)
    assert "qa_continuity" in _failed(wrong)
    assert confidence_for(wrong, has_context=True) != Confidence.HIGH


CHARGES = [
    _source(1, "Other charges\nStore closure costs increased by $2.4 million, mainly due to a "
               "$1.9 million charge for writing off an abandoned billing system. Gains on sales "
               "of equipment increased by $4.6 million, mainly due to a $3.1 million gain on the "
               "sale of a warehouse.", "annual_report.pdf"),
]  # fmt: skip


RECEIVABLES = [
    Source(
        1, "chunk-1", "table", "annual_report.pdf", "p. 64",
        "Note 5 — table 1\nTrade receivables, net, consisted of the following (in thousands):\n"
        "December 31,\ncolumns: — | 2021 | 2020\n"
        "Billed receivables | 2021 | $210,400\nBilled receivables | 2020 | $181,250\n"
        "Unbilled receivables | 2021 | 21,500\nUnbilled receivables | 2020 | 17,500\n"
        "2021 | $231,900\n2020 | $198,750",
    )
]  # fmt: skip


SEGMENT_SHARE = [
    Source(
        1, "chunk-1", "table", "annual_report.pdf", "p. 40",
        "Segment operating results — table 9\ncolumns: — | 2019 | 2018\n"
        "Net revenues | 2019 | $2,554\nNet revenues | 2018 | $2,355\n"
        "Percentage of total net revenues | 2019 | 53%\n"
        "Percentage of total net revenues | 2018 | 59%",
    )
]  # fmt: skip


SAID_AS_THE_SOURCE_SAYS = [
    (WEEKS, "What was the ROFE?", "ROFE (53 weeks): 9.6.", True),
    (WEEKS, "What was the ROFE?", "ROFE (52 weeks): 9.6.", False),
    (FAIR_VALUE_LEVELS, "How much of the bonds were measured with Level 3 inputs in 2019?",
     "RMB116,079 million of the bonds were in Level 3 at 31 December 2019.", True),
    (FAIR_VALUE_LEVELS, "How much of the bonds were measured with Level 3 inputs in 2019?",
     "RMB5,091 million of the bonds were in Level 3 at 31 December 2019.", False),
    (MARGINS, "How did the operating margin and revenue change in 2019?",
     "The operating margin held at 34% in 2019, as in 2018.", True),
    (MARGINS, "How did the operating margin and revenue change in 2019?",
     "The operating margin climbed to 34% in 2019.", False),
    (MARGINS, "How did the operating margin and revenue change in 2019?",
     "Revenue rose to 120 in 2019.", True),
    (MARGINS, "How did the operating margin and revenue change in 2019?",
     "Revenue fell to 120 in 2019.", False),
    (CHARGES, "What drove the increase in store closure costs?",
     "Mostly a $1.9 million charge for writing off an abandoned billing system.", True),
    (CHARGES, "What drove the increase in store closure costs?",
     "Mostly a $3.1 million charge for writing off an abandoned billing system.", False),
    (CHARGES, "What drove the increase in store closure costs?",
     "Closure costs rose $2.4 million on a $1.9 million write-off, while equipment sales "
     "gained $4.6 million, including $3.1 million on a warehouse.", True),
    (RECEIVABLES, "What were trade receivables, net, at the end of 2020?",
     "Trade receivables, net, came to $198,750 thousand at December 31, 2020.", True),
    (RECEIVABLES, "What were trade receivables, net, at the end of 2020?",
     "Trade receivables, net, came to $231,900 thousand at December 31, 2020.", False),
    (SEGMENT_SHARE, "What share of total net revenues did the segment make up in 2019?",
     "The segment made up 53% of total net revenues in 2019.", True),
    (SEGMENT_SHARE, "What share of total net revenues did the segment make up in 2019?",
     "The segment made up 59% of total net revenues in 2019.", False),
]  # fmt: skip


@pytest.mark.parametrize(
    ("sources", "question", "said", "high"),
    SAID_AS_THE_SOURCE_SAYS,
    ids=["53-weeks", "52-weeks", "currency-code", "currency-code-other-column", "held",
         "climbed-but-held", "rose", "fell-but-rose", "own-sentence", "next-sentence-figure",
         "both-sentences", "total-under-lead-in", "total-of-the-other-year",
         "share-of-a-row", "share-of-the-other-year"],
)  # fmt: skip
def test_a_figure_is_high_only_where_its_source_says_it_so(
    sources: list[Source], question: str, said: str, high: bool
) -> None:
    """A figure is High beside its own cell or sentence, said the way the source says it:
    - "53 WEEKS" and "52 WEEKS" are columns that differ only by their number;
    - "RMB116,079 million" is RMB and an amount, as "RMB’Million" over "116,079" is, so
      the right figure is High and another column's is not;
    - "climbed to 34% in 2019" beside a line that was 34% the year before is no rise;
    - the write-off was $1.9 million, and $3.1 million is the next sentence's gain: a
      claim saying the write-off sentence with the gain's figure moved the figure, while
      one joining the two sentences states the figures of both;
    - a total row without a label is what the sentence leading into its table counts, on
      the date its caption gives, and "at December 31, 2020" dates the figure before it;
    - "53% of total net revenues" names the row "Percentage of total net revenues", not
      the row "Net revenues"."""
    scores = _score([Bullet(said, (1,))], sources, question)
    assert (confidence_for(scores, has_context=True) == Confidence.HIGH) == high, _failed(scores)


HEADERS_AS_ROWS = [
    Source(
        1, "chunk-1", "table", "annual_report.pdf", "p. 12",
        "Results — table 1\nYear Ended June 30, | Change\n(In millions) | 2021\n"
        "(In millions) | 2020\nSubscriptions | 1,200\nSubscriptions | 1,050\nServices | 300\n"
        "Services | 280",
    )
]  # fmt: skip


def test_a_table_whose_header_rows_were_read_as_rows() -> None:
    """The header rows came out as rows ("(In millions) | 2021") and the figures lost
    their years. "Millions" is no other row's label, so the figure is the subscriptions
    row's; but no year stands beside it, so a claim dating it is not High."""
    undated = _score(
        [Bullet("Subscriptions brought in $1,200 million.", (1,))],
        HEADERS_AS_ROWS,
        "What were subscriptions?",
    )
    assert confidence_for(undated, has_context=True) == Confidence.HIGH, _failed(undated)
    dated = _score(
        [Bullet("Subscriptions brought in $1,200 million in 2021.", (1,))],
        HEADERS_AS_ROWS,
        "What were subscriptions in 2021?",
    )
    assert "contextual_continuity" in _failed(dated)


GROWTH_BY_REGION = [
    _source(1, "Growth\nIn constant currency, the Americas, Europe and Japan contributed 50%, "
               "30% and 20%, respectively, to the growth in our total revenues.",
            "annual_report.pdf"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("said", "high"),
    [
        ("Europe contributed 30% of the growth in total revenues.", True),
        ("Europe contributed 20% of the growth in total revenues.", False),
        ("The Americas gave 50% of the growth, Europe 30% and Japan 20%.", True),
    ],
)
def test_an_item_of_a_respectively_list_keeps_its_own_figure(said: str, high: bool) -> None:
    question = "What was Europe's share of the growth in total revenues?"
    scores = _score([Bullet(said, (1,))], GROWTH_BY_REGION, question)
    assert (confidence_for(scores, has_context=True) == Confidence.HIGH) == high, _failed(scores)
