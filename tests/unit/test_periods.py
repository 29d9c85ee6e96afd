"""The period a question asks about, read however analysts write it."""

from __future__ import annotations

import pytest

from bot.conversation.periods import other_period, period_asked
from bot.conversation.search_text import search_text


@pytest.mark.parametrize(
    ("question", "searched"),
    [
        ("Which region had the biggest drop in Q22023 revenues?", "Q2 2023"),
        ("As of FY2023Q1, why did the company raise guidance?", "FY2023 Q1"),
        ("What was revenue in Q2'2023?", "Q2 2023"),
    ],
)
def test_a_period_written_as_one_token_is_searched_as_words(question: str, searched: str) -> None:
    assert searched in search_text(question)


def test_a_span_of_years_asks_about_the_years_between() -> None:
    period = period_asked("What is the average from FY2016 to FY2018?")
    assert period.years == {2016, 2017, 2018} and period.full_year


@pytest.mark.parametrize(
    ("line", "other"),
    [
        ("Adjusted EBITDA | Twelve Months Ended June 30, 2023 | 2,018", False),
        ("Adjusted EBITDA | Twelve Months Ended June 30, 2022 | 2,117", True),
        ("Adjusted EBITDA | Three Months Ended June 30, 2023 | 532", True),  # a quarter
        ("Adjusted EBITDA | % Change | (5)", False),  # no period: not another one
        ("Revenue was $2,018 million in the year.", False),  # prose is not a table line
    ],
)
def test_a_table_line_reports_the_period_asked_or_another(line: str, other: bool) -> None:
    assert other_period(line, period_asked("What was adjusted EBITDA for FY 2023?")) is other


def test_a_year_before_a_comma_is_a_year_and_an_amount_is_none() -> None:
    assert period_asked("In 2023, what was the adjusted EBITDA?").years == {2023}
    assert period_asked("Was revenue above $2,018 million?").years == frozenset()
