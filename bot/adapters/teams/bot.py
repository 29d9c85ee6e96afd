"""The Teams bot: routes each activity type to the part of the adapter that handles it.

Invokes: `message/submitAction` (Teams' feedback buttons) is handled; every other invoke
name is acknowledged with HTTP 200 and no body and otherwise ignored. The Bot Framework
Activity spec says receivers MUST ignore invoke activities whose name they do not
understand (A5402); botbuilder's default, 501, reads as a server failure to Teams and to
monitoring, and `adaptiveCard/action` made it fail outright (its response object is not
JSON serialisable). The bot's own cards use Action.Submit, which Teams sends back as a
message activity carrying the button's data, not as an invoke."""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from botbuilder.core import ActivityHandler, InvokeResponse

from bot.adapters.teams.answering import Answering
from bot.adapters.teams.escalating import TeamsEscalating, card_action
from bot.adapters.teams.feedback import (
    SUBMIT_ACTION,
    apply_button,
    apply_reactions,
    button_feedback,
)
from bot.adapters.teams.incoming import addressed_message
from bot.adapters.teams.workers import Workers
from bot.wiring import Services

log = logging.getLogger(__name__)


class KnowbotTeamsBot(ActivityHandler):
    def __init__(
        self,
        services: Services,
        answering: Answering,
        workers: Workers,
        escalating: TeamsEscalating | None = None,
    ) -> None:
        self._services = services
        self._answering = answering
        self._workers = workers
        self._escalating = escalating or TeamsEscalating(services, workers)

    async def on_message_activity(self, turn_context: Any) -> None:
        activity = turn_context.activity
        clicked = card_action(activity)
        if clicked is not None:  # a button on one of our cards (Action.Submit)
            await self._escalating.clicked(activity, clicked)
            return
        message = addressed_message(activity)
        if message is None:
            log.debug("teams: message %s is not for the bot", activity.id)
            return
        if await self._escalating.thread_reply(message, activity):
            return  # an expert's reply to an escalation, not a question
        await self._answering.handle(turn_context, message)

    async def on_message_reaction_activity(self, turn_context: Any) -> None:
        activity = turn_context.activity
        rated_down = await apply_reactions(self._services, activity, workers=self._workers)
        if rated_down is not None:
            await self._escalating.rated_down(activity, rated_down)

    async def on_invoke_activity(self, turn_context: Any) -> Any:
        activity = turn_context.activity
        if activity.name != SUBMIT_ACTION:
            log.info("teams: ignoring invoke %r (not one this bot handles)", activity.name)
            return InvokeResponse(status=int(HTTPStatus.OK), body=None)
        feedback = button_feedback(activity.value)
        if feedback is None:
            log.warning("teams: unreadable feedback in invoke %s: %r", activity.id, activity.value)
            return InvokeResponse(status=int(HTTPStatus.BAD_REQUEST))
        answer_id = await apply_button(self._services, activity, feedback, workers=self._workers)
        if answer_id is not None and feedback.rating < 0:
            await self._escalating.rated_down(activity, answer_id)
        # body=None: botbuilder's CloudAdapter cannot serialise a dict body here (HTTP 500)
        return InvokeResponse(status=int(HTTPStatus.OK), body=None)
