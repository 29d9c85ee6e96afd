"""Splitting follows the document's own outline first and falls back to size.

Blocks are built by hand here, the way loaders hand them over, so each rule is seen alone.
"""

from __future__ import annotations

from itertools import pairwise

from knowledge.documents import ChunkDraft, ChunkKind
from knowledge.ingest.embedding_text import table_text
from knowledge.reading.blocks import Block, Para, TableBlock
from knowledge.reading.chunking import TARGET_CHARS, chunk_document
from knowledge.reading.loaders.tables import RawTable, continues, merge, normalize


def _chunks(*blocks: Block) -> list[ChunkDraft]:
    return chunk_document(list(blocks), file_name="rules.pdf")


def _sections(chunks: list[ChunkDraft]) -> list[str]:
    return [c.metadata["section"] for c in chunks]


def _on_page(text: str, page: int, *, bold: bool = False) -> Para:
    return Para(text, pages=((0, page),), bold=bold)


def _table(rows: list[list[str | None]], **options: object) -> TableBlock:
    grid = normalize(RawTable(rows, **options))  # type: ignore[arg-type]
    assert grid is not None
    return TableBlock(grid)


def _sentences(n: int, topic: str) -> str:
    return " ".join(f"Rule {i} about {topic} applies to every insured member." for i in range(n))


def test_numbered_sections_nest_and_start_with_their_heading() -> None:
    chunks = _chunks(
        Para("3. COVERAGE", bold=True),
        Para("The company pays the following."),
        Para("3.1 Room rent", bold=True),
        Para("Up to 1% of the sum insured per day."),
        Para("3.2 ICU charges", bold=True),
        Para("Up to 2% of the sum insured per day."),
        Para("4. EXCLUSIONS", bold=True),
        Para("Cosmetic surgery is not covered."),
    )
    assert _sections(chunks) == [
        "3 COVERAGE",
        "3 COVERAGE > 3.1 Room rent",
        "3 COVERAGE > 3.2 ICU charges",
        "4 EXCLUSIONS",
    ]
    assert chunks[1].text == "3 COVERAGE > 3.1 Room rent\nUp to 1% of the sum insured per day."
    assert chunks[1].location == "3.1 Room rent"
    assert chunks[1].key == "s3.1-c1"


def test_list_items_and_cross_references_do_not_become_sections() -> None:
    chunks = _chunks(
        Para("1.2 Sub-limits", bold=True),
        Para("Mental illness is covered for:"),
        Para("1. Schizophrenia", indented=True),
        Para("2. Bipolar disorder", indented=True),
        Para("5. the claim must be filed as stated in clause 9."),
        Para("7. Something unrelated and out of sequence"),
    )
    assert _sections(chunks) == ["1.2 Sub-limits"]
    assert "2. Bipolar disorder" in chunks[0].text


def test_numbering_runs_on_across_lettered_subsections() -> None:
    chunks = _chunks(
        Para("IV. DEFINITIONS", bold=True),
        Para("A. Standard definitions", bold=True),
        Para("1. ACCIDENT means a sudden, unforeseen and involuntary event."),
        Para("2. ILLNESS means a sickness or a disease."),
        Para("B. Specific definitions", bold=True),
        Para("3. AGE means completed years as on the last birthday."),
        Para("V. COVERAGE", bold=True),
        Para("The company pays for hospital treatment."),
    )
    assert _sections(chunks) == [
        "IV. DEFINITIONS > A. Standard definitions > 1 ACCIDENT",
        "IV. DEFINITIONS > A. Standard definitions > 2 ILLNESS",
        "IV. DEFINITIONS > B. Specific definitions > 3 AGE",
        "V. COVERAGE",
    ]
    assert chunks[0].text.endswith(
        "\n1. ACCIDENT means a sudden, unforeseen and involuntary event."
    )


def test_capitalised_headings_stand_in_for_missing_parent_numbers() -> None:
    chunks = _chunks(
        Para("WAITING PERIODS"),
        Para("3.1 Initial waiting period"),
        Para("Illness in the first 30 days is not covered."),
        Para("3.2 Pre-existing diseases"),
        Para("Covered after 36 months."),
        Para("CLAIMS"),
        Para("5.1 Reimbursement"),
        Para("Submit bills within 30 days of discharge."),
    )
    assert _sections(chunks) == [
        "WAITING PERIODS > 3.1 Initial waiting period",
        "WAITING PERIODS > 3.2 Pre-existing diseases",
        "CLAIMS > 5.1 Reimbursement",
    ]


def test_markup_heading_levels_and_keyword_sections() -> None:
    chunks = _chunks(
        Para("Handbook", level=1),
        Para("Article 1 - Working hours", level=2),
        Para("Core hours are 10 to 4."),
        Para("Article 2 - Overtime", level=2),
        Para("Overtime needs approval."),
        Para("Appendix", level=1),
        Para("Forms are on the intranet."),
    )
    assert _sections(chunks) == [
        "Handbook > Article 1 Working hours",
        "Handbook > Article 2 Overtime",
        "Appendix",
    ]


def test_a_clause_that_is_only_its_heading_line_still_becomes_a_chunk() -> None:
    chunks = _chunks(
        _on_page("7. EXCLUSIONS", 8, bold=True),
        _on_page("7.1. Cosmetic surgery", 8, bold=True),
        _on_page("Surgery to change appearance is not covered.", 8),
        _on_page("7.2. Any expenses on domiciliary hospitalisation", 8),
        _on_page("7.3. Treatment taken outside India", 9),
        _on_page("8. CLAIMS", 9, bold=True),
        _on_page("Notify the company at once.", 9),
    )
    assert [c.text for c in chunks[1:3]] == [
        "7 EXCLUSIONS > 7.2 Any expenses on domiciliary hospitalisation",
        "7 EXCLUSIONS > 7.3 Treatment taken outside India",
    ]
    assert [c.metadata["page"] for c in chunks] == [8, 8, 9, 9]
    assert chunks[2].key == "p9-s7.3-c1"


def test_long_section_falls_back_to_paragraphs_then_sentences_with_overlap() -> None:
    paragraphs = [Para(_sentences(8, topic)) for topic in ("rent", "surgery", "transport")]
    one_long = Para(_sentences(30, "claims"))
    chunks = _chunks(Para("5. BENEFITS", bold=True), *paragraphs, one_long)
    assert len(chunks) >= 3
    assert all(c.text.startswith("5 BENEFITS\n") for c in chunks)
    assert all(len(c.text) <= TARGET_CHARS for c in chunks)
    for first, second in pairwise(chunks):
        last_sentence = first.text.rsplit(". ", 1)[-1]
        assert second.text.split("\n", 1)[1].startswith(last_sentence), "one sentence overlap"
    keys = [c.key for c in chunks]
    assert keys == [f"s5-c{n}" for n in range(1, len(chunks) + 1)]


def test_pages_follow_the_text_when_a_paragraph_runs_over_a_page() -> None:
    first_half = _sentences(14, "rent")
    text = f"{first_half} {_sentences(14, 'icu')}"
    chunks = _chunks(
        Para("2. LIMITS", bold=True, pages=((0, 3),)),
        Para(text, pages=((0, 3), (len(first_half) + 1, 4))),
    )
    assert chunks[0].metadata["page"] == 3
    assert chunks[-1].metadata.get("page_end", chunks[-1].metadata["page"]) == 4
    assert chunks[-1].location.startswith(("p. 4", "pp. 3–4"))


def test_key_value_table_and_merged_header_cells() -> None:
    key_value = _table([["Room rent", "1% of sum insured per day"], ["ICU", "2% per day"]])
    merged = _table(
        [
            ["", "Sr. No", "", "", "Item", "", "", "Payable", ""],
            ["1", None, None, "BABY FOOD", None, None, "No", None, None],
            ["2", None, None, "BELTS", None, None, "After spine\nsurgery", None, None],
            ["3", None, None, "CREPE BANDAGE", None, None, "No", None, None],
        ],
        header_rows=1,
    )
    chunks = _chunks(Para("6. LIMITS", bold=True), key_value, merged)
    tables = [c for c in chunks if c.kind == ChunkKind.TABLE]
    assert "Room rent | 1% of sum insured per day" in tables[0].text.splitlines()
    assert tables[1].text.splitlines()[1:] == [
        "columns: Sr. No | Item | Payable",
        "1. BABY FOOD | Payable | No",
        "2. BELTS | Payable | After spine surgery",
        "3. CREPE BANDAGE | Payable | No",
    ]
    assert [c.metadata["table"] for c in tables] == [1, 2]


def test_wrapped_rows_and_full_width_group_rows() -> None:
    table = _table(
        [
            ["Benefit", None, "Limit", None],
            ["Sum insured", "", "Rs. 50,000 to Rs. 10L", ""],
            [None, None, "in multiples of Rs. 50,000", None],
            ["Add-ons available", None, None, None],
            ["Home care", "", "Up to Rs. 50,000", ""],
        ],
        header_rows=1,
    )
    text = _chunks(table)[0].text.splitlines()
    assert "Sum insured | Limit | Rs. 50,000 to Rs. 10L in multiples of Rs. 50,000" in text
    assert text[-2:] == [
        "Add-ons available; columns: Benefit | Limit",
        "Home care | Limit | Up to Rs. 50,000",
    ]


def test_bold_keys_down_the_side_do_not_turn_the_first_pair_into_a_header() -> None:
    table = _table(
        [["Name", "Policy X"], ["Product type", "Individual"], ["Cover", "Indemnity"]],
        bold=[[True, True], [True, False], [True, False]],
    )
    assert _chunks(table)[0].text.splitlines()[1:] == [
        "Name | Policy X",
        "Product type | Individual",
        "Cover | Indemnity",
    ]


def test_bold_first_row_is_the_header_and_a_repeated_header_is_not_data() -> None:
    table = _table(
        [["Sum insured", "Room rent"], ["Up to 5 lakh", "1%"], ["Sum insured", "Room rent"],
         ["Above 5 lakh", "Actuals"]],
        bold=[[True, True], [False, False], [True, True], [False, False]],
    )  # fmt: skip
    assert _chunks(table)[0].text.splitlines()[1:] == [
        "columns: Sum insured | Room rent",
        "Up to 5 lakh | Room rent | 1%",
        "Above 5 lakh | Room rent | Actuals",
    ]


def test_table_carried_over_a_page_keeps_one_header_and_rejoins_a_split_row() -> None:
    header: list[str | None] = ["Item", "Limit", "Note"]
    first = normalize(
        RawTable([header, ["Rent", "1%", "per day"], ["ICU", "2%", "per"]], pages=[3] * 3)
    )
    rest = normalize(
        RawTable([header, ["", "", "day"], ["Ambulance", "Rs. 2,000", "per trip"]], pages=[4] * 3)
    )
    assert first is not None and rest is not None and continues(first, rest)
    chunk = _chunks(TableBlock(merge(first, rest)))[0]
    assert chunk.text.splitlines()[1:] == [
        "columns: Item | Limit | Note",
        "Rent | Limit | 1%",
        "Rent | Note | per day",
        "ICU | Limit | 2%",
        "ICU | Note | per day",
        "Ambulance | Limit | Rs. 2,000",
        "Ambulance | Note | per trip",
    ]
    assert (chunk.metadata["page"], chunk.metadata["page_end"]) == (3, 4)


def test_large_table_is_split_by_rows_repeating_its_context() -> None:
    rows: list[list[str | None]] = [["Procedure", "Plan A", "Plan B"]]
    rows += [[f"Procedure number {n}", f"{n}% of sum insured", "Not covered"] for n in range(40)]
    chunks = _chunks(Para("9. PROCEDURES:"), _table(rows, header_rows=1))
    tables = [c for c in chunks if c.kind == ChunkKind.TABLE]
    assert len(tables) > 1
    for chunk in tables:
        lines = chunk.text.splitlines()
        assert lines[0] == "9 PROCEDURES — table 1"
        assert lines[1] == "columns: Procedure | Plan A | Plan B"
        assert len(chunk.text) <= TARGET_CHARS
        assert all(line.count(" | ") == 2 for line in lines[2:])
    body = [line for c in tables for line in c.text.splitlines()[2:]]
    assert len(body) == 80 and len(set(body)) == 80, "every cell once, none lost"
    assert "Procedure number 39 | Plan B | Not covered" in body


def test_a_table_carries_its_lead_in_and_the_captions_that_date_and_scale_it() -> None:
    rows: list[list[str | None]] = [["", "2019", "2018"], ["Trade receivables", "375", "335"]]
    chunks = _chunks(
        Para("Receivables consisted of the following (in thousands):"),
        Para("December 31,"),
        _table(rows, header_rows=1),
        Para("Receivables are stated net of allowances."),
        Para("As at 30 June"),
        _table(rows, header_rows=1),
    )
    first, second = [c.text.splitlines() for c in chunks if c.kind == ChunkKind.TABLE]
    assert first[1:3] == [
        "Receivables consisted of the following (in thousands):",
        "December 31,",
    ]
    assert second[1] == "As at 30 June", "a caption alone still dates the figures"
    assert "allowances" not in " ".join(second), "a sentence that ends is not a lead-in"


def test_annual_report_parts_items_and_notes_make_the_outline_not_the_cover_page() -> None:
    chunks = _chunks(
        Para("345 Park Avenue, San Jose, California 95110", bold=True),
        Para("(Address of principal executive offices)"),
        Para("PART I", bold=True),
        Para("Item 1. Business", bold=True),
        Para("We make software for creative professionals."),
        Para("Item 1A. Risk Factors", bold=True),
        Para("Competition could reduce our revenue."),
        Para("Item 2. Properties", bold=True),
        Para("Our head office is leased."),
        Para("PART II", bold=True),
        Para("Item 7. Management's Discussion and Analysis", bold=True),
        Para("Revenue grew in every segment."),
        Para("Item 8. Financial Statements and Supplementary Data", bold=True),
        Para("Notes to Consolidated Financial Statements", bold=True),
        Para("Note 1 – Significant Accounting Policies", bold=True),
        Para("Revenue is recognised when control passes to the customer."),
        Para("Leases", bold=True),
        Para("Leases longer than twelve months are recorded on the balance sheet."),
        Para("NOTES TO CONSOLIDATED FINANCIAL STATEMENTS (Continued)", bold=True),
        Para("Short leases are expensed as incurred."),
        Para("Note 2 – Legal Proceedings", bold=True),
        Para("The company is defending a patent claim in Delaware."),
    )
    sections = dict(zip([c.text.split("\n", 1)[1] for c in chunks], _sections(chunks), strict=True))
    assert sections["We make software for creative professionals."] == "Part I > Item 1 Business"
    assert sections["Competition could reduce our revenue."] == "Part I > Item 1A Risk Factors"
    item8 = "Part II > Item 8 Financial Statements and Supplementary Data"
    notes = item8  # "Notes to ..." only titles the notes: each note is a section of Item 8
    assert sections["Revenue is recognised when control passes to the customer."] == (
        f"{notes} > Note 1 Significant Accounting Policies"
    )
    assert (
        sections[
            "Leases longer than twelve months are recorded on the balance sheet.\n"
            "NOTES TO CONSOLIDATED FINANCIAL STATEMENTS (Continued)\n"
            "Short leases are expensed as incurred."
        ]
        == f"{notes} > Note 1 Significant Accounting Policies > Leases"
    )
    assert sections["The company is defending a patent claim in Delaware."] == (
        f"{notes} > Note 2 Legal Proceedings"
    )


def test_a_table_is_embedded_by_its_labels_and_worded_cells_not_its_figures() -> None:
    stored = "\n".join(
        [
            "4 BENEFITS BY PLAN — table 1",
            "columns: Benefit | Plan A | Plan B",
            "Room rent | Plan A | 1% of sum insured per day",
            "Room rent | Plan B | Single room",
            "Average premium | Plan A | 9,000",
            "Average premium | Plan B | (12,500)",
        ]
    )
    embedded = table_text(stored).splitlines()
    assert embedded == [
        "4 BENEFITS BY PLAN — table 1",
        "columns: Benefit | Plan A | Plan B",
        "Room rent | Plan A | 1% of sum insured per day",
        "Room rent | Plan B | Single room",
        "Average premium",
    ]


def test_a_ruled_statement_reads_each_figure_under_its_period() -> None:
    """A statement ruled into columns: a gutter after the labels, the currency sign and
    the closing bracket of a negative figure each in a cell of their own, the period
    named over two header rows without a label."""
    statement = _table(
        [
            ["", "", "December 31,", None, None, None, None, None, ""],
            ["(in millions)", "", "2022", None, "", "", "2021", None, ""],
            ["", "", "", "", "", "", "", "", ""],
            ["Cash and cash equivalents", "", "$", "1,671", "", "", "$", "2,148", ""],
            ["Inventories", "", "", "2,904", "", "", "", "2,481", ""],
            ["Treasury stock, at cost", "", "", "(20,532", ")", "", "", "(20,263", ")"],
            ["Total assets", "", "$", "29,499", "", "", "$", "30,154", ""],
        ],
        pages=[60] * 7,
    )
    lines = _chunks(Para("Consolidated Balance Sheets", bold=True), statement)[-1].text
    assert lines.splitlines()[1] == "columns: (in millions) | December 31, 2022 | December 31, 2021"
    assert lines.splitlines()[2:] == [
        "Cash and cash equivalents | December 31, 2022 | $1,671",
        "Cash and cash equivalents | December 31, 2021 | $2,148",
        "Inventories | December 31, 2022 | 2,904",
        "Inventories | December 31, 2021 | 2,481",
        "Treasury stock, at cost | December 31, 2022 | (20,532)",
        "Treasury stock, at cost | December 31, 2021 | (20,263)",
        "Total assets | December 31, 2022 | $29,499",
        "Total assets | December 31, 2021 | $30,154",
    ]


def test_a_label_without_figures_in_a_table_of_figures_heads_the_rows_below_it() -> None:
    """A table of figures set out by date under label rows ("As at 31 December 2019"):
    each figure is read with its date, and a label wrapped above its figures joins them."""
    table = _table(
        [
            ["", "Level 1", "Total"],
            ["As at 31 December 2019", "", ""],
            ["Bonds", "14,766", "135,936"],
            ["Purchases of property, plant and", "", ""],
            ["equipment", "523", "2,396"],
            ["As at 31 December 2018", "", ""],
            ["Bonds", "10,875", "97,877"],
            ["Loans", "41,578", "43,519"],
        ],
    )
    lines = _chunks(Para("Fair value estimation", bold=True), table)[-1].text.splitlines()
    assert lines[1:] == [
        "As at 31 December 2019; columns: — | Level 1 | Total",
        "Bonds | Level 1 | 14,766",
        "Bonds | Total | 135,936",
        "Purchases of property, plant and equipment | Level 1 | 523",
        "Purchases of property, plant and equipment | Total | 2,396",
        "As at 31 December 2018; columns: — | Level 1 | Total",
        "Bonds | Level 1 | 10,875",
        "Bonds | Total | 97,877",
        "Loans | Level 1 | 41,578",
        "Loans | Total | 43,519",
    ]


def test_a_table_of_words_keeps_its_columns_however_its_cells_are_spaced() -> None:
    """Gutters are closed up only in tables of figures: a form whose fields stand apart
    on one ruled line stays one column ("Tel(R) Fax")."""
    form = _table(
        [
            ["Name", "", "", ""],
            ["Tel. (O)", "Tel(R)", "", "Fax"],
            ["Occupation", "None", "", "Mobile"],
            ["Address", "Street", None, None],
        ],
    )
    lines = _chunks(Para("PROPOSAL FORM", bold=True), form)[-1].text.splitlines()
    assert "Tel. (O) | Tel(R) Fax" in lines
