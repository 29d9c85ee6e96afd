"""Answering one Teams message within Teams' patience.

Teams stops waiting for the bot's HTTP response after about 15 s. The reply work runs as
its own task; the request waits for it only until the user has been told something, and
never past `TeamsOptions.release_after_s`. While the pipeline works "typing…" shows; if it
takes longer than `still_working_after_s`, a short "still working" reply goes out (and the
request ends) and the answer follows in the same place when ready. Slow connector retries
likewise carry on after the request has ended. The delivered message is recorded so
ratings on it find their answer."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from bot.adapters.drafts import DraftFeed, wind_down
from bot.adapters.teams.delivery import send, typing
from bot.adapters.teams.incoming import PLATFORM, Message
from bot.adapters.teams.live import TeamsLive
from bot.adapters.teams.options import TeamsOptions
from bot.adapters.teams.people import TeamsPeople
from bot.adapters.teams.render import (
    ATTACHMENTS_ONLY,
    FAILED,
    FORGOTTEN,
    STILL_WORKING,
    TEAMS_CHANNEL,
    answer_activity,
    notice_activity,
)
from bot.adapters.teams.workers import Workers
from bot.conversation.types import Answer
from bot.wiring import Services
from knowledge.models.deadline import Deadline

log = logging.getLogger(__name__)

FORGET = re.compile(r"^\s*forget (?:this|the) (?:thread|conversation|chat)\W*$", re.IGNORECASE)

Pending = asyncio.Future[Answer | None]
Reply = Callable[[Any, Message, "Told"], Awaitable[None]]


class ReplyTasks:
    """Replies in progress, some outliving their HTTP request; drained on shutdown."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def drain(self, timeout: float) -> None:
        if not self._tasks:
            return
        _, pending = await asyncio.wait(set(self._tasks), timeout=timeout)
        for task in pending:
            log.warning("teams: shutting down with a reply still undelivered; cancelled")
            task.cancel()


class Told(asyncio.Event):
    """Set once the user has been told something; carries the reply's deadline."""

    def __init__(self, deadline: Deadline) -> None:
        super().__init__()
        self.deadline = deadline


class Answering:
    def __init__(
        self, services: Services, options: TeamsOptions, tasks: ReplyTasks, workers: Workers
    ) -> None:
        self._services = services
        self._options = options
        self._tasks = tasks
        self._workers = workers
        self._people = TeamsPeople(services.readers, workers)

    async def handle(self, context: Any, message: Message) -> None:
        """Reply to the message; return once the user has been told something, or at the
        latest when Teams' patience runs short (the reply then carries on by itself)."""
        reply: Reply
        if FORGET.match(message.text):
            reply = self._claimed(self._forget)
        elif not message.text and message.has_attachments:
            reply = self._claimed(self._attachments_only)
        else:
            reply = self._answer
        told = Told(Deadline.after(self._services.settings.answer_deadline_s))
        task = self._tasks.start(self._reply(reply, context, message, told))
        waiting = asyncio.ensure_future(told.wait())
        await asyncio.wait(
            {task, waiting},
            timeout=self._options.release_after_s,
            return_when=asyncio.FIRST_COMPLETED,
        )
        waiting.cancel()
        if not task.done() and not told.is_set():
            log.warning("teams: reply to %s still under way; ending the request", message.event_id)

    async def _reply(self, reply: Reply, context: Any, message: Message, told: Told) -> None:
        try:
            await reply(context, message, told)
        except Exception:
            log.exception("teams: replying to activity %s failed", message.message_id)

    async def _answer(self, context: Any, message: Message, told: Told) -> None:
        run = self._workers.run
        settings = await run(self._services.channels.get, PLATFORM, message.channel)
        log.info("teams: question in %s (thread %s)", message.channel, message.thread.thread)
        asker = None  # in a channel or group chat only what everyone may read is shown
        if message.personal:
            asker = await self._people.reader(context, message)
        turn = message.turn(settings.scopes, asker)
        live = self._live(context, message, told)
        feed = DraftFeed(asyncio.get_running_loop()) if live else None
        work = asyncio.ensure_future(run(self._services.pipeline.answer_now, turn, drafts=feed))
        following = asyncio.ensure_future(live.follow(feed)) if live and feed else None
        streamed = live.started if live else None
        async with typing(context, options=self._options, until=streamed):
            await asyncio.wait({work}, timeout=self._options.still_working_after_s)
            if not work.done() and not (streamed and streamed.is_set()):
                await self._notice(context, STILL_WORKING, told.deadline)
                told.set()
            await asyncio.wait({work})
        if feed and following:
            feed.close()
            await wind_down(following, what=f"teams: the draft for {message.message_id}")
        await self._deliver(context, message, work, told.deadline, live)

    def _live(self, context: Any, message: Message, told: Told) -> TeamsLive | None:
        """Where a model's answer streams: Teams personal chats only (channels and group
        chats get one finished message, as Teams allows), and only with a model."""
        settings = self._services.settings
        wanted = settings.streaming and settings.llm_configured and message.personal
        if not (wanted and context.activity.channel_id == TEAMS_CHANNEL):
            return None
        # the informative update tells the user: the HTTP request may end then
        return TeamsLive(context, self._options, told.deadline, on_started=told.set)

    async def _deliver(
        self,
        context: Any,
        message: Message,
        work: Pending,
        deadline: Deadline,
        live: TeamsLive | None = None,
    ) -> None:
        try:
            answer = work.result()
        except Exception:
            log.exception("teams: answering activity %s failed", message.message_id)
            failed = notice_activity(FAILED)
            if live is None or await live.finish(failed) is None:
                await self._notice(context, FAILED, deadline)
            return
        if answer is None:  # a redelivery of an activity already being answered
            log.info("teams: activity %s was already answered", message.message_id)
            return
        experts = await self._workers.run(
            self._services.escalator.experts_for, PLATFORM, message.channel
        )
        reply = answer_activity(
            answer, channel_id=context.activity.channel_id, escalate=bool(experts)
        )
        sent = await live.finish(reply) if live else None
        if sent is None:
            sent = await send(
                context, reply, options=self._options, what="answer", deadline=deadline
            )
        if sent:
            await self._workers.run(
                self._services.answers.record_delivery,
                answer.id,
                platform=PLATFORM,
                channel=message.conversation,
                message_id=sent,
            )

    def _claimed(self, action: Reply) -> Reply:
        """Replies that skip the pipeline still claim the event, so a redelivery is silent."""

        async def once(context: Any, message: Message, told: Told) -> None:
            claims = self._services.events
            if await self._workers.run(claims.claim, PLATFORM, message.event_id):
                await action(context, message, told)

        return once

    async def _forget(self, context: Any, message: Message, told: Told) -> None:
        removed = await self._workers.run(self._services.threads.forget, message.thread)
        log.info("teams: forgot %d turns of thread %s", removed, message.thread.thread)
        await self._notice(context, FORGOTTEN, told.deadline)

    async def _attachments_only(self, context: Any, message: Message, told: Told) -> None:
        await self._notice(context, ATTACHMENTS_ONLY, told.deadline)

    async def _notice(self, context: Any, text: str, deadline: Deadline) -> None:
        activity = notice_activity(text)
        await send(context, activity, options=self._options, what="notice", deadline=deadline)
