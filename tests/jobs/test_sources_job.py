"""The scheduled re-ingest syncs the sources file named by KNOWBOT_SOURCES: web pages come
in, and a site that breaks fails the run naming the source, without pruning its pages."""

from __future__ import annotations

from pathlib import Path

from bot.jobs.runtime import build_scheduler
from bot.settings import Settings
from tests.fakes.knowledge_base import bot_settings
from tests.fakes.web_site import fake_site
from tests.feedback.helpers import ask, open_bot


async def test_the_reingest_job_syncs_a_web_source(settings: Settings, tmp_path: Path) -> None:
    with fake_site() as site:
        site.page("/hr/leave", "Annual leave", "<p>Staff get 24 days of annual leave a year.</p>")
        sources = tmp_path / "sources.toml"
        sources.write_text(f'[[source]]\nkind = "web"\nsitemap = "{site.sitemap}"\n')
        config = bot_settings(settings, KNOWBOT_SOURCES=str(sources))
        with open_bot(config) as services:
            scheduler = build_scheduler(services)
            assert "reingest" in scheduler.jobs
            assert await scheduler.run_now("reingest") == "ok"
            site.broken.add("/sitemap.xml")
            assert await scheduler.run_now("reingest") == "failed"
            first, second = services.job_runs.runs(job="reingest")
            assert "1 new" in first.detail
            assert f"web:{site.sitemap}" in second.detail and "HTTP 500" in second.detail
            answer = ask(services, "How many days of annual leave do staff get?")
    assert any("24 days" in b.text for b in answer.bullets)  # nothing was pruned
    assert any(s.url == f"{site.base}/hr/leave" for s in answer.sources)
