"""Parsing an LLM reply into cited bullets, and spotting 'not found' replies."""

from __future__ import annotations

import pytest

from bot.conversation.citations import is_not_found, parse_bullets
from bot.conversation.types import Bullet


def test_bullet_list_with_markers_and_preamble() -> None:
    reply = (
        "Here is the answer:\n"
        "- Room rent is capped at 1% of the sum insured per day [1].\n"
        "* ICU charges are capped at 2% [1][3]\n"
        "• Co-pay of 10% applies above age 60 [2, 3]\n"
        "1. Claims are settled within 30 days [2]"
    )
    assert parse_bullets(reply, max_source=3) == [
        Bullet("Room rent is capped at 1% of the sum insured per day.", (1,)),
        Bullet("ICU charges are capped at 2%", (1, 3)),
        Bullet("Co-pay of 10% applies above age 60", (2, 3)),
        Bullet("Claims are settled within 30 days", (2,)),
    ]


def test_out_of_range_and_repeated_markers_are_dropped() -> None:
    assert parse_bullets("- Limit is Rs 5,000 [4][1][1][0]", max_source=3) == [
        Bullet("Limit is Rs 5,000", (1,))
    ]


def test_marker_variants() -> None:
    reply = "- a [1-3]\n- b [Source 2]\n- c 【1】\n- d [^2]\n- e [1; 3]"
    assert [b.source_numbers for b in parse_bullets(reply, max_source=3)] == [
        (1, 2, 3),
        (2,),
        (1,),
        (2,),
        (1, 3),
    ]


def test_wrapped_lines_join_their_bullet() -> None:
    reply = (
        "- Cataract is covered after 24 months\n  of continuous cover [2]\n- Dental is excluded [1]"
    )
    assert parse_bullets(reply, max_source=2) == [
        Bullet("Cataract is covered after 24 months of continuous cover", (2,)),
        Bullet("Dental is excluded", (1,)),
    ]


def test_heading_bullet_prefixes_its_children() -> None:
    reply = "- Plan A:\n  - Room rent 1% [1]\n  - ICU 2% [1]\n- Plan B: room rent 2% [2]"
    assert [b.text for b in parse_bullets(reply, max_source=2)] == [
        "Plan A: Room rent 1%",
        "Plan A: ICU 2%",
        "Plan B: room rent 2%",
    ]


def test_plain_paragraph_becomes_sentences() -> None:
    reply = (
        "Based on the context, room rent is limited to 1% of the sum insured [1]. "
        "ICU charges are limited to 2%. [2] Cataract is paid after 24 months [Source 3]."
    )
    assert parse_bullets(reply, max_source=3) == [
        Bullet("Room rent is limited to 1% of the sum insured.", (1,)),
        Bullet("ICU charges are limited to 2%.", (2,)),
        Bullet("Cataract is paid after 24 months.", (3,)),
    ]


def test_trailing_sources_and_confidence_sections_are_cut() -> None:
    reply = "- Grace period is 30 days [1]\n\nSources:\n[1] policy.pdf, p. 4\nConfidence: High"
    assert parse_bullets(reply, max_source=1) == [Bullet("Grace period is 30 days", (1,))]


def test_code_fences_and_answer_label_are_ignored() -> None:
    assert parse_bullets("```\nAnswer: The limit is Rs 5,000 [1]\n```", max_source=1) == [
        Bullet("The limit is Rs 5,000", (1,))
    ]


def test_empty_reply() -> None:
    assert parse_bullets("   \n", max_source=3) == []


@pytest.mark.parametrize(
    "text",
    [
        "The context does not mention dental cover.",
        "I couldn't find the room rent limit for Plan C in the knowledge base.",
        "This is not mentioned in the provided documents.",
        "There is no information about IVF in the sources.",
        "I cannot find this.",
        "Not enough information to answer.",
    ],
)
def test_not_found_replies(text: str) -> None:
    assert is_not_found(text)


@pytest.mark.parametrize(
    "text",
    [
        "Cataract is not covered in the first year [1].",
        "Room rent is capped at 1% [1]",
        "Claims not found to be fraudulent are paid within 30 days.",
    ],
)
def test_answers_are_not_mistaken_for_not_found(text: str) -> None:
    assert not is_not_found(text)
