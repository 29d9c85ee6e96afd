"""Suggested prompts drawn from rulebook headings read as questions a person would ask, and
never offer a contents page, a cover, a bare number or the same topic twice."""

from __future__ import annotations

import pytest

from bot.feedback.section_prompts import (
    document_question,
    first_section_questions,
    heading_title,
    looks_like_contents,
    phrase,
    section_questions,
)
from bot.store.suggestions import SectionSeen


def seen(
    path: str, *, source: int = 1, under_title: bool = False, opening: str = ""
) -> SectionSeen:
    return SectionSeen(source, path, under_title, opening or f"{path}\nSome rule text.")


@pytest.mark.parametrize(
    ("label", "title"),
    [
        ("3.1 Room rent", "Room rent"),
        ("IV. Benefits", "Benefits"),
        ("Section 4: Claims", "Claims"),
        ("Appendix A: Claim form", "Claim form"),
        ("(a) Day care treatment", "Day care treatment"),
        ("Part Time Work", "Part Time Work"),
        ("Contents", None),
        ("TABLE OF CONTENTS", None),
        ("1 Introduction", None),
        ("Section 4", None),
        ("3.1", None),
        ("Appendix B", None),
        ("Annual leave ........ 2", None),
        ("Any claim must be reported to the company within seven days of the event", None),
    ],
)
def test_a_heading_loses_its_number_and_framing_headings_are_skipped(
    label: str, title: str | None
) -> None:
    assert heading_title(label) == title


@pytest.mark.parametrize(
    ("title", "question"),
    [
        ("Annual leave", "What does the policy say about annual leave?"),
        ("ROOM RENT", "What does the policy say about room rent?"),
        ("Annual Leave Policy", "What does the policy say about annual leave policy?"),
        ("PED waiting period", "What does the policy say about PED waiting period?"),
        ("Reporting an accident", "What is the process for reporting an accident?"),
        ("Housing allowance", "What does the policy say about housing allowance?"),
        ("How to claim", "How do I claim?"),
        ("Can I work abroad", "Can I work abroad?"),
        ("Is dental treatment covered?", "Is dental treatment covered?"),
    ],
)
def test_a_title_is_phrased_by_its_shape(title: str, question: str) -> None:
    assert phrase(title) == question


def test_the_document_is_named_when_every_section_sits_under_its_title() -> None:
    sections = [
        seen("HEALTH POLICY", under_title=True),  # the title's own preamble: no topic
        seen("HEALTH POLICY > 2.2 Room rent", under_title=True),
        seen("Staff Handbook > 1 Annual leave", source=2, under_title=True),
        seen("2 Sick leave", source=3),
    ]
    assert list(section_questions(sections)) == [
        "What does the health policy say about room rent?",
        "What does the Staff Handbook say about annual leave?",
        "What does the policy say about sick leave?",
    ]


def test_contents_pages_covers_and_repeated_topics_are_not_offered() -> None:
    contents = "Contents\n1 Leave ........ 3\n2 Sickness ........ 4\n3 Travel ........ 5"
    handbook = [
        seen("ACME LTD STAFF HANDBOOK"),  # the cover, before numbered sections
        seen("Overview of this handbook", opening=contents),
        seen("1 Annual leave"),
        seen("1 Annual leave > 1.1 Carrying over leave"),
        seen("2 Sick leave"),
    ]
    manual = [seen("1 Annual Leave", source=2), seen("2 Travel", source=2)]
    assert first_section_questions(handbook + manual) == [
        "What does the policy say about annual leave?",  # the manual's is the same question
        "What is the process for carrying over leave?",  # then each rulebook's second
        "What does the policy say about travel?",
        "What does the policy say about sick leave?",
    ]


def test_a_contents_page_is_told_from_text_with_numbers() -> None:
    assert looks_like_contents("Contents\n1 Leave ..... 3\n2 Sickness ..... 4\n3 Travel ..... 5")
    assert not looks_like_contents("Room rent is covered up to 1% of the sum insured per day.")


def test_a_rulebook_without_headings_is_asked_about_by_its_file_name() -> None:
    assert document_question("HR_Handbook-2024.pdf") == "What does the HR Handbook 2024 cover?"
    assert document_question("policy.txt") == "What does the policy cover?"
