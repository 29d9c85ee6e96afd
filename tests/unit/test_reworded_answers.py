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


def _tells_apart(
    check: str, sources: Sequence[Source], question: str, right: Bullet, wrong: Bullet
) -> None:
    """`check` passes the faithful answer and fails the wrong one."""
    assert getattr(_score([right], sources, question), check) == 1
    assert getattr(_score([wrong], sources, question), check) == 0


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
    excluded = Bullet("Dental treatment is excluded unless it is needed after an accident.", (1,))
    _tells_apart("polarity", EXCLUSIONS, question, excluded, covered)


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


LOANS = [
    _source(
        1,
        "Term loans — table 4\ncolumns: — | Carrying value 2019 | Carrying value 2018 | "
        "Interest rate | Maturity date\n"
        "Harbour term loan | Carrying value 2019 | $24.3\n"
        "Harbour term loan | Carrying value 2018 | $33.6\n"
        "Harbour term loan | Interest rate | 8.00%\n"
        "Harbour term loan | Maturity date | October 1, 2021\n"
        "Valley term loan | Carrying value 2019 | $20.6\n"
        "Valley term loan | Carrying value 2018 | $40.2\n"
        "Valley term loan | Interest rate | 8.75%\n"
        "Valley term loan | Maturity date | December 17, 2020",
        kind="table",
    )
]


def test_a_figure_a_year_earlier_is_the_year_before() -> None:
    """ "$33.6 million a year earlier" in a sentence about 2019 is the 2018 cell; the same
    figure given as 2019's is still caught."""
    question = "What was the carrying value of the Harbour term loan in 2019?"
    said = Bullet(
        "At the end of 2019 the Harbour term loan was carried at $24.3 million, down from "
        "$33.6 million a year earlier.",
        (1,),
    )
    assert _score([said], LOANS, question).contextual_continuity == 1
    moved = Bullet(
        "At the end of 2019 the Harbour term loan was carried at $33.6 million, up from "
        "$24.3 million a year earlier.",
        (1,),
    )
    assert _score([moved], LOANS, question).contextual_continuity == 0


def test_a_claim_may_join_two_cells_of_one_row() -> None:
    """An answer gives a row's rate and its maturity date in one sentence, as it may join
    two sentences of a paragraph; a rate from another row is still caught."""
    question = "What interest rate does the Harbour term loan carry?"
    said = Bullet(
        "The Harbour term loan bears interest at 8.00% and matures on October 1, 2021.", (1,)
    )
    scores = _score([said], LOANS, question)
    assert scores.contextual_continuity == 1 and _level(scores) == Confidence.HIGH
    other_row = Bullet("The Harbour term loan bears interest at 8.75%.", (1,))
    assert _level(_score([other_row], LOANS, question)) != Confidence.HIGH


FACILITIES = [
    _source(
        1,
        "Subsidiary debt\nThe Northern Credit Facility was entered into in 2015. The Northern "
        "Credit Facility may be prepaid at any time without penalty. The Southern Credit "
        "Facility is secured by liens on the towers the borrower owns. The borrower failed to "
        "meet the leverage covenant of the Southern Credit Facility in 2019.",
    )
]


def test_a_failure_to_do_a_thing_is_the_thing_not_done() -> None:
    question = "Did the borrower meet the covenant of the Southern Credit Facility?"
    said = Bullet("No. In 2019 the borrower did not meet its leverage covenant.", (1,))
    assert _score([said], FACILITIES, question).polarity == 1
    flipped = Bullet("Yes. In 2019 the borrower met its leverage covenant.", (1,))
    assert _level(_score([flipped], FACILITIES, question)) != Confidence.HIGH


def test_a_negating_prefix_flips_the_word() -> None:
    question = "Is the Southern Credit Facility secured?"
    said = Bullet("Yes, it is secured by liens on the towers the borrower owns.", (1,))
    flipped = Bullet("No, the Southern Credit Facility is unsecured.", (1,))
    _tells_apart("polarity", FACILITIES, question, said, flipped)


def test_a_name_set_beside_a_sentence_on_its_sibling_is_unsupported() -> None:
    """ "the Southern Credit Facility" may not borrow what the sentence on the Northern
    one says, though the block names both."""
    question = "Can the Southern Credit Facility be prepaid?"
    wrong = Bullet(
        "Yes, the Southern Credit Facility may be prepaid at any time without penalty.", (1,)
    )
    assert _score([wrong], FACILITIES, question).contextual_continuity == 0
    unnamed = Bullet("Yes, it may be prepaid at any time without penalty.", (1,))
    assert _score([unnamed], FACILITIES, question).contextual_continuity == 0
    said = Bullet(
        "Yes, the Northern Credit Facility may be prepaid at any time without penalty.", (1,)
    )
    assert (
        _score(
            [said], FACILITIES, "Can the Northern Credit Facility be prepaid?"
        ).contextual_continuity
        == 1
    )


DIVESTITURE = [
    _source(
        1,
        "Revenue\nRevenue fell by $184 million in 2019 as a result of the divestiture of the "
        "printing business.",
        "annual_report",
    )
]


def test_what_a_change_added_is_an_increase() -> None:
    question = "How did the divestiture of the printing business affect revenue?"
    said = Bullet("Selling the printing business cut revenue by $184 million in 2019.", (1,))
    flipped = Bullet("The divestiture added $184 million to revenue in 2019.", (1,))
    _tells_apart("polarity", DIVESTITURE, question, said, flipped)


TAX_NOTE = [
    _source(
        1,
        "Income taxes\nWe recognized an income tax benefit of $4.1 million for fiscal year "
        "2021 compared to an income tax provision of $9.3 million for fiscal year 2020.",
    ),
    _source(
        2,
        "Income taxes — table 1\n"
        "Provision for (benefit from) income taxes | Years ended June 30, 2021 Amount | "
        "$(4,120)\n"
        "Provision for (benefit from) income taxes | 2020 Amount (In thousands, except "
        "percentages) | $9,310\n"
        "Effective tax rate | Years ended June 30, 2021 Amount | (31)%\n"
        "Effective tax rate | 2020 Amount (In thousands, except percentages) | 44%",
        kind="table",
    ),
]


def test_a_sentence_and_its_table_may_be_quoted_in_one_claim() -> None:
    """A figure from the table the claim also cites counts as cited (its row and column
    are checked); "thousand" names no column, however the header notes its units; "2020
    Amount" is the header group of "Years ended June 30, 2021 Amount"."""
    question = "What was the income tax line in fiscal 2021 compared with fiscal 2020?"
    said = Bullet(
        "The company booked a tax benefit of $4.1 million ($4,120 thousand) in fiscal 2021, "
        "against a tax provision of $9.3 million ($9,310 thousand) in fiscal 2020.",
        (1, 2),
    )
    assert _score([said], TAX_NOTE, question).contextual_continuity == 1
    moved = Bullet(
        "The company booked a tax benefit of $4.1 million ($4,120 thousand) in fiscal 2020, "
        "against a tax provision of $9.3 million ($9,310 thousand) in fiscal 2021.",
        (1, 2),
    )
    assert _level(_score([moved], TAX_NOTE, question)) != Confidence.HIGH


CAPEX = [
    _source(
        1,
        "Cash flow\nCapital spending of $8.4 million was in line with the prior year (2020 "
        "$7.7 million), with the extra spend of $0.7 million going to new test equipment. "
        "For 2021, 2020 and 2019, depreciation was $12.0 million, $10.5 million and $9.8 "
        "million, respectively.",
    )
]


def test_a_comparative_in_brackets_dates_only_its_own_figure() -> None:
    """ "(2020 $7.7 million)" gives the prior year's figure; the figure before it is the
    current year's."""
    question = "How much did capital spending rise in 2021?"
    said = Bullet("Capital spending was $8.4 million in 2021 against $7.7 million in 2020.", (1,))
    moved = Bullet("Capital spending was $7.7 million in 2021 against $8.4 million in 2020.", (1,))
    _tells_apart("contextual_continuity", CAPEX, question, said, moved)


def test_a_respectively_list_dates_each_figure_by_its_year() -> None:
    question = "How has depreciation moved since 2019?"
    said = Bullet("Depreciation rose from $9.8 million in 2019 to $12.0 million in 2021.", (1,))
    moved = Bullet("Depreciation was $10.5 million in 2019 and $9.8 million in 2020.", (1,))
    _tells_apart("contextual_continuity", CAPEX, question, said, moved)


AMORTIZATION = [
    _source(
        1,
        "Intangible assets\nWe recognized amortization expense of $35.2 million in fiscal "
        "2021. Amortization expense is estimated to average $41.0 million for each of the "
        "next three years.",
    )
]


def test_a_comparison_is_between_the_figures_of_one_kind() -> None:
    """ "... for the next three years, lower than the $35.2 million": the amounts are
    compared, not the three years."""
    question = "How does expected amortization compare with fiscal 2021?"
    said = "Amortization is expected to average $41.0 million a year for the next three years"
    right = Bullet(f"{said}, higher than the $35.2 million of fiscal 2021.", (1,))
    flipped = Bullet(f"{said}, lower than the $35.2 million of fiscal 2021.", (1,))
    _tells_apart("numeric_sense", AMORTIZATION, question, right, flipped)


BRANDS = [
    _source(
        1,
        "Impairment\nThe Group recognized impairment charges of $6.2 million for its Zesto® "
        "and Crumbly® brands in its Bakery segment. It also recognized impairment charges "
        "of $1.3 million for its Halvo® brand in its Dairy segment.",
    )
]


def test_a_trademark_sign_and_the_reporting_entity_are_not_missing_names() -> None:
    question = "What impairment charges were recognized, and in which segments?"
    said = Bullet(
        "The Group booked $6.2 million of impairment on the Zesto and Crumbly brands in the "
        "Bakery segment.",
        (1,),
    )
    assert _score([said], BRANDS, question).contextual_continuity == 1


def test_a_segment_set_beside_a_sentence_on_another_segment_is_unsupported() -> None:
    """ "the Dairy segment" beside the sentence on the Bakery segment: a name's kind is
    also the word after it."""
    question = "What impairment charges were recognized, and in which segments?"
    wrong = Bullet(
        "The Group booked $6.2 million of impairment on the Zesto and Crumbly brands in the "
        "Dairy segment.",
        (1,),
    )
    assert _score([wrong], BRANDS, question).contextual_continuity == 0


RESERVES = [
    _source(
        1,
        "Income taxes\nWe consider the earnings of our foreign subsidiaries to be "
        "indefinitely reinvested and, accordingly, no provision for U.S. income taxes has "
        "been provided.",
    ),
    _source(
        2,
        "Selected financial data — table 1\ncolumns: — | 2021 | 2020\n"
        "Long-term debt | 2021 | $12,000\nLong-term debt | 2020 | $—",
        kind="table",
    ),
]


def test_has_not_provided_for_is_not_a_condition() -> None:
    """ "provided for" is the verb; only "provided (that)" opens a condition, so the "not"
    before it stays in its clause."""
    question = "Does the company provide for U.S. taxes on its foreign earnings?"
    said = "The company treats those earnings as indefinitely reinvested, so it has {}provided"
    said += " for U.S. income taxes on them."
    right, flipped = Bullet(said.format("not "), (1,)), Bullet(said.format(""), (1,))
    _tells_apart("polarity", RESERVES, question, right, flipped)


def test_a_dash_in_a_cell_states_none() -> None:
    question = "Did the company have long-term debt in 2020?"
    said = Bullet("The company reported no long-term debt in 2020.", (2,))
    wrong = Bullet("The company reported long-term debt in 2020.", (2,))
    _tells_apart("polarity", RESERVES, question, said, wrong)


WARRANTY = [
    _source(
        1,
        "Product warranty — table 1\nThe reserve moved as follows:\n"
        "columns: (in thousands) | 2021 | 2020\n"
        "Reserve, beginning of period | 2021 | $6,300\n"
        "Reserve, beginning of period | 2020 | $5,100\n"
        "Provisions made to the reserve during the period | 2021 | 9,412\n"
        "Provisions made to the reserve during the period | 2020 | 7,806\n"
        "Charges against the reserve during the period | 2021 | (8,012)\n"
        "Charges against the reserve during the period | 2020 | (6,606)\n"
        "Reserve, end of period | 2021 | $7,700\n"
        "Reserve, end of period | 2020 | $6,300",
        kind="table",
    ),
]


def test_a_table_in_thousands_restated_in_millions_is_the_same_figure() -> None:
    """A table noted "(in thousands)" writes 9,412 where a model writes $9.4 million."""
    question = "How much was provided to the warranty reserve in 2021?"
    said = "Provisions made to the warranty reserve came to about ${} million in 2021."
    right, wrong = Bullet(said.format("9.4"), (1,)), Bullet(said.format("9.8"), (1,))
    _tells_apart("contextual_continuity", WARRANTY, question, right, wrong)
    _tells_apart("numbers", WARRANTY, question, right, wrong)


def test_the_words_before_a_sentences_first_figure_name_it() -> None:
    """ "Provisions added to the reserve were 9,412": the cut at "to" separates no two
    figures, so the provisions row is named, not the reserve's opening balance."""
    question = "How did the warranty reserve move in 2021?"
    said = "Provisions added to the warranty reserve were ${} thousand in 2021."
    right, wrong = Bullet(said.format("9,412"), (1,)), Bullet(said.format("6,300"), (1,))
    _tells_apart("contextual_continuity", WARRANTY, question, right, wrong)


def test_a_bare_year_column_is_named_by_its_year() -> None:
    """ "at year-end 2021" dates the figure to the column "2021"; "year" and "end" do not
    name the column headed "Year ended December 31, 2019"."""
    question = "How did long-term debt change?"
    said = "Long-term debt stood at ${} thousand at year-end 2021, up from $7,500 thousand in 2020."
    right, wrong = Bullet(said.format("36,500"), (1,)), Bullet(said.format("31,000"), (1,))
    _tells_apart("contextual_continuity", SELECTED, question, right, wrong)


SELECTED = [
    _source(
        1,
        "Selected financial data — table 1\n"
        "columns: — | 2021 | 2020 | Year ended December 31, 2019\n"
        "Long-term debt | 2021 | $36,500\nLong-term debt | 2020 | $7,500\n"
        "Long-term debt | Year ended December 31, 2019 | $31,000",
        kind="table",
    ),
]


def test_a_rise_in_percent_is_taken_on_the_figure_it_rose_from() -> None:
    """1,606 more on 7,806 is up 20.6%; 17.1% is 1,606 of the new 9,412, a wrong base."""
    question = "How did provisions to the warranty reserve change in 2021?"
    said = "Provisions made to the warranty reserve rose from $7,806 thousand in 2020 to $9,412"
    said += " thousand in 2021, up {}%."
    right, wrong = Bullet(said.format("20.6"), (1,)), Bullet(said.format("17.1"), (1,))
    _tells_apart("numbers", WARRANTY, question, right, wrong)


def test_a_claim_may_join_figures_of_two_rows_of_one_table() -> None:
    """Each figure is a cell of the cited table, in its own row (cells_hold checks which)."""
    question = "Did provisions cover the charges against the warranty reserve in 2021?"
    said = "In 2021 provisions made to the reserve of $9,412 thousand outpaced the charges "
    said += "against the reserve of ${} thousand."
    right, wrong = Bullet(said.format("8,012"), (1,)), Bullet(said.format("8,412"), (1,))
    _tells_apart("contextual_continuity", WARRANTY, question, right, wrong)


def test_a_change_is_worked_out_from_the_exact_figures_a_claim_rounds() -> None:
    """9,412 - 7,806 is 1,606, though "about $9.4 million" less "about $7.8 million" is 1.6
    million."""
    question = "How much more was provided to the warranty reserve in 2021?"
    said = "Provisions made to the warranty reserve rose to about $9.4 million in 2021 from "
    said += "about $7.8 million in 2020, an increase of ${} thousand."
    right, wrong = Bullet(said.format("1,606"), (1,)), Bullet(said.format("1,806"), (1,))
    _tells_apart("contextual_continuity", WARRANTY, question, right, wrong)


def test_a_change_may_be_worked_out_from_figures_an_earlier_bullet_states() -> None:
    """A model states the figures, then what they come to in a bullet of its own."""
    question = "How did provisions to the warranty reserve change in 2021?"
    first = Bullet(
        "Provisions made to the warranty reserve were $9,412 thousand in 2021 and $7,806 "
        "thousand in 2020.",
        (1,),
    )
    said = "Provisions made to the warranty reserve were ${} thousand higher in 2021 than in 2020."
    for check in ("numbers", "contextual_continuity"):
        right = _score([first, Bullet(said.format("1,606"), (1,))], WARRANTY, question)
        wrong = _score([first, Bullet(said.format("1,806"), (1,))], WARRANTY, question)
        alone = _score([Bullet(said.format("1,606"), (1,))], WARRANTY, question)
        assert (getattr(right, check), getattr(wrong, check), getattr(alone, check)) == (1, 0, 0)


def test_words_that_only_report_a_figure_leave_a_claim_too_short_to_judge_by_words() -> None:
    """ "That is up from roughly $7.8 million a year earlier" names nothing: "million",
    like "up", reports a figure. Its number is checked; its words are too few to compare."""
    question = "How much was provided to the warranty reserve in 2021?"
    first = Bullet("Provisions made to the warranty reserve were about $9.4 million in 2021.", (1,))
    said = "That is up from roughly ${} million a year earlier."
    right = _score([first, Bullet(said.format("7.8"), (1,))], WARRANTY, question)
    wrong = _score([first, Bullet(said.format("7.1"), (1,))], WARRANTY, question)
    assert (right.contextual_continuity, wrong.contextual_continuity) == (1, 0)


def test_a_change_in_percentage_points_is_a_difference_of_percents() -> None:
    """From 38.3% to 39.6% is 1.3 percentage points, as "130 basis points" is."""
    margins = [_source(1, "Adjusted EBITDA margin was 39.6% in 2018, against 38.3% in 2017.")]
    question = "How did the adjusted EBITDA margin change in 2018?"
    said = "The adjusted EBITDA margin rose from 38.3% to 39.6%, up {} percentage points."
    right, wrong = Bullet(said.format("1.3"), (1,)), Bullet(said.format("1.8"), (1,))
    _tells_apart("numbers", margins, question, right, wrong)


CASH = [
    _source(
        1,
        "Cash flows — table 1\ncolumns: (in millions) | 2019 | 2018\n"
        "Net increase (decrease) in cash and cash equivalents | 2019 | $1,007.4\n"
        "Net increase (decrease) in cash and cash equivalents | 2018 | $(663.3)\n"
        "Net increase (decrease) in cash and cash equivalents | 2017 | $1,294.8",
        kind="table",
    )
]


def test_a_table_row_is_read_on_its_own_not_with_the_next_rows_label() -> None:
    """ "$(663.3)" is a fall, though the next row's label opens with "Net increase"."""
    question = "Did our cash go up or down in 2018?"
    said = "Cash and cash equivalents {} by $663.3 million in 2018."
    right, wrong = Bullet(said.format("fell"), (1,)), Bullet(said.format("rose"), (1,))
    _tells_apart("numeric_sense", CASH, question, right, wrong)


ASSOCIATES = [
    _source(
        1,
        "We recorded share of losses of associates of RMB1,328 million for the fourth "
        "quarter of 2019, compared to share of profit of RMB16 million for the fourth "
        "quarter of 2018.",
    ),
    _source(
        2,
        "Income statement — table 1\ncolumns: (in millions) | 2019 | 2018\n"
        "Revenues | 2019 | 105,767\nRevenues | 2018 | 84,896",
        kind="table",
    ),
]


def test_a_currency_code_set_against_an_amount_names_no_thing() -> None:
    """ "RMB84,896 million" is money; "RMB" is its unit, not a name the table must carry
    (the table is noted in millions and never writes the code). A wrong figure still
    fails."""
    question = "What were revenues in Q4 2019?"
    said = "Revenues were RMB{} million in 2019."
    right, wrong = Bullet(said.format("105,767"), (2,)), Bullet(said.format("104,767"), (2,))
    _tells_apart("contextual_continuity", ASSOCIATES, question, right, wrong)


def test_a_year_the_cited_table_names_only_in_its_title_may_be_stated() -> None:
    """A table whose year row was lost names its years in its title; a claim comparing
    with "2017" cites it. A year the block never names still fails."""
    margins = [
        _source(
            1,
            "Results — table 1\nAdjusted EBITDA; columns: 2018 RESULTS COMPARED TO 2017 | "
            "Years ended | Years ended\nAdjusted EBITDA margin | Years ended | 39.6%\n"
            "Adjusted EBITDA margin | Years ended | 38.3%",
            kind="table",
        )
    ]
    question = "What was the adjusted EBITDA margin in 2018?"
    said = "The adjusted EBITDA margin was 39.6% in 2018, up from 38.3% in {}."
    right, wrong = Bullet(said.format("2017"), (1,)), Bullet(said.format("2016"), (1,))

    _tells_apart("contextual_continuity", margins, question, right, wrong)


COSTS = [
    _source(
        1,
        "Operating expenses\nGeneral and administrative expenses increased by 41% to "
        "RMB16,002 million for the fourth quarter of 2019 on a year-on-year basis. The "
        "increase was mainly due to greater R&D expenses and staff costs, including expenses "
        "attributable to Supercell.",
    )
]


def test_a_percent_said_to_be_year_on_year_is_a_percent_not_a_duration() -> None:
    """ "41% year on year" is 41%, not 41 years; 42% still fails."""
    question = "Why did G&A costs jump in the fourth quarter?"
    said = "G&A expenses climbed {}% year on year to RMB16,002 million."
    right, wrong = Bullet(said.format("41"), (1,)), Bullet(said.format("42"), (1,))
    _tells_apart("numbers", COSTS, question, right, wrong)


def test_a_quarter_written_as_its_code_is_the_quarter_the_passage_writes_out() -> None:
    """ "Q4" is "the fourth quarter"; "Q3" is not."""
    question = "What happened to G&A expenses?"
    said = "In {} 2019, general and administrative expenses increased by 41%."
    right, wrong = Bullet(said.format("Q4"), (1,)), Bullet(said.format("Q3"), (1,))
    _tells_apart("contextual_continuity", COSTS, question, right, wrong)


def test_a_claim_adding_a_run_of_words_its_passage_lacks_is_not_supported() -> None:
    """A paraphrase brings a word or two at a time ("came mainly from", "higher"); a
    clause of its own ("plus one-off litigation charges") is a claim the passage does
    not make."""
    question = "Why did G&A costs jump in the fourth quarter?"
    said = "The rise came mainly from higher R&D expenses and staff costs, including those "
    said += "attributable to Supercell{}."
    right = Bullet(said.format(""), (1,))
    wrong = Bullet(said.format(", plus one-off litigation charges"), (1,))
    _tells_apart("contextual_continuity", COSTS, question, right, wrong)


def test_an_amount_written_in_thousands_without_a_note_may_be_read_as_thousands() -> None:
    """A filing notes "in thousands" once, pages away from the passage: "$300,000" is read
    as $300 million. Another figure still fails."""
    facility = [
        _source(
            1,
            "Debt\nThe Credit Agreement provides for a revolving credit facility of $300,000, "
            "which may be increased by $150,000 at the request of the Company.",
        )
    ]
    question = "Can the revolving credit facility be made bigger?"
    said = "At the Company's request the $300 million facility can be increased by ${} million."
    right, wrong = Bullet(said.format("150"), (1,)), Bullet(said.format("250"), (1,))
    _tells_apart("contextual_continuity", facility, question, right, wrong)


LIVES = [
    _source(
        1,
        "Intangible assets — table 4\n"
        "columns: — | Gross carrying value | Weighted average life (in years)\n"
        "Client relationships | Gross carrying value | 19.1\n"
        "Client relationships | Weighted average life (in years) | 10\n"
        "Trade names | Gross carrying value | 1.4\n"
        "Trade names | Weighted average life (in years) | 3\n"
        "Non-compete agreements | Gross carrying value | 0.9\n"
        "Non-compete agreements | Weighted average life (in years) | 5",
        kind="table",
    ),
    _source(
        2,
        "Acquisitions\nThe purchase price was allocated to client relationships, trade names "
        "and non-compete agreements. Trade names are reviewed for impairment each year.",
    ),
]


def test_a_claim_may_name_another_row_of_the_table_beside_that_rows_own_figure() -> None:
    """ "... and trade names over 3 years" joins the Trade names row, whose cell is 3; the
    same name beside another row's figure (10 is client relationships') is swapped in."""
    question = "Over how many years are the acquired non-compete agreements amortised?"
    said = "Non-compete agreements are amortised over 5 years and trade names over {} years."
    right, wrong = Bullet(said.format("3"), (1,)), Bullet(said.format("10"), (1,))
    _tells_apart("contextual_continuity", LIVES, question, right, wrong)


def test_an_amount_glued_to_the_word_before_it_is_still_an_amount() -> None:
    """PDF text runs words together ("up to11,600,000"); a comma-grouped figure is never
    part of a name as "COVID-19" is."""
    plan = [
        _source(
            1,
            "Stock plans\nOur Amended and Restated 2004 Stock Incentive Plan authorizes the "
            "issuance of up to11,600,000 common shares in the aggregate.",
        )
    ]
    question = "How many shares can the 2004 plan issue?"
    said = "The Amended and Restated 2004 plan authorizes up to {} million shares in total."
    right, wrong = Bullet(said.format("11.6"), (1,)), Bullet(said.format("12.6"), (1,))
    _tells_apart("contextual_continuity", plan, question, right, wrong)
    assert [q.text for q in quantities("COVID-19 and H1N1 cover")] == []


def test_a_negated_rise_past_an_amount_is_a_cap() -> None:
    """ "can't go above 10%" says what "limited to 10%" says; "can't go below" does not."""
    maternity = [
        _source(
            1,
            "Maternity Expenses\nThe aggregate liability of the Company for all maternity "
            "claims in a Policy Period shall be limited to 10% of the Sum Insured.",
        )
    ]
    question = "Is there a cap on maternity claims in a policy period?"
    said = "The insurer's total maternity payout in a policy period can't go {} 10% of the sum"
    said += " insured."
    right, wrong = Bullet(said.format("above"), (1,)), Bullet(said.format("below"), (1,))
    _tells_apart("polarity", maternity, question, right, wrong)


def test_what_an_exclusion_spares_may_be_called_covered() -> None:
    """Under an exclusions heading, the "unless ..." part of an item is what stays covered."""
    cosmetic = [
        _source(
            1,
            "Exclusions > Cosmetic or plastic surgery\nExpenses for cosmetic or plastic surgery "
            "or any treatment to change appearance unless for reconstruction following an "
            "Accident, Burn(s) or Cancer.",
        )
    ]
    question = "Would plastic surgery after a burn be covered?"
    right = Bullet("Reconstruction after an accident, burns or cancer is covered.", (1,))
    wrong = Bullet("Plastic surgery to change your appearance is covered.", (1,))
    _tells_apart("polarity", cosmetic, question, right, wrong)


def test_a_condition_and_its_consequence_are_read_as_one_clause() -> None:
    """ "If A, he or she shall be ineligible": the claim joining A and the consequence is
    compared with both ("he or she" is one subject, not two clauses)."""
    family = [
        _source(
            1,
            "Definitions > Family\nDependent children between the age of 3 months and 25 "
            "years. If the child above 18 years of age is financially independent, he or she "
            "shall be ineligible for coverage in the subsequent renewals.",
        )
    ]
    question = "Can my 20-year-old stay on the family policy once she has a job?"
    said = "A child over 18 who is financially independent will {} for cover at renewal."
    right = Bullet(said.format("not be eligible"), (1,))
    wrong = Bullet(said.format("stay eligible"), (1,))
    _tells_apart("polarity", family, question, right, wrong)


def test_more_than_after_a_preposition_bounds_a_figure_and_compares_none() -> None:
    """ "coverage for more than 12 months" bounds the 12 months; it does not say that the
    30 days named earlier are more than 12 months, as "the 30-day wait is more than" does."""
    first_days = [
        _source(
            1,
            "Waiting Period > First 30 days waiting period\nThis exclusion shall not, however, "
            "apply if the Insured Person has Continuous Coverage for more than 12 (twelve) "
            "months.",
        )
    ]
    question = "Does the first 30 days exclusion apply to a renewed policy?"
    right = Bullet(
        "This 30-day exclusion doesn't apply if you've had continuous coverage for more than "
        "12 months.",
        (1,),
    )
    wrong = Bullet("The 30-day wait is more than 12 months of continuous coverage.", (1,))
    _tells_apart("numeric_sense", first_days, question, right, wrong)
