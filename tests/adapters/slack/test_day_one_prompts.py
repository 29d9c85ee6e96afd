"""A fresh deployment — one rulebook ingested, no FAQ, nobody has asked or rated anything —
still offers suggested prompts when an assistant thread opens: questions drawn from the
rulebook's own headings, not its cover, contents page or introduction."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from bot.conversation.types import ThreadRef, Turn
from bot.wiring import Services
from tests.adapters.slack.conftest import SlackBotUnderTest
from tests.adapters.slack.payloads import CHANNEL, DM, assistant_thread_started, new_ts
from tests.unit.generated_pdf import DocumentPdf

SECTIONS = [
    ("1 INTRODUCTION", "This handbook sets out the rules for every member of staff at Acme."),
    ("2 ANNUAL LEAVE", "Staff earn 25 days of annual leave a year, approved by their manager."),
    ("2.1 Carrying over leave", "Up to five unused days may be carried into the next year."),
    ("3 SICK LEAVE", "Tell your manager before 10am on the first day of sickness."),
    ("4 EXPENSES AND TRAVEL", "Claim expenses within 30 days, with receipts."),
    ("5 WORKING FROM HOME", "You may work from home two days a week after probation."),
]


@pytest.fixture
def knowledge_dir(tmp_path: Path) -> Path:
    """Only a staff handbook, as a PDF with a cover page and a contents page."""
    folder = tmp_path / "kb"
    folder.mkdir()
    doc = DocumentPdf()
    doc.title_lines("ACME LTD", "STAFF HANDBOOK")
    doc.body("Version 3, issued January 2025 by the People team.")
    doc.pdf.add_page()
    doc.heading("Contents")
    for n, (heading, _) in enumerate(SECTIONS[:1] + SECTIONS[3:], start=1):
        doc.item(f"{n} {heading.split(' ', 1)[1].capitalize()} {'.' * 40} {n + 2}")
    doc.pdf.add_page()
    for heading, body in SECTIONS:
        doc.heading(heading)
        doc.body(body)
    doc.save(folder / "handbook.pdf")
    return folder


def offered(bot: SlackBotUnderTest) -> list[str]:
    [call] = bot.slack.of("assistant.threads.setSuggestedPrompts")
    assert call.args["channel_id"] == DM
    return [p["message"] for p in call.args["prompts"]]


async def open_thread(bot: SlackBotUnderTest) -> None:
    assert (await bot.send(assistant_thread_started(thread_ts=new_ts()))).status == 200
    await bot.settle()


async def test_a_fresh_deployment_offers_four_questions_from_its_rulebook(
    bot: SlackBotUnderTest,
) -> None:
    await open_thread(bot)

    assert offered(bot) == [
        "What does the policy say about annual leave?",
        "What is the process for carrying over leave?",
        "What does the policy say about sick leave?",
        "What does the policy say about expenses and travel?",
    ]


async def test_the_sections_answers_cite_most_come_first(
    bot: SlackBotUnderTest, services: Services
) -> None:
    for question in ("what do I do when I am sick?", "who do I tell about sickness?"):
        turn = Turn(
            ThreadRef("slack", "T1", CHANNEL, new_ts()), f"ev-{uuid.uuid4()}", "U1", question
        )
        answer = services.pipeline.answer_now(turn)
        assert answer is not None and "3 SICK LEAVE" in answer.sources[0].location

    await open_thread(bot)

    assert offered(bot) == [
        "What does the policy say about sick leave?",
        "What does the policy say about annual leave?",
        "What is the process for carrying over leave?",
        "What does the policy say about expenses and travel?",
    ]
