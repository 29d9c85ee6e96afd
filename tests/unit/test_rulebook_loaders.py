"""Rulebook files of every supported format come back as cited, header-carrying chunks.

Every document is generated here (fpdf2, python-docx, plain strings), so the tests need no
fixtures on disk and no network.
"""

from __future__ import annotations

import random
from itertools import pairwise
from pathlib import Path

import pytest
from docx import Document
from fpdf import FPDF

from knowledge.documents import ChunkDraft, ChunkKind
from knowledge.errors import SourceError
from knowledge.reading.loaders.rulebooks import RULEBOOK_SUFFIXES, load_rulebook

PLANS = [
    ["Plan", "Room rent", "ICU", "Cataract"],
    ["Plan A", "1% of sum insured per day", "2% of sum insured per day", "Rs. 40,000 per eye"],
    ["Plan B", "2% of sum insured per day", "4% of sum insured per day", "Rs. 60,000 per eye"],
]
LONG_LIST = [["Sl", "Item", "Payable"]] + [
    [str(n), f"CONSUMABLE ITEM NUMBER {n}", "Not payable" if n % 2 else "Payable"]
    for n in range(1, 61)
]
FILLER = (
    "The insured person must follow the advice of the treating medical practitioner and "
    "keep every bill, prescription and report for the claim. "
)


class _Policy(FPDF):
    """A policy wording with the running footer real insurers print on every page."""

    def footer(self) -> None:
        self.set_y(-12)
        self.set_font("helvetica", size=8)
        self.cell(0, 5, f"Acme Health Policy wording | Page {self.page_no()}", align="C")


def _heading(pdf: FPDF, text: str) -> None:
    pdf.ln(3)
    pdf.set_font("helvetica", "B", 11)
    pdf.cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("helvetica", size=10)


def _body(pdf: FPDF, text: str) -> None:
    pdf.multi_cell(0, 5, text, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)


def _hyphenated_paragraph(pdf: FPDF) -> str:
    """A paragraph whose first line ends in "treat-" and whose second starts with "ment"."""
    words = iter((FILLER * 3).split())
    line = "Cover applies to"
    while pdf.get_string_width(f"{line} {'x' * 12} treat-") < pdf.epw - 4:
        line += f" {next(words)}"
    return f"{line} treat-\nment given in a network hospital only."


def _table(pdf: FPDF, rows: list[list[str]]) -> None:
    with pdf.table(col_widths=(30, 50, 50, 50)[: len(rows[0])]) as table:
        for data in rows:
            row = table.row()
            for value in data:
                row.cell(value)


@pytest.fixture(scope="module")
def policy_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pdf = _Policy()
    pdf.add_page()
    pdf.set_font("helvetica", "B", 18)
    pdf.cell(0, 10, "ACME HEALTH POLICY", align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("helvetica", size=10)
    _heading(pdf, "1. SCOPE")
    _body(pdf, "This policy covers hospital treatment of the insured persons in India.")
    _body(pdf, _hyphenated_paragraph(pdf))
    _heading(pdf, "2. COVERAGE")
    _body(pdf, "The company pays the following expenses during the policy period.")
    _heading(pdf, "2.1 Room rent")
    _body(pdf, "Room rent is paid up to the limit of the plan shown in the schedule.")
    pdf.add_page()
    _heading(pdf, "2.2 Plans and benefits")
    _body(pdf, "The limits for each plan are:")
    _table(pdf, PLANS)
    _heading(pdf, "3. EXCLUSIONS")
    _body(pdf, FILLER * 45)  # long enough to run onto page 3
    _heading(pdf, "4. LIST OF EXPENSES")
    _body(pdf, "Items and whether they are payable:")
    _table(pdf, LONG_LIST)
    path = tmp_path_factory.mktemp("pdf") / "acme_policy.pdf"
    pdf.output(str(path))
    return path


@pytest.fixture(scope="module")
def pdf_chunks(policy_pdf: Path) -> list[ChunkDraft]:
    return load_rulebook(policy_pdf)


def _with(chunks: list[ChunkDraft], text: str, kind: ChunkKind | None = None) -> ChunkDraft:
    found = [c for c in chunks if text in c.text and (kind is None or c.kind == kind)]
    assert found, f"no chunk contains {text!r}"
    return found[0]


def test_pdf_table_cell_comes_back_with_row_header_column_header_and_page(
    pdf_chunks: list[ChunkDraft],
) -> None:
    chunk = _with(pdf_chunks, "Plan A | Room rent | 1% of sum insured per day", ChunkKind.TABLE)
    assert "Plan B | ICU | 4% of sum insured per day" in chunk.text
    assert chunk.metadata["page"] == 2
    assert chunk.metadata["section"] == "2 COVERAGE > 2.2 Plans and benefits"
    assert chunk.metadata["table"] == 1
    assert chunk.location == "p. 2, 2.2 Plans and benefits, table 1"
    assert chunk.text.startswith("2 COVERAGE > 2.2 Plans and benefits — table 1")


def test_pdf_table_values_are_not_repeated_in_the_prose(pdf_chunks: list[ChunkDraft]) -> None:
    prose = [c.text for c in pdf_chunks if c.kind == ChunkKind.RULEBOOK]
    assert not any("1% of sum insured per day" in text for text in prose)
    assert not any("CONSUMABLE ITEM NUMBER" in text for text in prose)


def test_pdf_sections_carry_their_heading_path_and_page(pdf_chunks: list[ChunkDraft]) -> None:
    room = _with(pdf_chunks, "Room rent is paid up to the limit")
    assert room.kind == ChunkKind.RULEBOOK
    assert room.text.startswith("2 COVERAGE > 2.1 Room rent\n")
    assert room.metadata == {
        "file": "acme_policy.pdf",
        "page": 1,
        "section": "2 COVERAGE > 2.1 Room rent",
    }
    assert room.title == "acme_policy.pdf"
    assert room.location == "p. 1, 2.1 Room rent"
    scope = _with(pdf_chunks, "hospital treatment of the insured persons")
    assert scope.metadata["section"] == "1 SCOPE"


def test_pdf_long_section_is_split_with_overlap_and_spans_pages(
    pdf_chunks: list[ChunkDraft],
) -> None:
    parts = [c for c in pdf_chunks if c.metadata.get("section") == "3 EXCLUSIONS"]
    assert len(parts) >= 3
    assert all(c.text.startswith("3 EXCLUSIONS\n") and len(c.text) <= 1000 for c in parts)
    for first, second in pairwise(parts):
        last_sentence = first.text.rsplit(". ", 1)[-1].strip()
        assert second.text.split("\n", 1)[1].startswith(last_sentence), "one sentence overlap"
    assert parts[0].metadata["page"] == 2
    across = [c for c in parts if c.metadata.get("page_end") == 3 and c.metadata["page"] == 2]
    assert len(across) == 1, "one part runs from page 2 onto page 3"
    assert across[0].location == "pp. 2–3, 3 EXCLUSIONS"
    words = sum(len(c.text.split("\n", 1)[1].split()) for c in parts)
    assert words >= 45 * len(FILLER.split()), "no line of the section is lost at a page edge"


def test_pdf_long_table_keeps_headers_in_every_chunk_across_pages(
    pdf_chunks: list[ChunkDraft],
) -> None:
    parts = [c for c in pdf_chunks if c.kind == ChunkKind.TABLE and c.metadata["table"] == 2]
    assert len(parts) >= 2, "a 60-row table does not fit one chunk"
    assert all("columns: Sl | Item | Payable" in c.text for c in parts)
    assert all("Items and whether they are payable:" in c.text for c in parts)
    assert "7. CONSUMABLE ITEM NUMBER 7 | Payable | Not payable" in parts[0].text
    lines = {line for c in parts for line in c.text.splitlines()}
    assert "60. CONSUMABLE ITEM NUMBER 60 | Payable | Payable" in lines
    pages = {c.metadata["page"] for c in parts} | {c.metadata.get("page_end") for c in parts}
    assert len(pages - {None}) >= 2, "the table runs onto a second page"


def test_pdf_running_footer_is_dropped_and_hyphenation_undone(
    pdf_chunks: list[ChunkDraft],
) -> None:
    assert not any("Acme Health Policy wording" in c.text for c in pdf_chunks)
    assert "treatment given in a network hospital only." in _with(pdf_chunks, "network").text


def test_pdf_keys_are_unique_and_stable(policy_pdf: Path, pdf_chunks: list[ChunkDraft]) -> None:
    keys = [c.key for c in pdf_chunks]
    assert len(set(keys)) == len(keys)
    assert keys == [c.key for c in load_rulebook(policy_pdf)]
    assert _with(pdf_chunks, "Room rent is paid").key == "p1-s2.1-c1"


def test_docx_headings_bold_numbered_paragraphs_and_tables(tmp_path: Path) -> None:
    doc = Document()
    doc.add_heading("Leave Policy", 0)
    doc.add_heading("1 Annual leave", 1)
    doc.add_paragraph("Staff get twenty five days of paid leave each year.")
    doc.add_heading("1.1 Carry over", 2)
    doc.add_paragraph("Up to five unused days move to the next year.")
    doc.add_paragraph().add_run("2 Sick leave").bold = True
    doc.add_paragraph("Sick leave needs a doctor's note after three days.")
    table = doc.add_table(rows=len(PLANS), cols=len(PLANS[0]))
    for r, values in enumerate(PLANS):
        for c, value in enumerate(values):
            run = table.cell(r, c).paragraphs[0].add_run(value)
            run.bold = r == 0
    path = tmp_path / "leave.docx"
    doc.save(str(path))

    chunks = load_rulebook(path)

    carry = _with(chunks, "unused days")
    assert carry.metadata["section"] == "1 Annual leave > 1.1 Carry over"
    assert carry.location == "1.1 Carry over"
    assert "page" not in carry.metadata
    sick = _with(chunks, "doctor's note")
    assert sick.metadata["section"] == "2 Sick leave"
    cell = _with(chunks, "Plan A | Room rent | 1% of sum insured per day", ChunkKind.TABLE)
    assert cell.metadata["section"] == "2 Sick leave"
    assert "Plan B | Cataract | Rs. 60,000 per eye" in cell.text


def test_markdown_headings_and_pipe_table(tmp_path: Path) -> None:
    path = tmp_path / "travel.md"
    path.write_text(
        "# Travel rules\n\n## 3 Hotels\n\nBook through the travel desk.\n\n"
        "### 3.1 Limits\n\n| Grade | Per night |\n|---|---|\n| Junior | 100 USD |\n"
        "| Senior | 150 USD |\n\n- Breakfast is included.\n",
        encoding="utf-8",
    )
    chunks = load_rulebook(path)
    table = _with(chunks, "Junior | Per night | 100 USD", ChunkKind.TABLE)
    assert table.metadata["section"] == "Travel rules > 3 Hotels > 3.1 Limits"
    assert _with(chunks, "travel desk").text.startswith("Travel rules > 3 Hotels\n")
    assert "- Breakfast is included." in _with(chunks, "Breakfast").text


def test_a_markdown_table_with_an_empty_header_row_names_its_periods_from_its_first_rows(
    tmp_path: Path,
) -> None:
    """Exported statements often leave Markdown's header row empty and set the period in
    the rows below it, the first naming only the label column: every figure still reads
    under its year."""
    path = tmp_path / "amortization.md"
    path.write_text(
        "# Intangible assets\n\n| | | |\n|---|---|---|\n| Year Ended May 31, | | |\n"
        "| (Dollars in millions) | 2019 | 2018 |\n| Developed technology | $857 | $758 |\n"
        "| Other | 120 | 131 |\n",
        encoding="utf-8",
    )
    table = _with(load_rulebook(path), "Developed technology", ChunkKind.TABLE)
    assert "Developed technology | 2019 | $857" in table.text
    assert "Other | 2018 | 131" in table.text
    assert "Year Ended May 31, | " not in table.text  # the period is no row of its own


def test_html_headings_and_table_with_merged_cells(tmp_path: Path) -> None:
    path = tmp_path / "benefits.html"
    path.write_text(
        "<html><head><style>p {color: red}</style></head><body>"
        "<h1>Benefits</h1><h2>2 Plans</h2><p>Limits per plan are <b>fixed</b>.</p>"
        "<table><tr><th>Plan</th><th>Room rent</th><th>ICU</th></tr>"
        "<tr><td>Plan A</td><td>1% of sum insured per day</td><td>2%</td></tr>"
        "<tr><td rowspan='2'>Plan B</td><td>2%</td><td>4%</td></tr>"
        "<tr><td>3%</td><td>5%</td></tr>"
        "<tr><td>Plan C</td><td colspan='2'>Not covered</td></tr></table>"
        "</body></html>",
        encoding="utf-8",
    )
    chunks = load_rulebook(path)
    table = _with(chunks, "Plan A | Room rent | 1% of sum insured per day", ChunkKind.TABLE)
    assert table.metadata["section"] == "Benefits > 2 Plans"
    assert "Plan B | ICU | 5%" in table.text
    assert "Plan C | ICU | Not covered" in table.text
    assert _with(chunks, "Limits per plan are fixed.").kind == ChunkKind.RULEBOOK
    assert not any("color: red" in c.text for c in chunks)


def test_plain_text_numbered_sections(tmp_path: Path) -> None:
    path = tmp_path / "claims.txt"
    path.write_text(
        "CLAIM RULES\n\n1. SCOPE\nThese rules apply to all staff\nwho travel for work.\n\n"
        "2. CLAIMS\n2.1 Deadline\nClaims must be filed within\n30 days of travel.\n"
        "2.2 Receipts\nReceipts are needed for items over 25 USD.\n",
        encoding="utf-8",
    )
    chunks = load_rulebook(path)
    deadline = _with(chunks, "Claims must be filed within 30 days of travel.")
    assert deadline.metadata["section"] == "2 CLAIMS > 2.1 Deadline"
    assert deadline.text.startswith("2 CLAIMS > 2.1 Deadline\n")
    assert _with(chunks, "who travel").metadata["section"] == "1 SCOPE"
    assert len({c.key for c in chunks}) == len(chunks)


def test_supported_suffixes() -> None:
    assert {".pdf", ".docx", ".md", ".markdown", ".html", ".htm", ".txt"} == RULEBOOK_SUFFIXES


def _error(path: Path) -> SourceError:
    with pytest.raises(SourceError) as caught:
        load_rulebook(path)
    assert caught.value.source == str(path)
    return caught.value


@pytest.mark.parametrize("name", ["empty.pdf", "empty.txt", "empty.docx"])
def test_empty_file_is_refused(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"")
    assert "empty" in _error(path).reason


def test_corrupt_pdf_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(random.Random(7).randbytes(4096))
    assert "not a readable PDF" in _error(path).reason


def test_encrypted_pdf_is_refused_with_what_to_do(tmp_path: Path) -> None:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.cell(text="Confidential rules")
    pdf.set_encryption(owner_password="owner", user_password="reader")
    path = tmp_path / "locked.pdf"
    pdf.output(str(path))
    reason = _error(path).reason
    assert "encrypted" in reason and "unencrypted copy" in reason


def test_pdf_without_text_asks_for_ocr(tmp_path: Path) -> None:
    pdf = FPDF()
    pdf.add_page()
    pdf.rect(20, 20, 100, 60, style="F")  # a scan is an image: no text objects at all
    path = tmp_path / "scan.pdf"
    pdf.output(str(path))
    assert "OCR" in _error(path).reason


def test_corrupt_docx_and_binary_text_are_refused(tmp_path: Path) -> None:
    docx_path = tmp_path / "old.docx"
    docx_path.write_bytes(b"\xd0\xcf\x11\xe0 not a zip")
    assert "save it as .docx" in _error(docx_path).reason
    text_path = tmp_path / "data.txt"
    text_path.write_bytes(b"\x00\x01\x02binary")
    assert "not a text file" in _error(text_path).reason


def test_unsupported_and_missing_files_are_refused(tmp_path: Path) -> None:
    sheet = tmp_path / "rules.xlsx"
    sheet.write_bytes(b"PK")
    reason = _error(sheet).reason
    assert "unsupported file type '.xlsx'" in reason and ".pdf" in reason
    assert "not found" in _error(tmp_path / "missing.pdf").reason
