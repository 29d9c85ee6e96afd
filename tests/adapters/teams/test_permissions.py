"""Permission-aware answers in Teams over real HTTP: the sender's Entra object id from the
activity, their groups from (a fake) Microsoft Graph; a personal chat shows what they may
read, a channel only what everyone may."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from knowledge.ingest.options import IngestOptions
from knowledge.ingest.sync import sync_connector
from tests.adapters.teams import activities as teams
from tests.adapters.teams.conftest import BotFactory, TeamsBot
from tests.fakes.graph_groups import FakeUser, fake_graph
from tests.fakes.shelf import QUESTION, SECRET, shelf

ASHA = FakeUser("aad-asha", "asha@example.com", [("finance-team-id", "Finance Team")])
BEN = FakeUser("aad-ben", "ben@example.com")


@pytest.fixture
def bot(start_bot: BotFactory) -> Iterator[TeamsBot]:
    with fake_graph(ASHA, BEN) as graph, start_bot(**graph.env()) as running:
        services = running.services
        sync_connector(services.knowledge.ingestor, services.db.engine, shelf(), IngestOptions())
        yield running


def reply_to(bot: TeamsBot, activity: dict[str, object]) -> str:
    before = len(bot.connector.messages)
    assert bot.post(activity).status_code == 200
    replies = bot.connector.wait_for_messages(before + 1)
    return json.dumps(replies[-1].activity)  # the text and the citations' quoted passages


def test_a_personal_chat_shows_what_the_sender_and_their_groups_may_read(bot: TeamsBot) -> None:
    assert SECRET in reply_to(bot, teams.message(bot.connector.url, QUESTION))
    ben_chat = teams.personal("a:1personal-chat-with-ben")
    ben = teams.message(bot.connector.url, QUESTION, conversation=ben_chat, sender=teams.OTHER_USER)
    assert SECRET not in reply_to(bot, ben)


def test_a_channel_shows_only_what_everyone_may_read(bot: TeamsBot) -> None:
    shown = reply_to(bot, teams.channel_mention(bot.connector.url, QUESTION))  # Asha asks
    assert SECRET not in shown


def test_without_graph_the_roster_names_the_sender(start_bot: BotFactory) -> None:
    with start_bot() as bot:  # no Graph: the object id, and the principal name of the roster
        bot.connector.members[str(teams.USER["id"])] = {
            **teams.USER, "userPrincipalName": "asha@example.com", "email": "asha@example.com"
        }  # fmt: skip
        services = bot.services
        pay = shelf(pay_access=("asha@example.com",))
        sync_connector(services.knowledge.ingestor, services.db.engine, pay, IngestOptions())
        assert SECRET in reply_to(bot, teams.message(bot.connector.url, QUESTION))
        ben_chat = teams.personal("a:1personal-chat-with-ben")  # not on the roster
        ben = teams.message(bot.connector.url, QUESTION, conversation=ben_chat,
                            sender=teams.OTHER_USER)  # fmt: skip
        assert SECRET not in reply_to(bot, ben)
