"""Syncing a web site into the real Postgres + pgvector, against a fake site on 127.0.0.1:
first sync, edit, delete, throttling, a listing that breaks part way, a site that lists
nothing, and a re-sync that downloads nothing when nothing changed."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine

from knowledge.ingest.connectors.polite import PoliteClient, RetryPolicy
from knowledge.ingest.connectors.web import WebConnector, WebSite
from knowledge.ingest.options import IngestOptions
from knowledge.ingest.reports import IngestSummary
from knowledge.ingest.sync import sync_connector
from knowledge.service import Knowledge
from tests.fakes.web_site import FakeSite, fake_site
from tests.integration.knowledge_fixtures import make_knowledge

OPTIONS = IngestOptions(scope="intranet")


@pytest.fixture
def site() -> Iterator[FakeSite]:
    with fake_site() as running:
        running.page("/policies/leave", "Annual leave", "<p>Staff get 24 days of annual leave.</p>")
        running.page("/policies/travel", "Travel", "<p>Book economy class for flights.</p>")
        running.page("/policies/expenses", "Expenses", "<p>Submit receipts within 30 days.</p>")
        running.page("/private/salaries", "Salaries", "<p>The CEO earns a lot.</p>")
        yield running


def sync(kb: Knowledge, engine: Engine, site: FakeSite, max_pages: int = 5000) -> IngestSummary:
    policy = RetryPolicy(max_wait=3.0, jitter=0.1)
    connector = WebConnector(
        WebSite(sitemap=site.sitemap, max_pages=max_pages),
        PoliteClient(concurrency=4, policy=policy),
    )
    try:
        return sync_connector(kb.ingestor, engine, connector, OPTIONS)
    finally:
        connector.close()


def chunks(engine: Engine) -> list[tuple[str, str, str]]:
    """(page URL, citation link, text) of every stored chunk."""
    query = sa.text(
        "SELECT metadata_->>'source_uri', metadata_->>'url', text FROM data_kb_chunks ORDER BY 1"
    )
    with engine.connect() as conn:
        return [(r[0], r[1], r[2]) for r in conn.execute(query)]


def texts(engine: Engine) -> str:
    return "\n".join(text for _, _, text in chunks(engine))


def test_first_sync_indexes_the_main_text_of_allowed_pages_cited_by_their_url(
    engine: Engine, db_url: URL, site: FakeSite
) -> None:
    kb = make_knowledge(engine, db_url)
    summary = sync(kb, engine, site)
    assert summary.failed == [] and summary.count("new") == 3
    stored = chunks(engine)
    assert {uri for uri, _, _ in stored} == {
        f"{site.base}/policies/{name}" for name in ("leave", "travel", "expenses")
    }
    assert all(link == uri for uri, link, _ in stored)  # the page is the citation
    assert "24 days of annual leave" in texts(engine)
    assert "Example Ltd" not in texts(engine) and "Search" not in texts(engine)  # no chrome
    assert not any(r.path.startswith("/private/") for r in site.requests)  # robots.txt
    hits = kb.retriever.retrieve("how many days of annual leave", scopes=["intranet"]).chunks
    assert hits[0].metadata["url"] == f"{site.base}/policies/leave"
    assert hits[0].title.startswith("Annual leave")


def test_an_unchanged_resync_downloads_no_page(engine: Engine, db_url: URL, site: FakeSite) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, site)
    site.reset_counts()
    again = sync(kb, engine, site)
    assert again.failed == [] and again.count("unchanged") == 3
    assert site.content_fetches() == []
    page_requests = [r for r in site.requests if r.path.startswith("/policies/")]
    assert len(page_requests) == 3
    assert all(r.conditional and r.status == 304 for r in page_requests)


def test_an_edited_page_is_fetched_and_reindexed_alone(
    engine: Engine, db_url: URL, site: FakeSite
) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, site)
    site.page("/policies/leave", "Annual leave", "<p>Staff get 30 days of annual leave.</p>")
    site.reset_counts()
    again = sync(kb, engine, site)
    assert again.count("changed") == 1 and again.count("unchanged") == 2
    assert [r.path for r in site.content_fetches()] == ["/policies/leave"]
    assert "30 days of annual leave" in texts(engine)
    assert "24 days" not in texts(engine)


def test_a_page_gone_from_the_sitemap_is_removed_from_the_index(
    engine: Engine, db_url: URL, site: FakeSite
) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, site)
    del site.pages["/policies/travel"]
    again = sync(kb, engine, site)
    assert again.failed == [] and again.count("removed") == 1
    assert "economy class" not in texts(engine)
    assert "24 days" in texts(engine)


def test_a_429_is_retried_after_retry_after(engine: Engine, db_url: URL, site: FakeSite) -> None:
    kb = make_knowledge(engine, db_url)
    site.throttle["/policies/leave"] = 1
    site.retry_after = "1"
    started = time.perf_counter()
    summary = sync(kb, engine, site)
    assert summary.failed == [] and summary.count("new") == 3
    assert time.perf_counter() - started >= 1.0  # waited as the server asked
    leave = [r.status for r in site.requests if r.path == "/policies/leave"]
    assert leave == [429, 200]


def test_a_500_in_the_middle_of_the_listing_prunes_nothing(
    engine: Engine, db_url: URL, site: FakeSite
) -> None:
    for n in range(120):  # three sitemap files of 50
        site.page(f"/kb/article-{n:03d}", f"Article {n}", f"<p>Fact number {n} about claims.</p>")
    kb = make_knowledge(engine, db_url)
    assert sync(kb, engine, site).count("new") == 123
    before = len(chunks(engine))
    site.broken.add("/sitemap-2.xml")
    again = sync(kb, engine, site)
    assert [r.uri for r in again.failed] == [f"web:{site.sitemap}"]
    error = again.failed[0].error
    assert "sitemap-2.xml" in error and "HTTP 500" in error and "nothing was pruned" in error
    assert again.count("removed") == 0 and len(chunks(engine)) == before
    with engine.connect() as conn:
        state = conn.execute(sa.text("SELECT listed_count, last_error FROM kb_sync_state")).one()
    assert state.listed_count == 123 and "HTTP 500" in state.last_error


def test_a_site_that_suddenly_lists_nothing_is_reported_and_prunes_nothing(
    engine: Engine, db_url: URL, site: FakeSite
) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, site)
    site.robots = "User-agent: *\nDisallow: /\n"  # a deploy that shut the crawler out
    again = sync(kb, engine, site)
    assert len(again.failed) == 1
    assert "listed 0 items where it had 3" in again.failed[0].error
    assert again.count("removed") == 0 and "24 days" in texts(engine)


def test_a_page_that_fails_to_fetch_keeps_its_last_good_chunks(
    engine: Engine, db_url: URL, site: FakeSite
) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, site)
    site.broken.add("/policies/leave")
    site.page("/policies/travel", "Travel", "<p>Book premium economy for long flights.</p>")
    again = sync(kb, engine, site)
    assert [r.uri for r in again.failed] == [f"{site.base}/policies/leave"]
    assert "HTTP 500" in again.failed[0].error
    assert "24 days of annual leave" in texts(engine)  # the last good copy stays
    assert "premium economy" in texts(engine)  # the rest of the site still synced
    site.broken.clear()
    site.reset_counts()
    healed = sync(kb, engine, site)
    assert healed.failed == [] and site.content_fetches() == []


def test_more_pages_than_max_pages_fails_instead_of_pruning_the_rest(
    engine: Engine, db_url: URL, site: FakeSite
) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, site)
    again = sync(kb, engine, site, max_pages=2)
    assert len(again.failed) == 1 and "max_pages = 2" in again.failed[0].error
    assert again.count("removed") == 0


def test_a_crawl_from_a_start_page_stays_within_its_prefix(
    engine: Engine, db_url: URL, site: FakeSite
) -> None:
    links = "".join(
        f'<a href="{p}">{p}</a>' for p in ("leave", "travel", "/kb/other", "/private/salaries")
    )
    site.page("/policies/", "Policies", f"<p>All policies.</p>{links}")
    site.page("/kb/other", "Other", "<p>Outside the prefix.</p>")
    kb = make_knowledge(engine, db_url)
    web = WebSite(start=f"{site.base}/policies/", prefix=f"{site.base}/policies/")
    connector = WebConnector(web, PoliteClient(concurrency=2))
    try:
        summary = sync_connector(kb.ingestor, engine, connector, OPTIONS)
    finally:
        connector.close()
    assert summary.failed == []
    assert {uri for uri, _, _ in chunks(engine)} == {
        f"{site.base}/policies/{name}" for name in ("", "leave", "travel")
    }
    assert not any(r.path in ("/kb/other", "/private/salaries") for r in site.requests)


def test_a_source_moved_to_another_scope_leaves_the_old_one(
    engine: Engine, db_url: URL, site: FakeSite
) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, site)
    connector = WebConnector(WebSite(sitemap=site.sitemap))
    try:
        moved = sync_connector(kb.ingestor, engine, connector, IngestOptions(scope="hr"))
    finally:
        connector.close()
    assert moved.count("new") == 3 and moved.count("removed") == 3
    with engine.connect() as conn:
        scopes = {
            r[0] for r in conn.execute(sa.text("SELECT metadata_->>'scope' FROM data_kb_chunks"))
        }
    assert scopes == {"hr"}
