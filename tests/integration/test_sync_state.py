"""Connector sync state in Postgres: the cursor moves only after its batch is indexed, a
change feed's deletes reach the index, and the table handles match the migration."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy.engine import URL, Engine

from knowledge.ingest.connectors.base import Changes, Fetched, FetchFailed, Item, NotModified
from knowledge.ingest.options import IngestOptions
from knowledge.ingest.sync import sync_connector
from knowledge.store import sync_state
from knowledge.store.tables import metadata
from tests.integration.knowledge_fixtures import CountingEmbedder, make_knowledge

OPTIONS = IngestOptions(scope="drive")


@dataclass
class FeedConnector:
    """A source with a change feed, the shape SharePoint's delta will have."""

    docs: dict[str, str] = field(default_factory=dict)  # id -> markdown
    feed: list[Changes] = field(default_factory=list)  # what changes(cursor) answers next
    broken: set[str] = field(default_factory=set)
    cursors_seen: list[str | None] = field(default_factory=list)

    key = "feed:test"
    concurrency = 2

    def list_items(self) -> list[Item]:
        raise AssertionError("a change feed is read, not listed")

    def changes(self, cursor: str | None) -> Changes | None:
        self.cursors_seen.append(cursor)
        if cursor is None:
            return Changes([self.item(i) for i in self.docs], [], "c1")
        return self.feed.pop(0)

    def item(self, item_id: str) -> Item:
        return Item(item_id, str(hash(self.docs[item_id])), f"https://drive.example/{item_id}")

    def fetch(self, item: Item, known: str | None) -> Fetched | NotModified:
        if item.id in self.broken:
            raise FetchFailed(item.id, "HTTP 503 after retries")
        return Fetched(self.docs[item.id].encode(), "text/markdown", item.version)


def state(engine: Engine) -> sync_state.SyncState:
    with engine.connect() as conn:
        found = sync_state.get(conn, FeedConnector.key)
    assert found is not None
    return found


def test_a_change_feed_upserts_and_deletes_and_moves_its_cursor(
    engine: Engine, db_url: URL
) -> None:
    kb = make_knowledge(engine, db_url)
    source = FeedConnector(docs={"a": "# Leave\n\n24 days of leave.", "b": "# Travel\n\nEconomy."})
    first = sync_connector(kb.ingestor, engine, source, OPTIONS)
    assert first.count("new") == 2 and state(engine).cursor == "c1"
    source.docs["a"] = "# Leave\n\n30 days of leave."
    source.feed.append(Changes([source.item("a")], ["b"], "c2"))
    second = sync_connector(kb.ingestor, engine, source, OPTIONS)
    assert source.cursors_seen == [None, "c1"]
    assert second.count("changed") == 1 and second.count("removed") == 1
    assert state(engine).cursor == "c2" and state(engine).listed_count == 1
    with engine.connect() as conn:
        stored = [r[0] for r in conn.execute(sa.text("SELECT text FROM data_kb_chunks"))]
    assert any("30 days" in t for t in stored) and not any("Economy" in t for t in stored)


def test_the_cursor_stays_when_an_item_of_its_batch_failed(engine: Engine, db_url: URL) -> None:
    kb = make_knowledge(engine, db_url)
    source = FeedConnector(docs={"a": "# Leave\n\n24 days of leave."})
    sync_connector(kb.ingestor, engine, source, OPTIONS)
    source.docs["a"] = "# Leave\n\n30 days of leave."
    source.broken.add("a")
    source.feed.append(Changes([source.item("a")], [], "c2"))
    summary = sync_connector(kb.ingestor, engine, source, OPTIONS)
    assert len(summary.failed) == 1
    assert state(engine).cursor == "c1"  # the next sync asks for the same changes again
    assert "1 item(s) failed" in (state(engine).last_error or "")


def test_an_interrupted_sync_records_no_progress(engine: Engine, db_url: URL) -> None:
    kb = make_knowledge(engine, db_url, CountingEmbedder(fail_after=0))
    source = FeedConnector(docs={"a": "# Leave\n\n24 days of leave."})
    with pytest.raises(KeyboardInterrupt):
        sync_connector(kb.ingestor, engine, source, OPTIONS)
    with engine.connect() as conn:
        assert sync_state.get(conn, FeedConnector.key) is None
        assert sync_state.item_versions(conn, FeedConnector.key) == {}


def test_sync_table_handles_match_the_migration(engine: Engine) -> None:
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    names = ("kb_sync_state", "kb_sync_items")
    assert [d for d in diff if any(n in repr(d) for n in names)] == []
