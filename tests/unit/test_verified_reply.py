"""A verified answer as the reply: the person's words with their sources, at High, marked as
theirs and never labelled AI-generated."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.adapters.console import answer_json, console_turn
from bot.adapters.teams.render import TEAMS_CHANNEL, answer_activity
from bot.conversation.types import Confidence
from bot.conversation.verified import VerifiedAnswer, VerifiedSource
from bot.conversation.verified_reply import verified_reply

VERIFIED = VerifiedAnswer(
    id=4,
    scope="hr",
    question="Can I carry over annual leave?",
    answer="Yes, up to five days.\n\nAsk HR for more.",
    author="Ana Lima",
    verified_at=datetime(2026, 11, 20, 9, 30, tzinfo=UTC),
    sources=(VerifiedSource(title="Leave policy", url="https://intranet.example/leave"),),
)


def reply():  # type: ignore[no-untyped-def]
    turn = console_turn("can leave carry over?", thread="t", scopes=("hr",))
    return verified_reply(
        turn,
        question="can leave carry over?",
        rewritten="can annual leave carry over?",
        expansions=(),
        verified=VERIFIED,
        timings_ms={},
    )


def test_the_reply_is_the_persons_answer_at_high_with_its_sources() -> None:
    answer = reply()
    assert [b.render() for b in answer.bullets] == [
        "Yes, up to five days. [1]",
        "Ask HR for more. [1]",
    ]
    assert answer.confidence == Confidence.HIGH and answer.scores.failed() == []
    assert answer.notice == "Verified by Ana Lima on 2026-11-20."
    assert answer.sources[0].url == "https://intranet.example/leave"
    shown = answer_json(answer)["verified"]
    assert shown == {
        "id": 4,
        "question": VERIFIED.question,
        "author": "Ana Lima",
        "verified_at": "2026-11-20T09:30:00+00:00",
        "scope": "hr",
    }


def test_in_teams_it_cites_its_sources_and_is_not_labelled_ai_generated() -> None:
    activity = answer_activity(reply(), channel_id=TEAMS_CHANNEL)
    [entity] = activity.entities
    fields = entity.additional_properties
    assert "additionalType" not in fields
    assert fields["citation"][0]["appearance"]["name"] == "Leave policy"
    assert "Verified by Ana Lima" in activity.text
