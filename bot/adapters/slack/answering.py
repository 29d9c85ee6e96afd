"""A question, after the ack: decide whether it is for the bot, answer it through the
pipeline, post the answer in its thread, and mark it with its confidence."""

from __future__ import annotations

import asyncio
import functools
import logging
from concurrent.futures import Executor

from bot.adapters.drafts import DraftFeed, wind_down
from bot.adapters.slack.assistant import AssistantThreads
from bot.adapters.slack.blocks import SlackMessage, answer_message
from bot.adapters.slack.config import CONFIDENCE_REACTIONS, PLATFORM, SlackOptions
from bot.adapters.slack.events import Question
from bot.adapters.slack.live import SlackLive
from bot.adapters.slack.people import SlackPeople
from bot.adapters.slack.posting import SlackPoster, StreamTarget
from bot.adapters.slack.working import Shown, WorkingIndicator
from bot.conversation.types import Answer, Turn
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
        people: SlackPeople | None = None,
    ) -> None:
        self._services = services
        self._poster = poster
        self._options = options
        self._executor = executor
        self._people = people
        self._working = WorkingIndicator(poster)
        self._assistant = AssistantThreads(services, poster, options, people=people)

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

    async def answer_in(self, q: Question, scopes: tuple[str, ...]) -> None:
        """Answer `q` in its thread whatever was said before (a button asked for it)."""
        try:
            await self._answer(q, scopes)
        except Exception:
            log.exception("event %s: could not answer again in %s", q.event_id, q.channel)
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
        titled = asyncio.ensure_future(self._assistant.title(q))  # alongside the answer
        live = self._live(q)
        try:
            asker = await self._people.reader(q.user) if q.direct and self._people else None
            answer = await self._run(q.turn(scopes, asker), live)
        except Exception:
            log.exception("event %s: the answer pipeline failed", q.event_id)
            await self._working.clear(q, shown)
            if live is None or not await live.fail(SlackMessage(text=CANNOT_ANSWER)):
                await self._say(q, CANNOT_ANSWER)
            return
        finally:
            await wind_down(titled, what=f"event {q.event_id}: the thread title")
        if answer is None:  # a redelivery of an event already being (or been) answered
            log.info("event %s: already claimed; not answering again", q.event_id)
            await self._working.clear(q, shown)
            return
        await self._deliver(q, answer, shown, live)

    def _live(self, q: Question) -> SlackLive | None:
        """The message a model's answer streams into; None where nothing streams: no
        model (quoted answers come whole), streaming turned off, or no thread to stream
        into (a top-level direct message is answered in place)."""
        thread = q.reply_thread
        if not (self._options.streaming and self._services.settings.llm_configured and thread):
            return None
        target = StreamTarget(q.channel, thread, q.team, q.user, q.event_id)
        return SlackLive(self._poster, target, interval_s=self._options.stream_interval_s)

    async def _run(self, turn: Turn, live: SlackLive | None) -> Answer | None:
        """The pipeline on the answer pool; with `live`, its drafts stream meanwhile."""
        loop = asyncio.get_running_loop()
        pipeline = self._services.pipeline
        if live is None:
            return await loop.run_in_executor(self._executor, pipeline.answer_now, turn)
        feed = DraftFeed(loop)
        work = loop.run_in_executor(
            self._executor, functools.partial(pipeline.answer_now, turn, drafts=feed)
        )
        following = asyncio.ensure_future(live.follow(feed))
        try:
            return await work
        finally:
            feed.close()
            if not await wind_down(following, what=f"event {turn.event_id}: the draft"):
                live.interrupted()

    async def _deliver(
        self, q: Question, answer: Answer, shown: Shown, live: SlackLive | None
    ) -> None:
        hint = self._options.hint
        escalate = await asyncio.to_thread(
            self._services.escalator.experts_for, PLATFORM, q.channel
        )
        message = answer_message(answer, rate_hint=hint, escalate=bool(escalate))
        ts = (
            await live.finish(answer, message, rate_hint=hint, escalate=bool(escalate))
            if live
            else None
        )
        if ts is None:
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
