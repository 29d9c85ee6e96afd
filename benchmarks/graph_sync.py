"""SharePoint sync: a fresh sync of 200 files (small PDFs, DOCX and Markdown) from a fake
Microsoft Graph drive on 127.0.0.1 (token, site lookup, delta pages, permissions, /content
redirects), then a re-sync with nothing changed, which must download nothing (issue 22).

    python -m benchmarks.graph_sync [--files 200] [--hashing]
"""

from __future__ import annotations

import argparse
import io
import time

from docx import Document
from fpdf import FPDF
from sqlalchemy.engine import Engine

from benchmarks.setup import bench_database
from bot.db.engine import create_async_engine
from knowledge.ingest.connectors.graph import GraphConnector
from knowledge.ingest.connectors.graph_auth import GraphAccess
from knowledge.ingest.connectors.graph_drive import GraphDrive
from knowledge.ingest.options import IngestOptions
from knowledge.ingest.reports import IngestSummary
from knowledge.ingest.sync import sync_connector
from knowledge.models.embeddings import Embedder, HashingEmbedder, LocalEmbedder
from knowledge.service import Knowledge, open_knowledge
from tests.fakes.graph_server import CLIENT_ID, SECRET, TENANT, FakeGraph, fake_graph, user_grant

TOPICS = ["leave", "travel", "expenses", "security", "onboarding", "benefits", "claims"]


def rules(n: int, topic: str) -> list[tuple[str, str]]:
    return [
        (
            f"{topic.title()} rule {n}.{k}",
            f"Staff in unit {n} follow {topic} rule {n}.{k}: requests go to the {topic} desk "
            f"within {k + 2} working days, and exceptions need a manager's approval in writing.",
        )
        for k in range(4)
    ]


def markdown(n: int, topic: str) -> bytes:
    body = "".join(f"## {head}\n\n{text}\n\n" for head, text in rules(n, topic))
    return f"# {topic.title()} policy {n}\n\n{body}".encode()


def docx(n: int, topic: str) -> bytes:
    doc = Document()
    doc.add_heading(f"{topic.title()} policy {n}", 0)
    for head, text in rules(n, topic):
        doc.add_heading(head, 1)
        doc.add_paragraph(text)
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


def pdf(n: int, topic: str) -> bytes:
    document = FPDF(format="A4")
    document.add_page()
    document.set_font("helvetica", "B", 14)
    document.cell(0, 8, f"{topic.title()} policy {n}", new_x="LMARGIN", new_y="NEXT")
    for head, text in rules(n, topic):
        document.set_font("helvetica", "B", 11)
        document.cell(0, 7, head, new_x="LMARGIN", new_y="NEXT")
        document.set_font("helvetica", size=10)
        document.multi_cell(0, 5, text)
    return bytes(document.output())


def fill(graph: FakeGraph, files: int) -> None:
    makers = [(".pdf", pdf), (".docx", docx), (".md", markdown)]
    for n in range(files):
        topic = TOPICS[n % len(TOPICS)]
        suffix, make = makers[n % len(makers)]
        folder = f"Policies/{topic.title()}"
        grants = [user_grant(f"owner{n % 5}@contoso.com")] if n % 4 == 0 else None
        graph.add(f"{topic}-{n:03d}{suffix}", make(n, topic), folder=folder, permissions=grants)


def timed_sync(kb: Knowledge, engine: Engine, graph: FakeGraph) -> tuple[IngestSummary, float]:
    access = GraphAccess(TENANT, CLIENT_ID, SECRET, graph_url=graph.graph_url, authority=graph.base)
    connector = GraphConnector(GraphDrive(site=graph.site), access)
    started = time.perf_counter()
    try:
        summary = sync_connector(kb.ingestor, engine, connector, IngestOptions(scope="sharepoint"))
    finally:
        connector.close()
    return summary, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--hashing", action="store_true", help="hashing embedder, no model")
    args = parser.parse_args()
    embedder: Embedder = HashingEmbedder() if args.hashing else LocalEmbedder()
    embedder.embed_documents(["warm up the model"])  # model load is not sync work
    with bench_database() as (engine, url), fake_graph() as graph:
        graph.page_size = 50  # several delta pages, as Graph pages a large drive
        fill(graph, args.files)
        kb = open_knowledge(engine, create_async_engine(url), embedder)
        first, cold = timed_sync(kb, engine, graph)
        fresh = (len(graph.downloads()), graph.count("/permissions"), graph.count("/delta"))
        graph.reset_counts()
        again, warm = timed_sync(kb, engine, graph)
        resync = (len(graph.downloads()), graph.count("/permissions"), graph.count("/delta"))
    assert not first.failed and first.count("new") == args.files, first.failed[:3]
    assert not again.failed and resync[0] == 0
    print(
        f"fresh sync: {args.files} files, {first.chunks} chunks in {cold:.1f} s "
        f"({fresh[0]} downloads, {fresh[1]} permission reads, {fresh[2]} delta pages)"
    )
    print(
        f"unchanged re-sync: {warm:.2f} s, {resync[0]} downloads, {resync[1]} permission "
        f"reads, {resync[2]} delta page"
    )


if __name__ == "__main__":
    main()
