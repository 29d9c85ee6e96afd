"""The experts' loop in Slack, end to end on the fake Slack and the real Postgres: a rating
down reaches the experts channel naming the source's owner, the expert's reply in the
thread becomes a verified answer that the asker is told and another user is served, and a
change of the source suspends it until an owner confirms it."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest

from bot.adapters.slack.config import (
    ANSWER_ACTION,
    CONFIRM_ACTION,
    ESCALATE_ACTION,
    NOT_VERIFIED_ACTION,
)
from bot.wiring import Services
from knowledge.ingest.options import IngestOptions
from tests.adapters.slack.conftest import SlackBotUnderTest
from tests.adapters.slack.payloads import (
    CHANNEL,
    OTHER_USER,
    button_click,
    mention,
    message,
    reaction,
    view_submission,
)
from tests.fakes.knowledge_base import write_policy_kb
from tests.fakes.slack_server import Call, Message

EXPERTS = "C0EXPERTS"
OWNER, OWNER_EMAIL = "U0OWNER", "owner@example.com"
EXPERT = "U0EXPERT"
CAROL = "U0CAROL"
ASKED = "what is the PED waiting period?"
PARAPHRASE = "what is the waiting period for PED?"
REPLY = "The waiting period for a pre-existing disease (PED) is 36 months of continuous cover."

ESCALATING = {
    "KNOWBOT_ESCALATION_SLACK_CHANNEL": EXPERTS,
    "KNOWBOT_VERIFIED_MIN_SCORE": "0.6",
    "KNOWBOT_ESCALATION_POLL_S": "0.2",
}


@pytest.fixture
def knowledge_dir(tmp_path: Path) -> Path:
    kb = write_policy_kb(tmp_path / "kb")
    (kb / "knowbot-sources.toml").write_text(f'owners = ["{OWNER_EMAIL}"]\n')
    return kb


@pytest.fixture
def slack_env() -> dict[str, str]:
    return ESCALATING


@pytest.fixture(autouse=True)
def people(bot: SlackBotUnderTest) -> None:
    bot.slack.emails[OWNER] = OWNER_EMAIL
    bot.slack.users[EXPERT] = "Esther Expert"


async def ask(bot: SlackBotUnderTest, text: str, *, user: str, channel: str = CHANNEL) -> Call:
    before = len(bot.slack.posts(channel=channel))
    await bot.send(mention(text, user=user, channel=channel))
    await bot.settle()
    posts = bot.slack.posts(channel=channel)
    assert len(posts) == before + 1, [p.shown for p in posts]
    return posts[-1]


def experts_posts(bot: SlackBotUnderTest) -> list[Message]:
    return [m for m in bot.slack.messages.values() if m.channel == EXPERTS and not m.thread_ts]


def buttons(post: Call | Message) -> dict[str, str]:
    blocks = post.blocks
    return {
        e["action_id"]: e["value"] for b in blocks if b["type"] == "actions" for e in b["elements"]
    }


async def test_rated_down_answered_by_an_expert_served_expired_and_confirmed(
    bot: SlackBotUnderTest, services: Services, knowledge_dir: Path
) -> None:
    answer = await ask(bot, ASKED, user="U0ALICE")
    assert ESCALATE_ACTION not in buttons(answer) or "High" not in answer.shown
    await bot.send(reaction("-1", ts=answer.ts))
    await bot.settle()

    # one message in the experts channel: question, answer, sources, rating, the owner
    [escalation] = experts_posts(bot)
    shown = escalation.shown
    assert "pre-existing disease" in shown.lower() and "36 months" in shown
    assert f"<@{OWNER}>" in shown and "rated the answer down" in shown
    assert "policy.txt" in shown and "reply in this thread" in shown.lower()

    # the expert's reply in the thread becomes the verified answer; the asker is told
    await bot.send(message(REPLY, channel=EXPERTS, user=EXPERT, thread_ts=escalation.ts))
    await bot.settle()
    [told] = [m for m in bot.slack.thread_messages(CHANNEL, answer.args["thread_ts"])
              if "answered:" in m.shown]  # fmt: skip
    assert told.shown.startswith(f"Esther Expert answered: {REPLY}")
    assert (EXPERTS, escalation.ts, "white_check_mark") in bot.slack.reactions
    [verified] = services.verified.with_status("active")
    assert (verified.author, verified.author_id, verified.answer) == (
        "Esther Expert",
        EXPERT,
        REPLY,
    )
    assert any(s.uri.endswith("policy.txt") for s in verified.sources)

    # another user's paraphrase is served the verified answer, at High
    served = await ask(bot, PARAPHRASE, user=OTHER_USER)
    assert REPLY in served.shown and "Verified by Esther Expert" in served.shown
    assert (CHANNEL, served.ts, "large_green_circle") in bot.slack.reactions
    assert NOT_VERIFIED_ACTION in buttons(served)

    # the source changes: suspended, and the owner and author are asked to confirm
    (knowledge_dir / "policy.txt").write_text(
        (knowledge_dir / "policy.txt").read_text().replace("36 months", "48 months")
    )
    await asyncio.to_thread(
        services.knowledge.ingestor.ingest_paths, [knowledge_dir], IngestOptions()
    )
    assert services.verified.get(verified.id).status == "suspended"  # type: ignore[union-attr]
    await bot.slack.wait_for(lambda: len(experts_posts(bot)) == 2, timeout=20)
    request = experts_posts(bot)[1]
    assert "needs confirming" in request.shown and "changed" in request.shown
    assert f"<@{OWNER}>" in request.shown and f"<@{EXPERT}>" in request.shown

    not_served = await ask(bot, PARAPHRASE, user=CAROL)
    assert "Verified by" not in not_served.shown

    # confirmed: served again
    click = button_click(CONFIRM_ACTION, str(verified.id), message_ts=request.ts, channel=EXPERTS,
                         user=OWNER)  # fmt: skip
    assert (await bot.send(click)).status == 200
    await bot.settle()
    assert services.verified.get(verified.id).status == "active"  # type: ignore[union-attr]
    assert (EXPERTS, request.ts, "white_check_mark") in bot.slack.reactions
    assert CONFIRM_ACTION not in buttons(bot.slack.message(EXPERTS, request.ts))
    again = await ask(bot, PARAPHRASE, user=CAROL)
    assert "Verified by Esther Expert" in again.shown


async def test_repeats_of_a_question_join_one_message_with_a_count(
    bot: SlackBotUnderTest, services: Services
) -> None:
    first = await ask(bot, ASKED, user="U0ALICE")
    second = await ask(bot, ASKED, user=OTHER_USER)
    await bot.send(reaction("-1", ts=first.ts))
    await bot.settle()
    await bot.send(reaction("-1", ts=second.ts, user=OTHER_USER))
    await bot.send(reaction("confused", ts=second.ts, user=OTHER_USER))  # same person again
    await bot.settle()
    [escalation] = experts_posts(bot)
    assert "asked by 2 people" in escalation.shown and escalation.edits >= 1
    assert f"<@{OTHER_USER}>" in escalation.shown

    await bot.send(message(REPLY, channel=EXPERTS, user=EXPERT, thread_ts=escalation.ts))
    await bot.settle()
    for asked in (first, second):
        thread = bot.slack.thread_messages(CHANNEL, asked.args["thread_ts"])
        assert any(m.shown.startswith("Esther Expert answered:") for m in thread)
    # a second reply is discussion: no second verified answer
    await bot.send(message("Agreed.", channel=EXPERTS, user=OWNER, thread_ts=escalation.ts))
    await bot.settle()
    assert len(services.verified.with_status("active")) == 1


async def test_the_answer_button_opens_a_form_whose_answer_is_the_verified_answer(
    bot: SlackBotUnderTest, services: Services
) -> None:
    answer = await ask(bot, ASKED, user="U0ALICE")
    await bot.send(reaction("-1", ts=answer.ts))
    await bot.settle()
    [escalation] = experts_posts(bot)
    value = buttons(escalation)[ANSWER_ACTION]
    await bot.send(button_click(ANSWER_ACTION, value, message_ts=escalation.ts, channel=EXPERTS,
                                user=EXPERT))  # fmt: skip
    await bot.settle()
    [opened] = bot.slack.of("views.open")
    view = opened.args["view"]
    view = json.loads(view) if isinstance(view, str) else view
    assert view["private_metadata"] == value and opened.args["trigger_id"] == "123.456.abc"
    form = {"answer": {"text": {"type": "plain_text_input", "value": REPLY}}}
    assert (await bot.send(view_submission(view, values=form, user=EXPERT))).status == 200
    await bot.settle()
    [verified] = services.verified.with_status("active")
    assert (verified.answer, verified.author) == (REPLY, "Esther Expert")
    thread = bot.slack.thread_messages(CHANNEL, answer.args["thread_ts"])
    assert any(m.shown.startswith(f"Esther Expert answered: {REPLY}") for m in thread)
    assert (EXPERTS, escalation.ts, "white_check_mark") in bot.slack.reactions


async def test_ask_an_expert_then_not_what_i_asked(
    bot: SlackBotUnderTest, services: Services
) -> None:
    low = await ask(bot, "do you cover veterinary bills for my dog?", user="U0ALICE")
    assert "High" not in low.shown
    value = buttons(low)[ESCALATE_ACTION]
    await bot.send(button_click(ESCALATE_ACTION, value, message_ts=low.ts,
                                thread_ts=low.args["thread_ts"]))  # fmt: skip
    await bot.settle()
    [escalation] = experts_posts(bot)
    assert "asked for an expert" in escalation.shown
    [whisper] = bot.slack.of("chat.postEphemeral")
    assert f"<#{EXPERTS}>" in whisper.args["text"]

    await bot.send(message("No: veterinary bills for a dog or other pets are not covered.",
                           channel=EXPERTS, user=EXPERT, thread_ts=escalation.ts))  # fmt: skip
    await bot.settle()
    served = await ask(bot, "do you cover veterinary bills for my dog?", user=CAROL)
    assert "pets are not covered" in served.shown
    await bot.send(button_click(NOT_VERIFIED_ACTION, buttons(served)[NOT_VERIFIED_ACTION],
                                message_ts=served.ts, user=CAROL))  # fmt: skip
    await bot.settle()
    normal = bot.slack.posts(channel=CHANNEL)[-1]
    assert normal.ts != served.ts and "Verified by" not in normal.shown


async def test_a_rated_down_verified_answer_reaches_its_author(
    bot: SlackBotUnderTest, services: Services
) -> None:
    answer = await ask(bot, ASKED, user="U0ALICE")
    await bot.send(reaction("-1", ts=answer.ts))
    await bot.settle()
    [escalation] = experts_posts(bot)
    await bot.send(message(REPLY, channel=EXPERTS, user=EXPERT, thread_ts=escalation.ts))
    await bot.settle()
    served = await ask(bot, PARAPHRASE, user=CAROL)
    await bot.send(reaction("-1", ts=served.ts, user=CAROL))
    await bot.settle()
    [verified] = services.verified.with_status("active")
    assert services.verified.ratings([verified.id]) == {verified.id: (0, 1)}  # counts for it
    second = experts_posts(bot)[-1]
    assert second.ts != escalation.ts
    assert "verified answer was rated down" in second.shown
    assert f"<@{EXPERT}>" in second.shown and REPLY in second.shown


async def test_experts_channel_without_the_bot_tells_the_asker(
    bot: SlackBotUnderTest, services: Services, caplog: pytest.LogCaptureFixture
) -> None:
    answer = await ask(bot, ASKED, user="U0ALICE")
    bot.slack.fail("chat.postMessage", error="not_in_channel")
    with caplog.at_level(logging.ERROR):
        await bot.send(reaction("-1", ts=answer.ts))
        await bot.settle()
    told = [c.args.get("text") for c in bot.slack.of("chat.postEphemeral")]
    assert any("I could not reach the experts" in str(t) for t in told)
    assert any("not_in_channel" in r.getMessage() and EXPERTS in r.getMessage()
               for r in caplog.records)  # fmt: skip
    assert experts_posts(bot) == []


async def test_a_verified_answer_never_reaches_a_channel_without_its_scope(
    bot: SlackBotUnderTest, services: Services
) -> None:
    services.channels.set("slack", "C0FIN", scopes=("finance",))
    answer = await ask(bot, ASKED, user="U0ALICE")
    await bot.send(reaction("-1", ts=answer.ts))
    elsewhere = await ask(bot, ASKED, user=OTHER_USER, channel="C0FIN")
    await bot.send(reaction("-1", ts=elsewhere.ts, channel="C0FIN", user=OTHER_USER))
    await bot.settle()
    hr, finance = experts_posts(bot)  # one per scope: never joined across scopes
    assert "asked by 1 person" in hr.shown and "asked by 1 person" in finance.shown

    await bot.send(message(REPLY, channel=EXPERTS, user=EXPERT, thread_ts=hr.ts))
    await bot.settle()
    thread = bot.slack.thread_messages("C0FIN", elsewhere.args["thread_ts"])
    assert not any("answered:" in m.shown for m in thread)
    again = await ask(bot, PARAPHRASE, user=CAROL, channel="C0FIN")
    assert "Verified by" not in again.shown and REPLY not in again.shown


class TestWithoutEscalation:
    @pytest.fixture
    def slack_env(self) -> dict[str, str]:
        return {}

    async def test_nothing_escalates_and_answers_carry_no_expert_button(
        self, bot: SlackBotUnderTest, services: Services
    ) -> None:
        low = await ask(bot, "do you cover veterinary bills for my dog?", user="U0ALICE")
        assert ESCALATE_ACTION not in buttons(low)
        await bot.send(reaction("-1", ts=low.ts))
        await bot.settle()
        assert [c.args["channel"] for c in bot.slack.posts()] == [CHANNEL]
