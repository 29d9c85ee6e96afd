"""Real PDFs in the shapes that broke the outline and the reading order, drawn here.

Each test asserts what a user would see in a retrieved chunk: the section path it is filed
under, the order its text reads in, the line a table value comes back as.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge.documents import ChunkDraft, ChunkKind
from knowledge.reading.loaders.rulebooks import load_rulebook
from tests.unit.generated_pdf import DocumentPdf

TEXT = "The insured person must keep every bill, prescription and report for the claim."
PROCEDURES = [
    "Intra-uterine insemination (IUI)",
    "In-vitro fertilisation (IVF)",
    "Intracytoplasmic sperm injection (ICSI)",
    "Gamete Intra-Fallopian Transfer (GIFT)",
    "Embryo transfer",
    "Frozen embryo transfer",
    "Ovulation induction",
    "Zygote Intra-Fallopian Transfer (ZIFT)",
]


def _chunk_with(chunks: list[ChunkDraft], text: str) -> ChunkDraft:
    found = [c for c in chunks if text in c.text]
    assert found, f"no chunk holds {text!r}"
    return found[0]


@pytest.mark.parametrize(
    "bold_items", [False, True], ids=["plain-items", "items-set-like-headings"]
)
def test_a_numbered_list_inside_a_section_does_not_take_over_the_outline(
    tmp_path: Path, bold_items: bool
) -> None:
    doc = DocumentPdf()
    for heading in ("1 PREAMBLE", "2 DEFINITIONS"):
        doc.heading(heading)
        doc.body(TEXT)
    doc.heading("3 BENEFITS")
    doc.body("The company pays for the following treatments during the policy period.")
    doc.heading("3.1 Hospitalisation")
    doc.body("In-patient treatment for more than 24 hours is covered.")
    doc.heading("3.2 Infertility")
    doc.heading("3.2.1 Assisted reproduction")
    doc.body("These procedures are covered up to the limit in the schedule:")
    for n, name in enumerate(PROCEDURES, start=1):
        doc.item(f"{n} {name}", bold=bold_items)
    doc.heading("3.2.2 Health Check Up")
    doc.body("A preventive health check-up is paid once every three claim-free years.")
    doc.heading("4 EXCLUSIONS")
    doc.body("The company does not pay for the following.")
    doc.heading("4.1 Pre-Existing Diseases")
    doc.body("Pre-existing diseases are covered after 36 months of continuous cover.")
    doc.heading("4.2 Specified disease waiting period")
    doc.body("Listed conditions are covered after 24 months of continuous cover.")
    chunks = load_rulebook(doc.save(tmp_path / "policy.pdf"))

    list_chunk = _chunk_with(chunks, "Zygote Intra-Fallopian Transfer (ZIFT)")
    assert list_chunk.metadata["section"] == (
        "3 BENEFITS > 3.2 Infertility > 3.2.1 Assisted reproduction"
    )
    assert "1 Intra-uterine insemination (IUI)" in list_chunk.text
    check_up = _chunk_with(chunks, "preventive health check-up")
    assert check_up.metadata["section"] == "3 BENEFITS > 3.2 Infertility > 3.2.2 Health Check Up"
    assert _chunk_with(chunks, "does not pay").metadata["section"] == "4 EXCLUSIONS"
    assert _chunk_with(chunks, "36 months").metadata["section"] == (
        "4 EXCLUSIONS > 4.1 Pre-Existing Diseases"
    )
    assert _chunk_with(chunks, "24 months").metadata["section"] == (
        "4 EXCLUSIONS > 4.2 Specified disease waiting period"
    )
    assert not any("Zygote" in c.metadata["section"] for c in chunks)


def test_d_title_set_over_consecutive_lines_stays_one_title(tmp_path: Path) -> None:
    doc = DocumentPdf()
    doc.title_lines("Acme Corporation and Subsidiaries", "Statement of Operations")
    doc.title_lines("Years Ended December 31")
    doc.body("Revenue grew in every region because more policies were sold to new customers.")
    doc.heading("Segment results")
    doc.body("Each segment reports its own operating income, before corporate costs.")
    chunks = load_rulebook(doc.save(tmp_path / "annual.pdf"))

    revenue = _chunk_with(chunks, "Revenue grew")
    assert revenue.metadata["section"] == (
        "Acme Corporation and Subsidiaries Statement of Operations Years Ended December 31"
    )
    assert revenue.kind == ChunkKind.RULEBOOK
    assert _chunk_with(chunks, "Each segment").metadata["section"] == "Segment results"


BALANCE_SHEET = [
    ("Current assets", ()),
    ("Cash and cash equivalents", ("$ 2,853", "$ 3,053")),
    ("Accounts receivable", ("5,020", "4,911")),
    ("Inventories", ("4,366", "4,034")),
    ("Total current assets", ("12,239", "11,998")),
    ("Property and equipment, net", ("8,738", "8,866")),
    ("Goodwill", ("(1,051)", "-")),
    ("Total assets", ("$ 20,977", "$ 20,864")),
]


def test_c_banded_financial_statement_is_one_table_whose_lines_carry_label_and_period(
    tmp_path: Path,
) -> None:
    doc = DocumentPdf()
    doc.body("Management reviews the financial position of the group at every year end.")
    doc.title_lines("Acme Corporation and Subsidiaries", "Consolidated Balance Sheet")
    doc.statement(
        [("December 31,", "December 31,"), ("2024", "2023")],
        BALANCE_SHEET,
        scale="(Dollars in millions)",
    )
    doc.body("The accompanying notes are an integral part of this statement.")
    chunks = load_rulebook(doc.save(tmp_path / "annual_report.pdf"))

    tables = [c for c in chunks if c.kind == ChunkKind.TABLE]
    assert {c.metadata["table"] for c in tables} == {1}, "one table, not one per shaded row"
    lines = {line for c in tables for line in c.text.splitlines()}
    assert "Cash and cash equivalents | December 31, 2024 | 2,853" in lines
    assert "Cash and cash equivalents | December 31, 2023 | 3,053" in lines
    assert "Total current assets | December 31, 2024 | 12,239" in lines
    assert "Goodwill | December 31, 2024 | (1,051)" in lines
    assert "Total assets | December 31, 2023 | 20,864" in lines
    assert all(c.metadata["section"] == (
        "Acme Corporation and Subsidiaries Consolidated Balance Sheet"
    ) for c in tables)  # fmt: skip
    assert "(Dollars in millions)" in tables[0].text
    prose = [c.text for c in chunks if c.kind == ChunkKind.RULEBOOK]
    assert not any("2,853" in text or "December 31," in text for text in prose)


LEFT_COLUMN = [
    "a. Cataract",
    "b. Benign prostatic hypertrophy",
    "c. Hernia of all types",
    "d. Hydrocele and varicocele treated together in one stay",
    "e. Fistula in ano",
]
RIGHT_COLUMN = [
    "m. Surgery of gall bladder and bile duct excluding malignancy",
    "n. Sinusitis",
    "o. Tonsillectomy",
    "p. Joint replacement unless arising from an accident",
    "q. Varicose veins",
]


def test_b_list_set_in_two_columns_reads_down_each_column(tmp_path: Path) -> None:
    doc = DocumentPdf()
    doc.heading("6.3 Specified disease waiting period")
    doc.body("These conditions are covered after 24 months of continuous cover:")
    doc.two_columns(LEFT_COLUMN, RIGHT_COLUMN)
    doc.body("The waiting period applies afresh to any increase of the sum insured.")
    chunks = load_rulebook(doc.save(tmp_path / "waiting.pdf"))

    text = _chunk_with(chunks, "Cataract").text
    positions = [text.find(item) for item in LEFT_COLUMN + RIGHT_COLUMN]
    assert -1 not in positions, f"an item was cut or run into another: {text}"
    assert positions == sorted(positions), "left column first, then the right one"
    assert "excluding malignancy" not in text.split("b. Benign")[0]


def test_statement_continued_on_the_next_page_keeps_its_period_headers(tmp_path: Path) -> None:
    doc = DocumentPdf()
    doc.title_lines("Acme Corporation and Subsidiaries", "Consolidated Statement of Cash Flows")
    rows = [
        (f"Operating item number {n}", (f"{n},1{n % 10}0", f"({n},2{n % 10}0)"))
        for n in range(1, 81)
    ]
    doc.statement([("2024", "2023")], rows, scale="(Millions)")  # runs onto page 2
    chunks = load_rulebook(doc.save(tmp_path / "cash_flows.pdf"))

    tables = [c for c in chunks if c.kind == ChunkKind.TABLE]
    assert {c.metadata["table"] for c in tables} == {1}, "one table across the page break"
    last = next(c for c in tables if "Operating item number 80 |" in c.text)
    assert last.metadata.get("page_end", last.metadata["page"]) == 2
    assert "Operating item number 80 | 2024 | 80,100" in last.text.splitlines()
    assert "Operating item number 80 | 2023 | (80,200)" in last.text.splitlines()


SUMMARY = [
    ("Total revenues", ("52,862", "42,380", "25%")),
    ("Provisions for losses", ("2,182", "(1,419)", "#")),
    ("Expenses", ("41,095", "33,110", "24%")),
    ("Pretax income", ("9,585", "10,689", "(10)%")),
    ("Income tax provision", ("2,071", "2,629", "n/m")),
    ("Net income", ("7,514", "8,060", "(7)%")),
]


def test_rows_marking_a_figure_not_meaningful_stay_rows_under_a_long_scale_note(
    tmp_path: Path,
) -> None:
    """ "#" and "n/m" hold a cell's place ("# Denotes a variance of 100 percent or more"),
    and a scale note wider than the row labels still sits beside the period headers: each
    row keeps its own label and year, not the row above's figures as its headers."""
    doc = DocumentPdf()
    doc.heading("Table 1: Summary of Financial Performance")
    doc.statement(
        [("2024", "2023", "Change")],
        SUMMARY,
        scale="(Millions, except percentages, per share amounts and where indicated)",
    )
    doc.body("# Denotes a variance of 100 percent or more.")
    chunks = load_rulebook(doc.save(tmp_path / "summary.pdf"))

    tables = [c for c in chunks if c.kind == ChunkKind.TABLE]
    lines = {line for c in tables for line in c.text.splitlines()}
    assert "Pretax income | 2024 | 9,585" in lines
    assert "Income tax provision | 2023 | 2,629" in lines
    assert "Provisions for losses | Change | #" in lines
    assert "(Millions, except percentages, per share amounts and where indicated)" in tables[0].text


CONTENTS = [
    ("PART I", ""),
    ("ITEM 1 Business", "2"),
    ("ITEM 1A Risk Factors", "2"),
    ("ITEM 2 Properties", "2"),
    ("PART II", ""),
    ("ITEM 5 Market for Common Equity", "3"),
    ("ITEM 7 Management's Discussion and Analysis", "3"),
    ("ITEM 8 Financial Statements", "3"),
    ("PART III", ""),
    ("ITEM 10 Directors and Officers", "4"),
]
REPORT = [
    (
        "PART I",
        [
            ("Item 1. Business", "We make software."),
            ("Item 1A. Risk Factors", "Rivals compete on price."),
            ("Item 2. Properties", "Our offices are leased."),
        ],
    ),
    (
        "PART II",
        [
            ("Item 5. Market for Common Equity", "Shares trade on Nasdaq."),
            ("Item 7. Management's Discussion and Analysis", "Revenue grew by a tenth."),
            ("Item 8. Financial Statements", "The statements follow."),
        ],
    ),
    ("PART III", [("Item 10. Directors and Officers", "The board has nine members.")]),
]


def test_contents_page_and_cover_do_not_own_the_outline_of_an_annual_report(
    tmp_path: Path,
) -> None:
    doc = DocumentPdf()
    doc.heading("Acme Corporation", size=14)
    doc.body("345 Park Avenue, San Jose, California 95110")
    doc.heading("TABLE OF CONTENTS")
    for title, page in CONTENTS:
        doc.pdf.cell(150, 5, title)
        doc.pdf.cell(0, 5, page, align="R", new_x="LMARGIN", new_y="NEXT")
    for part, items in REPORT:
        doc.pdf.add_page()
        doc.heading(part)
        for item, text in items:
            doc.heading(item)
            doc.body(text)
    chunks = load_rulebook(doc.save(tmp_path / "annual_report.pdf"))

    assert _chunk_with(chunks, "We make software.").metadata["section"] == (
        "Part I > Item 1 Business"
    )
    assert _chunk_with(chunks, "Revenue grew").metadata["section"] == (
        "Part II > Item 7 Management's Discussion and Analysis"
    )
    assert _chunk_with(chunks, "nine members").metadata["section"] == (
        "Part III > Item 10 Directors and Officers"
    )


RECONCILIATION = [
    ("Net income attributable to the group", ("805", "52.9")),
    ("Tax expense", ("300", "")),
    ("Adjusted EBITDA and EPS", ("2,080", "70.5")),
]


def test_a_scale_note_opening_a_line_of_column_headers_leaves_the_headers_in_place(
    tmp_path: Path,
) -> None:
    """ "($ million)   EBITDA   EPS (US cents)(1)" opens and closes with a parenthesis, but
    it is a note followed by headers: each figure keeps the measure its column names."""
    doc = DocumentPdf()
    doc.heading("Reconciliation of non-GAAP measures")
    doc.statement(
        [("Year ended", "Year ended"), ("EBITDA", "EPS (US cents)(1)")],
        RECONCILIATION,
        scale="($ million)",
    )
    chunks = load_rulebook(doc.save(tmp_path / "reconciliation.pdf"))

    lines = {line for c in chunks if c.kind == ChunkKind.TABLE for line in c.text.splitlines()}
    assert "Adjusted EBITDA and EPS | Year ended EBITDA | 2,080" in lines
    assert "Adjusted EBITDA and EPS | Year ended EPS (US cents)(1) | 70.5" in lines


def test_a_statement_title_sharing_its_line_with_the_company_name_heads_the_statement(
    tmp_path: Path,
) -> None:
    """A statement's bold title line runs long when the company's name is set on the same
    line: its figures are filed under that statement, not under the one before it."""
    doc = DocumentPdf()
    company = "Example Incorporated and Subsidiary Companies"
    doc.title_beside("Consolidated Balance Sheets", company)
    doc.statement([("2022", "2021")], [("Total assets", ("9,100", "8,700"))], scale="(millions)")
    doc.pdf.add_page()
    doc.title_beside("Consolidated Statements of Cash Flows", company)
    doc.statement(
        [("2022", "2021")],
        [("Net cash used in financing activities", ("(1,200)", "(900)"))],
        scale="(millions)",
    )
    chunks = load_rulebook(doc.save(tmp_path / "statements.pdf"))

    financing = _chunk_with(chunks, "Net cash used in financing activities")
    assert financing.metadata["section"].startswith("Consolidated Statements of Cash Flows")
    assert (
        _chunk_with(chunks, "Total assets")
        .metadata["section"]
        .startswith("Consolidated Balance Sheets")
    )


def test_an_entry_of_a_two_column_list_is_not_a_title_however_central(tmp_path: Path) -> None:
    """A list of funding sources with, beside each, where it is disclosed: the right-hand entry
    "Consolidated Balance Sheets" can fall in the middle of the page, but it shares its line
    with the left-hand one, so it is not a title and the text after the list stays in its
    section."""
    doc = DocumentPdf()
    doc.heading("Liquidity and Capital Resources")
    doc.body(" ".join([TEXT] * 12))  # a page of running text sets the right margin
    doc.body("Our sources of funds and where each is disclosed in this report:")
    doc.pdf.set_font("helvetica", size=10)
    entry = "Consolidated Balance Sheets"
    right_from = (doc.pdf.epw - doc.pdf.get_string_width(entry)) / 2  # centred on the page
    doc.pairs(
        [
            ("- Operating cash flows", "Statements of Cash Flows"),
            ("- Cash and cash equivalents", entry),
            ("- Commercial paper notes", "Note 7C"),
            ("- Long-term debt issued", "Note 7D"),
        ],
        right_from,
    )
    doc.body("Our long-term debt is rated A2 by Moody's and A+ by S&P, both with a stable outlook.")
    chunks = load_rulebook(doc.save(tmp_path / "liquidity.pdf"))

    ratings = _chunk_with(chunks, "rated A2")
    assert ratings.metadata["section"] == "Liquidity and Capital Resources"
