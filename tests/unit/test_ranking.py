"""Reranking by what a chunk's own headings say: a financial statement named one way in the
question ("cash flow statement") is found under its title written another way."""

from __future__ import annotations

from knowledge.search.fusion import FusionWeights, fuse
from knowledge.search.ranking import rerank
from knowledge.search.retrieved import Hints, Retrieved
from knowledge.search.statements import statement_weight
from knowledge.store.chunks import ChunkHit


def _chunk(node: str, section: str, score: float, kind: str = "table") -> Retrieved:
    return Retrieved(node, kind, "text", "10-K", "p. 1", {"section": section}, score, None, None)


MDA = _chunk(
    "mda", "Item 7 Management's Discussion and Analysis > Cash Flows from Investing Activities", 0.5
)
STATEMENT = _chunk(
    "statement",
    "Item 8 Financial Statements > Consolidated Statements of Cash Flows Years ended December 31",
    0.45,
)
BALANCE = _chunk("balance", "Item 8 Financial Statements > Consolidated Balance Sheets", 0.46)
DISCUSSION = _chunk(
    "discussion", "Item 7 Management's Discussion > Balance Sheet", 0.48, "rulebook"
)


def test_the_statement_the_question_names_comes_first() -> None:
    question = "What was capital expenditure in FY2018, as shown in the cash flow statement?"
    ranked = rerank([MDA, BALANCE, STATEMENT], Hints(question))
    assert ranked[0].node_id == "statement"


def test_other_names_of_a_statement_are_the_same_statement() -> None:
    question = "What were total current assets in the statement of financial position?"
    ranked = rerank([MDA, DISCUSSION, STATEMENT, BALANCE], Hints(question))
    assert ranked[0].node_id == "balance"  # the statement, not prose under "Balance Sheet"


def test_a_question_naming_no_statement_keeps_the_order() -> None:
    ranked = rerank([MDA, BALANCE, STATEMENT], Hints("How much was spent on acquisitions?"))
    assert [c.node_id for c in ranked] == ["mda", "balance", "statement"]


def test_a_measure_read_off_a_statement_points_to_that_statement() -> None:
    ranked = rerank([MDA, DISCUSSION, STATEMENT, BALANCE], Hints("Has the quick ratio improved?"))
    assert ranked[0].node_id == "balance"


def test_the_statement_itself_ranks_above_a_guarantor_or_part_statement() -> None:
    guarantor = _chunk(
        "guarantor",
        "Item 8 Financial Statements > Note 22 Deed of Cross Guarantee > "
        "Consolidated Statements of Income",
        0.5,
    )
    obligor = _chunk("obligor", "Item 7 MD&A > Statement of Income for Obligor Group", 0.5)
    primary = _chunk(
        "primary",
        "Item 8 Financial Statements > Consolidated Statements of Income "
        "For the years ended June 30",
        0.45,
    )
    question = "Has the gross margin improved in FY2023?"
    ranked = rerank([guarantor, obligor, primary, MDA], Hints(question))
    assert [c.node_id for c in ranked][:3] == ["primary", "guarantor", "obligor"]
    assert statement_weight(primary.metadata["section"], frozenset({"income"})) == 1.0
    assert statement_weight(guarantor.metadata["section"], frozenset({"income"})) < 1.0


def test_a_table_of_selected_statement_data_is_not_the_statement() -> None:
    """A summary ("Selected Income Statement Data", "Key Balance Sheet Data") names the
    statement but is not it: the statement asked about ranks first."""
    summary = _chunk("summary", "MD&A > Table 13: Selected Income Statement Data", 0.5)
    key = _chunk("key", "MD&A > Key Balance Sheet Data", 0.5)
    primary = _chunk("primary", "Item 8 > Consolidated Statements of Income", 0.45)
    ranked = rerank([summary, primary, MDA], Hints("Has the operating margin improved?"))
    assert ranked[0].node_id == "primary"
    assert statement_weight(summary.metadata["section"], frozenset({"income"})) < 1.0
    assert statement_weight(key.metadata["section"], frozenset({"balance"})) < 1.0


def test_the_parent_companys_own_balance_sheet_is_a_part_statement() -> None:
    parent = "Schedule I > Parent Company – Condensed Balance Sheets"
    assert statement_weight(parent, frozenset({"balance"})) < 1.0
    assert statement_weight("Item 8 > Consolidated Balance Sheets", frozenset({"balance"})) == 1.0


def test_equal_scores_keep_the_full_text_order_in_every_process() -> None:
    dense = [ChunkHit("dense", "text", {}, 0.6)]
    sparse = [ChunkHit(f"text-{n:02}", "text", {}, 2.0) for n in range(12)]  # the same words
    fused = fuse(dense, sparse, FusionWeights())
    assert [c.node_id for c in fused] == [*(h.node_id for h in sparse), "dense"]


def test_comprehensive_income_is_not_the_income_statement() -> None:
    comprehensive = _chunk(
        "comprehensive", "Item 8 > NIKE, Inc. Consolidated Statements of Comprehensive Income", 0.5
    )
    income = _chunk("income", "Item 8 > NIKE, Inc. Consolidated Statements of Income", 0.45)
    question = "Based on the statement of income, what is cost of goods sold as a % of revenue?"
    assert rerank([comprehensive, income], Hints(question))[0].node_id == "income"


def test_a_dense_hit_past_the_full_text_cut_still_counts_the_words_it_holds() -> None:
    close = ChunkHit("close wording", "text", {}, 0.40)
    holds = ChunkHit("holds the rare word", "text", {}, 0.38)
    top_text = ChunkHit("top text hit", "text", {}, 2.0)
    fused = fuse([close, holds], [top_text], FusionWeights(), {"holds the rare word": 1.8})
    assert [c.node_id for c in fused][1:] == ["holds the rare word", "close wording"]
