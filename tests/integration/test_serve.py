"""`knowbot serve`: live at once, ready only once warm, on the address it was given."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import requests

from bot.server import build_web_app
from bot.settings import Settings
from bot.warmup import Readiness, warm_up
from bot.wiring import open_services
from knowledge.ingest.options import IngestOptions
from tests.adapters.teams import activities as teams
from tests.fakes.bot_connector import fake_connector
from tests.fakes.knowledge_base import bot_settings
from tests.fakes.openai_server import free_port, serve_app


def test_readyz_says_503_until_warm_while_healthz_says_live(settings: Settings) -> None:
    readiness = Readiness()
    with open_services(bot_settings(settings)) as services:
        app = build_web_app(services, readiness=readiness)
        with serve_app(app) as url:
            assert requests.get(f"{url}/healthz", timeout=10).status_code == 200
            assert requests.get(f"{url}/readyz", timeout=10).status_code == 503
            warm_up(services)
            readiness.mark_ready()
            ready = requests.get(f"{url}/readyz", timeout=10)
    assert ready.status_code == 200 and ready.json()["database"] == "ok"


def test_serve_warms_up_then_answers_on_the_host_it_was_given(
    settings: Settings, knowledge_dir: Path
) -> None:
    env = {"DATABASE_URL": str(settings.database_url), "KNOWBOT_EMBED_MODEL": "hashing"}
    with open_services(bot_settings(settings)) as services:
        services.knowledge.ingestor.ingest_paths([knowledge_dir], IngestOptions())
    port = free_port()
    command = [sys.executable, "-m", "bot", "serve", "teams", "--no-scheduler"]
    command += ["--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(
        command,
        env={**os.environ, **env, "KNOWBOT_DATA_DIR": str(settings.data_dir)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        assert wait_for(f"{url}/readyz", process) == 200
        with fake_connector() as connector:
            question = teams.message(connector.url, "How do I submit a reimbursement claim?")
            assert requests.post(f"{url}/api/messages", json=question, timeout=30).ok
            [reply] = connector.wait_for_messages(1)
        assert "30 days" in reply.text
    finally:
        process.terminate()
        output = process.communicate(timeout=60)[0].decode()
    assert f"listening on 127.0.0.1:{port}" in output and "ready (warmed up in" in output


def wait_for(url: str, process: subprocess.Popen[bytes], timeout: float = 120) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()[0].decode()
        try:
            status = requests.get(url, timeout=2).status_code
            if status == 200:
                return status
        except requests.ConnectionError:
            pass
        time.sleep(0.2)
    return 0
