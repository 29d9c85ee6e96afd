"""Odd and broken requests: a sensible status code, no crash, no stray replies."""

from __future__ import annotations

import pytest

from bot.adapters.teams.render import ATTACHMENTS_ONLY
from bot.conversation.replies import EMPTY_QUESTION
from tests.adapters.teams import activities as teams
from tests.adapters.teams.conftest import TeamsBot


def test_an_unknown_activity_type_is_accepted_and_ignored(bot: TeamsBot) -> None:
    odd = teams.message(bot.connector.url, "hello")
    odd["type"] = "somethingNew"
    assert bot.post(odd).status_code == 200
    bot_added = teams.message(bot.connector.url, None)
    bot_added |= {"type": "conversationUpdate", "membersAdded": [{"id": teams.BOT_ID}]}
    assert bot.post(bot_added).status_code == 200
    assert bot.connector.posted == [] and bot.stored_answers() == []


@pytest.mark.parametrize("text", ["", None, "   ", "<p>&nbsp;</p>"])
def test_an_empty_message_gets_a_hint_to_type_a_question(bot: TeamsBot, text: str | None) -> None:
    assert bot.post(teams.message(bot.connector.url, text)).status_code == 200
    [reply] = bot.connector.wait_for_messages(1)
    assert reply.text == EMPTY_QUESTION
    assert "channelData" not in reply.activity  # nothing to rate


def test_a_mention_with_no_question_gets_the_same_hint(bot: TeamsBot) -> None:
    post = teams.channel_mention(bot.connector.url, "")
    assert bot.post(post).status_code == 200
    [reply] = bot.connector.wait_for_messages(1)
    assert reply.text == EMPTY_QUESTION and reply.reply_to_id == post["id"]


def test_attachments_alone_get_one_polite_reply(bot: TeamsBot) -> None:
    picture = teams.message(
        bot.connector.url,
        "",
        attachments=[{"contentType": "image/png", "contentUrl": "https://example.invalid/a.png"}],
    )
    assert bot.post(picture).status_code == 200
    assert bot.post(picture).status_code == 200  # redelivered
    [reply] = bot.connector.wait_for_messages(1)
    assert reply.text == ATTACHMENTS_ONLY
    assert len(bot.connector.messages) == 1 and bot.stored_answers() == []


MALFORMED = [
    (b'{"type": "message", "text": "hi"', "application/json", 400),
    (b"[1, 2, 3]", "application/json", 400),
    (b'{"text": "no type"}', "application/json", 400),
    (b'{"type": 42}', "application/json", 400),
    (b'{"type": "message", "serviceUrl": "http://x/", "entities": 7}', "application/json", 400),
    (b"", "application/json", 400),
    (b"type=message&text=hi", "application/x-www-form-urlencoded", 415),
]


def test_a_malformed_request_is_refused_with_a_client_error(bot: TeamsBot) -> None:
    for body, content_type, status in MALFORMED:
        response = bot.post(body, content_type=content_type)
        assert response.status_code == status, body
        assert "error" in response.json(), body
    assert bot.connector.posted == []


def test_a_message_missing_its_conversation_is_ignored(bot: TeamsBot) -> None:
    broken = teams.message(bot.connector.url, "What is the PED waiting period?")
    del broken["conversation"]
    assert bot.post(broken).ok
    assert bot.connector.posted == [] and bot.stored_answers() == []


def test_an_activity_with_nowhere_to_reply_is_refused(bot: TeamsBot) -> None:
    broken = teams.message(bot.connector.url, "What is the PED waiting period?")
    del broken["serviceUrl"]
    assert bot.post(broken).status_code == 400
    assert bot.stored_answers() == []


def test_the_bot_still_answers_after_bad_requests(bot: TeamsBot) -> None:
    assert bot.post(b"{not json").status_code == 400
    bot.post(teams.message(bot.connector.url, "How do I submit a reimbursement claim?"))
    [reply] = bot.connector.wait_for_messages(1)
    assert "30 days" in reply.text
