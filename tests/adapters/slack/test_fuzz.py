"""POST /slack/events under fire: hundreds of signed and unsigned hostile bodies (a fixed
seed, so every run sends the same ones), none answered with a server error, and the bot
still answers a real question afterwards. `benchmarks/fuzz_endpoints.py` sends 10,000."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from bot.server import build_web_app
from bot.settings import Settings
from bot.wiring import open_services
from knowledge.ingest.options import IngestOptions
from tests.adapters.slack.conftest import slack_settings
from tests.adapters.slack.payloads import SECRET, mention
from tests.fakes.fuzz import Body, as_json, slack_bodies
from tests.fakes.openai_server import serve_app
from tests.fakes.slack_server import FakeSlack

EXAMPLES = 300


def post(url: str, body: Body, *, signed: bool) -> int:
    headers = {"Content-Type": body.content_type}
    if signed:
        headers |= sign(body.raw)
    return requests.post(
        f"{url}/slack/events", data=body.raw, headers=headers, timeout=30
    ).status_code


def sign(raw: bytes) -> dict[str, str]:
    """Slack's v0 signature over any bytes (slack_sdk's helper wants UTF-8 text)."""
    stamp = str(int(time.time()))
    digest = hmac.new(SECRET.encode(), b"v0:" + stamp.encode() + b":" + raw, hashlib.sha256)
    return {"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": f"v0={digest.hexdigest()}"}


@pytest.fixture
def slack_bot(settings: Settings, knowledge_dir: Path) -> Iterator[tuple[str, FakeSlack]]:
    """The bot's web app and a fake Slack, each on its own thread: the test posts with a
    blocking client, as hypothesis drives it."""
    fake = FakeSlack()
    with (
        serve_app(fake.app(), port=fake.port),
        open_services(slack_settings(settings, fake)) as services,
    ):
        services.knowledge.ingestor.ingest_paths([knowledge_dir], IngestOptions())
        with serve_app(build_web_app(services, slack=True)) as url:
            yield url, fake


def test_no_body_signed_or_not_gets_a_server_error(slack_bot: tuple[str, FakeSlack]) -> None:
    url, fake = slack_bot
    statuses: Counter[int] = Counter()

    @seed(13)
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(body=slack_bodies(), signed=st.booleans())
    def send(body: Body, signed: bool) -> None:
        status = post(url, body, signed=signed)
        statuses[status] += 1
        assert status < 500, (status, body)

    send()

    assert statuses[401] and statuses[400] and statuses[200]  # every gate was reached
    question = mention("what is the PED waiting period?")
    assert post(url, as_json(question), signed=True) == 200
    deadline = time.monotonic() + 15
    while not fake.posts(thread_ts=question["event"]["ts"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    [answer] = fake.posts(thread_ts=question["event"]["ts"])
    assert "36 months" in answer.shown
    health = requests.get(f"{url}/readyz", timeout=10)
    assert health.status_code == 200, json.dumps(health.json())


def test_nul_bytes_and_lone_surrogates_are_cleaned_before_postgres_and_slack(
    slack_bot: tuple[str, FakeSlack],
) -> None:
    url, fake = slack_bot
    question = mention("what is the PED\x00 waiting period?\ud800")
    question["event_id"] = "Ev\x00NUL"
    question["event"]["user"] = "U0AL\x00ICE"

    assert post(url, as_json(question), signed=True) == 200
    deadline = time.monotonic() + 15
    while not fake.posts(thread_ts=question["event"]["ts"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    [answer] = fake.posts(thread_ts=question["event"]["ts"])
    assert "36 months" in answer.shown and "\x00" not in answer.shown
