"""Confluence sync: a fresh sync of a 200-page space from a local fake Confluence (CQL
search paged 25 at a time, restrictions, space permissions), then an unchanged re-sync
through the change feed and one through a full listing; neither may download a page.

    python -m benchmarks.confluence_sync [--pages 200] [--hashing]
"""

from __future__ import annotations

import argparse
import time

from sqlalchemy.engine import Engine

from benchmarks.setup import bench_database
from bot.db.engine import create_async_engine
from knowledge.ingest.connectors.confluence import ConfluenceConnector
from knowledge.ingest.connectors.confluence_space import ConfluenceAuth, ConfluenceSpace
from knowledge.ingest.options import IngestOptions
from knowledge.ingest.reports import IngestSummary
from knowledge.ingest.sync import sync_connector
from knowledge.models.embeddings import Embedder, HashingEmbedder, LocalEmbedder
from knowledge.service import Knowledge, open_knowledge
from tests.fakes.confluence_server import PAT, FakeConfluence, Space, fake_confluence

TOPICS = ["leave", "travel", "expenses", "security", "onboarding", "benefits", "claims"]


def fill(wiki: FakeConfluence, pages: int) -> None:
    wiki.spaces["HR"] = Space(groups=["confluence-users"])
    wiki.page_size = 25
    for n in range(1, pages + 1):
        topic = TOPICS[n % len(TOPICS)]
        body = "".join(
            f"<h2>{topic.title()} rule {n}.{k}</h2><p>Staff in unit {n} follow {topic} rule "
            f"{n}.{k}: requests go to the {topic} desk within {k + 2} working days, and "
            f"exceptions need a manager's approval in writing.</p>"
            for k in range(4)
        )
        parent = str(n - n % 10) if n % 10 and n > 10 else None  # a tree, ten to a parent
        wiki.page(str(n), f"{topic.title()} policy {n}", body, parent=parent)
        if n % 20 == 0:
            wiki.restrict(str(n), groups=["hr-admins"])  # and its children with it


def timed_sync(
    kb: Knowledge, engine: Engine, wiki: FakeConfluence, full_listing_hours: float
) -> tuple[IngestSummary, float]:
    site = ConfluenceSpace(base_url=wiki.base, space="HR", full_listing_hours=full_listing_hours)
    connector = ConfluenceConnector(site, ConfluenceAuth(pat=PAT))
    started = time.perf_counter()
    try:
        summary = sync_connector(kb.ingestor, engine, connector, IngestOptions(scope="wiki"))
    finally:
        connector.close()
    return summary, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--hashing", action="store_true", help="hashing embedder, no model")
    args = parser.parse_args()
    embedder: Embedder = HashingEmbedder() if args.hashing else LocalEmbedder()
    embedder.embed_documents(["warm up the model"])  # model load is not sync work
    with bench_database() as (engine, url), fake_confluence() as wiki:
        fill(wiki, args.pages)
        kb = open_knowledge(engine, create_async_engine(url), embedder)
        first, cold = timed_sync(kb, engine, wiki, 6.0)
        fresh = (len(wiki.content_fetches()), len(wiki.requests))
        runs = []
        for label, hours in (("change feed", 6.0), ("full listing", 0.0)):
            wiki.reset_counts()
            again, warm = timed_sync(kb, engine, wiki, hours)
            assert not again.failed and again.count("unchanged") == args.pages, again.failed[:3]
            runs.append((label, warm, len(wiki.content_fetches()), len(wiki.requests)))
    assert not first.failed and first.count("new") == args.pages, first.failed[:3]
    print(
        f"fresh sync: {args.pages} pages, {first.chunks} chunks in {cold:.1f} s "
        f"({fresh[0]} page downloads, {fresh[1]} requests)"
    )
    for label, warm, downloads, requests in runs:
        print(
            f"unchanged re-sync ({label}): {warm:.2f} s, {downloads} page downloads, "
            f"{requests} requests"
        )


if __name__ == "__main__":
    main()
