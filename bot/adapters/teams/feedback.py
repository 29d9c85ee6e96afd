"""Ratings from Teams into the shared feedback store, tied to the answer they rate.

Two ways in: message reactions on the bot's answer (👍 ❤️ good, 😢 😠 bad; taking one back
removes it) and Teams' built-in feedback buttons, which arrive as a `message/submitAction`
invoke carrying thumbs up/down and the user's free-text reason."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from bot.adapters.teams.incoming import PLATFORM, split_conversation, user_id
from bot.adapters.teams.workers import Workers
from bot.wiring import Services

log = logging.getLogger(__name__)

REACTION_RATINGS = {"like": 1, "heart": 1, "sad": -1, "angry": -1}
BUTTON_RATINGS = {"like": 1, "dislike": -1}
SUBMIT_ACTION = "message/submitAction"


@dataclass(frozen=True)
class ButtonFeedback:
    rating: int
    signal: str
    reason: str | None


async def apply_reactions(services: Services, activity: Any, *, workers: Workers) -> int | None:
    """Store the ratings; the answer's id when this rated it down (it escalates)."""
    return await workers.run(_apply_reactions, services, activity)


def _apply_reactions(services: Services, activity: Any) -> int | None:
    answer_id = _answer_for(services, activity)
    if answer_id is None:
        return None
    user = user_id(activity)
    rated_down = False
    for reaction in activity.reactions_removed or []:  # a changed reaction: old one out first
        if reaction.type in REACTION_RATINGS:
            services.feedback.unrate(
                answer_id=answer_id, platform=PLATFORM, user_id=user, signal=reaction.type
            )
    for reaction in activity.reactions_added or []:
        rating = REACTION_RATINGS.get(reaction.type)
        if rating is not None:
            stored = services.feedback.rate(
                answer_id=answer_id,
                platform=PLATFORM,
                user_id=user,
                signal=reaction.type,
                rating=rating,
            )
            rated_down = rated_down or (stored and rating < 0)
    return answer_id if rated_down else None


def button_feedback(value: Any) -> ButtonFeedback | None:
    """Read `{"actionName": "feedback", "actionValue": {"reaction": "like"|"dislike",
    "feedback": "{\\"feedbackText\\": \\"…\\"}"}}`; None when it is not that shape."""
    if not isinstance(value, dict) or value.get("actionName") != "feedback":
        return None
    action = value.get("actionValue")
    if not isinstance(action, dict) or not isinstance(action.get("reaction"), str):
        return None
    if action["reaction"] not in BUTTON_RATINGS:
        return None
    reaction = action["reaction"]
    return ButtonFeedback(
        rating=BUTTON_RATINGS[reaction],
        signal=f"feedback:{reaction}",
        reason=_reason(action.get("feedback")),
    )


async def apply_button(
    services: Services, activity: Any, feedback: ButtonFeedback, *, workers: Workers
) -> int | None:
    """Store the rating (and reason); the rated answer's id, None when the message is not
    one of our answers."""
    return await workers.run(_apply_button, services, activity, feedback)


def _apply_button(services: Services, activity: Any, feedback: ButtonFeedback) -> int | None:
    answer_id = _answer_for(services, activity)
    if answer_id is None:
        return None
    user = user_id(activity)
    services.feedback.rate(
        answer_id=answer_id,
        platform=PLATFORM,
        user_id=user,
        signal=feedback.signal,
        rating=feedback.rating,
    )
    if feedback.reason:
        services.feedback.set_reason(
            answer_id=answer_id, platform=PLATFORM, user_id=user, reason=feedback.reason
        )
    return answer_id


def _answer_for(services: Services, activity: Any) -> int | None:
    if not activity.reply_to_id or activity.conversation is None:
        return None
    conversation, _ = split_conversation(activity.conversation.id or "")
    answer_id = services.answers.answer_for_message(
        platform=PLATFORM, channel=conversation, message_id=str(activity.reply_to_id)
    )
    if answer_id is None:
        log.info(
            "teams: %s on message %s, which is not a stored answer; ignored",
            activity.type,
            activity.reply_to_id,
        )
    return answer_id


def _reason(raw: Any) -> str | None:
    """Teams sends the reason as a JSON string inside the JSON; take plain text as it is."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return raw.strip() or None
    if isinstance(raw, dict):
        raw = raw.get("feedbackText")
    if isinstance(raw, str):
        return raw.strip() or None
    return None
