"""The rule for turning a reaction into a rating, shared by every chat adapter: only
reactions by people, on messages that carry a bot answer young enough to still count."""

from __future__ import annotations

from collections.abc import Collection

from bot.store.answers import AnswerStore
from bot.store.feedback import FeedbackStore


class Reactions:
    def __init__(self, *, answers: AnswerStore, feedback: FeedbackStore) -> None:
        self._answers = answers
        self._feedback = feedback

    def rate_message(
        self,
        *,
        platform: str,
        channel: str,
        message_id: str,
        user_id: str,
        signal: str,
        rating: int,
        bot_user_ids: Collection[str] = (),
    ) -> int | None:
        """The rated answer's id, or None when the reaction is ignored: it came from the bot
        itself, the message is not a bot answer, or the answer is older than ratings are
        kept for (see FeedbackStore)."""
        if user_id in bot_user_ids:
            return None
        answer_id = self._answers.answer_for_message(
            platform=platform, channel=channel, message_id=message_id
        )
        if answer_id is None:
            return None
        stored = self._feedback.rate(
            answer_id=answer_id, platform=platform, user_id=user_id, signal=signal, rating=rating
        )
        return answer_id if stored else None

    def unrate_message(
        self, *, platform: str, channel: str, message_id: str, user_id: str, signal: str
    ) -> bool:
        answer_id = self._answers.answer_for_message(
            platform=platform, channel=channel, message_id=message_id
        )
        if answer_id is None:
            return False
        return self._feedback.unrate(
            answer_id=answer_id, platform=platform, user_id=user_id, signal=signal
        )
