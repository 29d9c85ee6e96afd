"""What is searched for: the question, less the words saying where the asker read it."""

from __future__ import annotations

import pytest

from bot.conversation.search_text import search_text


@pytest.mark.parametrize(
    ("question", "searched"),
    [
        (
            "What are three main companies acquired by Pfizer mentioned in this 10K report?",
            "What are three main companies acquired by Pfizer?",
        ),
        ("How much was capex, as stated in the 10-K?", "How much was capex?"),
        (
            "What is the waiting period in the policy for cataract?",
            "What is the waiting period for cataract?",
        ),
    ],
)
def test_where_the_asker_read_it_is_not_searched(question: str, searched: str) -> None:
    assert search_text(question) == searched


@pytest.mark.parametrize(
    "question",
    [
        "What is covered in the policy term?",  # "policy term" is what is asked
        "What was revenue in the cash flow statement?",  # a part of the document
        "Is it covered under the current policy?",  # which policy, not where it was read
        "What is the purpose of the policy?",
    ],
)
def test_a_document_word_that_is_part_of_the_question_stays(question: str) -> None:
    assert search_text(question) == question
