"""In a Teams personal chat a model's answer streams: an informative update, the bullets as
they are written (about one update a second, each with the whole text so far), then the
finished answer with citations, AI label, feedback buttons and confidence closing the
stream. Channels and group chats, and tenants that refuse streaming, get one message."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

import pytest

from bot.adapters.teams.live import INFORMATIVE
from tests.adapters.teams import activities as teams
from tests.adapters.teams.conftest import BotFactory
from tests.fakes.bot_connector import Posted
from tests.fakes.openai_server import FakeOpenAI, fake_openai

BULLETS = (
    "Submit the claim form with the original bills [1]",
    "Send them within 30 days of discharge [1]",
    "Claims are settled within 30 days of receiving the last document [1]",
)
QUESTION = "How are reimbursement claims settled?"


def reply(messages: list[dict[str, str]]) -> str:
    if "Classify" in messages[0]["content"]:
        return "lookup"
    return "".join(f"- {b}\n" for b in BULLETS)


@pytest.fixture
def model() -> Iterator[FakeOpenAI]:
    with fake_openai(reply, delay_s=0.2, piece_interval_s=0.08) as llm:
        yield llm


def entity(posted: Posted, kind: str) -> dict[str, object]:
    [found] = [e for e in posted.activity.get("entities") or [] if e.get("type") == kind]
    return found


def test_a_personal_chat_sees_the_answer_written_then_finished_with_citations(
    start_bot: BotFactory, model: FakeOpenAI
) -> None:
    with start_bot(OPENAI_BASE_URL=model.base_url) as bot:
        question = teams.message(bot.connector.url, QUESTION)
        response = bot.post(question)
        [final] = bot.connector.wait_for_messages(1)
        stored = bot.stored_answers()
        [(stream_id, parts)] = bot.connector.streams.items()
        feedback = teams.feedback_invoke(
            bot.connector.url, teams.personal(), stream_id, reaction="dislike", text="too vague"
        )
        assert bot.post(feedback).status_code == 200
        [rating] = bot.services.feedback.for_answer(stored[0]["id"])

    assert response.status_code == 200
    informative, *updates, last = parts
    assert last is final
    assert informative.type == "typing" and informative.text == INFORMATIVE
    assert entity(informative, "streaminfo") == {
        "type": "streaminfo",
        "streamType": "informative",
        "streamSequence": 1,
    }
    # the bullets arrived while the model wrote them, each update with the text so far
    assert len(updates) >= 2
    sequences = [entity(u, "streaminfo")["streamSequence"] for u in updates]
    assert sequences == list(range(2, 2 + len(updates)))
    assert all(entity(u, "streaminfo")["streamId"] == stream_id for u in updates)
    assert updates[0].text.startswith("- Submit") and BULLETS[2] not in updates[0].text
    assert f"- {BULLETS[0]}\n" in updates[-1].text  # settled while the rest was written
    for earlier, later in itertools.pairwise(updates):
        assert later.text.startswith(earlier.text.rsplit("\n", 1)[0])  # nothing taken back
    # the finished answer closes the stream, with what only a final message may carry
    assert entity(final, "streaminfo") == {
        "type": "streaminfo",
        "streamId": stream_id,
        "streamType": "final",
    }
    message = entity(final, "https://schema.org/Message")
    assert message["additionalType"] == ["AIGeneratedContent"] and message["citation"]
    assert final.activity["channelData"]["feedbackLoopEnabled"] is True
    assert all(re.sub(r" \[1\]$", "", b) in final.text for b in BULLETS)
    assert re.search(r"Confidence: \*\*(High|Medium|Low)\*\*", final.text)
    # the message is the stream, and rating it rates the stored answer
    assert final.id == stream_id
    assert (rating.signal, rating.rating, rating.reason) == ("feedback:dislike", -1, "too vague")
    assert bot.connector.typing == [] or all(
        bot.connector.posted.index(t) < bot.connector.posted.index(informative)
        for t in bot.connector.typing
    )  # "typing…" stops once the answer shows itself


def test_streaming_updates_keep_to_about_one_a_second(
    start_bot: BotFactory, model: FakeOpenAI
) -> None:
    with start_bot(OPENAI_BASE_URL=model.base_url) as bot:
        bot.post(teams.message(bot.connector.url, QUESTION))
        bot.connector.wait_for_messages(1)
        [parts] = bot.connector.streams.values()

    updates = [p for p in parts if entity(p, "streaminfo")["streamType"] == "streaming"]
    gaps = [b.at - a.at for a, b in itertools.pairwise(updates)]
    assert gaps and min(gaps) >= 0.9


def test_channels_and_group_chats_get_one_finished_message(
    start_bot: BotFactory, model: FakeOpenAI
) -> None:
    with start_bot(OPENAI_BASE_URL=model.base_url) as bot:
        bot.post(teams.channel_mention(bot.connector.url, QUESTION))
        group = teams.channel_mention(bot.connector.url, QUESTION)
        group["conversation"] = {"conversationType": "groupChat", "id": "19:group@thread.v2"}
        bot.post(group)
        replies = bot.connector.wait_for_messages(2)

    assert bot.connector.streams == {}
    assert all(p.stream is None for p in bot.connector.posted)
    for posted in replies:
        assert all(re.sub(r" \[1\]$", "", b) in posted.text for b in BULLETS)


def test_where_teams_refuses_to_stream_the_answer_comes_as_one_message(
    start_bot: BotFactory, model: FakeOpenAI
) -> None:
    with start_bot(OPENAI_BASE_URL=model.base_url) as bot:
        bot.connector.refuse_streaming()
        bot.post(teams.message(bot.connector.url, QUESTION))
        [answer] = bot.connector.wait_for_messages(1)
        stored = bot.stored_answers()

    refused = [p for p in bot.connector.posted if p.stream is not None]
    assert refused and all(p.status == 403 for p in refused)
    assert answer.stream is None
    assert all(re.sub(r" \[1\]$", "", b) in answer.text for b in BULLETS)
    assert entity(answer, "https://schema.org/Message")["citation"]
    assert len(stored) == 1


def test_quoted_answers_are_not_streamed(start_bot: BotFactory) -> None:
    with start_bot() as bot:  # no language model
        bot.post(teams.message(bot.connector.url, QUESTION))
        [answer] = bot.connector.wait_for_messages(1)

    assert bot.connector.streams == {} and answer.stream is None
    assert "30 days" in answer.text


def test_a_stream_refused_midway_still_ends_with_the_whole_answer(
    start_bot: BotFactory, model: FakeOpenAI
) -> None:
    with start_bot(OPENAI_BASE_URL=model.base_url) as bot:
        bot.connector.refuse_streaming(after=2)  # e.g. past Teams' two minutes
        bot.post(teams.message(bot.connector.url, QUESTION))
        [answer] = bot.connector.wait_for_messages(1)

        def delivered() -> int | None:  # recorded once the post returns, just after it shows
            return bot.services.answers.answer_for_message(
                platform="teams", channel=teams.PERSONAL_CHAT, message_id=answer.id
            )

        bot.connector.wait_for(lambda: delivered() is not None)
        [stored] = bot.stored_answers()
        delivered_id = delivered()

    [(_, accepted)] = bot.connector.streams.items()
    assert [p.type for p in accepted] == ["typing", "typing"]  # informative, one update
    assert answer.stream is None  # an ordinary message, not the refused final
    assert all(re.sub(r" \[1\]$", "", b) in answer.text for b in BULLETS)
    assert delivered_id == stored["id"]  # ratings on it find the answer
