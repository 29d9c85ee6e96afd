"""A language model that hangs, fails or talks nonsense: the asker still gets the quoted
answer, marked Low with the reason, before the answer deadline."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bot.settings import Settings
from bot.wiring import open_services
from knowledge.ingest.options import IngestOptions
from tests.adapters.slack.conftest import running_bot, slack_settings
from tests.adapters.slack.payloads import mention, message
from tests.fakes.openai_server import Misbehave, fake_openai
from tests.fakes.slack_server import FakeSlack

DEADLINE_S = 2.0
SLACK_S = 1.0  # scheduling noise on a busy two-core machine

REASONS = {
    Misbehave.HANG: "timed out",
    500: "HTTP 500",
    Misbehave.MALFORMED: "could not be read",
    Misbehave.NO_CHOICES: "no choices",
    Misbehave.REFUSAL: "refused",
}


@pytest.mark.parametrize("failure", list(REASONS), ids=lambda f: str(getattr(f, "value", f)))
async def test_a_failing_model_still_gets_the_quoted_answer_out_before_the_deadline(
    settings: Settings, fake_slack: FakeSlack, knowledge_dir: Path, failure: Misbehave | int
) -> None:
    env = {
        "KNOWBOT_ANSWER_DEADLINE_S": str(DEADLINE_S),
        "KNOWBOT_LLM_TIMEOUT": "30",  # far longer than the deadline: the deadline must win
        "KNOWBOT_LLM_MAX_RETRIES": "5",
    }
    with (
        fake_openai(lambda messages: failure) as llm,
        open_services(
            slack_settings(settings, fake_slack, OPENAI_BASE_URL=llm.base_url, **env)
        ) as svc,
    ):
        svc.knowledge.ingestor.ingest_paths([knowledge_dir], IngestOptions())
        async with running_bot(svc, fake_slack) as bot:
            first = mention("how are reimbursement claims settled?")
            await bot.send(first)
            await bot.settle()
            sent_at = time.monotonic()  # a follow-up: condense, intent and answer share it
            await bot.send(message("and within how many days?", thread_ts=first["event"]["ts"]))
            await bot.settle()

    first_post, follow_up = fake_slack.posts()
    assert follow_up.at - sent_at < DEADLINE_S + SLACK_S
    for post in (first_post, follow_up):
        assert REASONS[failure] in post.shown and "quoted passages" in post.shown
        assert "30 days" in post.shown
        assert "not reachable" not in post.shown
    assert [name for _, _, name in fake_slack.reactions].count("red_circle") == 2
