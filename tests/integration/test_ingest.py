"""Ingesting every kind of source into the real Postgres + pgvector, incrementally."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine

from knowledge.documents import ChunkDraft, ChunkKind
from knowledge.ingest.connectors.base import Fetched, NotModified
from knowledge.ingest.connectors.sql import SqlConnector
from knowledge.ingest.kinds import SourceKind
from knowledge.ingest.loading import Loaded
from knowledge.ingest.options import IngestOptions
from tests.integration.knowledge_fixtures import CountingEmbedder, make_knowledge

POLICIES = """policy_number,holder,plan,region,premium
0000-0001,Asha Rao,Plan C,North,48000
0000-0002,Vikram Shah,Plan B,West,31000
0000-0003,Meera Iyer,Plan A,South,9000
"""

RULEBOOK = """WAITING PERIODS

3.1 Initial waiting period
Claims for illness in the first 30 days after enrolment are not payable.

3.2 Pre-existing diseases
Pre-existing disease expenses are covered after 36 months of continuous coverage.

CLAIMS

5.1 Reimbursement
Submit the claim form with original bills within 30 days of discharge.
"""

ROWS = IngestOptions(keys=("policy_number",), group="plan", metrics=("premium",))


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_rows_become_json_chunks_with_citation_metadata_and_facts(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    kb = make_knowledge(engine, db_url)
    summary = kb.ingestor.ingest_paths([write(tmp_path, "policies.csv", POLICIES)], ROWS)
    assert summary.failed == []
    hits = kb.retriever.retrieve("policy 0000-0002 Vikram Shah", scopes=["default"]).chunks
    row = next(h for h in hits if h.kind == "row")
    assert json.loads(row.text)["holder"] == "Vikram Shah"
    assert row.title == "table policies"
    assert row.location.startswith("policy_number 0000-0002, as of ")
    facts = kb.retriever.retrieve("highest premium plan", scopes=["default"]).chunks
    assert any(h.kind == "fact" and "48,000" in h.text for h in facts)


def test_reingesting_unchanged_sources_embeds_nothing(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    embedder = CountingEmbedder()
    kb = make_knowledge(engine, db_url, embedder)
    write(tmp_path, "policies.csv", POLICIES)
    write(tmp_path, "rules.txt", RULEBOOK)
    first = kb.ingestor.ingest_paths([tmp_path], ROWS)
    assert first.count("new") == 2 and first.failed == []
    embedded = embedder.embedded
    again = kb.ingestor.ingest_paths([tmp_path], ROWS)
    assert again.count("unchanged") == 2
    assert embedder.embedded == embedded


def test_a_changed_row_replaces_only_its_chunks(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    embedder = CountingEmbedder()
    kb = make_knowledge(engine, db_url, embedder)
    path = write(tmp_path, "policies.csv", POLICIES)
    kb.ingestor.ingest_paths([path], IngestOptions(keys=("policy_number",)))
    before = kb.chunks.count()
    embedder.embedded = 0
    write(tmp_path, "policies.csv", POLICIES.replace("Meera Iyer", "Meera Nair"))
    report = kb.ingestor.ingest_paths([path], IngestOptions(keys=("policy_number",))).reports[0]
    assert (report.status, report.added, report.removed) == ("changed", 1, 1)
    assert embedder.embedded == 1
    assert kb.chunks.count() == before
    texts = [h.text for h in kb.retriever.retrieve("Meera", scopes=["default"]).chunks]
    assert any("Meera Nair" in t for t in texts)
    assert not any("Meera Iyer" in t for t in texts)


def test_rows_and_files_that_disappear_are_removed_and_reported(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    kb = make_knowledge(engine, db_url)
    policies = write(tmp_path, "policies.csv", POLICIES)
    rules = write(tmp_path, "rules.txt", RULEBOOK)
    options = IngestOptions(keys=("policy_number",))
    kb.ingestor.ingest_paths([tmp_path], options)
    write(tmp_path, "policies.csv", "\n".join(POLICIES.splitlines()[:3]) + "\n")  # row 3 gone
    report = next(
        r for r in kb.ingestor.ingest_paths([policies], options).reports if r.status != "unchanged"
    )
    assert report.removed >= 1  # the row's chunk (and any fact that counted it)
    texts = [
        h.text for h in kb.retriever.retrieve("Meera Iyer 0000-0003", scopes=["default"]).chunks
    ]
    assert not any("0000-0003" in t for t in texts)
    rules.unlink()
    summary = kb.ingestor.ingest_paths([tmp_path], options)
    removed = [r for r in summary.reports if r.status == "removed"]
    assert [Path(r.uri).name for r in removed] == ["rules.txt"]
    assert summary.failed == []
    hits = kb.retriever.retrieve("pre-existing disease 36 months", scopes=["default"]).chunks
    assert not any(h.title == "rules.txt" for h in hits)


def test_retrieval_never_crosses_scopes(engine: Engine, db_url: URL, tmp_path: Path) -> None:
    kb = make_knowledge(engine, db_url)
    hr = write(tmp_path, "hr.txt", "LEAVE\n\n1.1 Annual leave\nStaff get 24 days of annual leave.")
    sales = write(tmp_path, "sales.txt", "TARGETS\n\n1.1 Annual leave targets\nSales leave 24.")
    kb.ingestor.ingest_paths([hr], IngestOptions(scope="hr"))
    kb.ingestor.ingest_paths([sales], IngestOptions(scope="sales"))
    hits = kb.retriever.retrieve("annual leave days", scopes=["hr"]).chunks
    assert hits and all(h.metadata["scope"] == "hr" for h in hits)
    assert kb.retriever.retrieve("annual leave days", scopes=["finance"]).chunks == []


def test_glossary_faq_and_triples_are_stored_and_searchable(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    kb = make_knowledge(engine, db_url)
    write(
        tmp_path,
        "glossary.csv",
        "term,expansion,definition\nPED,pre-existing disease,A prior condition\n",
    )
    write(
        tmp_path,
        "faq.csv",
        'question,answer\nHow do I add my newborn?,"Send the birth certificate within 30 days."\n',
    )
    write(tmp_path, "graph.csv", "subject,relation,object\nPlan A,covers,road ambulance\n")
    summary = kb.ingestor.ingest_paths([tmp_path], IngestOptions())
    assert summary.failed == [] and summary.count("new") == 3
    assert [(e.term, e.expansion) for e in kb.glossary(["default"])] == [
        ("PED", "pre-existing disease")
    ]
    faq = kb.retriever.retrieve("add newborn baby", scopes=["default"]).chunks
    assert faq[0].kind == "faq"
    assert faq[0].metadata["answer_sentences"] == ["Send the birth certificate within 30 days."]
    facts = kb.facts_about(["plan a"], ["default"])
    assert [(t.subject, t.relation, t.object) for t in facts] == [
        ("Plan A", "covers", "road ambulance")
    ]


@pytest.mark.parametrize(
    ("name", "content", "options", "reason"),
    [
        ("broken.pdf", b"%PDF-1.4 this is not really a pdf", IngestOptions(), "pdf"),
        (
            "latin1.csv",
            "id,name\n1,Jos\xe9\n".encode("latin-1"),
            IngestOptions(keys=("id",)),
            "utf",
        ),
        ("ragged.csv", b"id,name\n1,a\n2,b,c,d\n", IngestOptions(keys=("id",)), "line"),
        ("empty.txt", b"", IngestOptions(), "empty"),
        ("nokey.csv", b"id,name\n1,a\n", IngestOptions(keys=("policy",)), "policy"),
    ],
)
def test_a_bad_source_is_reported_and_the_others_still_ingest(
    engine: Engine,
    db_url: URL,
    tmp_path: Path,
    name: str,
    content: bytes,
    options: IngestOptions,
    reason: str,
) -> None:
    kb = make_knowledge(engine, db_url)
    (tmp_path / name).write_bytes(content)
    write(tmp_path, "good.txt", RULEBOOK)
    summary = kb.ingestor.ingest_paths([tmp_path / name, tmp_path / "good.txt"], options)
    assert [Path(r.uri).name for r in summary.failed] == [name]
    assert reason in summary.failed[0].error.lower()
    assert summary.count("new") == 1


def test_a_source_that_turns_bad_keeps_its_last_good_chunks(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    kb = make_knowledge(engine, db_url)
    path = write(tmp_path, "policies.csv", POLICIES)
    kb.ingestor.ingest_paths([path], ROWS)
    path.write_bytes(b"policy_number,holder\n1,a,b,c\n")  # now ragged
    summary = kb.ingestor.ingest_paths([path], ROWS)
    assert len(summary.failed) == 1
    texts = [h.text for h in kb.retriever.retrieve("Vikram Shah", scopes=["default"]).chunks]
    assert any("Vikram Shah" in t for t in texts)


def test_an_interrupted_ingest_leaves_whole_sources_and_the_next_run_finishes(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    write(tmp_path, "a_rules.txt", RULEBOOK)
    write(tmp_path, "b_policies.csv", POLICIES)
    kb = make_knowledge(engine, db_url, CountingEmbedder(fail_after=4))
    with pytest.raises(KeyboardInterrupt):
        kb.ingestor.ingest_paths([tmp_path], ROWS)
    partial = kb.chunks.count()
    titles = {h.title for h in kb.retriever.retrieve("policy claims", scopes=["default"]).chunks}
    assert "table b_policies" not in titles  # the interrupted source left nothing behind

    resumed = make_knowledge(engine, db_url)
    summary = resumed.ingestor.ingest_paths([tmp_path], ROWS)
    assert summary.failed == []
    assert resumed.chunks.count() > partial


def test_ingest_kind_can_be_forced(engine: Engine, db_url: URL, tmp_path: Path) -> None:
    kb = make_knowledge(engine, db_url)
    path = write(tmp_path, "terms.csv", "TPA,third party administrator\nNCB,no claim bonus\n")
    summary = kb.ingestor.ingest_paths([path], IngestOptions(kind=SourceKind.GLOSSARY))
    assert summary.failed == []
    terms = {e.term: e.expansion for e in kb.glossary(["default"])}
    assert terms == {"TPA": "third party administrator", "NCB": "no claim bonus"}


def test_rows_from_a_sql_database_are_ingested_with_their_table_name(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    source = sa.create_engine(f"sqlite:///{tmp_path / 'crm.db'}")
    with source.begin() as conn:
        conn.execute(sa.text("CREATE TABLE agents (agent_id TEXT, name TEXT, region TEXT)"))
        conn.execute(
            sa.text(
                "INSERT INTO agents VALUES "
                "('A-1', 'Kiran Patel', 'North'), ('A-2', 'Leela Nair', 'South')"
            )
        )
    source.dispose()
    kb = make_knowledge(engine, db_url)
    url = f"sqlite:///{tmp_path / 'crm.db'}"
    summary = kb.ingestor.ingest_sql(url, "agents", IngestOptions(keys=("agent_id",)))
    assert summary.failed == [] and summary.chunks >= 2  # two rows (+ a count fact)
    hit = kb.retriever.retrieve("Leela Nair", scopes=["default"]).chunks[0]
    assert hit.title == "table agents" and hit.location.startswith("agent_id A-2")
    again = kb.ingestor.ingest_sql(url, "agents", IngestOptions(keys=("agent_id",)))
    assert again.count("unchanged") == 1
    broken = kb.ingestor.ingest_sql(url, "SELECT * FROM missing", IngestOptions(keys=("id",)))
    assert len(broken.failed) == 1


def test_a_sql_source_is_one_item_whose_version_follows_its_rows(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'crm.db'}"
    database = sa.create_engine(url)
    with database.begin() as conn:
        conn.execute(sa.text("CREATE TABLE agents (agent_id TEXT, name TEXT, region TEXT)"))
        conn.execute(sa.text("INSERT INTO agents VALUES ('A-1', 'Kiran Patel', 'North')"))
        conn.execute(sa.text("INSERT INTO agents VALUES ('A-2', 'Leela Nair', 'South')"))
    [item] = SqlConnector(url, "agents").list_items()
    assert item.id == f"sql:{url}#agents" and item.title == "agents"
    assert [i.version for i in SqlConnector(url, "agents").list_items()] == [item.version]
    assert isinstance(SqlConnector(url, "agents").fetch(item, item.version), NotModified)
    secret = SqlConnector("postgresql+psycopg://kb:s3cret@db.example/crm", "agents")
    assert "s3cret" not in secret.key and secret.key.endswith("@db.example/crm#agents")

    embedder = CountingEmbedder()
    kb = make_knowledge(engine, db_url, embedder)
    options = IngestOptions(keys=("agent_id",))
    assert kb.ingestor.ingest_sql(url, "agents", options).failed == []
    embedded = embedder.embedded
    again = kb.ingestor.ingest_sql(url, "agents", options)
    assert again.count("unchanged") == 1 and embedder.embedded == embedded  # nothing re-read

    with database.begin() as conn:
        conn.execute(sa.text("UPDATE agents SET region = 'East' WHERE agent_id = 'A-2'"))
    database.dispose()
    [changed] = SqlConnector(url, "agents").list_items()
    assert changed.id == item.id and changed.version != item.version
    fetched = SqlConnector(url, "agents").fetch(item, item.version)
    assert isinstance(fetched, Fetched) and fetched.version == changed.version
    report = kb.ingestor.ingest_sql(url, "agents", options).reports[0]
    assert report.status == "changed" and report.uri == item.id
    assert 0 < embedder.embedded - embedded < embedded  # the changed row, not the table
    hits = kb.retriever.retrieve("Leela Nair region", scopes=["default"]).chunks
    assert "East" in next(h for h in hits if h.kind == "row").text
    missing = kb.ingestor.ingest_sql(url, "agent", options).reports[0]
    assert missing.uri == f"sql:{url}#agent" and missing.status == "failed"
    assert missing.error == "no table named agent; available tables: agents"
    unparsable = kb.ingestor.ingest_sql("not a url", "agents", options).reports[0]
    assert unparsable.uri == "sql:database#agents" and "cannot be parsed" in str(unparsable.error)


def test_faq_paraphrases_from_a_model_point_at_the_same_faq(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    from bot.db.engine import create_async_engine
    from knowledge.models.llm import FakeChat, LLMParaphraser
    from knowledge.service import open_knowledge

    paraphraser = LLMParaphraser(
        FakeChat(lambda system, user: "- can I put my baby on my insurance\n- newborn cover")
    )
    kb = open_knowledge(
        engine, create_async_engine(db_url), CountingEmbedder(), paraphraser=paraphraser
    )
    write(
        tmp_path,
        "faq.csv",
        'question,answer\nHow do I add my newborn?,"Send the birth certificate."\n',
    )
    kb.ingestor.ingest_paths([tmp_path / "faq.csv"], IngestOptions())
    assert kb.chunks.count() == 3  # the question and two paraphrases
    hits = kb.retriever.retrieve("put my baby on my insurance", scopes=["default"]).chunks
    assert len([h for h in hits if h.kind == "faq"]) == 1  # one FAQ, however it was matched
    assert hits[0].metadata["question"] == "How do I add my newborn?"


def test_a_nul_character_in_a_source_is_dropped_not_fatal(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    """A PDF may map a glyph (a filing's check box) to NUL, which Postgres text and JSON
    cannot hold: the character is dropped and the document is indexed, not failed."""
    kb = make_knowledge(engine, db_url)
    rows = POLICIES.replace("Vikram Shah", "Vikram\x00 Shah")
    summary = kb.ingestor.ingest_paths([write(tmp_path, "policies.csv", rows)], ROWS)
    assert summary.failed == []
    hits = kb.retriever.retrieve("policy 0000-0002 Vikram Shah", scopes=["default"]).chunks
    row = next(h for h in hits if h.kind == "row")
    assert json.loads(row.text)["holder"] == "Vikram Shah"


def test_a_nul_character_in_a_document_passage_is_dropped(engine: Engine, db_url: URL) -> None:
    kb = make_knowledge(engine, db_url)
    passage = ChunkDraft(
        key="cover",
        kind=ChunkKind.RULEBOOK,
        text="\x00 ANNUAL REPORT pursuant to section 13 for the fiscal year 2022",
        title="annual.pdf",
        location="p. 1",
        metadata={"section": "Form 10-K \x00 Cover", "page": 1},
    )
    report = kb.ingestor.ingest_loaded(
        "annual.pdf", SourceKind.RULEBOOK, IngestOptions(), Loaded([passage])
    )
    assert report.status == "new", report.error
    hit = kb.retriever.retrieve("annual report fiscal year", scopes=["default"]).chunks[0]
    assert hit.text.startswith(" ANNUAL REPORT") and "\x00" not in hit.metadata["section"]


def test_a_word_used_once_in_a_large_knowledge_base_counts_as_used(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    """A knowledge base with tens of thousands of distinct words still knows the one a
    single clause uses: a word it did not know would make the question about it "never
    mentioned" and declined."""
    kb = make_knowledge(engine, db_url)
    words = [_letters(i) for i in range(24000)]  # each used twice, in two sections
    sections = [
        f"{n + 1}. Section\n" + " ".join(words[i : i + 400])
        for n, i in enumerate(range(0, len(words), 400))
    ]
    text = "\n\n".join(sections * 2) + "\n\n99. Hovercraft\nHovercraft travel is reimbursed."
    kb.ingestor.ingest_paths([write(tmp_path, "big.txt", text)], IngestOptions(scope="big"))
    known = kb.vocabulary(["big"])
    assert "hovercraft" in known and _letters(23999) in known


def _letters(i: int) -> str:
    """A six-letter word for `i` ("baaaaa", "baaaab", ...)."""
    out = ""
    for _ in range(5):
        i, r = divmod(i, 26)
        out = chr(97 + r) + out
    return "b" + out
