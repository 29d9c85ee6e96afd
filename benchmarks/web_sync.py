"""Web sync: a fresh sync of 200 pages from a local fake site (sitemap, robots.txt, ETags),
then a re-sync with nothing changed, which must download no page (issue 22).

    python -m benchmarks.web_sync [--pages 200] [--hashing]
"""

from __future__ import annotations

import argparse
import time

from sqlalchemy.engine import Engine

from benchmarks.setup import bench_database
from bot.db.engine import create_async_engine
from knowledge.ingest.connectors.web import WebConnector, WebSite
from knowledge.ingest.options import IngestOptions
from knowledge.ingest.reports import IngestSummary
from knowledge.ingest.sync import sync_connector
from knowledge.models.embeddings import Embedder, HashingEmbedder, LocalEmbedder
from knowledge.service import Knowledge, open_knowledge
from tests.fakes.web_site import FakeSite, fake_site

TOPICS = ["leave", "travel", "expenses", "security", "onboarding", "benefits", "claims"]


def fill(site: FakeSite, pages: int) -> None:
    for n in range(pages):
        topic = TOPICS[n % len(TOPICS)]
        body = "".join(
            f"<h2>{topic.title()} rule {n}.{k}</h2><p>Staff in unit {n} follow {topic} rule "
            f"{n}.{k}: requests go to the {topic} desk within {k + 2} working days, and "
            f"exceptions need a manager's approval in writing.</p>"
            for k in range(4)
        )
        site.page(f"/policies/{topic}-{n:03d}", f"{topic.title()} policy {n}", body)


def timed_sync(kb: Knowledge, engine: Engine, site: FakeSite) -> tuple[IngestSummary, float]:
    connector = WebConnector(WebSite(sitemap=site.sitemap))
    started = time.perf_counter()
    try:
        summary = sync_connector(kb.ingestor, engine, connector, IngestOptions(scope="web"))
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
    with bench_database() as (engine, url), fake_site() as site:
        fill(site, args.pages)
        kb = open_knowledge(engine, create_async_engine(url), embedder)
        first, cold = timed_sync(kb, engine, site)
        fresh_fetches = len(site.content_fetches())
        site.reset_counts()
        again, warm = timed_sync(kb, engine, site)
        resync_fetches = len(site.content_fetches())
        not_modified = sum(1 for r in site.requests if r.status == 304)
    assert not first.failed and first.count("new") == args.pages, first.failed[:3]
    assert not again.failed and again.count("unchanged") == args.pages
    print(
        f"fresh sync: {args.pages} pages, {first.chunks} chunks in {cold:.1f} s "
        f"({fresh_fetches} page downloads)"
    )
    print(
        f"unchanged re-sync: {warm:.2f} s, {resync_fetches} page downloads, "
        f"{not_modified} answered 304 Not Modified"
    )


if __name__ == "__main__":
    main()
