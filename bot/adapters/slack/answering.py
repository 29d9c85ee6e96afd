"""A question, after the ack: decide whether it is for the bot, answer it through the
pipeline, post the answer in its thread, and mark it with its confidence."""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import Executor

from bot.adapters.slack.blocks import SlackMessage, answer_message
from bot.adapters.slack.config import CONFIDENCE_REACTIONS, PLATFORM, SlackOptions
from bot.adapters.slack.events import Question
from bot.adapters.slack.posting import SlackPoster
from bot.adapters.slack.working import Shown, WorkingIndicator
from bot.conversation.types import Answer
from bot.wiring import Services

log = logging.getLogger(__name__)

CANNOT_ANSWER = (
    "Sorry, I can't answer right now: my knowledge service is not reachable. "
    "Please try again in a few minutes."
)
FORGOTTEN = "Done: I have forgotten this conversation. My next answer here starts afresh."


class Answering:
    """`executor` runs the pipeline. It is the bot's own, not asyncio's default pool (CPU
    count + 4 threads): an answer spends most of its time waiting on the model, and with the
    default pool the seventh question in flight would wait for one of the first six."""

    def __init__(
        self,
        services: Services,
        poster: SlackPoster,
        options: SlackOptions,
        *,
        executor: Executor | None = None,
    ) -> None:
        self._services = services
        self._poster = poster
        self._options = options
        self._executor = executor
        self._working = WorkingIndicator(poster)

    async def handle(self, question: Question) -> None:
        """Never raises: a person who asked gets an answer or a short apology, not silence."""
        q = question
        try:
            scopes = await self._scopes_if_wanted(q)
            if scopes is None:
                return
            if q.is_forget:
                await self._forget(q)
            else:
                await self._answer(q, scopes)
        except Exception:
            log.exception("event %s: could not answer the message in %s", q.event_id, q.channel)
            if q.direct or q.mentioned:  # a maybe-follow-up is not worth an apology
                await self._say(q, CANNOT_ANSWER)

    async def _scopes_if_wanted(self, q: Question) -> tuple[str, ...] | None:
        """The channel's scopes, or None when the message is not for the bot: a thread
        message without a mention counts only in a thread the bot has answered in, and only
        where the channel does not require mentions."""
        channel = await asyncio.to_thread(self._services.channels.get, PLATFORM, q.channel)
        if q.direct or q.mentioned:
            return channel.scopes
        if not q.is_reply or channel.require_mention:
            return None
        known = await asyncio.to_thread(self._services.threads.exists, q.ref)
        return channel.scopes if known else None

    async def _answer(self, q: Question, scopes: tuple[str, ...]) -> None:
        shown = await self._working.show(q)
        try:
            answer = await asyncio.get_running_loop().run_in_executor(
                self._executor, self._services.pipeline.answer_now, q.turn(scopes)
            )
        except Exception:
            log.exception("event %s: the answer pipeline failed", q.event_id)
            await self._working.clear(q, shown)
            await self._say(q, CANNOT_ANSWER)
            return
        if answer is None:  # a redelivery of an event already being (or been) answered
            log.info("event %s: already claimed; not answering again", q.event_id)
            await self._working.clear(q, shown)
            return
        await self._deliver(q, answer, shown)

    async def _deliver(self, q: Question, answer: Answer, shown: Shown) -> None:
        message = answer_message(answer, rate_hint=self._options.hint)
        ts = await self._poster.post(
            channel=q.channel, thread_ts=q.reply_thread, message=message, event_id=q.event_id
        )
        await self._working.clear(q, shown)
        if ts is None:
            log.error("event %s: answer %s is stored; Slack did not take it", q.event_id, answer.id)
            return
        try:  # the answer is out: a failure from here on must not add an apology
            await asyncio.to_thread(
                self._services.answers.record_delivery,
                answer.id,
                platform=PLATFORM,
                channel=q.channel,
                message_id=ts,
            )
        except Exception:
            log.exception("event %s: could not record where answer %s went", q.event_id, answer.id)
        await self._poster.react(
            channel=q.channel,
            ts=ts,
            name=CONFIDENCE_REACTIONS[answer.confidence],
            event_id=q.event_id,
        )

    async def _forget(self, q: Question) -> None:
        if not await asyncio.to_thread(self._services.events.claim, PLATFORM, q.event_id):
            return
        removed = await asyncio.to_thread(self._services.threads.forget, q.ref)
        log.info("event %s: forgot %d turns of %s", q.event_id, removed, q.ref)
        await self._say(q, FORGOTTEN)

    async def _say(self, q: Question, text: str) -> None:
        await self._poster.post(
            channel=q.channel,
            thread_ts=q.reply_thread,
            message=SlackMessage(text=text),
            event_id=q.event_id,
        )
