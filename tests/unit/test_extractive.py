"""The no-LLM answer: quoted passages that answer the question, each with its source."""

from __future__ import annotations

import json
from collections.abc import Sequence

from bot.conversation.extractive import MAX_BULLET_CHARS, quote, trim
from bot.conversation.focus import focus_of
from bot.conversation.scoring import score_answer
from bot.conversation.types import Bullet, Source


def extractive_answer(
    question: str, sources: Sequence[Source], *, max_bullets: int = 3
) -> list[Bullet]:
    """The quoted answer's bullets; [] when nothing answers."""
    quoted = quote(focus_of(question), sources, max_bullets=max_bullets)
    return quoted.bullets if quoted.answered else []


def _rulebook(number: int, text: str) -> Source:
    return Source(number, f"chunk-{number}", "rulebook", "family_plan.pdf", "p. 4", text)


def _row(number: int, row: dict[str, object]) -> Source:
    return Source(number, f"row-{number}", "row", "table plans", "", json.dumps(row))


SOURCES = [
    _rulebook(1, "4.2 Room rent\nRoom rent is limited to 1% of the sum insured per day for "
                 "Plan A. ICU charges are limited to 2% of the sum insured per day. These "
                 "limits do not apply to day care procedures."),
    _rulebook(2, "Maternity expenses are covered after a waiting period of 24 months. The "
                 "maternity benefit is capped at Rs 50,000 per delivery."),
    _row(3, {"plan": "Plan A", "room_rent_limit_pct": 1, "icu_limit_pct": 2,
             "annual_premium": 12000}),
    _rulebook(4, "Room rent is limited to 1% of the sum insured per day for Plan A. This "
                 "applies in every network hospital."),
]  # fmt: skip


def test_best_sentence_comes_first_with_its_source() -> None:
    bullets = extractive_answer("What is the room rent limit for Plan A?", SOURCES)
    assert bullets[0].text == ("Room rent is limited to 1% of the sum insured per day for Plan A.")
    assert bullets[0].source_numbers == (1,)


def test_near_duplicates_are_quoted_once() -> None:
    bullets = extractive_answer("What is the room rent limit for Plan A?", SOURCES)
    texts = [b.text for b in bullets]
    assert sum(t.startswith("Room rent is limited to 1%") for t in texts) == 1


def test_headings_are_not_answers() -> None:
    bullets = extractive_answer("room rent", SOURCES)
    assert all(b.text != "4.2 Room rent" for b in bullets)


def test_rows_are_rendered_readably() -> None:
    bullets = extractive_answer("What is the annual premium for Plan A?", SOURCES)
    assert bullets[0].text == (
        "plan: Plan A, room rent limit pct: 1, icu limit pct: 2, annual premium: 12000"
    )
    assert bullets[0].source_numbers == (3,)


def test_how_long_prefers_the_sentence_with_the_number() -> None:
    bullets = extractive_answer("How long do I wait for maternity cover?", SOURCES)
    assert bullets[0].text == (
        "Maternity expenses are covered after a waiting period of 24 months."
    )


def test_how_quickly_asks_for_a_time_and_is_answered_by_the_sentence_stating_it() -> None:
    clause = _rulebook(
        1, "9 Claims\nClaims are settled on reimbursement basis on production of the claim "
           "papers. The Company shall settle a claim within 15 days of the last document."
    )  # fmt: skip
    bullets = extractive_answer("How quickly will my claim be settled?", [clause])
    assert (
        bullets[0].text == "The Company shall settle a claim within 15 days of the last document."
    )


def test_nothing_relevant_gives_no_bullets() -> None:
    assert extractive_answer("Is dental treatment covered?", SOURCES) == []
    assert extractive_answer("What is the room rent limit?", []) == []
    assert extractive_answer("???", SOURCES) == []


def test_max_bullets_is_respected() -> None:
    sources = [
        _rulebook(n, f"Cashless claims are settled within {days} days at network hospital {n}.")
        for n, days in ((1, 3), (2, 5), (3, 7), (4, 9))
    ]
    question = "How are cashless claims settled at network hospitals?"
    assert len(extractive_answer(question, sources, max_bullets=4)) == 4
    assert len(extractive_answer(question, sources, max_bullets=2)) == 2


def test_long_sentence_is_trimmed_at_a_word() -> None:
    long_text = (
        "Cataract surgery is paid up to 25% of the sum insured or Rs 40,000 per eye, "
        + "whichever is lower, " * 30
        + "in one policy year."
    )
    bullets = extractive_answer("What is the cataract limit?", [_rulebook(1, long_text)])
    assert len(bullets[0].text) <= MAX_BULLET_CHARS
    assert bullets[0].text.endswith("…")
    assert bullets[0].text.startswith("Cataract surgery is paid up to 25%")


def test_wide_row_keeps_its_identity_and_the_asked_field() -> None:
    row: dict[str, object] = {"policy_number": "0000-0042", "holder": "R. Mehta"}
    row |= {f"rider_{i}_description": "optional cover add-on" for i in range(20)}
    row["renewal_premium"] = 18500
    bullets = extractive_answer("What is the renewal premium for policy 0000-0042?", [_row(1, row)])
    assert bullets[0].text == ("policy number: 0000-0042, holder: R. Mehta, renewal premium: 18500")


def test_trim_prefers_a_sentence_end() -> None:
    text = "First sentence is here. " + "word " * 80
    assert trim(text, 40) == "First sentence is here."


def test_extractive_answers_score_well_on_their_own_sources() -> None:
    question = "What is the room rent limit for Plan A?"
    bullets = extractive_answer(question, SOURCES)
    scores = score_answer(question=question, bullets=bullets, sources=SOURCES, instructions="")
    assert scores.numbers == 1
    assert scores.contextual_continuity == 1
    assert scores.qa_continuity == 1


def test_meaning_decides_between_passages_that_share_the_question_words() -> None:
    """A passage that repeats the question's words loses to the one that answers it when
    the embedding model says so (here a stand-in that knows which one that is)."""
    from bot.conversation.extractive import quote
    from bot.conversation.focus import focus_of

    sources = [
        _rulebook(1, "Competition in our industry\nWe primarily operate in highly competitive "
                     "industry segments, and competition in the industry may reduce margins."),
        _rulebook(2, "Note 1 Business Description\nThe packaging industry is where Amcor, a "
                     "global leader in responsible packaging for food, beverage and "
                     "healthcare products, operates 200 sites."),
    ]  # fmt: skip
    focus = focus_of("What industry does Amcor primarily operate in?")

    def packaging_first(texts: object) -> list[float]:
        return [0.7 if "packaging" in t else 0.2 for t in texts]  # type: ignore[attr-defined]

    by_words = quote(focus, sources)
    by_meaning = quote(focus, sources, likeness=packaging_first)
    assert by_words.bullets[0].source_numbers == (1,)
    assert by_meaning.bullets[0].source_numbers == (2,)


def test_a_question_pointing_to_a_statement_is_answered_from_that_statement() -> None:
    mdna = Source(
        1, "c1", "rulebook", "10-K", "p. 47",
        "Item 7 MD&A > Capital Spending\nCapital expenditures were $1.6 billion in 2018, "
        "and capital spending is expected to be $1.7 billion in 2019.",
    )  # fmt: skip
    statement = Source(
        2, "c2", "table", "10-K", "p. 60",
        "Item 8 > Consolidated Statements of Cash Flows — table 42\n(Millions)\n"
        "columns: — | 2018 | 2017\n"
        "Purchases of property, plant and equipment (PP&E) | 2018 | (1,577)\n"
        "Purchases of property, plant and equipment (PP&E) | 2017 | (1,373)",
    )  # fmt: skip
    bullets = extractive_answer(
        "What was the capital expenditure in 2018 as shown in the cash flow statement?",
        [mdna, statement],
    )
    assert bullets[0].source_numbers == (2,)


def test_a_line_for_another_period_than_asked_is_not_quoted() -> None:
    release = Source(
        1, "c1", "table", "release.pdf", "p. 12",
        "Reconciliation of Non-GAAP Measures — table 3\n($ million)\n"
        "Adjusted EBITDA | Three Months Ended June 30, 2023 | 532\n"
        "Adjusted EBITDA | Twelve Months Ended June 30, 2022 | 2,117\n"
        "Adjusted EBITDA | Twelve Months Ended June 30, 2023 | 2,018",
    )  # fmt: skip
    bullets = extractive_answer("What was adjusted EBITDA for FY 2023?", [release])
    assert [b.text.rsplit("| ", 1)[-1] for b in bullets] == ["2,018"]


def test_a_measure_is_answered_with_the_lines_it_is_computed_from() -> None:
    sheet = Source(
        1, "c1", "table", "10-K", "p. 56",
        "Item 8 > Consolidated Balance Sheets — table 32\n"
        "columns: — | At December 31, 2022 | At December 31, 2021\n"
        "Cash and cash equivalents | At December 31, 2022 | 2,605\n"
        "Cash and cash equivalents | At December 31, 2021 | 2,921\n"
        "Accounts receivable | At December 31, 2022 | 25,332\n"
        "Inventories | At December 31, 2022 | 2,388\n"
        "Additional paid in capital | At December 31, 2022 | 13,420\n"
        "Total current liabilities | At December 31, 2022 | 50,171\n"
        "Total current liabilities | At December 31, 2021 | 47,160",
    )  # fmt: skip
    bullets = extractive_answer(
        "Does the company have a healthy liquidity profile based on its quick ratio for FY 2022?",
        [sheet],
    )
    assert [b.text.split(" | ")[0].split(": ")[-1] for b in bullets] == [
        "Cash and cash equivalents",
        "Accounts receivable",
        "Total current liabilities",
    ]
    assert all("2022" in b.text for b in bullets)


def test_a_change_no_line_states_is_answered_with_the_amounts_it_is_worked_out_from() -> None:
    """No line states the percentage change; the inventories of both years are what it is
    worked out from, and "I could not find this" would hide them."""
    note = Source(
        1, "c1", "table", "notes.md", "Note 7",
        "Note 7 — table 1\ncolumns: — | 2019 | 2018\n"
        "Raw materials | 2019 | $ 1,204\nRaw materials | 2018 | $ 1,012\n"
        "Finished goods | 2019 | $ 3,310\nFinished goods | 2018 | $ 2,947",
    )  # fmt: skip
    question = "What was the percentage change in finished goods between 2018 and 2019?"
    bullets = extractive_answer(question, [note])
    assert [b.text.rsplit(" | ", 1)[-1] for b in bullets] == ["$ 3,310", "$ 2,947"]
    # a percentage that is not worked out from amounts is not answered by them
    assert extractive_answer("What is the finished goods margin percentage?", [note]) == []


def test_a_how_question_is_answered_by_the_way_it_was_done_without_an_amount() -> None:
    """ "How did the company convert its variable rate into a fixed rate?" asks for a
    method; the sentence that gives it states no amount and is still the answer."""
    notes = [
        Source(1, "debt", "document", "notes.pdf", "Note 12 Debt",
               "Note 12 Debt\nThe revolving credit facility bears interest at a variable "
               "rate. To manage this exposure, the company entered into an interest rate swap "
               "that converts the variable rate on a portion of the debt into a fixed rate."),
        Source(2, "leases", "document", "notes.pdf", "Note 13 Leases",
               "Note 13 Leases\nLease payments of $1,200 are due over five years."),
    ]  # fmt: skip
    bullets = extractive_answer(
        "How did the company convert the revolving credit facility's variable rate of "
        "interest into a fixed rate on a portion of the debt?",
        notes,
    )
    assert bullets, "the method was declined for stating no amount"
    assert "interest rate swap" in bullets[0].text
    assert bullets[0].source_numbers == (1,)


def _table(number: int, title: str, columns: list[str], rows: dict[str, list[str]]) -> Source:
    lines = [title, "columns: " + " | ".join(columns)]
    for name, values in rows.items():
        lines += [f"{name} | {c} | {v}" for c, v in zip(columns[1:], values, strict=True)]
    return Source(number, f"table-{number}", "table", "annual report", title, "\n".join(lines))


def test_a_line_close_in_meaning_but_holding_few_asked_words_does_not_block_the_answer() -> None:
    """Meaning lifts another table's "Annual Incentive (%)" lines to the top; they hold too
    few of the question's words to answer it, and the lines that do are quoted."""
    sources = [
        _table(1, "Note 31 — table 1", ["Officer", "Base Salary", "Annual Incentive (%)"],
               {"Greg Baker": ["900,000", "150"], "Lee Park": ["600,000", "100"]}),
        _rulebook(2, "Note 9\nThe committee set the following non-equity incentive target "
                     "amounts and cap percentages for each of our officers in 2024."),
        _table(3, "Note 9 — table 1", ["Name", "Target ($)", "Cap (%)"],
               {"Ann Ortiz": ["1,020,000", "110"], "Tom Baker": ["240,000", "150"]}),
    ]  # fmt: skip
    quoted = quote(
        focus_of("What is the non-equity incentive target amount for Ann Ortiz and Tom Baker "
                 "respectively?"),
        sources,
        likeness=lambda texts: [0.95 if "Annual Incentive" in t else 0.3 for t in texts],
    )  # fmt: skip
    assert quoted.answered, quoted.reason
    assert "Ann Ortiz | Target ($) | 1,020,000" in quoted.bullets[0].text


GROUP = [
    _rulebook(1, "The Group's financial position remains strong, with net cash of 120 million "
                 "at the year end and no borrowings falling due within two years."),
    _rulebook(2, "Hospital bills for in-patient treatment of the insured person are paid up to "
                 "the sum insured."),
]  # fmt: skip
KNOWN_WORDS = {w for s in GROUP for w in s.text.lower().replace(",", " ").split() if len(w) >= 5}


def test_a_word_the_knowledge_never_uses_is_forgiven_when_the_passage_is_close_by_meaning() -> None:
    question = "What is the strength of the group's financial position?"
    focus = focus_of(question, vocabulary=KNOWN_WORDS)
    assert focus.unknown  # "strength" appears in no source

    def close(texts: Sequence[str]) -> list[float]:
        return [0.73 if "financial position" in t else 0.2 for t in texts]

    answered = quote(focus, GROUP, likeness=close, closeness=0.55)
    assert answered.answered
    assert answered.bullets[0].text.startswith("The Group's financial position remains strong")
    assert not quote(focus, GROUP, likeness=close).answered  # no fitted closeness: words decide
    far = quote(focus, GROUP, likeness=lambda texts: [0.44 for _ in texts], closeness=0.55)
    assert not far.answered
    assert "never mentions strength" in far.reason


def test_a_question_framed_in_words_no_passage_uses_is_answered_by_its_closest_passage() -> None:
    """No passage says "components"; the one saying what the cash consisted of answers
    the question, and is as close to it by meaning as answers are."""
    sources = [
        _rulebook(1, "Net cash used for investing activities consisted primarily of 9.0 "
                     "billion of capital expenditures and 1.2 billion of acquisitions."),
        _rulebook(2, "Net cash provided by operating activities rose to 12.1 billion on "
                     "higher net income."),
    ]  # fmt: skip
    focus = focus_of("What were the main components of net cash used for investing activities?")

    def close(texts: Sequence[str]) -> list[float]:
        return [0.7 if "investing" in t else 0.3 for t in texts]

    answered = quote(focus, sources, likeness=close, closeness=0.55)
    assert answered.answered, answered.reason
    assert answered.bullets[0].text.startswith("Net cash used for investing activities")
    far = quote(focus, sources, likeness=lambda texts: [0.45 for _ in texts], closeness=0.55)
    assert not far.answered
    assert "components" in far.reason


def test_a_word_sharing_a_stem_with_a_frame_word_still_names_what_is_asked() -> None:
    """ "effect" only frames a question ("what is the effect of ..."); "effective" in
    "effective tax rate" says which rate is asked for, so the effective rate is quoted
    first and the statutory rate, if at all, after it."""
    sources = [
        _rulebook(1, "Income taxes. The statutory tax rate on foreign income is 15 percent."),
        _rulebook(2, "Results. The effective tax rate was 21.6 percent for the year."),
    ]
    bullets = extractive_answer("What was the effective tax rate?", sources)
    assert bullets[0].text == "The effective tax rate was 21.6 percent for the year."
    assert "effect" not in focus_of("What is the effect of the merger on revenue?").terms


def test_passages_as_rare_as_each_other_are_all_quoted_whatever_the_run() -> None:
    """ "declared" and "proposal" are as rare as each other across the sources: the
    follow-up bullets hold either. Choosing them by one rarest word, picked by set order,
    once gave a different answer from one run of the bot to the next."""
    sources = [
        _rulebook(1, "Pre-existing diseases of the insured declared in the proposal are "
                     "covered after 36 months."),
        _rulebook(2, "Pre-existing diseases of the insured declared at renewal are covered "
                     "after 24 months."),
        _rulebook(3, "Pre-existing diseases of the insured named in a proposal for a child are "
                     "covered after 12 months."),
        _rulebook(4, "Room rent is limited to 1% of the sum insured per day."),
    ]  # fmt: skip
    question = "When are pre-existing diseases of the insured declared in the proposal covered?"
    said = [b.text for b in extractive_answer(question, sources)]
    assert said[0].endswith("36 months.")
    assert {s[-10:] for s in said[1:]} == {"24 months.", "12 months."}


def test_a_document_name_is_not_what_is_asked() -> None:
    """ "the change in the effective tax rate of Corning" asks about the rate: with the
    document's name left in, "Corning between FY2021 and FY2022" was read as asked."""
    focus = focus_of(
        "What was the change in the effective tax rate of Corning between FY2021 and FY2022?",
        ignore=["corning"],
    )
    assert focus.asked == {"effect", "tax", "rate"}
    spaced = focus_of(
        "What was the effective tax rate of American Express in 2022?", ignore=["americanexpress"]
    )
    assert not spaced.terms & {"american", "express"}  # the file name runs it together


def test_a_verb_formed_from_an_amount_word_says_what_is_asked() -> None:
    """ "value" asks for an amount without saying of what; "valued" in "how were the
    inventories valued?" is what is asked."""
    sources = [
        _rulebook(1, "Inventories. The company reviews inventory for excess quantities and "
                     "obsolescence. The company uses these estimates to reduce the inventory "
                     "cost basis. Inventories are valued at the lower of cost or net "
                     "realizable value on a first-in, first-out basis."),
        _rulebook(2, "The company leases its offices and warehouses under operating leases."),
    ]  # fmt: skip
    bullets = extractive_answer("How were the company's inventories valued?", sources)
    assert bullets[0].text.startswith("Inventories are valued at the lower of cost"), bullets
    assert "valu" in focus_of("How were the company's inventories valued?").terms


def test_a_table_by_band_is_quoted_band_by_band_with_each_label() -> None:
    """The reader picks the band: every row is quoted, each with the band it is for."""
    deductibles = Source(
        1, "c1", "table", "claims_policy.pdf", "p. 7",
        "Deductible per claim — table 2\ncolumns: Claim amount | Deductible\n"
        "Claims up to Rs. 5,000 | Deductible | Rs. 500\n"
        "Claims above Rs. 5,000 | Deductible | Rs. 1,000",
    )  # fmt: skip
    bullets = extractive_answer("What deductible applied to claims in 2023?", [deductibles])
    assert {b.text.rsplit("| ", 1)[-1] for b in bullets} == {"Rs. 500", "Rs. 1,000"}
    stated = extractive_answer("What is the deductible on a claim of Rs. 8,000?", [deductibles])
    assert [b.text.split(" | ", 1)[0].rsplit(": ", 1)[-1] for b in stated] == [
        "Claims up to Rs. 5,000",
        "Claims above Rs. 5,000",
    ]


def test_a_sentence_of_other_amounts_does_not_outrank_the_one_that_answers() -> None:
    approvals = _rulebook(
        1,
        "5 Approvals\nThe claims committee approves every claim before payment is made. "
        "Claims outstanding were $25 million as of July 2, 2023 and $94 million as of "
        "December 31, 2022.",
    )
    bullets = extractive_answer("Who approves a claim of $50,000?", [approvals])
    assert bullets[0].text.startswith("The claims committee approves")


def test_a_condition_asked_with_its_waiting_period_is_answered_from_its_own_list() -> None:
    """ "What is the waiting period for X?" is about X; "waiting period" only says a
    duration is wanted. X's own list, read with its lead-in ("Table B. Four years waiting
    period: ..."), answers it first, ahead of the headings of the other lists and the
    definition of a waiting period."""
    rulebook = (
        "6.3 Specified disease waiting period\n"
        "Expenses related to the treatment of the listed conditions shall be excluded until "
        "the expiry of 24 months or 48 months of continuous coverage, as listed below.\n"
        "Table A. Two years waiting period\n"
        "1. Hernia of all types 2. Polycystic ovarian disease\n"
        "Table B. Four years waiting period\n"
        "1. Age-related osteoporosis\n"
    )
    definition = (
        "56. Waiting period means a period from the inception of this policy during which "
        "specified diseases are not covered."
    )
    sources = [_rulebook(1, rulebook), _rulebook(2, definition)]
    question = "What is the waiting period for osteoporosis?"
    assert focus_of(question).asked == {"osteoporosi"}
    bullets = extractive_answer(question, sources)
    assert bullets[0].text == "Table B. Four years waiting period: Age-related osteoporosis"
    bullets = extractive_answer(
        "What is the waiting period for polycystic ovarian disease?", sources
    )
    assert bullets[0].text.startswith("Table A. Two years waiting period: "), bullets
    assert not any("Four years" in b.text for b in bullets), bullets


def test_a_condition_named_after_of_is_what_a_waiting_period_question_asks_about() -> None:
    """ "The waiting period for treatment of depression" is about depression: the phrase
    runs on past "of". Read as asking about "treatment", the general clause on the
    treatment of listed conditions answered it, without naming depression."""
    rulebook = (
        "6.3 Specified disease waiting period\n"
        "Expenses related to the treatment of the listed conditions shall be excluded until "
        "the expiry of 24 months or 48 months of continuous coverage, as listed below.\n"
        "Table A. Two years waiting period\n"
        "1. Hernia of all types 2. Cataract\n"
        "Table B. Four years waiting period\n"
        "1. Depression 2. Age-related osteoporosis\n"
    )
    day_care = (
        "2.10 Day care treatment means medical treatment or a surgical procedure undertaken "
        "under general or local anaesthesia in a hospital in less than 24 hours."
    )
    ambulance = (
        "3.4 Ambulance\nExpenses for an ambulance taking the insured to a hospital for "
        "treatment are paid up to Rs. 2,000 per hospitalisation."
    )
    sources = [_rulebook(1, rulebook), _rulebook(2, day_care), _rulebook(3, ambulance)]
    question = "What is the waiting period for treatment of depression?"
    assert focus_of(question).head == "depress"
    bullets = extractive_answer(question, sources)
    assert bullets[0].text.startswith("Table B. Four years waiting period: "), bullets
    assert "Depression" in bullets[0].text


def test_what_a_cover_question_names_runs_on_past_from() -> None:
    """ "Will it pay for an injury from scuba diving?" is about scuba diving injuries. Read
    as asking about "an injury", the answer had to name an injury, so the clause covering
    any injury in hospital answered it; the exclusion naming scuba diving is what answers."""
    cover = _rulebook(
        1,
        "3.1 In-patient care\nThe company pays the medical expenses of a hospitalisation for "
        "an illness or injury of more than 24 hours, up to the sum insured.",
    )
    exclusion = _rulebook(
        2,
        "7.9 Hazardous sports\nExpenses of treatment arising from taking part in adventure "
        "sports, such as para-jumping, rock climbing or scuba diving, are excluded.",
    )
    question = "Will the policy pay for an injury from scuba diving?"
    assert {"scuba", "dive"} <= focus_of(question).asked
    bullets = extractive_answer(question, [cover, exclusion])
    assert "scuba diving" in bullets[0].text, bullets


def test_the_purpose_or_conditions_of_a_thing_are_asked_about_the_thing() -> None:
    """ "What is the purpose of the free look period?" is about the free look period. Read
    as asking about "purpose", the answer had to name a purpose, so a rulebook whose free
    look clause never says the word was declined, and one that used the word elsewhere
    quoted that instead."""
    free_look = _rulebook(
        1,
        "9.2 Free look period\nYou have 15 days from receiving the policy to review its terms "
        "and return it for a refund of the premium, less the cost of any medical tests.",
    )
    other = _rulebook(
        2,
        "1.1 Preamble\nThe purpose of this policy is to pay for hospital treatment of the "
        "insured person.",
    )
    question = "What is the purpose of the free look period?"
    assert focus_of(question).asked == {"free", "look", "period"}
    assert focus_of("What are the conditions for cashless claims?").asked == {"cashless", "claim"}
    assert focus_of("What is the status of the loan?").asked == {"loan"}
    bullets = extractive_answer(question, [other, free_look])
    assert bullets and "15 days from receiving the policy" in bullets[0].text, bullets


def test_an_age_limit_is_answered_by_an_age_not_an_amount() -> None:
    """ "What is the age limit for children?" asks for an age, written in years or days.
    Read as asking for money (a "limit"), the line stating the ages did not answer it, and
    the question was declined or answered with a money limit for children."""
    eligibility = _rulebook(
        1,
        "2.1 Eligibility\nChildren between the ages of 91 days and 25 years may be covered "
        "with their parents.",
    )
    money = _rulebook(
        2,
        "5.3 Vaccination\nVaccination of children is paid up to a limit of Rs. 1,000 per child "
        "per policy year.",
    )
    bullets = extractive_answer("What is the age limit for children?", [money, eligibility])
    assert bullets and "91 days and 25 years" in bullets[0].text, bullets


def test_a_minimum_asked_is_answered_by_a_quantity_of_any_kind() -> None:
    """ "What is the minimum hospital stay?" asks for a duration, not an amount of money:
    "minimum" and "maximum" bound any quantity. Read as asking for money, no line stating
    the stay answered it, and the question was declined."""
    stay = _rulebook(
        1,
        "3.1 In-patient care\nHospitalisation is covered only for a hospital stay of at "
        "least 24 consecutive hours.",
    )
    copay = _rulebook(2, "3.5 Co-payment\nA co-payment of Rs. 500 applies to each claim.")
    bullets = extractive_answer("What is the minimum hospital stay for a claim?", [stay, copay])
    assert bullets and "24 consecutive hours" in bullets[0].text, bullets


def test_an_item_of_a_numbered_list_set_as_a_table_is_quoted_with_its_list() -> None:
    """A two-column "Sl | Item" table is read as one numbered line a row ("17. Glucometer &
    Strips"); the item is quoted, led by the list that says what happens to it."""
    annexure = Source(
        1, "c1", "table", "health_policy.pdf", "p. 15",
        "Annexure-A — table 4\n"
        "List I – Items for which coverage is not available in the policy; columns: Sl | Item\n"
        "1. BABY FOOD\n2. BELTS/ BRACES\n"
        "List IV – Items that are to be subsumed into costs of treatment; columns: Sl | Item\n"
        "16. SCRUB SOLUTION/STERILLIUM\n17. Glucometer & Strips\n18. URINE BAG",
    )  # fmt: skip
    bullets = extractive_answer("Is the glucometer paid as a separate item?", [annexure])
    assert [b.text for b in bullets] == [
        "Annexure-A List IV – Items that are to be subsumed into costs of treatment: "
        "17. Glucometer & Strips"
    ]


def test_what_is_meant_by_a_term_is_asked_about_the_term() -> None:
    """ "What is meant by co-payment?" and "What's meant by a network hospital?" ask about
    the term. Read with "meant" as a word to find, a clause that says "meant" came first;
    read not at all, the question had nothing to look for."""
    co_payment = _rulebook(
        1,
        "7.3 Co-payment\nEach claim is subject to a co-payment of 20% of the admissible "
        "amount, which the insured person bears.",
    )
    other = _rulebook(
        2,
        "2.4 Senior citizens\nThis benefit is meant for insured persons aged 60 and above, on "
        "payment of an extra premium.",
    )
    assert focus_of("What's meant by a network hospital?").asked == {"network", "hospit"}
    bullets = extractive_answer("What is meant by co-payment?", [other, co_payment])
    assert bullets and "subject to a co-payment of 20%" in bullets[0].text, bullets
