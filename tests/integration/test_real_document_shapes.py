"""Quoted answers on a generated policy PDF, in the shapes real rulebooks broke them: a
table by plan, and a question the rulebook does not answer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fpdf import FPDF

from bot.adapters.console import console_turn
from bot.conversation.types import Answer, Confidence
from bot.settings import Settings
from bot.wiring import Services, open_services
from knowledge.ingest.options import IngestOptions
from tests.fakes.knowledge_base import bot_settings

PREAMBLE = (
    "This policy is a contract between the insurer and the policyholder. A hospital stay is "
    "covered when a hospital admits the insured person on the advice of a doctor. Hospital "
    "bills must be itemised. Any hospital in India may be used, and the hospital must issue "
    "a discharge summary. Hospital charges above the limits are paid by the insured person."
)
DEFINITIONS = [
    (
        "2.18 Domiciliary Hospitalisation",
        "Domiciliary Hospitalisation means medical treatment for an illness which would "
        "normally require care in a hospital but is taken at home because the hospital had "
        "no bed or the patient could not be moved to a hospital.",
    ),
    (
        "2.22 Hospital",
        "Hospital means any institution established for in-patient care and day care "
        "treatment of illness which has qualified nursing staff round the clock and at "
        "least 10 in-patient beds.",
    ),
    (
        "2.23 Hospitalisation",
        "Hospitalisation means admission in a hospital for a minimum period of 24 "
        "consecutive in-patient care hours, except for the day care procedures listed in the "
        "annexure, which a hospital may treat in less time.",
    ),
]
WAITING = (
    "Expenses related to a pre-existing disease (PED) are covered only after 36 months of "
    "continuous coverage from the first enrolment. The waiting period is reduced to 12 "
    "months for employees who join within 90 days of leaving a previous employer's group "
    "health policy."
)
PLANS = [
    ("Benefit", "Plan A", "Plan B", "Plan C"),
    ("Room rent", "1% of sum insured per day", "2% of sum insured per day", "Single room"),
    ("ICU charges", "2% of sum insured per day", "4% of sum insured per day", "Actuals"),
    ("Average premium", "Rs 9,000", "Rs 12,000", "Rs 18,000"),
]


def _heading(pdf: FPDF, text: str) -> None:
    pdf.set_font("Helvetica", "B", 11)
    pdf.multi_cell(0, 7, text, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=10)


def _paragraph(pdf: FPDF, text: str) -> None:
    pdf.multi_cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)


def write_policy(path: Path) -> Path:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 14)
    pdf.cell(0, 10, "ACME CARE POLICY WORDING", new_x="LMARGIN", new_y="NEXT")
    _heading(pdf, "1 PREAMBLE")
    _paragraph(pdf, PREAMBLE)
    _heading(pdf, "2 DEFINITIONS")
    for title, text in DEFINITIONS:
        _heading(pdf, title)
        _paragraph(pdf, text)
    _heading(pdf, "3 WAITING PERIODS")
    _heading(pdf, "3.1 Pre-existing diseases")
    _paragraph(pdf, WAITING)
    _heading(pdf, "4 BENEFITS BY PLAN")
    _paragraph(pdf, "The limits below apply per insured person per policy year:")
    with pdf.table(col_widths=(40, 50, 50, 40), text_align="LEFT") as table:
        for values in PLANS:
            row = table.row()
            for value in values:
                row.cell(value)
    pdf.output(str(path))
    return path


@pytest.fixture
def services(settings: Settings, knowledge_dir: Path) -> Iterator[Services]:
    write_policy(knowledge_dir / "acme_care_policy.pdf")
    with open_services(bot_settings(settings)) as svc:
        summary = svc.knowledge.ingestor.ingest_paths([knowledge_dir], IngestOptions())
        assert not summary.failed, summary.failed
        yield svc


def ask(services: Services, question: str) -> Answer:
    answer = services.pipeline.answer_now(
        console_turn(question, thread=question, scopes=("default",))
    )
    assert answer is not None
    return answer


def test_a_table_row_for_another_plan_is_not_quoted(services: Services) -> None:
    answer = ask(services, "What is the room rent for Plan B?")

    shown = " ".join(b.text for b in answer.bullets)
    assert "2% of sum insured per day" in answer.bullets[0].text
    assert "Plan C" not in shown and "Single room" not in shown and "premium" not in shown


def test_a_question_the_rulebook_does_not_answer_is_declined_with_related_reading(
    services: Services,
) -> None:
    answer = ask(services, "What is the claim settlement ratio?")

    assert [b.text for b in answer.bullets] == ["I could not find this in the knowledge base."]
    assert answer.confidence == Confidence.LOW
    assert answer.sources  # the closest passages, offered as related reading
    assert "Related reading" in answer.notice
