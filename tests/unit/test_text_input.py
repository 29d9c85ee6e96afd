"""Tokenisation helpers and question cleaning."""

from __future__ import annotations

import json

import pytest

from bot.conversation.entities import entities
from bot.conversation.input import clean_question
from bot.conversation.text import (
    content_words,
    number_mentions,
    numbers,
    readable,
    sentences,
    words,
)


def test_sentences_keep_abbreviations_and_split_list_items_and_headings() -> None:
    text = (
        "4.2 Room rent\n"
        "Room rent is capped at Rs. 5,000 per day, e.g. for a single room under Plan A. "
        "ICU charges are capped at 2% of the sum insured.\n"
        "- Claims are settled within 30 days\n"
        "- Cashless needs pre-authorisation"
    )
    assert sentences(text) == [
        "4.2 Room rent",
        "Room rent is capped at Rs. 5,000 per day, e.g. for a single room under Plan A.",
        "ICU charges are capped at 2% of the sum insured.",
        "Claims are settled within 30 days",
        "Cashless needs pre-authorisation",
    ]


def test_words_drop_punctuation_and_clitics() -> None:
    assert words("Plan A's co-pay isn't 5,000!") == ["Plan", "A", "co-pay", "is", "5,000"]


def test_content_words_match_plurals_and_british_spelling() -> None:
    question = set(content_words("Which claims need hospitalisation?"))
    passage = set(content_words("A claim for hospitalization"))
    assert {"claim", content_words("hospitalization")[0]} <= question & passage
    assert "which" not in question and "need" in question


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Room rent up to 5,000 a day", [5000.0]),
        ("Sum insured of Rs 25,000 or INR 1,00,000", [25000.0, 100000.0]),
        ("Co-pay is 1.5% and claims fell −12.3%", [1.5, -12.3]),
        ("Net loss was (3.1), or ($1,200)", [-3.1, -1200.0]),
        ("Waiting period of 36 months", [36.0]),
        ("Premium grew 12 % to 2 lakh", [12.0, 200000.0]),
        ("Ages 18-65 are eligible", [18.0, 65.0]),
    ],
)
def test_numbers_are_normalised(text: str, expected: list[float]) -> None:
    assert numbers(text) == pytest.approx(expected)


@pytest.mark.parametrize(
    "text",
    [
        "Room rent is covered [1][3].",
        "See section 3.1 and clause 4.",
        "Call between 10:30 and 17:00",
        "1. Submit the claim form",
        "3.1 Room rent",
        "COVID-19 and H1N1 are covered",
        "Exclusions (3) and (a) apply",
    ],
)
def test_ids_markers_and_dates_are_not_quantities(text: str) -> None:
    assert numbers(text) == []


def test_dates_keep_only_their_year() -> None:
    assert numbers("Renewed on 31/03/2025, again on 2026-03-31") == [2025.0, 2026.0]


def test_table_cells_do_not_borrow_scale_or_currency_from_the_next_line() -> None:
    assert numbers("Net profit | 2.4\nMillion shares | US$\n2015 | (66)%") == [
        2.4,
        2015.0,
        -66.0,
    ]


def test_year_in_parentheses_is_not_negative() -> None:
    assert numbers("Claims paid (2019)") == [2019.0]


def test_number_mentions_remember_sign_and_position() -> None:
    text = "Sales rose +4% after a −2% dip"
    plus, minus = number_mentions(text)
    assert (plus.explicit_sign, minus.explicit_sign) == ("+", "-")
    assert text[plus.start : plus.end] == "+4%"


def test_entities_find_names_ids_acronyms_and_known_terms() -> None:
    found = entities(
        "What is the room rent limit for Plan A under the Family Medicare Policy and PEDs?",
        known_terms=["room rent"],
    )
    assert found == ["room rent", "Plan A", "Family Medicare Policy", "PEDs"]


def test_entities_skip_sentence_openers_currency_and_shouting() -> None:
    assert entities("Cataract is covered up to Rs 40,000 per eye.") == []
    assert entities("WHAT IS THE LIMIT FOR PLAN A") == []
    assert entities("is there a limit for plan b?") == ["plan b"]


def test_readable_renders_row_json_and_leaves_prose_alone() -> None:
    row = json.dumps({"policy_number": "0000-0001", "plan": "A", "premium": 12000, "x": None})
    assert readable(row) == "policy number: 0000-0001, plan: A, premium: 12000"
    assert readable("{not json}") == "{not json}"


# ---- clean_question -------------------------------------------------------------------------


def test_clean_question_strips_controls_and_collapses_whitespace() -> None:
    cleaned, notice = clean_question("  Is\tcataract\x00 covered\u200b?\n\n under Plan A ")
    assert cleaned == "Is cataract covered? under Plan A"
    assert notice == ""


@pytest.mark.parametrize("text", ["", "   \n\t ", "\x00\x07"])
def test_clean_question_empty_input(text: str) -> None:
    assert clean_question(text) == ("", "")


def test_clean_question_cuts_long_input_at_a_word_and_says_so() -> None:
    text = "claim " * 8000  # 48,000 characters
    cleaned, notice = clean_question(text, max_chars=4000)
    assert len(cleaned) <= 4000
    assert cleaned.endswith("claim")
    assert notice == "Your message was 47,999 characters; I read the first 4,000."
