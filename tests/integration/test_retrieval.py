"""The retriever's two searches on the real Postgres: what they find and how they rank."""

from __future__ import annotations

from pathlib import Path

import pytest
from llama_index.core.vector_stores.types import (
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
    VectorStoreQuery,
)
from sqlalchemy.engine import URL, Engine

from knowledge.ingest.options import IngestOptions
from knowledge.models.embeddings import HashingEmbedder
from knowledge.search.retriever import Retriever
from knowledge.store import fulltext
from knowledge.store.chunks import ChunkRecord
from tests.integration.knowledge_fixtures import make_knowledge


def write_rulebooks(folder: Path) -> Path:
    """Thirty rules that say 'policy' three times each, and one about subrogation."""
    for n in range(1, 31):
        (folder / f"rule{n}.txt").write_text(
            f"Policy rule {n}. The policy pays benefit number {n} once a year under this policy.",
            encoding="utf-8",
        )
    (folder / "recovery.txt").write_text(
        "Recovery from third parties. Subrogation applies after any claim is paid.",
        encoding="utf-8",
    )
    return folder


def test_full_text_ranks_a_rare_word_above_a_word_every_chunk_has(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    kb = make_knowledge(engine, db_url)
    kb.ingestor.ingest_paths([write_rulebooks(tmp_path)], IngestOptions())
    hits = kb.retriever.retrieve("policy subrogation", scopes=["default"], mode="sparse").chunks
    # Postgres' ts_rank alone would put the rules that say 'policy' three times first
    assert "Subrogation applies" in hits[0].text


def test_word_statistics_come_from_postgres_after_an_ingest(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    kb = make_knowledge(engine, db_url)
    kb.ingestor.ingest_paths([write_rulebooks(tmp_path)], IngestOptions())
    with engine.connect() as conn:
        stats = fulltext.load_stats(conn)
        words = fulltext.lexemes(conn, "Policy subrogation")
    assert words == ["polici", "subrog"]
    assert stats.rows == kb.chunks.count()
    assert stats.share_of("polici") > 0.9
    assert stats.idf("subrog") > stats.idf("polici")


def test_words_are_weighed_by_how_common_they_are_in_the_scopes_searched(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    """A company's name is rare across the whole knowledge base but on most chunks of the
    company's own filing: there it must not outweigh the words that say what is asked."""
    filing, other = tmp_path / "filing", tmp_path / "other"
    filing.mkdir()
    other.mkdir()
    (filing / "tax.txt").write_text("The effective tax rate was 21.6 percent.", encoding="utf-8")
    for n in range(1, 4):
        (filing / f"plan{n}.txt").write_text(
            f"Acme Holdings amended plan {n} of Acme, effective January {n}.", encoding="utf-8"
        )
    for n in range(1, 41):
        (other / f"rates{n}.txt").write_text(
            f"Withholding tax rate table {n}: the rate for band {n}.", encoding="utf-8"
        )
    kb = make_knowledge(engine, db_url, HashingEmbedder())
    kb.ingestor.ingest_paths([filing], IngestOptions(scope="acme"))
    kb.ingestor.ingest_paths([other], IngestOptions(scope="payroll"))
    question = "What was the effective tax rate of Acme?"
    hits = kb.retriever.retrieve(question, scopes=["acme"], mode="sparse").chunks
    assert "The effective tax rate was 21.6 percent" in hits[0].text
    kb.ingestor.remove_scope("acme")
    with engine.connect() as conn:  # nothing is left counted for a scope that is gone
        assert fulltext.scope_stats(conn, ["acme"], ["acm"]) is None
        assert fulltext.scope_stats(conn, ["payroll"], ["rate"]) is not None


def test_llamaindex_reads_the_rows_the_store_writes(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    kb = make_knowledge(engine, db_url)
    kb.ingestor.ingest_paths([write_rulebooks(tmp_path)], IngestOptions(scope="hr"))
    vector = kb.embedder.embed_query("Subrogation applies after any claim is paid.")
    ours = kb.chunks.dense(vector, scopes=["hr"], limit=3)
    scope = MetadataFilter(key="scope", value=["hr"], operator=FilterOperator.IN)
    theirs = kb.chunks.llama_index.query(
        VectorStoreQuery(
            query_embedding=vector, similarity_top_k=3, filters=MetadataFilters(filters=[scope])
        )
    )
    assert theirs.nodes and [n.node_id for n in theirs.nodes] == [h.node_id for h in ours]
    assert theirs.nodes[0].get_content() == ours[0].text
    assert theirs.nodes[0].metadata["location"] == ours[0].metadata["location"]
    assert theirs.similarities == pytest.approx([h.score for h in ours], abs=1e-5)


def test_metadata_that_llamaindex_would_overwrite_is_refused(engine: Engine, db_url: URL) -> None:
    kb = make_knowledge(engine, db_url)
    record = ChunkRecord(
        "n1", "text", {"doc_id": "mine", "scope": "default"}, [0.0] * kb.chunks.dim
    )
    with engine.begin() as conn, pytest.raises(ValueError, match="doc_id"):
        kb.chunks.add(conn, [record], source_ref="s1")


def write_long_section(folder: Path) -> Path:
    """One heading over twelve paragraphs: the section is cut into many parts, and two
    paragraphs far apart both speak of the Upjohn separation."""
    filler = (
        "The company reviews its portfolio of programmes every quarter and reports the "
        "outcome to the board, together with the budget for the next period and the "
        "staffing plan that goes with it. "
    )
    body = [filler * 4 for _ in range(12)]
    body[1] = "The Upjohn separation was completed in November 2020. " + filler * 3
    body[10] = "We expect the Upjohn separation to cost about $700 million in all. " + filler * 3
    text = "# Overview of our performance\n\n" + "\n\n".join(body) + "\n"
    (folder / "overview.md").write_text(text, encoding="utf-8")
    return folder


def test_two_answers_far_apart_in_one_long_section_both_come_back(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    kb = make_knowledge(engine, db_url)
    kb.ingestor.ingest_paths([write_long_section(tmp_path)], IngestOptions())
    hits = kb.retriever.retrieve("Upjohn separation cost", scopes=["default"], mode="sparse").chunks
    text = "\n".join(h.text for h in hits)
    assert "completed in November 2020" in text
    assert "about $700 million" in text
    assert text.count("about $700 million") == 1  # each part is given once


def write_statement_and_discussion(folder: Path) -> Path:
    """Ten regions' revenues over six years (mostly figures), and a sentence of outlook that
    repeats the region names."""
    years = [str(y) for y in range(2017, 2023)]
    rows = ["| Region | " + " | ".join(years) + " |", "|" + " --- |" * 7]
    for k, region in enumerate(REGIONS):
        figures = " | ".join(f"{(i + 3) * (k + 7) * 131:,}" for i in range(6))
        rows.append(f"| {region} | {figures} |")
    table = "\n".join(rows)
    text = (
        "# Revenues by geographic area\n\nThe following summarizes revenues by geographic "
        f"area:\n\n{table}\n\n# Outlook\n\nRevenues from emerging markets are expected to "
        "grow faster than in Europe and the United States.\n"
    )
    (folder / "report.md").write_text(text, encoding="utf-8")
    return folder


REGIONS = (
    "United States",
    "Canada",
    "Developed Europe",
    "Japan",
    "Emerging Markets",
    "Latin America",
    "China",
    "India",
    "Africa",
    "Total revenues",
)


def test_a_table_of_figures_is_found_by_meaning_through_its_labels(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    kb = make_knowledge(engine, db_url, HashingEmbedder())
    kb.ingestor.ingest_paths([write_statement_and_discussion(tmp_path)], IngestOptions())
    hits = kb.retriever.retrieve(
        "Which geographic area had the most revenues: Europe, the US or Emerging Markets?",
        scopes=["default"],
        mode="dense",
    ).chunks
    assert hits[0].kind == "table", [h.text[:60] for h in hits]
    assert "Developed Europe | 2017 | 3,537" in hits[0].text  # stored with its figures


def write_filing(folder: Path) -> Path:
    """A balance sheet (figures only) after pages of discussion of liquidity."""
    talk = "\n\n".join(
        f"## Liquidity topic {n}\n\nOur liquidity profile and quick access to capital "
        f"markets remain healthy in area {n}; we review the ratio of funding sources."
        for n in range(8)
    )
    sheet = "\n".join(
        [
            "| | 2022 | 2021 |",
            "| --- | --- | --- |",
            "| Cash and cash equivalents | 2,605 | 2,921 |",
            "| Inventories | 2,388 | 3,055 |",
            "| Total current assets | 37,857 | 36,728 |",
            "| Total current liabilities | 50,171 | 47,160 |",
        ]
    )
    text = (
        f"# Item 7 Discussion\n\n{talk}\n\n# Item 8 Financial Statements\n\n"
        f"## Consolidated Balance Sheets\n\n{sheet}\n"
    )
    (folder / "filing.md").write_text(text, encoding="utf-8")
    return folder


def test_a_measure_read_off_a_statement_brings_the_statement_that_no_search_found(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    kb = make_knowledge(engine, db_url, HashingEmbedder())
    kb.ingestor.ingest_paths([write_filing(tmp_path)], IngestOptions())
    narrow = Retriever(kb.chunks, kb.embedder, dense_pool=3, sparse_pool=3)
    question = "Does the company have a healthy liquidity profile based on its quick ratio?"
    hits = narrow.retrieve(question, scopes=["default"]).chunks
    sheets = [h for h in hits if h.kind == "table" and "Balance Sheets" in h.text]
    assert sheets and "Total current liabilities | 2022 | 50,171" in sheets[0].text


def test_a_filing_full_of_income_tables_still_brings_its_income_statement(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    """A bank's filing has many tables titled with "income" (interest income, income taxes
    by segment) that sit nearer a margin question than the statement itself does."""
    notes = "\n\n".join(
        f"## Note {n} Interest income of unit {n}\n\n| | 2022 |\n| --- | --- |\n"
        f"| Operating margin improved in unit {n} | {n} |"
        for n in range(1, 121)
    )
    statement = (
        "## Consolidated Statements of Income\n\n| | 2022 | 2021 |\n| --- | --- | --- |\n"
        "| Total revenues | 52,862 | 42,380 |\n| Pretax income | 9,383 | 10,516 |\n"
    )
    (tmp_path / "bank.md").write_text(
        f"# Item 7 Discussion\n\n{notes}\n\n# Item 8 Financial Statements\n\n{statement}",
        encoding="utf-8",
    )
    kb = make_knowledge(engine, db_url, HashingEmbedder())
    kb.ingestor.ingest_paths([tmp_path / "bank.md"], IngestOptions())
    narrow = Retriever(kb.chunks, kb.embedder, dense_pool=3, sparse_pool=3)
    hits = narrow.retrieve("Has the operating margin improved?", scopes=["default"]).chunks
    assert any("Total revenues | 2022 | 52,862" in h.text for h in hits)


def test_the_full_text_rank_of_any_chunk_is_the_one_the_full_text_search_gives(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    kb = make_knowledge(engine, db_url)
    kb.ingestor.ingest_paths([write_rulebooks(tmp_path)], IngestOptions())
    found = kb.chunks.sparse("policy subrogation", scopes=["default"], limit=40)
    ranks = kb.chunks.text_ranks(
        [h.node_id for h in found], "policy subrogation", scopes=["default"]
    )
    assert ranks == pytest.approx({h.node_id: h.score for h in found})
    assert max(ranks.values()) > min(ranks.values()) > 0  # the rare word weighs more
