"""Slack's assistant threads (Agents & AI Apps, the split view): when the user opens one,
the questions it offers to ask; when the first question comes, the thread's title. In a
workspace without that view none of this happens, and plain threads and direct messages
are answered as before."""

from __future__ import annotations

import asyncio
import logging

from bot.adapters.slack.blocks import clip
from bot.adapters.slack.config import PLATFORM, SlackOptions
from bot.adapters.slack.events import OpenedThread, Question
from bot.adapters.slack.people import SlackPeople
from bot.adapters.slack.posting import SlackPoster
from bot.feedback.suggestions import suggested_questions
from bot.wiring import Services
from knowledge.access import Reader

log = logging.getLogger(__name__)

PROMPTS_TITLE = "Questions you could ask:"  # some are drawn from the rulebooks, not asked
PROMPT_LABEL_CHARS = 60  # the chip's label; the whole question is what is sent
TITLE_CHARS = 80


class AssistantThreads:
    def __init__(
        self,
        services: Services,
        poster: SlackPoster,
        options: SlackOptions,
        *,
        people: SlackPeople | None = None,
    ) -> None:
        self._services = services
        self._poster = poster
        self._options = options
        self._people = people

    async def opened(self, thread: OpenedThread) -> None:
        """Offer questions to start with (none when there is nothing worth offering): the
        thread is the user's own, so drawn from what they may read."""
        settings = await asyncio.to_thread(self._services.channels.get, PLATFORM, thread.channel)
        reader = Reader.public()
        if self._people is not None and thread.user:
            reader = await self._people.reader(thread.user)
        questions = await asyncio.to_thread(
            suggested_questions,
            self._services.suggestions,
            scopes=settings.scopes,
            configured=self._options.suggested_prompts,
            reader=reader,
        )
        if not questions:
            log.info("event %s: no questions to suggest yet", thread.event_id)
            return
        await self._poster.suggest_prompts(
            channel=thread.channel,
            thread_ts=thread.thread_ts,
            title=PROMPTS_TITLE,
            prompts=[{"title": clip(q, PROMPT_LABEL_CHARS), "message": q} for q in questions],
            event_id=thread.event_id,
        )

    async def title(self, question: Question) -> None:
        """Name a new assistant thread after its first question."""
        q = question
        if not (q.direct and q.thread_ts):
            return
        if await asyncio.to_thread(self._services.threads.exists, q.ref):
            return  # asked before: the thread has its title
        await self._poster.set_title(
            channel=q.channel,
            thread_ts=q.thread_ts,
            title=clip(" ".join(q.text.split()), TITLE_CHARS),
            event_id=q.event_id,
        )
