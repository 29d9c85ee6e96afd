"""The sign that the bot is at work on a question, shown at once and taken back when the
answer is posted: the AI-app thread status where Slack offers it, else an hourglass reaction
on the question."""

from __future__ import annotations

from dataclasses import dataclass

from bot.adapters.slack.config import WORKING_REACTION, WORKING_STATUS
from bot.adapters.slack.events import Question
from bot.adapters.slack.posting import SlackPoster


@dataclass(frozen=True)
class Shown:
    kind: str  # "status" | "reaction" | "" (nothing of ours to take back)


class WorkingIndicator:
    def __init__(self, poster: SlackPoster) -> None:
        self._poster = poster

    async def show(self, question: Question) -> Shown:
        q = question
        if q.direct and q.thread_ts:  # the AI-app surface keeps every conversation in a thread
            shown = await self._poster.set_status(
                channel=q.channel, thread_ts=q.thread_ts, status=WORKING_STATUS, event_id=q.event_id
            )
            if shown:
                return Shown("status")
        added = await self._poster.react(
            channel=q.channel, ts=q.ts, name=WORKING_REACTION, event_id=q.event_id
        )
        # Not added means it is there already: a redelivery while the first delivery works.
        return Shown("reaction" if added else "")

    async def clear(self, question: Question, shown: Shown) -> None:
        q = question
        if shown.kind == "status" and q.thread_ts:
            await self._poster.set_status(
                channel=q.channel, thread_ts=q.thread_ts, status="", event_id=q.event_id
            )
        elif shown.kind == "reaction":
            await self._poster.unreact(
                channel=q.channel, ts=q.ts, name=WORKING_REACTION, event_id=q.event_id
            )
