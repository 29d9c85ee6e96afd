"""Tokenising: the fast word tokenizer splits exactly as NLTK's does."""

from __future__ import annotations

import pytest
from nltk.tokenize import NLTKWordTokenizer

from bot.conversation.text import content_words, words
from bot.conversation.word_tokens import FastWordTokenizer

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


# Texts that reach every one of NLTK's steps, and the letters `re` folds to ASCII ones.
EVERY_STEP = [
    *TRICKY,
    "\"Quoted\" at the start, ``backticks'' and 'single' quotes; also ‘curly’ and „low“.",
    "CANNOT, D'ye, GIMME, Gonna, gotTA, LEMME, More'n, WANNA go; 'Tis and 'TWAS so.",
    "I'M sure they'LL say we'RE done, you'VE seen it, he'D go, it'S hers' -- right?",
    "Wait... what!? A*B costs 5 € – or 6 — at 7:45; 8,9 @ #1 & 50% off: done,",
    "Dotless ı and long ſ: gımme, GİMME, 'tıs, it's; K for Kelvin.",
    'Ends with a quoted period." ',
    "Non-breaking\xa0space,\u2028line separator\x1cand\ttab\r\n  ends here.\n",
    "   ",
    "",
]


@pytest.mark.parametrize("text", EVERY_STEP)
def test_the_fast_tokenizer_splits_exactly_as_nltk(text: str) -> None:
    assert FastWordTokenizer().tokenize(text) == NLTKWordTokenizer().tokenize(text)


def test_content_words_drop_clitics_and_stopwords() -> None:
    assert content_words("The insurer doesn't pay for the company's claims.") == [
        "insur",
        "pay",
        "compani",
        "claim",
    ]
