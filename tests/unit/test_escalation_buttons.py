"""Which answers offer the experts and which offer the normal answer instead, in Slack and
Teams; and which askings count as the same question."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from bot.adapters.slack.blocks import answer_message
from bot.adapters.slack.config import ESCALATE_ACTION, NOT_VERIFIED_ACTION
from bot.adapters.teams.render import TEAMS_CHANNEL, answer_activity
from bot.conversation.types import Answer, Confidence
from bot.conversation.verified import VerifiedAnswer
from bot.verified.escalation import question_key
from tests.unit.test_verified_reply import reply

VERIFIED = VerifiedAnswer(4, "hr", "q", "a", "Ana", datetime(2026, 11, 20, tzinfo=UTC))


def plain(confidence: Confidence) -> Answer:
    return replace(reply(), id=9, verified=None, confidence=confidence, model="extractive")


def slack_actions(answer: Answer, *, escalate: bool) -> list[str]:
    blocks = answer_message(answer, escalate=escalate).blocks
    return [e["action_id"] for b in blocks if b["type"] == "actions" for e in b["elements"]]


def teams_actions(answer: Answer, *, escalate: bool) -> list[str]:
    activity = answer_activity(answer, channel_id=TEAMS_CHANNEL, escalate=escalate)
    return [
        a["data"]["knowbot"]
        for attachment in activity.attachments or []
        for a in attachment.content.get("actions", [])
    ]


def test_answers_short_of_high_offer_an_expert_only_where_the_channel_escalates() -> None:
    for level in (Confidence.MEDIUM, Confidence.LOW):
        assert slack_actions(plain(level), escalate=True) == [ESCALATE_ACTION]
        assert teams_actions(plain(level), escalate=True) == ["escalate"]
        assert slack_actions(plain(level), escalate=False) == []
        assert teams_actions(plain(level), escalate=False) == []
    assert slack_actions(plain(Confidence.HIGH), escalate=True) == []
    assert teams_actions(plain(Confidence.HIGH), escalate=True) == []


def test_a_verified_answer_offers_the_normal_answer_with_or_without_experts() -> None:
    served = replace(reply(), id=9)
    for escalate in (True, False):
        assert slack_actions(served, escalate=escalate) == [NOT_VERIFIED_ACTION]
        assert teams_actions(served, escalate=escalate) == ["not_verified"]


def test_the_same_question_differently_typed_is_one_question() -> None:
    assert question_key("What is the PED waiting-period?") == question_key(
        "what is the  PED waiting period"
    )
    assert question_key("What is the PED waiting period?") != question_key("What is PED?")
