"""Owners in knowbot-sources.toml: stored with each source (the folder's for files without
their own), changed without re-reading the source, and an id of no known form refused."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import URL, Engine

from knowledge.ingest.options import IngestOptions
from knowledge.store.sources import list_sources, owners_of
from tests.fakes.knowledge_base import write_policy_kb
from tests.integration.knowledge_fixtures import CountingEmbedder, make_knowledge

TEAMS = "teams:0a1b2c3d-0000-4000-8000-123456789abc"
MANIFEST = f"""owners = ["hr-team@example.com"]

[[source]]
path = "glossary.csv"
owners = ["U0123ABCD", "{TEAMS}"]
"""


def owners_by_file(engine: Engine) -> dict[str, list[str]]:
    with engine.connect() as conn:
        rows = list_sources(conn, scope="default")
        owners = owners_of(conn, [r.id for r in rows])
    return {Path(r.uri).name: owners[r.id] for r in rows}


def test_owners_are_stored_with_each_source(engine: Engine, db_url: URL, tmp_path: Path) -> None:
    kb = write_policy_kb(tmp_path / "kb")
    (kb / "knowbot-sources.toml").write_text(MANIFEST)
    embedder = CountingEmbedder()
    knowledge = make_knowledge(engine, db_url, embedder)
    summary = knowledge.ingestor.ingest_paths([kb], IngestOptions())
    assert summary.failed == []
    assert owners_by_file(engine) == {
        "glossary.csv": ["U0123ABCD", TEAMS],
        "policy.txt": ["hr-team@example.com"],
    }

    embedded = embedder.embedded
    (kb / "knowbot-sources.toml").write_text('owners = ["U0999ZZZZ"]\n')
    again = knowledge.ingestor.ingest_paths([kb], IngestOptions())
    assert again.count("unchanged") == 2 and embedder.embedded == embedded
    assert owners_by_file(engine) == {"glossary.csv": ["U0999ZZZZ"], "policy.txt": ["U0999ZZZZ"]}


def test_an_unknown_owner_id_is_reported_and_nothing_is_ingested(
    engine: Engine, db_url: URL, tmp_path: Path
) -> None:
    kb = write_policy_kb(tmp_path / "kb")
    (kb / "knowbot-sources.toml").write_text(
        '[[source]]\npath = "policy.txt"\nowners = ["@bob", "U0777QQQQ"]\n'
    )
    summary = make_knowledge(engine, db_url).ingestor.ingest_paths([kb], IngestOptions())
    [failed] = summary.failed
    assert failed.uri.endswith("knowbot-sources.toml")
    assert "'@bob'" in failed.error and "Slack user id" in failed.error
    assert "U0777QQQQ" not in failed.error
    assert owners_by_file(engine) == {}
