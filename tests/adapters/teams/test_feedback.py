"""Ratings from Teams reactions and feedback buttons land in the shared feedback store."""

from __future__ import annotations

from typing import Any

import pytest

from bot.store.feedback import Rating
from tests.adapters.teams import activities as teams
from tests.adapters.teams.conftest import TeamsBot


def answered(bot: TeamsBot, conversation: dict[str, Any] | None = None) -> tuple[int, str]:
    """Ask a question; return the stored answer's id and the id of the message showing it."""
    question = teams.message(
        bot.connector.url, "How are reimbursement claims settled?", conversation=conversation
    )
    bot.post(question)
    [reply] = bot.connector.wait_for_messages(1)
    return bot.stored_answers()[0]["id"], reply.id


def ratings(bot: TeamsBot, answer_id: int) -> list[Rating]:
    return bot.services.feedback.for_answer(answer_id)


@pytest.mark.parametrize(
    ("reaction", "rating"), [("like", 1), ("heart", 1), ("sad", -1), ("angry", -1)]
)
def test_a_reaction_on_the_answer_rates_it(bot: TeamsBot, reaction: str, rating: int) -> None:
    answer_id, message_id = answered(bot)
    chat = teams.personal()
    assert bot.post(teams.reaction(bot.connector.url, chat, message_id, added=[reaction])).ok
    [stored] = ratings(bot, answer_id)
    assert (stored.platform, stored.user_id, stored.signal, stored.rating) == (
        "teams",
        "aad-asha",
        reaction,
        rating,
    )
    assert bot.connector.messages[1:] == []  # the bot does not chat back about it


def test_taking_a_reaction_back_removes_the_rating(bot: TeamsBot) -> None:
    answer_id, message_id = answered(bot)
    url, chat = bot.connector.url, teams.personal()
    bot.post(teams.reaction(url, chat, message_id, added=["like"]))
    bot.post(teams.reaction(url, chat, message_id, added=["sad"], removed=["like"]))
    assert [(r.signal, r.rating) for r in ratings(bot, answer_id)] == [("sad", -1)]
    bot.post(teams.reaction(url, chat, message_id, removed=["sad"]))
    assert ratings(bot, answer_id) == []


def test_reactions_that_carry_no_verdict_or_miss_an_answer_change_nothing(bot: TeamsBot) -> None:
    answer_id, message_id = answered(bot)
    url, chat = bot.connector.url, teams.personal()
    assert bot.post(teams.reaction(url, chat, message_id, added=["laugh", "surprised"])).ok
    assert bot.post(teams.reaction(url, chat, "not-a-bot-answer", added=["like"])).ok
    assert ratings(bot, answer_id) == []


def test_reactions_in_a_channel_find_the_answer_in_its_reply_chain(bot: TeamsBot) -> None:
    post = teams.channel_mention(bot.connector.url, "How do I submit a reimbursement claim?")
    bot.post(post)
    [reply] = bot.connector.wait_for_messages(1)
    chain = teams.channel_chain(post["id"])
    bot.post(
        teams.reaction(bot.connector.url, chain, reply.id, added=["heart"], sender=teams.OTHER_USER)
    )
    [stored] = ratings(bot, bot.stored_answers()[0]["id"])
    assert (stored.user_id, stored.rating) == ("aad-ben", 1)


def test_the_feedback_buttons_store_the_verdict_and_the_reason(bot: TeamsBot) -> None:
    answer_id, message_id = answered(bot)
    invoke = teams.feedback_invoke(
        bot.connector.url,
        teams.personal(),
        message_id,
        reaction="dislike",
        text="It should say where to send the bills",
    )
    response = bot.post(invoke)
    assert response.status_code == 200 and response.content == b""
    [stored] = ratings(bot, answer_id)
    assert (stored.signal, stored.rating, stored.reason) == (
        "feedback:dislike",
        -1,
        "It should say where to send the bills",
    )


def test_a_thumbs_up_without_a_reason_replaces_an_earlier_reaction(bot: TeamsBot) -> None:
    answer_id, message_id = answered(bot)
    url, chat = bot.connector.url, teams.personal()
    bot.post(teams.reaction(url, chat, message_id, added=["sad"]))
    assert (
        bot.post(teams.feedback_invoke(url, chat, message_id, reaction="like")).status_code == 200
    )
    [stored] = ratings(bot, answer_id)
    assert (stored.signal, stored.rating, stored.reason) == ("feedback:like", 1, None)


def test_an_unreadable_feedback_invoke_is_refused(bot: TeamsBot) -> None:
    answer_id, message_id = answered(bot)
    invoke = teams.feedback_invoke(bot.connector.url, teams.personal(), message_id, reaction="meh")
    assert bot.post(invoke).status_code == 400
    assert ratings(bot, answer_id) == []


@pytest.mark.parametrize("name", ["composeExtension/query", "adaptiveCard/action", "no/such"])
def test_invokes_the_bot_does_not_handle_are_acknowledged_and_ignored(
    bot: TeamsBot, name: str
) -> None:
    answer_id, message_id = answered(bot)
    invoke = teams.feedback_invoke(bot.connector.url, teams.personal(), message_id, reaction="like")
    invoke["name"] = name
    invoke["value"] = {"action": {"type": "Action.Execute", "verb": "x", "data": {}}}

    response = bot.post(invoke)

    assert response.status_code == 200 and response.content == b""
    assert ratings(bot, answer_id) == []
