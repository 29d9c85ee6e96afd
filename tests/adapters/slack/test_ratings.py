"""Emoji on the bot's answers are ratings; a thumbs-down asks privately why."""

from __future__ import annotations

import pytest

from bot.store.feedback import Rating
from bot.wiring import Services
from tests.adapters.slack.conftest import SlackBotUnderTest
from tests.adapters.slack.payloads import (
    CHANNEL,
    OTHER_USER,
    USER,
    mention,
    reaction,
    reason_click,
)
from tests.fakes.slack_server import BOT_USER, Call


async def answered(bot: SlackBotUnderTest) -> tuple[Call, str]:
    """Ask in a channel; the bot's answer message and the question's thread."""
    question = mention("what is the PED waiting period?")
    await bot.send(question)
    await bot.settle()
    [post] = bot.slack.posts()
    return post, question["event"]["ts"]


def ratings(services: Services, post: Call) -> list[Rating]:
    answer_id = services.answers.answer_for_message(
        platform="slack", channel=CHANNEL, message_id=post.ts
    )
    assert answer_id is not None
    return services.feedback.for_answer(answer_id)


async def react(bot: SlackBotUnderTest, name: str, ts: str, **kwargs: object) -> None:
    sent = await bot.send(reaction(name, ts=ts, **kwargs))  # type: ignore[arg-type]
    assert sent.status == 200
    await bot.settle()


async def test_a_thumbs_up_rates_the_answer_and_removing_it_takes_it_back(
    bot: SlackBotUnderTest, services: Services
) -> None:
    post, _ = await answered(bot)

    await react(bot, "+1::skin-tone-3", post.ts)
    [rating] = ratings(services, post)
    assert (rating.user_id, rating.rating, rating.signal) == (USER, 1, "+1")
    assert bot.slack.of("chat.postEphemeral") == []

    await react(bot, "+1::skin-tone-3", post.ts, removed=True)
    assert ratings(services, post) == []


async def test_a_thumbs_down_asks_privately_why_and_stores_the_reason(
    bot: SlackBotUnderTest, services: Services
) -> None:
    post, thread = await answered(bot)

    await react(bot, "thinking_face", post.ts)

    [rating] = ratings(services, post)
    assert rating.rating == -1 and rating.reason is None
    [asked] = bot.slack.of("chat.postEphemeral")
    assert asked.args["user"] == USER and asked.args["channel"] == CHANNEL
    assert asked.args["thread_ts"] == thread
    [buttons] = [b for b in asked.blocks if b["type"] == "actions"]
    labels = [e["text"]["text"] for e in buttons["elements"]]
    assert labels == ["Wrong", "Incomplete", "Outdated", "Not relevant", "Other"]

    outdated = next(e for e in buttons["elements"] if e["text"]["text"] == "Outdated")
    click = reason_click(value=outdated["value"], response_url=bot.slack.response_url("r1"))
    assert (await bot.send(click)).status == 200
    await bot.settle()

    [rating] = ratings(services, post)
    assert rating.reason == "outdated"
    [(name, reply)] = bot.slack.webhooks
    assert name == "r1" and reply["replace_original"] is True and "Outdated" in reply["text"]


async def test_each_user_rates_once_and_a_redelivered_thumbs_down_asks_once(
    bot: SlackBotUnderTest, services: Services
) -> None:
    post, _ = await answered(bot)
    thumbs_down = reaction("-1", ts=post.ts)

    await bot.send(thumbs_down)
    await bot.send(thumbs_down, retry=1)
    await react(bot, "heart", post.ts, user=OTHER_USER)

    assert sorted((r.user_id, r.rating) for r in ratings(services, post)) == [
        (USER, -1),
        (OTHER_USER, 1),
    ]
    assert len(bot.slack.of("chat.postEphemeral")) == 1


async def test_reactions_that_are_not_ratings_of_answers_change_nothing(
    bot: SlackBotUnderTest, services: Services
) -> None:
    post, thread = await answered(bot)

    await react(bot, "eyes", post.ts)  # not a rating emoji
    await react(bot, "+1", thread)  # on the question, not on an answer
    await react(bot, "-1", post.ts, user=BOT_USER)  # the bot's own
    await react(bot, "-1", "1700000000.999999", channel="C0OTHER")  # a message it never saw

    assert ratings(services, post) == []
    assert bot.slack.of("chat.postEphemeral") == []


@pytest.mark.parametrize(
    "slack_env",
    [{"KNOWBOT_SLACK_POSITIVE_REACTIONS": "rocket", "KNOWBOT_SLACK_NEGATIVE_REACTIONS": ":poop:"}],
)
async def test_the_rating_emoji_are_configurable(
    bot: SlackBotUnderTest, services: Services
) -> None:
    post, _ = await answered(bot)
    assert "React :rocket: or :poop: to rate" in post.shown

    await react(bot, "+1", post.ts)
    assert ratings(services, post) == []

    await react(bot, "poop", post.ts)
    assert [r.rating for r in ratings(services, post)] == [-1]
