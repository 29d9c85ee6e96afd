"""Slack's AI-app surface: native feedback buttons on every answer (landing in the same
store as emoji ratings, the latest click winning), suggested prompts when an assistant
thread opens, a title for the thread, and sources that link to the document."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from bot.conversation.types import ThreadRef, Turn
from bot.settings import Settings
from bot.store.feedback import Rating
from bot.wiring import Services
from knowledge.ingest.kinds import SourceKind
from knowledge.ingest.options import IngestOptions
from tests.adapters.slack.conftest import SlackBotUnderTest
from tests.adapters.slack.payloads import (
    CHANNEL,
    DM,
    OTHER_USER,
    USER,
    assistant_thread_started,
    direct_message,
    feedback_click,
    mention,
    new_ts,
    reaction,
)
from tests.fakes.slack_server import Call

FAQ = (
    "question,answer\n"
    "How do I add my spouse to the policy?,Send the enrolment form to HR within 30 days.\n"
    "Is dental treatment covered?,Only dental treatment after an accident is covered.\n"
)


async def ask(bot: SlackBotUnderTest, payload: dict[str, object] | str) -> None:
    assert (await bot.send(payload)).status == 200  # type: ignore[arg-type]
    await bot.settle()


async def answered(bot: SlackBotUnderTest, text: str = "what is the PED waiting period?") -> Call:
    await ask(bot, mention(text))
    return bot.slack.posts()[-1]


def ratings(services: Services, post: Call) -> list[Rating]:
    answer_id = services.answers.answer_for_message(
        platform="slack", channel=CHANNEL, message_id=post.ts
    )
    assert answer_id is not None
    return services.feedback.for_answer(answer_id)


async def test_every_answer_has_feedback_buttons_and_the_latest_click_wins(
    bot: SlackBotUnderTest, services: Services
) -> None:
    post = await answered(bot)
    [actions] = [b for b in post.blocks if b["type"] == "context_actions"]
    [buttons] = actions["elements"]
    assert buttons["type"] == "feedback_buttons"
    assert (buttons["positive_button"]["value"], buttons["negative_button"]["value"]) == (
        "good",
        "bad",
    )
    assert "React :+1: or :-1:" in post.shown  # the emoji still rate it too

    await ask(bot, feedback_click("bad", message_ts=post.ts))
    [rating] = ratings(services, post)
    assert (rating.user_id, rating.rating, rating.signal) == (USER, -1, "feedback_buttons:bad")
    [asked] = bot.slack.of("chat.postEphemeral")  # what was wrong, as for a thumbs-down emoji
    assert asked.args["user"] == USER and "What was wrong" in asked.args["text"]

    await ask(bot, feedback_click("good", message_ts=post.ts))
    [rating] = ratings(services, post)
    assert (rating.rating, rating.signal) == (1, "feedback_buttons:good")
    assert len(bot.slack.of("chat.postEphemeral")) == 1  # a good click asks nothing

    await ask(bot, reaction("-1", ts=post.ts))  # then an emoji: still one rating, the latest
    [rating] = ratings(services, post)
    assert (rating.rating, rating.signal) == (-1, "-1")


async def test_a_click_on_something_that_is_not_an_answer_changes_nothing(
    bot: SlackBotUnderTest, services: Services
) -> None:
    post = await answered(bot)
    await ask(bot, feedback_click("bad", message_ts="1700000000.999999"))
    await ask(bot, feedback_click("meh", message_ts=post.ts))

    assert ratings(services, post) == []
    assert bot.slack.of("chat.postEphemeral") == []


async def test_feedback_buttons_and_emoji_both_land_in_the_feedback_export(
    bot: SlackBotUnderTest,
    services: Services,
    settings: Settings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clicked = await answered(bot)
    reacted = await answered(bot, "how are reimbursement claims settled?")
    await ask(bot, feedback_click("bad", message_ts=clicked.ts))
    await ask(bot, reaction("+1", ts=reacted.ts, user=OTHER_USER))

    assert settings.database_url
    monkeypatch.setenv("DATABASE_URL", settings.database_url)
    monkeypatch.setenv("KNOWBOT_EMBED_MODEL", "hashing")
    result = CliRunner().invoke(app, ["feedback", "export", "--format", "jsonl"])

    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    signals = {(r["question"], g["signal"], g["rating"]) for r in records for g in r["ratings"]}
    assert signals == {
        ("what is the PED waiting period?", "feedback_buttons:bad", -1),
        ("how are reimbursement claims settled?", "+1", 1),
    }


def install_faq(services: Services, tmp_path: Path) -> None:
    faq = tmp_path / "faq.csv"
    faq.write_text(FAQ)
    services.knowledge.ingestor.ingest_paths([faq], IngestOptions(kind=SourceKind.FAQ))


def asked_and_liked(services: Services, text: str, *users: str) -> None:
    """`users` each ask `text` in a channel thread and like the answer."""
    for user in users:
        thread = new_ts()
        turn = Turn(ThreadRef("slack", "T1", CHANNEL, thread), f"ev-{uuid.uuid4()}", user, text)
        answer = services.pipeline.answer_now(turn)
        assert answer is not None
        services.feedback.rate(
            answer_id=answer.id, platform="slack", user_id=user, signal="+1", rating=1
        )


def offered(bot: SlackBotUnderTest) -> list[dict[str, str]]:
    [call] = bot.slack.of("assistant.threads.setSuggestedPrompts")
    assert call.args["channel_id"] == DM and call.args["title"]
    prompts: list[dict[str, str]] = call.args["prompts"]
    return prompts


async def test_a_new_assistant_thread_offers_the_faq_until_people_have_rated_answers(
    bot: SlackBotUnderTest, services: Services, tmp_path: Path
) -> None:
    install_faq(services, tmp_path)

    await ask(bot, assistant_thread_started(thread_ts=new_ts()))

    assert [p["message"] for p in offered(bot)] == [
        "How do I add my spouse to the policy?",
        "Is dental treatment covered?",
        "What does the health policy say about room rent?",  # then the rulebook's sections
        "What does the health policy say about pre-existing diseases?",
    ]


async def test_questions_several_people_asked_and_liked_are_offered_first(
    bot: SlackBotUnderTest, services: Services, tmp_path: Path
) -> None:
    install_faq(services, tmp_path)
    asked_and_liked(services, "How are reimbursement claims settled?", "U1", "U2", "U3")
    asked_and_liked(services, "What is the room rent limit for Plan A?", "U4", "U5")
    asked_and_liked(services, "What does my own policy 1234 cover?", "U6")  # one person's

    await ask(bot, assistant_thread_started(thread_ts=new_ts()))

    messages = [p["message"] for p in offered(bot)]
    assert messages[:2] == [
        "How are reimbursement claims settled?",
        "What is the room rent limit for Plan A?",
    ]
    assert "What does my own policy 1234 cover?" not in messages
    assert messages[2:] == ["How do I add my spouse to the policy?", "Is dental treatment covered?"]


@pytest.mark.parametrize(
    "slack_env", [{"KNOWBOT_SLACK_SUGGESTED_PROMPTS": "What is PED?|How do I claim, and when?"}]
)
async def test_configured_prompts_are_offered_as_they_are(bot: SlackBotUnderTest) -> None:
    await ask(bot, assistant_thread_started(thread_ts=new_ts()))

    assert offered(bot) == [
        {"title": "What is PED?", "message": "What is PED?"},
        {"title": "How do I claim, and when?", "message": "How do I claim, and when?"},
    ]


async def test_with_nothing_in_the_viewers_scopes_no_prompts_are_set(
    bot: SlackBotUnderTest, services: Services
) -> None:
    services.channels.set("slack", DM, scopes=("legal",))  # a scope nothing was ingested into

    await ask(bot, assistant_thread_started(thread_ts=new_ts()))

    assert bot.slack.of("assistant.threads.setSuggestedPrompts") == []


async def test_an_assistant_thread_is_titled_after_its_first_question(
    bot: SlackBotUnderTest,
) -> None:
    thread = new_ts()
    await ask(bot, direct_message("what is the PED waiting period?", thread_ts=thread))
    await ask(bot, direct_message("and for how long after enrolment?", thread_ts=thread))

    [titled] = bot.slack.of("assistant.threads.setTitle")
    assert titled.args == {
        "channel_id": DM,
        "thread_ts": thread,
        "title": "what is the PED waiting period?",
    }


async def test_a_source_with_a_url_template_is_a_link_and_one_without_reads_as_before(
    bot: SlackBotUnderTest, services: Services, knowledge_dir: Path
) -> None:
    unlinked = await answered(bot, "how are reimbursement claims settled?")
    (knowledge_dir / "knowbot-sources.toml").write_text(
        'url = "https://intranet.example.com/kb/{path}#:~:text={section}"\n'
    )
    services.knowledge.ingestor.ingest_paths([knowledge_dir], IngestOptions())

    linked = await answered(bot, "how are claims settled after reimbursement?")

    assert re.search(r"\*\[\d\]\* policy\.txt — 5\.2 Reimbursement claims", unlinked.shown)
    assert "<https://" not in unlinked.shown
    link = "https://intranet.example.com/kb/policy.txt#:~:text=5.2%20Reimbursement%20claims"
    assert re.search(
        rf"\*\[\d\]\* <{re.escape(link)}\|policy\.txt — 5\.2 Reimbursement claims>", linked.shown
    )
