"""Tokenising: the fast word tokenizer splits exactly as NLTK's does."""

from __future__ import annotations

import pytest
from nltk.tokenize import NLTKWordTokenizer

from bot.conversation.text import content_words, words

TRICKY = [
    "The insurer won't pay; it can't and cannot (see clause 4.2).",
    'He said "room rent is capped" at Rs. 5,000/day — i.e. 1% of the sum insured.',
    "Revenue rose 12.5% to $3.88bn in FY2023: strong growth... Really?!",
    "'Pre-existing' diseases aren't covered for 36 months, the company's rule says.",
    "Plan A. Plan B's limit [Table 2] is {50,000} -- see <Annex> and «notes».",
    "Claims: 10:30 a.m., 3,36 euros, U.S. dollars, gonna wanna gimme lemme.",
]


@pytest.mark.parametrize("text", TRICKY)
def test_words_match_nltk_tokens(text: str) -> None:
    expected = [
        t
        for t in NLTKWordTokenizer().tokenize(text.replace("’", "'"))
        if any(c.isalnum() for c in t) and t[0] != "'" and t.lower() != "n't"
    ]
    assert words(text) == expected


def test_content_words_drop_clitics_and_stopwords() -> None:
    assert content_words("The insurer doesn't pay for the company's claims.") == [
        "insur",
        "pay",
        "compani",
        "claim",
    ]
