"""The weekly digest, posted by the real Slack and Bot Framework clients to local fakes."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from bot.adapters.teams.proactive import post_activity
from bot.jobs.digest import DIGEST_JOB
from bot.jobs.runtime import build_scheduler
from bot.settings import Settings
from tests.fakes.knowledge_base import bot_settings
from tests.feedback.helpers import ask, open_bot, rate, write_kb
from tests.jobs.fake_chat import fake_connector, fake_slack


async def test_the_digest_reports_counts_worst_answers_with_links_and_job_failures(
    settings: Settings, tmp_path: Path
) -> None:
    with fake_slack() as slack:
        config = bot_settings(
            settings,
            SLACK_BOT_TOKEN="xoxb-digest",
            SLACK_API_URL=slack.url,
            KNOWBOT_DIGEST_SLACK_CHANNEL="C_DIGEST",
            KNOWBOT_SLACK_WORKSPACE_URL="https://acme.slack.com",
        )
        with open_bot(config, write_kb(tmp_path / "kb")) as services:
            worst = ask(services, "How do I submit a reimbursement claim?", channel="C42")
            good = ask(services, "What is the PED waiting period?")
            ask(services, "What is the room rent limit for Plan A?")  # not rated
            rate(services, worst, -1, -1, reason="outdated")
            rate(services, good, 1, 1, 1)
            broken = services.job_runs.claim("reingest", datetime.now(UTC), runner="p1")
            assert broken is not None
            services.job_runs.finish(broken, ok=False, detail="policy.pdf: cannot read the PDF")
            scheduler = build_scheduler(services)
            assert await scheduler.run_now(DIGEST_JOB) == "ok"
            assert await scheduler.run_now(DIGEST_JOB) == "ok"  # the next one, right after
    first, second = slack.calls
    assert first["auth"] == "Bearer xoxb-digest" and first["channel"] == "C_DIGEST"
    text = first["text"]
    assert "3 answers given; 2 rated (3 up, 2 down, 60% positive)" in text
    message = next(r for r in text.splitlines() if "reimbursement" in r)
    assert "<https://acme.slack.com/archives/C42/p" in message and f"|#{worst.id}>" in message
    assert f"({worst.confidence.value} confidence" in message
    assert "2 down, 0 up" in message and "outdated" in message
    assert "PED" not in text.split("Worst answers", 1)[1].split("Job failures")[0]
    assert "reingest at" in text and "policy.pdf: cannot read the PDF" in text
    # the next digest covers only what happened since the last one
    assert "0 rated" in second["text"] and "policy.pdf" not in second["text"]


async def test_the_digest_goes_to_a_teams_conversation_through_the_connector(
    settings: Settings, tmp_path: Path
) -> None:
    with fake_connector() as connector:
        config = bot_settings(
            settings,
            KNOWBOT_DIGEST_TEAMS_SERVICE_URL=connector.url,
            KNOWBOT_DIGEST_TEAMS_CONVERSATION="19:abc@thread.tacv2",
        )
        with open_bot(config, write_kb(tmp_path / "kb")) as services:
            answer = ask(services, "What is the PED waiting period?", platform="teams")
            rate(services, answer, -1)
            assert await build_scheduler(services).run_now(DIGEST_JOB) == "ok"
    [call] = connector.calls
    assert call["conversation"] == "19:abc@thread.tacv2"
    assert call["auth"] is None  # no MICROSOFT_APP_ID: a local connector or the Emulator
    body = call["body"]
    assert body["type"] == "message" and body["textFormat"] == "markdown"
    assert "**knowbot feedback digest**" in body["text"]
    assert f"[#{answer.id}](https://teams.microsoft.com/l/message/C1/" in body["text"]


async def test_the_bot_token_is_sent_as_a_bearer_token() -> None:
    async def token() -> str:
        return "t0k3n"

    with fake_connector() as connector:
        activity_id = await post_activity(
            service_url=connector.url + "/",
            conversation_id="a:1;messageid=2",
            activity={"type": "message", "text": "hi"},
            token=token,
        )
    assert activity_id == "activity-1"
    [call] = connector.calls
    assert call["auth"] == "Bearer t0k3n" and call["conversation"] == "a:1;messageid=2"


async def test_a_refused_post_is_a_failed_run_naming_the_target(
    settings: Settings, tmp_path: Path
) -> None:
    with fake_connector() as connector:
        connector.fail_with = 403
        config = bot_settings(
            settings,
            KNOWBOT_DIGEST_TEAMS_SERVICE_URL=connector.url,
            KNOWBOT_DIGEST_TEAMS_CONVERSATION="19:gone",
        )
        with open_bot(config) as services:
            assert await build_scheduler(services).run_now(DIGEST_JOB) == "failed"
            [run] = services.job_runs.runs(job=DIGEST_JOB)
    assert "Teams conversation 19:gone" in run.detail and "HTTP 403" in run.detail


async def test_an_empty_week_is_still_a_digest(settings: Settings) -> None:
    with fake_slack() as slack:
        config = bot_settings(
            settings,
            SLACK_BOT_TOKEN="xoxb-1",
            SLACK_API_URL=slack.url,
            KNOWBOT_DIGEST_SLACK_CHANNEL="C1",
        )
        with open_bot(config) as services:
            assert await build_scheduler(services).run_now(DIGEST_JOB) == "ok"
    [call] = slack.calls
    assert "0 answers given; 0 rated (0 up, 0 down)" in call["text"]
    assert "No answer was down-voted." in call["text"]


async def test_a_slack_error_is_a_failed_run_and_the_teams_copy_still_goes(
    settings: Settings,
) -> None:
    with fake_slack() as slack, fake_connector() as connector:
        slack.fail_with = 200  # Slack answers {"ok": false, "error": "channel_not_found"}
        config = bot_settings(
            settings,
            SLACK_BOT_TOKEN="xoxb-1",
            SLACK_API_URL=slack.url,
            KNOWBOT_DIGEST_SLACK_CHANNEL="C_GONE",
            KNOWBOT_DIGEST_TEAMS_SERVICE_URL=connector.url,
            KNOWBOT_DIGEST_TEAMS_CONVERSATION="19:ok",
        )
        with open_bot(config) as services:
            assert await build_scheduler(services).run_now(DIGEST_JOB) == "failed"
            [run] = services.job_runs.runs(job=DIGEST_JOB)
    assert "Slack channel C_GONE" in run.detail and "channel_not_found" in run.detail
    assert len(connector.calls) == 1
