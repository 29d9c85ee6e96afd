"""Permission-aware answers in Slack over real HTTP: the asker's e-mail address comes from
`users.info`; a direct message shows what they may read, a channel only what everyone may,
and an assistant thread suggests nothing drawn from a document its user may not read."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.settings import Settings
from bot.wiring import Services, open_services
from knowledge.ingest.options import IngestOptions
from knowledge.ingest.sync import sync_connector
from tests.adapters.slack.conftest import SlackBotUnderTest, slack_settings
from tests.adapters.slack.payloads import (
    USER,
    assistant_thread_started,
    direct_message,
    mention,
    message,
)
from tests.fakes.shelf import QUESTION, SECRET, shelf
from tests.fakes.slack_server import FakeSlack

FINANCE_PERSON = "dana@example.com"
OTHER_DM, OTHER_USER = "D0EVE", "U0EVE"


@pytest.fixture
def services(settings: Settings, fake_slack: FakeSlack) -> Iterator[Services]:
    fake_slack.emails = {USER: "Dana@Example.com", OTHER_USER: "eve@example.com"}
    with open_services(slack_settings(settings, fake_slack)) as svc:
        sync_connector(
            svc.knowledge.ingestor, svc.db.engine, shelf(pay_access=(FINANCE_PERSON,)),
            IngestOptions(),
        )  # fmt: skip
        yield svc


async def ask(bot: SlackBotUnderTest, payload: dict[str, object]) -> str:
    sent = await bot.send(payload)
    assert sent.status == 200, sent.body
    await bot.settle()
    return bot.slack.posts()[-1].shown


async def test_a_direct_message_shows_what_the_asker_may_read(bot: SlackBotUnderTest) -> None:
    assert SECRET in await ask(bot, direct_message(QUESTION))
    assert bot.slack.of("users.info", user=USER)
    other = message(QUESTION, channel=OTHER_DM, channel_type="im", user=OTHER_USER)
    assert SECRET not in await ask(bot, other)
    await ask(bot, direct_message("and the annual leave?"))
    assert len(bot.slack.of("users.info", user=USER)) == 1  # the address is kept a while


async def test_a_channel_shows_only_what_everyone_may_read(bot: SlackBotUnderTest) -> None:
    shown = await ask(bot, mention(QUESTION))  # asked by the very person who may read it
    assert SECRET not in shown and "Executive pay" not in shown
    assert not bot.slack.of("users.info")  # nobody's identity is needed there


async def test_an_unknown_address_sees_only_what_everyone_may_read(
    bot: SlackBotUnderTest,
) -> None:
    stranger = message(QUESTION, channel="D0NOBODY", channel_type="im", user="U0NOBODY")
    assert SECRET not in await ask(bot, stranger)


async def test_an_assistant_thread_suggests_nothing_from_a_document_its_user_may_not_read(
    bot: SlackBotUnderTest,
) -> None:
    opened = assistant_thread_started(thread_ts="1700000000.0100", channel=OTHER_DM,
                                      user=OTHER_USER)  # fmt: skip
    sent = await bot.send(opened)
    assert sent.status == 200
    await bot.settle()
    [suggested] = bot.slack.of("assistant.threads.setSuggestedPrompts")
    prompts = " ".join(p["message"] for p in suggested.args["prompts"])
    assert prompts and "executive" not in prompts.lower()
