"""The experts' loop in Teams, end to end through the fake Bot Framework connector: a rating
down posts an adaptive card in the experts conversation mentioning the owner, the expert's
reply in its reply chain becomes the verified answer the asker is told, another user is
served it at High, a change of its source suspends it until an owner confirms it."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.settings import Settings
from knowledge.ingest.options import IngestOptions
from tests.adapters.teams.activities import (
    OTHER_USER,
    PERSONAL_CHAT,
    TENANT,
    channel_mention,
    message,
    personal,
    reaction,
)
from tests.adapters.teams.conftest import TeamsBot, running_bot
from tests.fakes.bot_connector import FakeConnector, Posted
from tests.fakes.knowledge_base import bot_settings, write_policy_kb

EXPERTS = "19:experts@thread.tacv2"
OWNER_AAD = "0a1b2c3d-0000-4000-8000-123456789abc"
EXPERT = {"id": "29:1esther", "name": "Esther Expert", "aadObjectId": "aad-esther"}
BEN_CHAT = "a:1personal-chat-with-ben"
ASKED = "what is the PED waiting period?"
PARAPHRASE = "what is the waiting period for PED?"
REPLY = "The waiting period for a pre-existing disease (PED) is 36 months of continuous cover."


@pytest.fixture
def knowledge_dir(tmp_path: Path) -> Path:
    kb = write_policy_kb(tmp_path / "kb")
    (kb / "knowbot-sources.toml").write_text(f'owners = ["teams:{OWNER_AAD}"]\n')
    return kb


@pytest.fixture
def bot(settings: Settings, knowledge_dir: Path, connector: FakeConnector) -> Iterator[TeamsBot]:
    config = bot_settings(
        settings,
        KNOWBOT_ESCALATION_TEAMS_CONVERSATION=EXPERTS,
        KNOWBOT_VERIFIED_MIN_SCORE="0.6",
        KNOWBOT_ESCALATION_POLL_S="0.2",
    )
    with running_bot(config, knowledge_dir, connector) as running:
        yield running


def ask(bot: TeamsBot, text: str, *, chat: str = PERSONAL_CHAT, sender: Any = None) -> Posted:
    before = len([m for m in bot.connector.messages if m.conversation_id == chat])
    assert bot.post(message(bot.connector.url, text, conversation=personal(chat),
                            sender=sender)).status_code == 200  # fmt: skip
    bot.connector.wait_for(
        lambda: len([m for m in bot.connector.messages if m.conversation_id == chat]) > before
    )
    return [m for m in bot.connector.messages if m.conversation_id == chat][-1]


def cards_in_experts(connector: FakeConnector) -> list[Posted]:
    return [m for m in connector.messages if m.conversation_id == EXPERTS]


def card_text(activity: dict[str, Any]) -> str:
    content = activity["attachments"][0]["content"]
    return "\n".join(b.get("text", "") for b in content["body"])


def card_actions(activity: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        a["data"]
        for attachment in activity.get("attachments") or []
        for a in attachment["content"].get("actions", [])
    ]


def in_chain(activity: dict[str, Any], root: str) -> dict[str, Any]:
    activity["conversation"]["id"] = f"{EXPERTS};messageid={root}"
    activity["channelData"]["channel"] = {"id": EXPERTS}
    return activity


def click(bot: TeamsBot, data: dict[str, Any], *, conversation: dict[str, Any],
          reply_to: str, sender: Any = None) -> None:  # fmt: skip
    activity = message(bot.connector.url, None, conversation=conversation, sender=sender)
    activity |= {"value": data, "replyToId": reply_to}
    activity.pop("text", None)
    assert bot.post(activity).status_code == 200


def test_rated_down_answered_in_the_reply_chain_served_expired_and_confirmed(
    bot: TeamsBot, knowledge_dir: Path
) -> None:
    connector = bot.connector
    answer = ask(bot, ASKED)
    bot.post(reaction(connector.url, personal(), answer.id, added=["sad"]))
    [card] = cards_in_experts(connector)
    text = card_text(card.activity)
    assert "pre-existing disease" in text.lower() and "36 months" in text
    mentions = card.activity["attachments"][0]["content"]["msteams"]["entities"]
    assert [m["mentioned"]["id"] for m in mentions] == [OWNER_AAD]

    reply = channel_mention(connector.url, REPLY, root=card.id, sender=EXPERT)
    assert bot.post(in_chain(reply, card.id)).status_code == 200
    connector.wait_for(lambda: any("answered:" in m.text for m in connector.messages
                                   if m.conversation_id == PERSONAL_CHAT))  # fmt: skip
    told = next(m for m in connector.messages if "answered:" in m.text)
    assert told.text.startswith(f"Esther Expert answered: {REPLY}")
    assert "✅ Answered by Esther Expert" in card_text(connector.current(card.id))

    served = ask(bot, PARAPHRASE, chat=BEN_CHAT, sender=OTHER_USER)
    assert REPLY in served.text and "Verified by Esther Expert" in served.text
    assert "🟢" in served.text
    assert [a["knowbot"] for a in card_actions(served.activity)] == ["not_verified"]

    services = bot.services
    (knowledge_dir / "policy.txt").write_text(
        (knowledge_dir / "policy.txt").read_text().replace("36 months", "48 months")
    )
    services.knowledge.ingestor.ingest_paths([knowledge_dir], IngestOptions())
    connector.wait_for(lambda: len(cards_in_experts(connector)) == 2, timeout=20)
    request = cards_in_experts(connector)[1]
    assert "needs confirming" in card_text(request.activity)
    request_mentions = request.activity["attachments"][0]["content"]["msteams"]["entities"]
    assert {m["mentioned"]["id"] for m in request_mentions} == {"aad-esther", OWNER_AAD}

    not_served = ask(bot, PARAPHRASE, chat=BEN_CHAT, sender=OTHER_USER)
    assert "Verified by" not in not_served.text

    [confirm] = [a for a in card_actions(request.activity) if a["knowbot"] == "confirm"]
    chain = {"isGroup": True, "conversationType": "channel", "tenantId": TENANT,
             "id": f"{EXPERTS};messageid={request.id}"}  # fmt: skip
    click(bot, confirm, conversation=chain, reply_to=request.id, sender=EXPERT)
    connector.wait_for(lambda: "Settled" in card_text(connector.current(request.id)))
    again = ask(bot, PARAPHRASE, chat=BEN_CHAT, sender=OTHER_USER)
    assert "Verified by Esther Expert" in again.text


def test_the_answer_form_and_not_what_i_asked(bot: TeamsBot) -> None:
    connector = bot.connector
    low = ask(bot, "do you cover veterinary bills for my dog?")
    [escalate] = card_actions(low.activity)
    click(bot, escalate, conversation=personal(), reply_to=low.id)
    [card] = cards_in_experts(connector)
    [answer] = [a for a in card_actions(card.activity) if a["knowbot"] == "answer"]
    chain = {"isGroup": True, "conversationType": "channel", "tenantId": TENANT,
             "id": f"{EXPERTS};messageid={card.id}"}  # fmt: skip
    click(bot, {**answer, "text": "No: veterinary bills for a dog or other pets are not covered."},
          conversation=chain, reply_to=card.id, sender=EXPERT)  # fmt: skip
    served = ask(bot, "do you cover veterinary bills for my dog?", chat=BEN_CHAT,
                 sender=OTHER_USER)  # fmt: skip
    assert "pets are not covered" in served.text
    [not_verified] = card_actions(served.activity)
    click(bot, not_verified, conversation=personal(BEN_CHAT), reply_to=served.id,
          sender=OTHER_USER)  # fmt: skip
    connector.wait_for(
        lambda: [m for m in connector.messages if m.conversation_id == BEN_CHAT][-1].id != served.id
    )
    normal = [m for m in connector.messages if m.conversation_id == BEN_CHAT][-1]
    assert "Verified by" not in normal.text and "could not find" in normal.text.lower()


def test_repeats_of_a_question_update_one_card(bot: TeamsBot) -> None:
    connector = bot.connector
    first = ask(bot, ASKED)
    second = ask(bot, ASKED, chat=BEN_CHAT, sender=OTHER_USER)
    bot.post(reaction(connector.url, personal(), first.id, added=["sad"]))
    bot.post(reaction(connector.url, personal(BEN_CHAT), second.id, added=["angry"],
                      sender=OTHER_USER))  # fmt: skip
    [card] = cards_in_experts(connector)
    assert "asked by 1 person" in card_text(card.activity)
    assert "asked by 2 people" in card_text(connector.current(card.id))


def test_an_experts_conversation_the_bot_cannot_post_in_is_logged_and_the_asker_told(
    bot: TeamsBot, caplog: pytest.LogCaptureFixture
) -> None:
    connector = bot.connector
    low = ask(bot, "do you cover veterinary bills for my dog?")
    [escalate] = card_actions(low.activity)
    connector.fail_next_messages(403)
    with caplog.at_level(logging.ERROR):
        click(bot, escalate, conversation=personal(), reply_to=low.id)
    assert cards_in_experts(connector) == []
    told = [m.text for m in connector.messages if m.conversation_id == PERSONAL_CHAT]
    assert any("I could not reach the experts" in t for t in told)
    assert any(EXPERTS in r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR)
