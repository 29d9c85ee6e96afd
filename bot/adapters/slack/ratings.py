"""Emoji on an answer are ratings: stored per user, removed with the emoji, and a thumbs-down
earns a private "what was wrong?" with buttons whose choice is stored as the reason. Which
reactions count is shared with the other adapters (`services.reactions`); which emoji mean
what is Slack's own (SlackOptions).

The feedback buttons under an answer land in the same store, one rating per user per
answer: the latest click or emoji wins (Slack sends no event when a button is clicked
again to take it back, so a click is never undone, only replaced)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from bot.adapters.slack.blocks import reason_message
from bot.adapters.slack.config import FEEDBACK_RATINGS, PLATFORM, REASONS, SlackOptions
from bot.adapters.slack.escalating import SlackEscalating
from bot.adapters.slack.events import FeedbackClick, Reaction
from bot.adapters.slack.posting import SlackPoster
from bot.wiring import Services

log = logging.getLogger(__name__)

Respond = Callable[..., Awaitable[object]]
REASON_LABELS = dict(REASONS)


class Ratings:
    def __init__(
        self,
        services: Services,
        poster: SlackPoster,
        options: SlackOptions,
        *,
        bot_user_ids: tuple[str, ...],
        escalating: SlackEscalating | None = None,
    ) -> None:
        self._services = services
        self._poster = poster
        self._options = options
        self._bot_user_ids = bot_user_ids  # its own emoji (hourglass, confidence) are no rating
        self._escalating = escalating  # a rating down reaches the experts

    async def added(self, reaction: Reaction) -> None:
        rating = self._options.rating_for(reaction.name)
        if rating is None:
            return
        answer_id = await asyncio.to_thread(
            self._services.reactions.rate_message,  # the rule every adapter shares
            platform=PLATFORM,
            channel=reaction.channel,
            message_id=reaction.ts,
            user_id=reaction.user,
            signal=reaction.name,
            rating=rating,
            bot_user_ids=self._bot_user_ids,
        )
        if answer_id is None or rating > 0:
            return
        # Ask once per reaction event, however often Slack delivers it.
        if await asyncio.to_thread(self._services.events.claim, PLATFORM, reaction.event_id):
            await self._ask_why(reaction.channel, reaction.user, reaction.event_id, answer_id)
            await self._escalate(answer_id, reaction.user, rating, reaction.event_id)

    async def clicked(self, click: FeedbackClick) -> None:
        """A feedback button: the same rating as an emoji, signal `feedback_buttons:<value>`."""
        rating = FEEDBACK_RATINGS.get(click.value)
        if rating is None:
            log.warning("ignoring a feedback button with value %r", click.value)
            return
        answer_id = await asyncio.to_thread(
            self._services.reactions.rate_message,
            platform=PLATFORM,
            channel=click.channel,
            message_id=click.ts,
            user_id=click.user,
            signal=f"feedback_buttons:{click.value}",
            rating=rating,
            bot_user_ids=self._bot_user_ids,
        )
        if answer_id is not None and rating < 0:
            await self._ask_why(click.channel, click.user, f"click {click.action_ts}", answer_id)
            await self._escalate(answer_id, click.user, rating, f"click {click.action_ts}")

    async def removed(self, reaction: Reaction) -> None:
        if self._options.rating_for(reaction.name) is None:
            return
        await asyncio.to_thread(
            self._services.reactions.unrate_message,
            platform=PLATFORM,
            channel=reaction.channel,
            message_id=reaction.ts,
            user_id=reaction.user,
            signal=reaction.name,
        )

    async def reason(self, *, value: str, user: str, respond: Respond) -> None:
        """A button from the private question: `value` is "<answer id>:<reason>"."""
        answer_id, _, reason = value.partition(":")
        if not answer_id.isdigit() or reason not in REASON_LABELS:
            log.warning("ignoring a reason button with value %r", value)
            return
        stored = await asyncio.to_thread(
            self._services.feedback.set_reason,
            answer_id=int(answer_id),
            platform=PLATFORM,
            user_id=user,
            reason=reason,
        )
        if stored and self._escalating is not None:
            await self._escalating.reason(answer_id=int(answer_id), user=user, reason=reason)
        text = (
            f"Thanks: noted as *{REASON_LABELS[reason]}*."
            if stored
            else "Your rating of that answer was removed, so there is nothing to note."
        )
        await respond(text=text, replace_original=True)

    async def _escalate(self, answer_id: int, user: str, rating: int, event_id: str) -> None:
        if self._escalating is not None:
            await self._escalating.rated_down(
                answer_id=answer_id, user=user, rating=rating, event_id=event_id
            )

    async def _ask_why(self, channel: str, user: str, event_id: str, answer_id: int) -> None:
        where = await asyncio.to_thread(self._services.answers.thread_of, answer_id)
        thread_ts = where.thread if where and where.thread != where.channel else None
        await self._poster.ephemeral(
            channel=channel,
            user=user,
            thread_ts=thread_ts,
            message=reason_message(answer_id),
            event_id=event_id,
        )
