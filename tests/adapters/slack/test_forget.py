"""Wiping a conversation's memory: typed in the thread, by slash command, or from the
message menu."""

from __future__ import annotations

from bot.adapters.slack.answering import FORGOTTEN
from bot.adapters.slack.forgetting import HOW_TO
from bot.conversation.types import ThreadRef
from bot.wiring import Services
from tests.adapters.slack.conftest import SlackBotUnderTest
from tests.adapters.slack.payloads import (
    CHANNEL,
    DM,
    direct_message,
    mention,
    message,
    message_shortcut,
    slash_command,
)
from tests.fakes.slack_server import TEAM


async def start_thread(bot: SlackBotUnderTest) -> str:
    question = mention("What is the room rent limit for Plan A?")
    await bot.send(question)
    await bot.settle()
    return str(question["event"]["ts"])


def history(services: Services, channel: str, thread: str) -> list[str]:
    return [t.text for t in services.threads.history(ThreadRef("slack", TEAM, channel, thread))]


async def test_forget_this_thread_wipes_its_memory_and_the_thread_carries_on(
    bot: SlackBotUnderTest, services: Services
) -> None:
    thread = await start_thread(bot)
    assert history(services, CHANNEL, thread)

    await bot.send(message("Forget this thread.", thread_ts=thread))
    await bot.settle()
    confirmed = bot.slack.posts()[-1]
    assert confirmed.args["text"] == FORGOTTEN and confirmed.args["thread_ts"] == thread
    assert history(services, CHANNEL, thread) == []

    await bot.send(message("and for Plan B?", thread_ts=thread))  # still no mention needed
    await bot.settle()
    after = bot.slack.posts()[-1]
    assert after.args["thread_ts"] == thread
    assert "Searched for" not in after.shown  # no history left to rewrite the follow-up with


async def test_the_slash_command_forgets_a_direct_message_conversation(
    bot: SlackBotUnderTest, services: Services
) -> None:
    await bot.send(direct_message("What is the room rent limit for Plan A?"))
    await bot.settle()
    assert history(services, DM, DM)

    command = slash_command(
        "/knowbot-forget", "", channel=DM, response_url=bot.slack.response_url("c1")
    )
    assert (await bot.send(command)).status == 200
    await bot.settle()

    assert history(services, DM, DM) == []
    [(_, reply)] = bot.slack.webhooks
    assert reply["text"].startswith("Done") and reply["response_type"] == "ephemeral"


async def test_in_a_channel_the_slash_command_takes_a_thread_link_or_explains(
    bot: SlackBotUnderTest, services: Services
) -> None:
    thread = await start_thread(bot)
    seconds, micros = thread.split(".")

    bare = slash_command(
        "/knowbot-forget", "", channel=CHANNEL, response_url=bot.slack.response_url("bare")
    )
    link = f"https://knowbot-test.slack.com/archives/{CHANNEL}/p{seconds}{micros}"
    linked = slash_command(
        "/knowbot-forget", link, channel=CHANNEL, response_url=bot.slack.response_url("link")
    )
    await bot.send(bare)
    await bot.settle()
    assert history(services, CHANNEL, thread)
    await bot.send(linked)
    await bot.settle()

    assert history(services, CHANNEL, thread) == []
    replies = dict(bot.slack.webhooks)
    assert replies["bare"]["text"] == HOW_TO and replies["link"]["text"].startswith("Done")


async def test_the_message_shortcut_forgets_the_thread_it_was_used_in(
    bot: SlackBotUnderTest, services: Services
) -> None:
    thread = await start_thread(bot)
    answer_ts = bot.slack.posts()[0].ts

    shortcut = message_shortcut(
        "knowbot_forget_thread",
        channel=CHANNEL,
        ts=answer_ts,
        thread_ts=thread,
        response_url=bot.slack.response_url("s1"),
    )
    assert (await bot.send(shortcut)).status == 200
    await bot.settle()

    assert history(services, CHANNEL, thread) == []
    assert bot.slack.webhooks[0][1]["text"].startswith("Done")
