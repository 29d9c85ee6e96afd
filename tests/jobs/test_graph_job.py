"""The scheduled re-ingest syncs SharePoint sources with the Graph credentials from the
settings, and an expired client secret fails the run saying what to do."""

from __future__ import annotations

from pathlib import Path

from bot.jobs.runtime import build_scheduler
from bot.settings import Settings
from tests.fakes.graph_server import CLIENT_ID, SECRET, TENANT, fake_graph
from tests.fakes.knowledge_base import bot_settings
from tests.feedback.helpers import ask, open_bot


async def test_the_reingest_job_syncs_a_sharepoint_source(
    settings: Settings, tmp_path: Path
) -> None:
    with fake_graph() as graph:
        graph.add("Leave.md", "# Annual leave\n\nStaff get 24 days of annual leave a year.\n")
        sources = tmp_path / "sources.toml"
        sources.write_text(f'[[source]]\nkind = "sharepoint"\nsite = "{graph.site}"\n')
        config = bot_settings(
            settings,
            KNOWBOT_SOURCES=str(sources),
            MICROSOFT_GRAPH_TENANT_ID=TENANT,
            MICROSOFT_GRAPH_CLIENT_ID=CLIENT_ID,
            MICROSOFT_GRAPH_CLIENT_SECRET=SECRET,
            KNOWBOT_GRAPH_URL=graph.graph_url,
            KNOWBOT_GRAPH_AUTHORITY=graph.base,
        )
        with open_bot(config) as services:
            scheduler = build_scheduler(services)
            assert await scheduler.run_now("reingest") == "ok"
            graph.secret_expired = True
            graph.revoke_tokens()
            assert await scheduler.run_now("reingest") == "failed"
            first, second = services.job_runs.runs(job="reingest")
            assert "1 new" in first.detail
            assert f"sharepoint:{graph.site}" in second.detail
            assert "client secret has expired" in second.detail
            answer = ask(services, "How many days of annual leave do staff get?")
    assert any("24 days" in b.text for b in answer.bullets)  # nothing was pruned
    assert any(s.url == f"{graph.drive().web}/Leave.md" for s in answer.sources)
