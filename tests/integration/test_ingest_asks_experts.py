"""`knowbot ingest` with the bot's Slack token asks the experts itself: a verified answer
whose source changed is suspended and its owner asked to confirm it, no server needed."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.engine import URL
from typer.testing import CliRunner

from bot.cli.main import app
from bot.conversation.verified import VerifiedSource
from bot.settings import Settings
from bot.verified.entries import Entry
from bot.verified.importing import import_entries
from bot.wiring import open_services
from knowledge.ingest.options import IngestOptions
from knowledge.store.sources import list_sources
from tests.fakes.knowledge_base import bot_settings, write_policy_kb
from tests.fakes.openai_server import serve_app
from tests.fakes.slack_server import FakeSlack


def test_a_changed_source_is_put_to_its_owner_by_the_ingest_itself(
    settings: Settings, db_url: URL, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = write_policy_kb(tmp_path / "kb")
    (kb / "knowbot-sources.toml").write_text('owners = ["U0OWNER"]\n')
    fake = FakeSlack()
    with serve_app(fake.app(), port=fake.port) as url:
        env = {
            "DATABASE_URL": db_url.render_as_string(hide_password=False),
            "KNOWBOT_DATA_DIR": str(tmp_path / "data"),
            "KNOWBOT_EMBED_MODEL": "hashing",
            "SLACK_BOT_TOKEN": "xoxb-ingest",
            "SLACK_API_URL": f"{url}/api/",
            "KNOWBOT_ESCALATION_SLACK_CHANNEL": "C0EXPERTS",
        }
        with open_services(bot_settings(settings, **env)) as services:
            services.knowledge.ingestor.ingest_paths([kb], IngestOptions())
            with services.db.engine.connect() as conn:
                [policy] = [s for s in list_sources(conn, scope="default")
                            if s.uri.endswith("policy.txt")]  # fmt: skip
            source = VerifiedSource(title="policy.txt", source_id=policy.id)
            entry = Entry(1, "How long is the PED wait?", "36 months.", "Ana", "default", (source,))
            [verified_id] = import_entries(
                services.verified,
                [entry],
                embed=services.knowledge.embeddings,
                model=services.knowledge.embedding_model,
            )
        (kb / "policy.txt").write_text((kb / "policy.txt").read_text().replace("36", "48"))
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        result = CliRunner().invoke(app, ["ingest", str(kb)])
    assert result.exit_code == 0, result.output
    assert "Asked the experts to confirm 1 verified answer(s) in Slack." in result.output
    [request] = fake.posts(channel="C0EXPERTS")
    assert "needs confirming" in request.shown and "<@U0OWNER>" in request.shown
    assert "How long is the PED wait?" in request.shown
    with open_services(bot_settings(settings, **env)) as services:
        assert services.verified.get(verified_id).status == "suspended"  # type: ignore[union-attr]
