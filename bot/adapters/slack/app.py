"""The Slack bot: a slack-bolt AsyncApp whose listeners only translate and hand work to the
background, so Slack gets its ack in milliseconds whatever the pipeline is doing.

The listeners run before the ack (`process_before_response=True`) but do no I/O: each one
parses its payload and spawns the real work into `Background`, which holds the tasks so a
shutdown can let them finish. Answers therefore never delay the ack."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from slack_bolt.async_app import AsyncApp
from slack_bolt.authorization import AuthorizeResult
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.logger.messages import warning_client_prioritized_and_token_skipped
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk.web.async_client import AsyncWebClient

from bot.adapters.request_body import storable_json
from bot.adapters.slack.answering import Answering
from bot.adapters.slack.assistant import AssistantThreads
from bot.adapters.slack.background import Background
from bot.adapters.slack.client import for_bolt, identify, web_client
from bot.adapters.slack.config import (
    ANSWER_ACTION,
    ANSWER_FORM,
    CONFIRM_ACTION,
    ESCALATE_ACTION,
    FEEDBACK_ACTION,
    NOT_VERIFIED_ACTION,
    RETIRE_ACTION,
    SlackOptions,
)
from bot.adapters.slack.escalating import ButtonClick, SlackEscalating, button_click_from
from bot.adapters.slack.events import (
    Question,
    feedback_click_from,
    id_of,
    opened_thread_from,
    question_from,
    reaction_from,
)
from bot.adapters.slack.forgetting import (
    COMMAND,
    SHORTCUT,
    Forgetting,
    Respond,
    thread_from_command,
    thread_from_shortcut,
)
from bot.adapters.slack.pacing import ChannelPacer
from bot.adapters.slack.people import SlackPeople
from bot.adapters.slack.posting import SlackPoster
from bot.adapters.slack.ratings import Ratings
from bot.wiring import Services

log = logging.getLogger(__name__)

SHUTDOWN_GRACE_S = 20.0  # an answer in progress usually needs a few seconds more
ANSWER_THREADS = 32  # answers in progress at once; the rest queue (see Answering)
Listener = Callable[[AsyncAck, dict[str, Any]], Awaitable[None]]


@dataclass
class SlackBot:
    app: AsyncApp
    client: AsyncWebClient
    identity: AuthorizeResult
    background: Background
    _session: aiohttp.ClientSession
    _pending: asyncio.Task[None] | None = None
    _answer_pool: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(ANSWER_THREADS, thread_name_prefix="answer")
    )

    @classmethod
    async def open(cls, services: Services, *, signing_secret: str | None) -> SlackBot:
        """Check the token with Slack and wire the listeners (inside the running loop: the
        HTTP session belongs to it). No signing secret means Socket Mode."""
        options = SlackOptions.from_settings(services.settings)
        session = aiohttp.ClientSession()
        try:
            client = web_client(services.settings, session=session)
            identity = await identify(client)
        except BaseException:
            await session.close()
            raise

        async def authorize() -> AuthorizeResult:
            return identity

        app = AsyncApp(
            client=for_bolt(client),
            authorize=authorize,
            signing_secret=signing_secret,
            # over HTTP the endpoint checks the signature on the raw bytes and hands bolt a
            # checked, re-serialised body; Socket Mode needs no signature
            request_verification_enabled=False,
            process_before_response=True,
            # bolt's assistant `say`/`set_status` helpers go unused here, and building them
            # fails (a 500 to Slack) on assistant events shaped in ways it does not expect
            attaching_conversation_kwargs_enabled=False,
            name="knowbot",
            logger=_bolt_logger(),
        )
        app.use(_storable_body)
        app.error(_one_line_error)
        bot = cls(app, client, identity, Background(), session)
        bot._listen(services, options)
        return bot

    async def close(self, *, grace_s: float = SHUTDOWN_GRACE_S) -> None:
        if self._pending is not None:
            self._pending.cancel()
            await asyncio.gather(self._pending, return_exceptions=True)
        await self.background.drain(grace_s)
        await self._session.close()
        self._answer_pool.shutdown(wait=False, cancel_futures=True)

    def _listen(self, services: Services, options: SlackOptions) -> None:
        poster = SlackPoster(self.client, ChannelPacer(options.post_interval_s))
        people = SlackPeople(self.client, services.readers)
        answering = Answering(services, poster, options, executor=self._answer_pool, people=people)
        bot_user = self.identity.bot_user_id
        escalating = SlackEscalating(services, poster, self.client, answering)
        ratings = Ratings(
            services,
            poster,
            options,
            bot_user_ids=(bot_user,) if bot_user else (),
            escalating=escalating,
        )
        assistant = AssistantThreads(services, poster, options, people=people)
        forgetting = Forgetting(services)
        spawn = self.background.spawn

        async def on_question(body: dict[str, Any]) -> None:
            question = question_from(body, bot_user_id=bot_user)
            if question is None:
                return
            if body["event"]["type"] == "app_mention" and question.direct:
                return  # the direct message's own `message` event answers it
            is_message = body["event"]["type"] == "message"
            spawn(route(question, is_message=is_message), name=f"answer {question.event_id}")

        async def route(question: Question, *, is_message: bool) -> None:
            """A reply in an escalation's thread is for the experts' loop, never answered;
            of the two events a mention in a channel sends, `app_mention` answers it."""
            if await escalating.thread_reply(question, is_message_event=is_message):
                return
            if is_message and question.mentioned and not question.direct:
                return
            await answering.handle(question)

        def on_button(
            act: Callable[[ButtonClick], Coroutine[Any, Any, None]], what: str
        ) -> Listener:
            async def listener(ack: AsyncAck, body: dict[str, Any]) -> None:
                await ack()
                click = button_click_from(body)
                if click is not None:
                    spawn(act(click), name=what)

            return listener

        async def on_reaction(body: dict[str, Any]) -> None:
            reaction = reaction_from(body, bot_user_id=bot_user)
            if reaction is None:
                return
            if body["event"]["type"] == "reaction_added":
                spawn(ratings.added(reaction), name=f"rate {reaction.event_id}")
            else:
                spawn(ratings.removed(reaction), name=f"unrate {reaction.event_id}")

        async def on_thread_opened(body: dict[str, Any]) -> None:
            opened = opened_thread_from(body)
            if opened is not None:
                spawn(assistant.opened(opened), name=f"prompts {opened.event_id}")

        async def on_feedback(ack: AsyncAck, body: dict[str, Any]) -> None:
            await ack()
            click = feedback_click_from(body)
            if click is not None:
                spawn(ratings.clicked(click), name="feedback button")

        async def on_reason(ack: AsyncAck, body: dict[str, Any], respond: Respond) -> None:
            await ack()
            value = str((body.get("actions") or [{}])[0].get("value", ""))
            user = id_of(body.get("user"))
            spawn(ratings.reason(value=value, user=user, respond=respond), name="reason")

        async def on_answer_button(ack: AsyncAck, body: dict[str, Any]) -> None:
            await ack()
            click = button_click_from(body)
            trigger = str(body.get("trigger_id") or "")
            if click is not None:  # the trigger expires in 3 s: open the form right away
                await escalating.open_answer_form(click, trigger)

        async def on_answer_form(ack: AsyncAck, body: dict[str, Any]) -> None:
            await ack()
            view = body.get("view") or {}
            values = (view.get("state") or {}).get("values") or {}
            text = str(((values.get("answer") or {}).get("text") or {}).get("value") or "")
            work = escalating.answer_submitted(
                escalation_id=str(view.get("private_metadata") or ""),
                text=text,
                user=id_of(body.get("user")),
            )
            spawn(work, name="answer form")

        async def on_forget_command(ack: AsyncAck, body: dict[str, Any], respond: Respond) -> None:
            await ack()
            spawn(forgetting.forget(thread_from_command(body), respond=respond), name="forget")

        async def on_forget_shortcut(ack: AsyncAck, body: dict[str, Any], respond: Respond) -> None:
            await ack()
            spawn(forgetting.forget(thread_from_shortcut(body), respond=respond), name="forget")

        async def on_other_event(body: dict[str, Any]) -> None:
            """Acknowledged and dropped, so Slack neither retries nor logs a failure."""

        self.app.event("app_mention")(on_question)
        self.app.event("message")(on_question)
        self.app.event("reaction_added")(on_reaction)
        self.app.event("reaction_removed")(on_reaction)
        self.app.event("assistant_thread_started")(on_thread_opened)
        self.app.action(FEEDBACK_ACTION)(on_feedback)
        self.app.action(re.compile(r"^knowbot_reason_"))(on_reason)
        self.app.action(ESCALATE_ACTION)(on_button(escalating.asked, "ask an expert"))
        self.app.action(NOT_VERIFIED_ACTION)(on_button(escalating.not_what_i_asked, "not verified"))
        self.app.action(CONFIRM_ACTION)(on_button(escalating.confirm, "confirm verified"))
        self.app.action(RETIRE_ACTION)(on_button(escalating.retire, "retire verified"))
        self.app.action(ANSWER_ACTION)(on_answer_button)
        self.app.view(ANSWER_FORM)(on_answer_form)
        self.app.command(COMMAND)(on_forget_command)
        self.app.shortcut(SHORTCUT)(on_forget_shortcut)
        self.app.event(re.compile(r".*"))(on_other_event)  # last: bolt stops at the first match
        # requests to confirm verified answers, left by re-ingests in any process
        self._pending = asyncio.get_running_loop().create_task(
            escalating.keep_posting(services.settings.escalation_poll_s),
            name="post requests to confirm",
        )


async def _storable_body(
    req: AsyncBoltRequest, resp: BoltResponse, next: Callable[[], Awaitable[None]]
) -> BoltResponse:
    """Socket Mode bodies skip the HTTP endpoint's cleaning: NUL bytes and lone surrogates
    would fail in Postgres or in Slack's client."""
    req.body = storable_json(req.body)
    await next()
    return resp


async def _one_line_error(error: Exception, body: dict[str, Any]) -> BoltResponse:
    """A listener or middleware that fails on a payload: one log line and a 400, not bolt's
    traceback and 500 (Slack would only redeliver the same payload)."""
    kind = (body.get("event") or {}).get("type") if isinstance(body, dict) else None
    log.warning(
        "slack: could not handle a %s request: %s: %s",
        kind or (body.get("type") if isinstance(body, dict) else "?"),
        type(error).__name__,
        error,
    )
    return BoltResponse(status=400, body=json.dumps({"error": "malformed payload"}))


def _bolt_logger() -> logging.Logger:
    """bolt's logger without one misleading warning: bolt reads SLACK_BOT_TOKEN from the
    environment by itself, then warns that this token goes unused. It does: the token comes
    from Settings and reaches bolt through `authorize`, as intended."""
    logger = logging.getLogger("bot.adapters.slack.bolt")
    if not logger.filters:
        logger.addFilter(_not_the_token_notice)
    return logger


def _not_the_token_notice(record: logging.LogRecord) -> bool:
    return record.getMessage() != warning_client_prioritized_and_token_skipped()
