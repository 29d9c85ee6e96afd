"""Syncing a SharePoint library (and a OneDrive) into the real Postgres + pgvector, against
a fake Microsoft Graph on 127.0.0.1: first sync, edit, delete, permission change, a
repeated item, an expired delta link, throttling, a feed that breaks part way, a drive
that lists nothing, refused credentials, and a re-sync that downloads nothing."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from docx import Document
from fpdf import FPDF
from sqlalchemy.engine import URL, Engine

from knowledge.ingest.connectors.graph import GraphConnector
from knowledge.ingest.connectors.graph_auth import GraphAccess
from knowledge.ingest.connectors.graph_drive import GraphDrive
from knowledge.ingest.connectors.graph_errors import throttled
from knowledge.ingest.connectors.polite import PoliteClient, RetryPolicy
from knowledge.ingest.options import IngestOptions
from knowledge.ingest.reports import IngestSummary
from knowledge.ingest.sync import sync_connector
from knowledge.service import Knowledge
from tests.fakes.graph_server import (
    CLIENT_ID,
    SECRET,
    TENANT,
    USER,
    FakeGraph,
    fake_graph,
    group_grant,
    user_grant,
)
from tests.integration.knowledge_fixtures import make_knowledge

OPTIONS = IngestOptions(scope="sharepoint")
IDS: dict[str, str] = {}


def docx_bytes(*paragraphs: str) -> bytes:
    doc = Document()
    doc.add_heading("Travel policy", 0)
    for text in paragraphs:
        doc.add_paragraph(text)
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


def pdf_bytes(*pages: str) -> bytes:
    pdf = FPDF(format="A4")
    pdf.set_font("helvetica", size=11)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 6, text)
    return bytes(pdf.output())


@pytest.fixture
def graph() -> Iterator[FakeGraph]:
    with fake_graph() as running:
        IDS["leave"] = running.add(
            "Annual leave.md",
            "# Annual leave\n\nStaff get 24 days of annual leave a year.\n",
            folder="Handbook",
        )
        IDS["travel"] = running.add(
            "Travel.docx",
            docx_bytes("Book economy class for flights under six hours."),
            folder="Handbook/Travel",
            permissions=[group_grant("TRAVELLERS"), user_grant("bob@contoso.com", "AAD-BOB")],
        )
        IDS["salaries"] = running.add(
            "Salaries.md",
            "# Salaries\n\nThe salary bands are reviewed every April.\n",
            folder="Restricted",
            permissions=[user_grant("dana@contoso.com")],
        )
        running.add("logo.png", b"\x89PNG not a document")
        yield running


def connector(graph: FakeGraph, **drive: Any) -> GraphConnector:
    access = GraphAccess(TENANT, CLIENT_ID, SECRET, graph_url=graph.graph_url, authority=graph.base)
    where = drive if "user" in drive else {"site": graph.site, **drive}
    client = PoliteClient(
        concurrency=4, policy=RetryPolicy(max_wait=3.0, jitter=0.1), retry_when=throttled
    )
    return GraphConnector(GraphDrive(**where), access, client)


def sync(
    kb: Knowledge,
    engine: Engine,
    graph: FakeGraph,
    using: GraphConnector | None = None,
    **drive: Any,
) -> IngestSummary:
    source = using or connector(graph, **drive)
    try:
        return sync_connector(kb.ingestor, engine, source, OPTIONS)
    finally:
        if using is None:
            source.close()


def chunks(engine: Engine) -> list[tuple[str, str, str]]:
    """(item id, citation link, text) of every stored chunk."""
    query = sa.text(
        "SELECT metadata_->>'source_uri', metadata_->>'url', text FROM data_kb_chunks ORDER BY 1"
    )
    with engine.connect() as conn:
        return [(r[0], r[1], r[2]) for r in conn.execute(query)]


def texts(engine: Engine) -> str:
    return "\n".join(text for _, _, text in chunks(engine))


def access(engine: Engine) -> dict[str, list[str]]:
    """Each synced item's access list, as the sync recorded it with the item's version."""
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT item_id, version FROM kb_sync_items"))
        return {r.item_id.rsplit("/", 1)[-1]: json.loads(r.version)["access"] for r in rows}


def link(graph: FakeGraph, folder: str, name: str) -> str:
    return f"{graph.drive().web}/{folder}/{name.replace(' ', '%20')}"


def test_first_sync_indexes_readable_files_cited_by_web_url_with_who_may_read_them(
    engine: Engine, db_url: URL, graph: FakeGraph
) -> None:
    kb = make_knowledge(engine, db_url)
    summary = sync(kb, engine, graph)
    assert summary.failed == [] and summary.count("new") == 3
    links = {url for _, url, _ in chunks(engine)}
    assert links == {
        link(graph, "Handbook", "Annual leave.md"),
        link(graph, "Handbook/Travel", "Travel.docx"),
        link(graph, "Restricted", "Salaries.md"),
    }
    assert "economy class" in texts(engine) and "PNG" not in texts(engine)
    assert len(graph.downloads()) == 3  # each /content redirect was followed once
    assert graph.count("/oauth2/v2.0/token") == 1  # one token for the whole sync
    assert access(engine) == {
        IDS["leave"]: ["everyone"],
        IDS["travel"]: ["aad-bob", "bob@contoso.com", "group:travellers"],
        IDS["salaries"]: ["dana@contoso.com"],
    }
    hits = kb.retriever.retrieve("how many days of annual leave", scopes=["sharepoint"]).chunks
    assert hits[0].metadata["url"] == link(graph, "Handbook", "Annual leave.md")


def test_an_unchanged_resync_downloads_nothing_and_reads_no_permissions(
    engine: Engine, db_url: URL, graph: FakeGraph
) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, graph)
    graph.reset_counts()
    again = sync(kb, engine, graph)
    assert again.failed == [] and again.reports == []
    assert graph.downloads() == [] and graph.count("/permissions") == 0
    assert graph.count("/root/delta") == 1  # one page from the stored delta link


def test_pdf_citations_link_to_their_page(engine: Engine, db_url: URL, graph: FakeGraph) -> None:
    graph.add(
        "Expenses.pdf",
        pdf_bytes(
            "1 Receipts\n" + "Every expense needs its receipt, scanned or photographed. " * 30,
            "2 Approval\n" + "Claims over 500 euros need a vice president's approval. " * 30,
        ),
        folder="Handbook",
    )
    kb = make_knowledge(engine, db_url)
    assert sync(kb, engine, graph).count("new") == 4
    pdf = [(url, text) for _, url, text in chunks(engine) if "Expenses.pdf" in url]
    assert any(url.endswith("Expenses.pdf#page=2") and "500 euros" in t for url, t in pdf)
    assert all(url.endswith(("#page=1", "#page=2")) for url, _ in pdf)


def test_an_item_repeated_across_delta_pages_counts_once_as_its_last_page_shows_it(
    engine: Engine, db_url: URL, graph: FakeGraph
) -> None:
    graph.page_size = 2
    graph.repeat = IDS["leave"]  # a stale copy (old name) on page 1, the current one later
    kb = make_knowledge(engine, db_url)
    summary = sync(kb, engine, graph)
    assert summary.failed == [] and summary.count("new") == 3
    assert graph.count("/root/delta") > 2  # several pages
    links = {url for _, url, _ in chunks(engine)}
    assert link(graph, "Handbook", "Annual leave.md") in links
    assert not any("old-name" in url for url in links)


def test_an_edited_file_alone_is_downloaded_and_reindexed(
    engine: Engine, db_url: URL, graph: FakeGraph
) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, graph)
    graph.edit(IDS["leave"], "# Annual leave\n\nStaff get 30 days of annual leave a year.\n")
    graph.reset_counts()
    again = sync(kb, engine, graph)
    assert again.failed == [] and again.count("changed") == 1
    assert [d.rsplit("/", 1)[-1] for d in graph.downloads()] == [IDS["leave"]]
    assert "30 days of annual leave" in texts(engine) and "24 days" not in texts(engine)


def test_a_deleted_file_leaves_the_index(engine: Engine, db_url: URL, graph: FakeGraph) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, graph)
    graph.delete(IDS["travel"])
    again = sync(kb, engine, graph)
    assert again.failed == [] and again.count("removed") == 1
    assert "economy class" not in texts(engine) and "24 days" in texts(engine)
    assert IDS["travel"] not in access(engine)


def test_a_permission_change_reaches_the_items_access_list(
    engine: Engine, db_url: URL, graph: FakeGraph
) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, graph)
    graph.share(IDS["salaries"], [user_grant("dana@contoso.com"), group_grant("FINANCE")])
    graph.share(IDS["leave"], [user_grant("erin@contoso.com")])  # no longer organisation-wide
    graph.reset_counts()
    again = sync(kb, engine, graph)
    assert again.failed == []
    stored = access(engine)
    assert stored[IDS["salaries"]] == ["dana@contoso.com", "group:finance"]
    assert stored[IDS["leave"]] == ["erin@contoso.com"]
    assert stored[IDS["travel"]] == ["aad-bob", "bob@contoso.com", "group:travellers"]
    assert graph.count("/permissions") == 2  # only the items whose sharing changed


def test_an_expired_delta_link_resyncs_in_full_and_reconciles(
    engine: Engine, db_url: URL, graph: FakeGraph
) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, graph)
    graph.delete(IDS["travel"])
    graph.expire_delta_links = True  # 410 resyncRequired
    graph.reset_counts()
    again = sync(kb, engine, graph)
    assert again.failed == [] and again.count("removed") == 1
    assert again.count("unchanged") == 2 and graph.downloads() == []
    assert "economy class" not in texts(engine)
    graph.expire_delta_links = False
    graph.reset_counts()
    assert sync(kb, engine, graph).reports == []  # the fresh delta link was kept
    assert graph.count("/root/delta") == 1


def test_a_deleted_folder_takes_its_files_with_it(
    engine: Engine, db_url: URL, graph: FakeGraph
) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, graph)
    graph.delete_folder("Handbook")  # the feed names the folder, not the files in it
    graph.reset_counts()
    again = sync(kb, engine, graph)
    assert again.failed == [] and again.count("removed") == 2
    assert "24 days" not in texts(engine) and "economy class" not in texts(engine)
    assert "salary bands" in texts(engine) and graph.downloads() == []


@pytest.mark.parametrize(("status", "where"), [(429, "/content"), (403, "/permissions")])
def test_throttling_is_waited_out_as_graph_asks(
    engine: Engine, db_url: URL, graph: FakeGraph, status: int, where: str
) -> None:
    graph.throttle[where] = 1
    graph.throttle_status = status  # 403 + activityLimitReached: SharePoint throttling
    graph.retry_after = "1"
    kb = make_knowledge(engine, db_url)
    started = time.perf_counter()
    summary = sync(kb, engine, graph)
    assert summary.failed == [] and summary.count("new") == 3
    assert time.perf_counter() - started >= 1.0
    assert [s for _, p, s in graph.requests if p.endswith(where)].count(status) == 1


def test_a_500_in_the_middle_of_the_feed_prunes_nothing_and_keeps_the_cursor(
    engine: Engine, db_url: URL, graph: FakeGraph
) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, graph)
    graph.page_size = 2
    graph.delete(IDS["travel"])
    graph.edit(IDS["leave"], "# Annual leave\n\nStaff get 30 days of annual leave a year.\n")
    for n in range(3):
        graph.add(f"Note {n}.md", f"# Note {n}\n\nNote number {n} about claims.\n")
    graph.broken_page = 2
    again = sync(kb, engine, graph)
    assert len(again.failed) == 1 and again.failed[0].uri.startswith("sharepoint:")
    error = again.failed[0].error
    assert "HTTP 500" in error and "page 2" in error and "nothing was pruned" in error
    assert again.count("removed") == 0 and "economy class" in texts(engine)
    with engine.connect() as conn:
        state = conn.execute(sa.text("SELECT cursor, last_error FROM kb_sync_state")).one()
    assert state.cursor.endswith("token=4") and "HTTP 500" in state.last_error
    graph.broken_page = None
    healed = sync(kb, engine, graph)  # from the kept cursor: every change since applies
    assert healed.failed == [] and healed.count("removed") == 1 and healed.count("new") == 3
    assert "30 days" in texts(engine) and "economy class" not in texts(engine)


def test_a_drive_that_suddenly_lists_nothing_is_reported_and_prunes_nothing(
    engine: Engine, db_url: URL, graph: FakeGraph
) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, graph)
    for item_id in list(graph.drive().files):
        graph.delete(item_id)
    graph.expire_delta_links = True  # the full listing that follows holds nothing
    again = sync(kb, engine, graph)
    assert len(again.failed) == 1
    assert "listed 0 items where it had 3; nothing was pruned" in again.failed[0].error
    assert "library and folder" in again.failed[0].error
    assert again.count("removed") == 0 and "24 days" in texts(engine)


def test_a_folder_with_nothing_readable_is_reported(
    engine: Engine, db_url: URL, graph: FakeGraph
) -> None:
    kb = make_knowledge(engine, db_url)
    summary = sync(kb, engine, graph, folder="Handbok")  # a typo
    assert len(summary.failed) == 1 and "listed 0 items" in summary.failed[0].error
    assert "folder=/Handbok" in summary.failed[0].uri


def test_an_expired_client_secret_is_reported_with_what_to_do(
    engine: Engine, db_url: URL, graph: FakeGraph
) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, graph)
    graph.secret_expired = True
    graph.edit(IDS["leave"], "# Annual leave\n\nStaff get 30 days of annual leave a year.\n")
    again = sync(kb, engine, graph)
    assert len(again.failed) == 1
    error = again.failed[0].error
    assert "the client secret has expired (AADSTS7000222)" in error
    assert "MICROSOFT_GRAPH_CLIENT_SECRET" in error and "nothing was pruned" in error
    assert "24 days" in texts(engine)


def test_a_site_the_app_may_not_read_or_that_is_not_there_says_what_to_do(
    engine: Engine, db_url: URL, graph: FakeGraph
) -> None:
    kb = make_knowledge(engine, db_url)
    sync(kb, engine, graph)
    graph.denied.add("/permissions")  # Sites.Selected not granted, say
    denied = sync(kb, engine, graph, folder="Handbook")
    error = denied.failed[0].error
    assert "HTTP 403" in error and "Sites.Read.All" in error and "Sites.Selected" in error
    graph.denied.clear()
    access = GraphAccess(TENANT, CLIENT_ID, SECRET, graph_url=graph.graph_url, authority=graph.base)
    missing = GraphConnector(GraphDrive(site="https://contoso.sharepoint.com/sites/hrr"), access)
    try:
        gone = sync_connector(kb.ingestor, engine, missing, OPTIONS)
    finally:
        missing.close()
    error = gone.failed[0].error
    assert "site lookup answered HTTP 404" in error and "check the site URL" in error
    assert "24 days" in texts(engine)  # neither pruned anything


def test_a_refused_token_is_renewed_once(engine: Engine, db_url: URL, graph: FakeGraph) -> None:
    kb = make_knowledge(engine, db_url)
    source = connector(graph)
    try:
        sync(kb, engine, graph, using=source)
        graph.revoke_tokens()  # e.g. revoked when the secret was rotated
        graph.edit(IDS["leave"], "# Annual leave\n\nStaff get 30 days of annual leave a year.\n")
        again = sync(kb, engine, graph, using=source)
    finally:
        source.close()
    assert again.failed == [] and again.count("changed") == 1
    assert graph.count("/oauth2/v2.0/token") == 2


def test_a_folder_limits_the_source_even_when_delta_omits_paths(
    engine: Engine, db_url: URL, graph: FakeGraph
) -> None:
    graph.with_paths = False  # as Graph's delta does for business drives
    kb = make_knowledge(engine, db_url)
    first = sync(kb, engine, graph, folder="Handbook")
    assert first.failed == [] and first.count("new") == 2  # leave, and travel below it
    graph.edit(IDS["leave"], "# Annual leave\n\nStaff get 30 days of annual leave a year.\n")
    graph.add("Bonus.md", "# Bonus\n\nBonuses are secret.\n", folder="Restricted")
    again = sync(kb, engine, graph, folder="Handbook")  # a new connector: folders looked up
    assert again.failed == [] and again.count("changed") == 1 and again.count("new") == 0
    assert "Bonuses" not in texts(engine) and "Salaries" not in texts(engine)


def test_a_named_library_and_a_onedrive(engine: Engine, db_url: URL, graph: FakeGraph) -> None:
    graph.add("Code of conduct.md", "# Conduct\n\nBe kind.\n", drive="Policies")
    graph.add("Notes.md", "# Notes\n\nAlice's notes on onboarding.\n", drive="OneDrive")
    kb = make_knowledge(engine, db_url)
    library = sync(kb, engine, graph, library="policies")
    onedrive = sync(kb, engine, graph, user=USER)
    assert library.count("new") == 1 and onedrive.count("new") == 1
    assert {url.rsplit("/", 1)[-1] for _, url, _ in chunks(engine)} == {
        "Code%20of%20conduct.md",
        "Notes.md",
    }
    wrong = sync(kb, engine, graph, library="Policy")
    assert "no library named 'Policy' (it has: Documents, Policies)" in wrong.failed[0].error
