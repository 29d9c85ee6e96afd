"""Questions in channels, threads and direct messages, answered in Slack over real HTTP."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from bot.settings import Settings
from bot.wiring import Services, open_services
from knowledge.ingest.options import IngestOptions
from tests.adapters.slack.conftest import SlackBotUnderTest, running_bot, slack_settings
from tests.adapters.slack.payloads import (
    CHANNEL,
    DM,
    bot_message,
    deleted,
    direct_message,
    edited,
    mention,
    message,
)
from tests.fakes.openai_server import fake_openai
from tests.fakes.slack_server import BOT_USER, FakeSlack

CONFIDENCE = {"large_green_circle", "large_yellow_circle", "red_circle"}


async def ask(bot: SlackBotUnderTest, payload: dict[str, object]) -> None:
    sent = await bot.send(payload)
    assert sent.status == 200, sent.body
    await bot.settle()


async def test_a_mention_is_answered_in_its_thread_with_sources_and_confidence(
    bot: SlackBotUnderTest,
) -> None:
    question = mention("what is the PED waiting period?")
    question_ts = question["event"]["ts"]

    await ask(bot, question)

    [post] = bot.slack.posts()
    assert post.args["channel"] == CHANNEL and post.args["thread_ts"] == question_ts
    assert re.search(r"36 months[^\n]*\[\d\]", post.shown)
    assert re.search(r"\*\[\d\]\* policy\.txt — ", post.shown)  # the sources line
    assert "Searched for: what is the pre-existing disease waiting period?" in post.shown
    assert "36 months" in post.args["text"]  # the plain-text fallback
    [working] = bot.slack.of("reactions.add", name="hourglass_flowing_sand", timestamp=question_ts)
    [removed] = bot.slack.of("reactions.remove", name="hourglass_flowing_sand")
    [confidence] = bot.slack.of("reactions.add", timestamp=post.ts)
    assert confidence.args["name"] in CONFIDENCE
    assert working.at < post.at <= removed.at <= confidence.at


async def test_the_ack_does_not_wait_for_the_answer(
    settings: Settings, fake_slack: FakeSlack, knowledge_dir: Path
) -> None:
    def slow_model(messages: list[dict[str, str]]) -> str:
        if "Classify" in messages[0]["content"]:
            return "lookup"
        return "- A pre-existing disease is covered after 36 months [1]"

    with (
        fake_openai(slow_model, delay_s=1.0) as llm,
        open_services(slack_settings(settings, fake_slack, OPENAI_BASE_URL=llm.base_url)) as svc,
    ):
        svc.knowledge.ingestor.ingest_paths([knowledge_dir], IngestOptions())
        async with running_bot(svc, fake_slack) as bot:
            sent = await bot.send(mention("what is the PED waiting period?"))
            assert sent.status == 200 and sent.seconds < 0.5
            assert bot.slack.posts() == []  # the model is still thinking
            await bot.settle()
    [post] = fake_slack.posts()
    assert "36 months" in post.shown


async def test_a_follow_up_in_the_thread_needs_no_mention_and_uses_the_history(
    bot: SlackBotUnderTest,
) -> None:
    first = mention("What is the room rent limit for Plan A?")
    thread = first["event"]["ts"]
    await ask(bot, first)

    await ask(bot, message("and for Plan B?", thread_ts=thread))

    _, follow_up = bot.slack.posts()
    assert follow_up.args["thread_ts"] == thread
    assert "Searched for: What is the room rent limit for Plan B?" in follow_up.shown
    assert "2%" in follow_up.shown


async def test_messages_not_addressed_to_the_bot_are_left_alone(bot: SlackBotUnderTest) -> None:
    await ask(bot, message("what is the PED waiting period?"))  # top level, no mention
    someone_elses = message("what is the PED waiting period?")
    await ask(bot, message("and for Plan B?", thread_ts=someone_elses["event"]["ts"]))

    assert bot.slack.posts() == [] and bot.slack.of("reactions.add") == []


async def test_a_channel_can_require_mentions_for_follow_ups(
    bot: SlackBotUnderTest, services: Services
) -> None:
    services.channels.set("slack", CHANNEL, require_mention=True)
    first = mention("What is the room rent limit for Plan A?")
    thread = first["event"]["ts"]
    await ask(bot, first)

    await ask(bot, message("and for Plan B?", thread_ts=thread))
    assert len(bot.slack.posts()) == 1

    await ask(bot, mention("and for Plan B?", thread_ts=thread))
    assert len(bot.slack.posts()) == 2 and "2%" in bot.slack.posts()[1].shown


async def test_a_mention_arriving_also_as_a_channel_message_is_answered_once(
    bot: SlackBotUnderTest,
) -> None:
    question = mention("what is the PED waiting period?")
    as_message = message(
        question["event"]["text"], thread_ts=None, ts=question["event"]["ts"]
    )  # Slack sends `message.channels` for the same message, with its own event id
    await bot.send(as_message)
    await ask(bot, question)

    assert len(bot.slack.posts()) == 1


async def test_direct_messages_are_answered_in_place_and_remember_the_chat(
    bot: SlackBotUnderTest,
) -> None:
    await ask(bot, direct_message("What is the room rent limit for Plan A?"))
    await ask(bot, direct_message("and for Plan B?"))

    first, second = bot.slack.posts()
    assert first.args["channel"] == DM and first.args.get("thread_ts") is None
    assert "2%" in second.shown


@pytest.mark.parametrize(
    "payload",
    [
        bot_message("what is the PED waiting period?"),
        bot_message("what is the PED waiting period?", bot_id="B0BOT"),
        message("what is the PED waiting period?", channel=DM, channel_type="im", user=BOT_USER),
        edited(channel=DM),
        deleted(channel=DM),
        message("joined", channel=DM, channel_type="im", subtype="channel_join"),
    ],
    ids=["other bot", "itself by bot id", "itself by user", "edit", "deletion", "join"],
)
async def test_bots_edits_deletions_and_other_subtypes_are_ignored(
    bot: SlackBotUnderTest, payload: dict[str, object]
) -> None:
    await ask(bot, payload)

    assert bot.slack.posts() == [] and bot.slack.of("reactions.add") == []


async def test_a_channel_sees_only_the_knowledge_scopes_it_is_mapped_to(
    bot: SlackBotUnderTest, services: Services, tmp_path: Path
) -> None:
    hr = tmp_path / "hr"
    hr.mkdir()
    (hr / "leave.txt").write_text(
        "LEAVE POLICY\n\n4.1 Parental leave\nParental leave is 26 weeks at full pay.\n"
    )
    services.knowledge.ingestor.ingest_paths([hr], IngestOptions(scope="hr"))
    services.channels.set("slack", CHANNEL, scopes=("hr",))

    await ask(bot, mention("How many weeks of parental leave?"))
    await ask(bot, mention("what is the PED waiting period?"))
    await ask(bot, mention("How many weeks of parental leave?", channel="C0GENERAL"))

    in_hr, pre_existing, elsewhere = bot.slack.posts()
    assert "26 weeks" in in_hr.shown and "leave.txt" in in_hr.shown
    assert "36 months" not in pre_existing.shown and "policy.txt" not in pre_existing.shown
    assert "26 weeks" not in elsewhere.shown and "leave.txt" not in elsewhere.shown


async def test_in_an_ai_app_thread_the_status_shows_the_bot_at_work(
    bot: SlackBotUnderTest,
) -> None:
    thread = "1700000000.000100"
    await ask(bot, direct_message("what is the PED waiting period?", thread_ts=thread))

    statuses = [c.args["status"] for c in bot.slack.of("assistant.threads.setStatus")]
    assert statuses == ["is looking this up…", ""]
    assert bot.slack.of("reactions.add", name="hourglass_flowing_sand") == []
    [post] = bot.slack.posts()
    assert post.args["thread_ts"] == thread


async def test_without_the_ai_app_surface_the_hourglass_stands_in(
    bot: SlackBotUnderTest,
) -> None:
    bot.slack.fail("assistant.threads.setStatus", error="missing_scope")
    await ask(bot, direct_message("what is the PED waiting period?", thread_ts="1700000000.0001"))

    assert len(bot.slack.of("reactions.add", name="hourglass_flowing_sand")) == 1
    assert len(bot.slack.of("reactions.remove", name="hourglass_flowing_sand")) == 1


async def test_many_questions_at_once_are_each_answered_in_their_own_thread(
    bot: SlackBotUnderTest,
) -> None:
    questions = [mention(f"what is the PED waiting period? ({n})") for n in range(8)]
    await asyncio.gather(*(bot.send(q) for q in questions))
    await bot.settle()

    threads = sorted(p.args["thread_ts"] for p in bot.slack.posts())
    assert threads == sorted(q["event"]["ts"] for q in questions)
