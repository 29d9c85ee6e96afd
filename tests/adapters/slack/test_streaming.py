"""A language model's answer streams into its Slack thread as the bullets are written, and
ends with sources, confidence and feedback buttons; where Slack refuses the stream, the
draft is posted and edited instead, and the user always ends up with the stored answer."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from bot.settings import Settings
from bot.wiring import Services, open_services
from knowledge.ingest.options import IngestOptions
from tests.adapters.slack.conftest import SlackBotUnderTest, running_bot, slack_settings
from tests.adapters.slack.payloads import CHANNEL, TEAM, USER, direct_message, mention
from tests.fakes.openai_server import FakeOpenAI, Reply, Stall, fake_openai
from tests.fakes.slack_server import FakeSlack, Message

BULLETS = (
    "Submit the claim form with the original bills [1]",
    "Send them within 30 days of discharge [1]",
    "Claims are settled within 30 days of receiving the last document [1]",
)
ANSWER = "".join(f"- {b}\n" for b in BULLETS)
QUESTION = "how are reimbursement claims settled?"


def writing(answer: str | Stall) -> Reply:
    def reply(messages: list[dict[str, str]]) -> str | Stall:
        if "Classify" in messages[0]["content"]:
            return "lookup"
        return answer

    return reply


@pytest.fixture
def model() -> Iterator[FakeOpenAI]:
    """Writes the answer a word every 60 ms: each bullet takes about half a second."""
    with fake_openai(writing(ANSWER), delay_s=0.2, piece_interval_s=0.06) as llm:
        yield llm


@asynccontextmanager
async def bot_with(
    settings: Settings, slack: FakeSlack, knowledge_dir: Path, llm: FakeOpenAI, **env: str
) -> AsyncIterator[tuple[SlackBotUnderTest, Services]]:
    values = {"OPENAI_BASE_URL": llm.base_url, **env}
    with open_services(slack_settings(settings, slack, **values)) as services:
        services.knowledge.ingestor.ingest_paths([knowledge_dir], IngestOptions())
        async with running_bot(services, slack) as bot:
            yield bot, services


async def ask(bot: SlackBotUnderTest, payload: dict[str, object]) -> None:
    assert (await bot.send(payload)).status == 200
    await bot.settle()


def stored_bullets(services: Services, slack: FakeSlack, message: Message) -> list[str]:
    answer_id = services.answers.answer_for_message(
        platform="slack", channel=message.channel, message_id=message.ts
    )
    assert answer_id is not None, "the message is recorded as carrying the answer"
    stored = services.answers.get(answer_id)
    assert stored is not None
    return [f"{b['text']} " + "".join(f"[{n}]" for n in b["sources"]) for b in stored["bullets"]]


def the_answer(slack: FakeSlack, thread: str, channel: str = CHANNEL) -> Message:
    [message] = slack.thread_messages(channel, thread)
    return message


async def test_a_streamed_answer_arrives_in_pieces_and_ends_with_sources_and_confidence(
    settings: Settings, fake_slack: FakeSlack, knowledge_dir: Path, model: FakeOpenAI
) -> None:
    question = mention(QUESTION)
    thread = question["event"]["ts"]
    async with bot_with(settings, fake_slack, knowledge_dir, model) as (bot, services):
        await ask(bot, question)

    [start] = fake_slack.of("chat.startStream")
    [stop] = fake_slack.of("chat.stopStream")
    assert start.args["thread_ts"] == thread
    # in a channel Slack needs to know whose stream it is
    assert (start.args["recipient_team_id"], start.args["recipient_user_id"]) == (TEAM, USER)
    # the first bullet was out while the model still wrote the others
    assert BULLETS[0] in start.args["markdown_text"]
    assert BULLETS[2] not in start.args["markdown_text"]
    assert stop.at - start.at > 0.4
    appended = "".join(c.args["markdown_text"] for c in fake_slack.of("chat.appendStream"))
    assert BULLETS[2] in appended + stop.args.get("markdown_text", "")

    message = the_answer(fake_slack, thread)
    assert not message.streaming and fake_slack.posts() == []  # one message, streamed
    shown = message.shown
    assert [shown.index(b) for b in BULLETS] == sorted(shown.index(b) for b in BULLETS)
    assert "policy.txt" in shown  # the sources, under the bullets
    assert "Confidence: *" in shown
    assert message.has_feedback_buttons()
    [confidence] = fake_slack.of("reactions.add", timestamp=message.ts)
    assert confidence.args["name"] in {"large_green_circle", "large_yellow_circle", "red_circle"}
    # the stored answer is what the message shows
    for bullet in stored_bullets(services, fake_slack, message):
        assert f"- {bullet}" in message.markdown


async def test_where_slack_refuses_to_stream_the_draft_is_posted_then_edited(
    settings: Settings, fake_slack: FakeSlack, knowledge_dir: Path, model: FakeOpenAI
) -> None:
    fake_slack.fail("chat.startStream", error="not_allowed_token_type")  # no AI-app surface
    question = mention(QUESTION)
    thread = question["event"]["ts"]
    async with bot_with(settings, fake_slack, knowledge_dir, model) as (bot, services):
        await ask(bot, question)

    [draft] = fake_slack.posts()
    assert BULLETS[0] in draft.shown and BULLETS[2] not in draft.shown
    assert "Writing…" in draft.shown
    message = the_answer(fake_slack, thread)
    assert message.edits >= 1 and "Writing…" not in message.shown
    assert all(b in message.shown for b in BULLETS)
    assert "policy.txt" in message.shown and "Confidence: *" in message.shown
    assert message.has_feedback_buttons()
    assert fake_slack.of("reactions.add", timestamp=message.ts)
    for bullet in stored_bullets(services, fake_slack, message):
        assert bullet in message.shown


async def test_a_stream_that_expires_is_finished_by_editing_the_message(
    settings: Settings, fake_slack: FakeSlack, knowledge_dir: Path, model: FakeOpenAI
) -> None:
    fake_slack.streams_expire = True
    question = mention(QUESTION)
    thread = question["event"]["ts"]
    async with bot_with(settings, fake_slack, knowledge_dir, model) as (bot, _):
        await ask(bot, question)

    message = the_answer(fake_slack, thread)  # still the one message, no second post
    assert fake_slack.posts() == []
    assert fake_slack.of("chat.appendStream") or fake_slack.of("chat.stopStream")
    assert all(b in message.shown for b in BULLETS) and "Confidence: *" in message.shown
    assert message.shown.count(BULLETS[0]) == 1  # nothing shown twice


async def test_a_model_that_stalls_mid_stream_is_replaced_by_the_quoted_answer_in_time(
    settings: Settings, fake_slack: FakeSlack, knowledge_dir: Path
) -> None:
    deadline = 3.0
    stalls = Stall(f"- {BULLETS[0]}\n- {BULLETS[1]}\n- Claims are")
    question = mention(QUESTION)
    thread = question["event"]["ts"]
    with fake_openai(writing(stalls), piece_interval_s=0.02) as llm:
        env = {"KNOWBOT_ANSWER_DEADLINE_S": str(deadline), "KNOWBOT_LLM_TIMEOUT": "30"}
        async with bot_with(settings, fake_slack, knowledge_dir, llm, **env) as (bot, _):
            sent_at = time.monotonic()
            await ask(bot, question)

    [start] = fake_slack.of("chat.startStream")
    assert BULLETS[0] in start.args["markdown_text"]  # the model's bullets were shown ...
    message = the_answer(fake_slack, thread)
    assert BULLETS[0] not in message.shown  # ... and replaced by the quoted answer
    assert "timed out" in message.shown and "quoted passages" in message.shown
    assert "30 days" in message.shown and "Confidence: *Low*" in message.shown
    last_write = max(c.at for c in fake_slack.calls if c.method.startswith("chat."))
    assert last_write - sent_at < deadline + 1.0


async def test_a_slack_call_that_hangs_mid_stream_does_not_hold_the_finished_answer(
    settings: Settings, fake_slack: FakeSlack, knowledge_dir: Path, model: FakeOpenAI
) -> None:
    fake_slack.delays["chat.appendStream"] = 9.0  # Slack sits on the second bullet
    question = mention(QUESTION)
    thread = question["event"]["ts"]
    async with bot_with(settings, fake_slack, knowledge_dir, model) as (bot, _):
        sent_at = time.monotonic()
        await bot.send(question)
        await fake_slack.wait_for(
            lambda: (
                fake_slack.of("reactions.add", name="large_green_circle")
                or fake_slack.of("reactions.add", name="large_yellow_circle")
                or fake_slack.of("reactions.add", name="red_circle")
            )
        )
        answered_at = time.monotonic()
        await bot.settle()

    assert answered_at - sent_at < 7.0  # long before the hung call returns (after 10 s)
    message = the_answer(fake_slack, thread)
    assert all(b in message.shown for b in BULLETS) and "Confidence: *" in message.shown
    assert message.shown.count(BULLETS[0]) == 1


async def test_quoted_answers_and_top_level_direct_messages_are_posted_whole(
    settings: Settings, fake_slack: FakeSlack, knowledge_dir: Path, model: FakeOpenAI
) -> None:
    async with bot_with(settings, fake_slack, knowledge_dir, model) as (bot, _):
        await ask(bot, direct_message(QUESTION))  # no thread to stream into
    with open_services(slack_settings(settings, fake_slack)) as services:  # no model
        async with running_bot(services, fake_slack) as bot:
            await ask(bot, mention(QUESTION))

    assert not any(c.method.endswith("Stream") for c in fake_slack.calls)
    in_place, quoted = fake_slack.posts()
    assert all(b in in_place.shown for b in BULLETS)
    assert "30 days" in quoted.shown and "quoted passages" in quoted.shown.lower()


async def test_streaming_can_be_turned_off(
    settings: Settings, fake_slack: FakeSlack, knowledge_dir: Path, model: FakeOpenAI
) -> None:
    env = {"KNOWBOT_STREAMING": "false"}
    async with bot_with(settings, fake_slack, knowledge_dir, model, **env) as (bot, _):
        await ask(bot, mention(QUESTION))

    assert not any(c.method.endswith("Stream") for c in fake_slack.calls)
    [post] = fake_slack.posts()
    assert all(b in post.shown for b in BULLETS)
