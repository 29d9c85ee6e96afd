"""Syncing a Confluence space into the real Postgres + pgvector, against a fake Confluence
on 127.0.0.1: first sync (pages and a PDF attachment, over several search pages), an edit
(re-read alone), an unchanged re-sync (nothing downloaded), a delete (pruned by the next
full listing), a restriction change (access lists follow, inherited by child pages),
throttling, a search that breaks part way, a space that lists nothing and refused
credentials."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from fpdf import FPDF
from sqlalchemy.engine import URL, Engine

from knowledge.ingest.connectors.base import EVERYONE, Item
from knowledge.ingest.connectors.confluence import ConfluenceConnector
from knowledge.ingest.connectors.confluence_space import ConfluenceAuth, ConfluenceSpace
from knowledge.ingest.connectors.polite import PoliteClient, RetryPolicy
from knowledge.ingest.options import IngestOptions
from knowledge.ingest.reports import IngestSummary
from knowledge.ingest.sync import sync_connector
from knowledge.service import Knowledge
from tests.fakes.confluence_server import PAT, FakeConfluence, Space, fake_confluence
from tests.integration.knowledge_fixtures import make_knowledge

OPTIONS = IngestOptions(scope="wiki")
PDF = "application/pdf"
ALICE = {"accountId": "557058:alice", "email": "Alice@Example.com"}
BOB = {"accountId": "557058:bob"}  # e-mail hidden by the user's privacy settings


def pdf(text: str) -> bytes:
    document = FPDF()
    document.add_page()
    document.set_font("helvetica", size=11)
    document.multi_cell(0, 6, text)
    return bytes(document.output())


@pytest.fixture
def wiki() -> Iterator[FakeConfluence]:
    with fake_confluence() as fake:
        fake.spaces["HR"] = Space(groups=["confluence-users"])
        fake.page("1", "Annual leave", "<p>Staff get 24 days of annual leave.</p>")
        fake.attachment(
            "4", "1", "expenses-policy.pdf", pdf("Submit receipts within 30 days."), PDF
        )
        fake.attachment("5", "1", "team-photo.png", b"\x89PNG", "image/png")
        fake.page("2", "Travel", "<p>Book economy class for flights.</p>")
        fake.page("3", "Long flights", "<p>Flights over six hours may be premium.</p>", parent="2")
        fake.page("10", "Payroll", "<p>Payroll runs on the 25th.</p>")
        fake.restrict("10", users=[ALICE], groups=["hr-admins"])
        fake.page("11", "Salaries", "<p>The salary bands are secret.</p>", parent="10")
        fake.restrict("11", users=[ALICE, BOB])
        yield fake


def connector(
    wiki: FakeConfluence,
    *,
    hours: float = 6.0,
    clock: Callable[[], datetime] | None = None,
    auth: ConfluenceAuth | None = None,
) -> ConfluenceConnector:
    site = ConfluenceSpace(base_url=wiki.base, space="HR", full_listing_hours=hours)
    client = PoliteClient(concurrency=4, policy=RetryPolicy(max_wait=3.0, jitter=0.1))
    auth = ConfluenceAuth(pat=PAT) if auth is None else auth
    return ConfluenceConnector(site, auth, client, clock=clock or (lambda: datetime.now(UTC)))


def sync(kb: Knowledge, engine: Engine, wiki: FakeConfluence, **kwargs: object) -> IngestSummary:
    source = connector(wiki, **kwargs)  # type: ignore[arg-type]
    try:
        return sync_connector(kb.ingestor, engine, source, OPTIONS)
    finally:
        source.close()


def hours_later(hours: float) -> Callable[[], datetime]:
    return lambda: datetime.now(UTC) + timedelta(hours=hours)


def listed(wiki: FakeConfluence) -> dict[str, Item]:
    """The items a full listing holds, by Confluence content id."""
    source = connector(wiki)
    try:
        return {item.id.rsplit("/", 1)[-1]: item for item in source.list_items()}
    finally:
        source.close()


def chunks(engine: Engine) -> list[tuple[str, str, str]]:
    query = sa.text(
        "SELECT metadata_->>'source_uri', metadata_->>'url', text FROM data_kb_chunks ORDER BY 1"
    )
    with engine.connect() as conn:
        return [(r[0], r[1], r[2]) for r in conn.execute(query)]


def texts(engine: Engine) -> str:
    return "\n".join(text for _, _, text in chunks(engine))


def versions(engine: Engine) -> dict[str, str]:
    query = sa.text("SELECT item_id, version FROM kb_sync_items")
    with engine.connect() as conn:
        return {r[0].rsplit("/", 1)[-1]: r[1] for r in conn.execute(query)}


def test_first_sync_indexes_pages_and_attachments_cited_by_their_page_links(
    engine: Engine, db_url: URL, wiki: FakeConfluence
) -> None:
    kb = make_knowledge(engine, db_url)
    summary = sync(kb, engine, wiki)
    assert summary.failed == [] and summary.count("new") == 6  # the PNG is not read
    assert len(wiki.searches()) >= 3  # paged by _links.next, two results at a time
    links = {link for _, link, _ in chunks(engine)}
    assert f"{wiki.base}/spaces/HR/pages/1/Annual%20leave" in links
    assert any(link.startswith(f"{wiki.base}/pages/viewpageattachments.action") for link in links)
    assert "24 days of annual leave" in texts(engine)
    assert "receipts within 30 days" in texts(engine)  # from the PDF attachment
    hits = kb.retriever.retrieve("how many days of annual leave", scopes=["wiki"]).chunks
    assert hits[0].metadata["url"] == f"{wiki.base}/spaces/HR/pages/1/Annual%20leave"


def test_access_lists_follow_restrictions_inherited_from_ancestors_else_the_space(
    wiki: FakeConfluence,
) -> None:
    wiki.spaces["OPS"] = Space(groups=["ops"], users=[BOB])
    wiki.page("20", "Runbook", "<p>Restart the service.</p>", space="OPS")
    items = listed(wiki)
    assert items["1"].access == (EVERYONE,)  # the space is open to all its users
    assert items["4"].access == (EVERYONE,)  # an attachment is read as its page
    assert items["10"].access == ("alice@example.com", "group:hr-admins")
    assert items["11"].access == ("alice@example.com",)  # on both levels: only Alice
    assert "5" not in items  # an image: nothing to read
    site = ConfluenceSpace(base_url=wiki.base, space="OPS")
    ops = ConfluenceConnector(site, ConfluenceAuth(pat=PAT))
    try:
        (runbook,) = ops.list_items()
    finally:
        ops.close()
    assert runbook.access == ("confluence-user:557058:bob", "group:ops")


def test_an_unchanged_resync_reads_the_change_feed_and_downloads_nothing(
    engine: Engine, db_url: URL, wiki: FakeConfluence
) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, wiki)
    wiki.reset_counts()
    again = sync(kb, engine, wiki)
    assert again.failed == [] and again.count("unchanged") == 6
    assert wiki.content_fetches() == []
    assert all('lastmodified >= now("-' in r.query["cql"] for r in wiki.searches())
    wiki.age(60)  # nothing modified within the window: the feed is empty
    wiki.reset_counts()
    quiet = sync(kb, engine, wiki)
    assert quiet.failed == [] and quiet.reports == [] and wiki.content_fetches() == []
    assert len(chunks(engine)) > 0


def test_an_edited_page_is_reread_alone(engine: Engine, db_url: URL, wiki: FakeConfluence) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, wiki)
    wiki.age(60)
    wiki.edit("1", "<p>Staff get 30 days of annual leave.</p>")
    wiki.reset_counts()
    again = sync(kb, engine, wiki)
    assert again.failed == [] and again.count("changed") == 1 and len(again.reports) == 1
    assert [r.path for r in wiki.content_fetches()] == ["/wiki/rest/api/content/1"]
    assert "30 days of annual leave" in texts(engine) and "24 days" not in texts(engine)
    assert versions(engine)["1"].startswith("2:")


def test_the_change_feed_reads_access_from_ancestors_it_did_not_list(
    wiki: FakeConfluence,
) -> None:
    source = connector(wiki)
    try:
        cursor = source.changes(None).cursor  # type: ignore[union-attr]
        wiki.age(60)
        wiki.edit("11", "<p>The salary bands changed.</p>")
        wiki.reset_counts()
        changes = source.changes(cursor)
    finally:
        source.close()
    assert changes is not None and [i.id.rsplit("/", 1)[-1] for i in changes.upserts] == ["11"]
    assert changes.upserts[0].access == ("alice@example.com",)  # Payroll, read on its own
    assert "/wiki/rest/api/content/10" in [r.path for r in wiki.requests]


def test_a_page_that_fails_to_fetch_keeps_its_last_good_chunks(
    engine: Engine, db_url: URL, wiki: FakeConfluence
) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, wiki)
    wiki.edit("1", "<p>Staff get 30 days of annual leave.</p>")
    wiki.edit("2", "<p>Book premium economy for long flights.</p>")
    wiki.broken.add("/wiki/rest/api/content/1")
    again = sync(kb, engine, wiki)
    assert [r.uri for r in again.failed] == [f"{wiki.base}/rest/api/content/1"]
    assert "HTTP 500" in again.failed[0].error
    assert "24 days of annual leave" in texts(engine)  # the last good copy stays
    assert "premium economy" in texts(engine)  # the rest still synced
    wiki.broken.clear()
    healed = sync(kb, engine, wiki)
    assert healed.failed == [] and "30 days of annual leave" in texts(engine)


def test_a_deleted_page_is_pruned_by_the_next_full_listing(
    engine: Engine, db_url: URL, wiki: FakeConfluence
) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, wiki)
    del wiki.contents["3"]
    feed = sync(kb, engine, wiki)  # a change feed does not tell deletions
    assert feed.count("removed") == 0
    full = sync(kb, engine, wiki, clock=hours_later(7))  # the full listing is due
    assert full.failed == [] and full.count("removed") == 1
    assert "premium" not in texts(engine) and "economy class" in texts(engine)


def test_a_restriction_change_updates_access_and_rereads_the_pages_it_reaches(
    engine: Engine, db_url: URL, wiki: FakeConfluence
) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, wiki)
    before = versions(engine)
    wiki.restrict("2", groups=["travel-team"])  # version and last-modified stay as they were
    items = listed(wiki)
    assert items["2"].access == ("group:travel-team",)
    assert items["3"].access == ("group:travel-team",)  # the child inherits it
    wiki.reset_counts()
    full = sync(kb, engine, wiki, hours=0)
    assert full.failed == []
    fetched = sorted(r.path.rsplit("/", 1)[-1] for r in wiki.content_fetches())
    assert fetched == ["2", "3"]  # only the pages whose access changed
    after = versions(engine)
    assert {k for k in after if after[k] != before[k]} == {"2", "3"}
    wiki.restrict("3", users=[BOB])  # a reader must pass both levels: nobody can here
    assert "3" not in listed(wiki)
    pruned = sync(kb, engine, wiki, hours=0)
    assert pruned.count("removed") == 1 and "premium" not in texts(engine)


def test_a_429_is_retried_after_retry_after(
    engine: Engine, db_url: URL, wiki: FakeConfluence
) -> None:
    kb = make_knowledge(engine, db_url)
    wiki.throttle["/wiki/rest/api/content/search"] = 1
    started = time.perf_counter()
    summary = sync(kb, engine, wiki)
    assert summary.failed == [] and summary.count("new") == 6
    assert time.perf_counter() - started >= 1.0  # waited as the server asked
    assert [r.status for r in wiki.searches()][:2] == [429, 200]


def test_a_500_in_the_middle_of_the_listing_prunes_nothing(
    engine: Engine, db_url: URL, wiki: FakeConfluence
) -> None:
    kb = make_knowledge(engine, db_url)
    assert sync(kb, engine, wiki).count("new") == 6
    before = len(chunks(engine))
    del wiki.contents["3"]
    wiki.broken_search_page = 1
    again = sync(kb, engine, wiki, hours=0)
    assert [r.uri for r in again.failed] == [f"confluence:{wiki.base}/spaces/HR"]
    error = again.failed[0].error
    assert "HTTP 500" in error and "nothing was pruned" in error
    assert again.count("removed") == 0 and len(chunks(engine)) == before
    with engine.connect() as conn:
        state = conn.execute(sa.text("SELECT listed_count, last_error FROM kb_sync_state")).one()
    assert state.listed_count == 6 and "HTTP 500" in state.last_error


def test_a_space_that_suddenly_lists_nothing_is_reported_and_prunes_nothing(
    engine: Engine, db_url: URL, wiki: FakeConfluence
) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, wiki)
    wiki.contents.clear()  # e.g. the API user lost access to the space
    again = sync(kb, engine, wiki, hours=0)
    assert len(again.failed) == 1
    assert "lists no pages or attachments" in again.failed[0].error
    assert again.count("removed") == 0 and "24 days" in texts(engine)


def test_refused_credentials_are_reported_with_what_to_set(
    engine: Engine, db_url: URL, wiki: FakeConfluence
) -> None:
    kb = make_knowledge(engine, db_url)
    refused = sync(kb, engine, wiki, auth=ConfluenceAuth(pat="expired"))
    assert len(refused.failed) == 1
    error = refused.failed[0].error
    assert "HTTP 401" in error and "CONFLUENCE_PAT" in error
    missing = sync(kb, engine, wiki, auth=ConfluenceAuth())
    assert "no credentials" in missing.failed[0].error
    assert [r.status for r in wiki.requests] == [401]  # nothing sent without credentials


def test_a_space_whose_permissions_are_hidden_is_not_guessed_open(
    engine: Engine, db_url: URL, wiki: FakeConfluence
) -> None:
    kb = make_knowledge(engine, db_url)
    wiki.spaces["HR"] = Space()  # the API user sees no read permission
    summary = sync(kb, engine, wiki)
    assert (
        len(summary.failed) == 1 and "cannot tell who may read space HR" in summary.failed[0].error
    )
    assert chunks(engine) == []
    site = ConfluenceSpace(base_url=wiki.base, space="HR", space_readers=("group:staff",))
    named = ConfluenceConnector(site, ConfluenceAuth(pat=PAT))
    try:
        access = {item.id.rsplit("/", 1)[-1]: item.access for item in named.list_items()}
    finally:
        named.close()
    assert access["1"] == ("group:staff",) and access["11"] == ("alice@example.com",)


def test_a_forbidden_search_names_the_scopes_the_token_needs(
    engine: Engine, db_url: URL, wiki: FakeConfluence
) -> None:
    kb = make_knowledge(engine, db_url)
    wiki.forbidden.add("/wiki/rest/api/content/search")
    summary = sync(kb, engine, wiki)
    assert len(summary.failed) == 1
    error = summary.failed[0].error
    assert "HTTP 403" in error and "read:confluence-content.all" in error
