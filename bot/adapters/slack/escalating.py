"""The escalation loop in Slack: posting questions to the experts channel (and joining
repeats into one message), an expert's reply in its thread becoming the verified answer,
the askers told in their own threads, and the Confirm / Retire / Not-what-I-asked buttons.
What each step means lives in bot.verified.escalation; this module only talks to Slack."""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass
from typing import Any

import aiohttp
from slack_sdk.web.async_client import AsyncWebClient

from bot.adapters.slack.answering import Answering
from bot.adapters.slack.blocks import SlackMessage, escape
from bot.adapters.slack.client import web_client
from bot.adapters.slack.config import PLATFORM
from bot.adapters.slack.escalation_blocks import (
    ASKED,
    EDIT_PREFIX,
    UNREACHABLE,
    answer_form,
    answered_note,
    experts_message,
    settled_message,
    told_message,
)
from bot.adapters.slack.events import Question, id_of
from bot.adapters.slack.pacing import ChannelPacer
from bot.adapters.slack.posting import SlackPoster
from bot.conversation.types import ThreadRef
from bot.store.escalations import Escalation
from bot.verified.escalation import View
from bot.wiring import Services

log = logging.getLogger(__name__)

DONE_REACTION = "white_check_mark"
_SLACK_USER = re.compile(r"^[UW][A-Z0-9]{2,}$")


@dataclass(frozen=True)
class ButtonClick:
    """A click on one of the escalation buttons."""

    user: str
    channel: str
    ts: str  # the message carrying the button
    thread_ts: str | None  # the thread that message is in, if any
    value: str
    action_ts: str


def button_click_from(body: dict[str, Any]) -> ButtonClick | None:
    action = (body.get("actions") or [{}])[0]
    container = _object(body.get("container"))
    message = _object(body.get("message"))
    channel = id_of(body.get("channel")) or str(container.get("channel_id") or "")
    ts = str(container.get("message_ts") or message.get("ts") or "")
    thread = container.get("thread_ts") or message.get("thread_ts")
    value = action.get("value") if isinstance(action, dict) else None
    user = id_of(body.get("user"))
    if not (channel and ts and user and isinstance(value, str)):
        return None
    return ButtonClick(
        user,
        channel,
        ts,
        str(thread) if thread else None,
        value,
        str(action.get("action_ts") or ""),
    )


class SlackEscalating:
    def __init__(
        self,
        services: Services,
        poster: SlackPoster,
        client: AsyncWebClient,
        answering: Answering | None,
    ) -> None:
        self._services = services
        self._escalator = services.escalator
        self._poster = poster
        self._client = client
        self._answering = answering
        self._emails: dict[str, str | None] = {}
        self._names: dict[str, str] = {}

    # ---- questions to the experts

    async def rated_down(self, *, answer_id: int, user: str, rating: int, event_id: str) -> None:
        await self._escalate(answer_id=answer_id, user=user, rating=rating, event_id=event_id)

    async def asked(self, click: ButtonClick) -> None:
        """ "Ask an expert": escalate, and tell the asker where it went."""
        if not click.value.isdigit():
            log.warning("ignoring an Ask-an-expert button with value %r", click.value)
            return
        await self._escalate(
            answer_id=int(click.value),
            user=click.user,
            rating=None,
            event_id=f"ask {click.action_ts}",
            confirm_to=click,
        )

    async def reason(self, *, answer_id: int, user: str, reason: str) -> None:
        """A reason given after a rating down shows on the experts' message."""
        ids = await asyncio.to_thread(
            self._escalator.store.set_reason, answer_id=answer_id, user_id=user, reason=reason
        )
        for escalation_id in ids:
            await self._refresh(escalation_id, event_id=f"reason {answer_id}")

    async def _escalate(
        self,
        *,
        answer_id: int,
        user: str,
        rating: int | None,
        event_id: str,
        confirm_to: ButtonClick | None = None,
    ) -> None:
        escalated = await asyncio.to_thread(
            self._escalator.escalate, answer_id=answer_id, user_id=user, rating=rating
        )
        if escalated is None:
            if confirm_to is not None:
                await self._whisper(confirm_to, "Nobody is set to answer questions from here.")
            return
        e = escalated.view.escalation
        if escalated.created:
            ok = await self._post_new(escalated.view, event_id=event_id)
            if not ok:
                await self._tell_unreachable(answer_id, user, event_id)
                return
            e = escalated.view.escalation
        elif escalated.new_asker and e.message_id:
            await self._refresh(e.id, event_id=event_id)
        if confirm_to is not None:
            await self._whisper(confirm_to, ASKED.format(channel=e.experts_channel))

    async def _post_new(self, view: View, *, event_id: str) -> bool:
        e = view.escalation
        message = experts_message(view, mentions=await self._mentions(e.owners))
        sent = await self._poster.deliver(
            channel=e.experts_channel, thread_ts=None, message=message, event_id=event_id
        )
        if sent.ts is None:
            log.error(
                "escalation %s: could not post in the experts channel %s (%s)%s",
                e.id,
                e.experts_channel,
                sent.error,
                ": invite the bot there" if sent.error in ("not_in_channel", "channel_not_found")
                else "",
            )  # fmt: skip
            await asyncio.to_thread(self._escalator.store.unreachable, e.id, sent.error)
            return False
        await asyncio.to_thread(self._escalator.store.posted, e.id, sent.ts)
        return True

    async def _refresh(self, escalation_id: int, *, event_id: str) -> None:
        view = await asyncio.to_thread(self._escalator.view, escalation_id)
        e = view.escalation
        if e.message_id is None:
            return
        message = experts_message(view, mentions=await self._mentions(e.owners))
        await self._poster.update(
            channel=e.experts_channel, ts=e.message_id, message=message, event_id=event_id
        )

    async def _tell_unreachable(self, answer_id: int, user: str, event_id: str) -> None:
        ref = await asyncio.to_thread(self._services.answers.thread_of, answer_id)
        if ref is None:
            return
        await self._poster.ephemeral(
            channel=ref.channel,
            user=user,
            thread_ts=_thread_ts(ref),
            message=SlackMessage(text=UNREACHABLE),
            event_id=event_id,
        )

    # ---- the experts' side

    async def thread_reply(self, q: Question, *, is_message_event: bool) -> bool:
        """True when `q` is a reply in an escalation's thread (then it is never answered as
        a question): the first reply answers it, `edit: …` changes the answer."""
        if q.direct or not q.is_reply or q.thread_ts is None:
            return False
        found = await asyncio.to_thread(
            self._escalator.store.by_message, PLATFORM, q.channel, q.thread_ts
        )
        if found is None:
            return False
        if not is_message_event:  # the `message` event of the same reply handles it
            return True
        if not await asyncio.to_thread(self._services.events.claim, PLATFORM, q.event_id):
            return True
        name = await self._name(q.user)
        if q.text.lower().startswith(EDIT_PREFIX):
            await self._edit(found, q, text=q.text[len(EDIT_PREFIX) :], name=name)
            return True
        await self._answer(found, text=q.text, user=q.user, name=name, event_id=q.event_id)
        return True

    async def _answer(
        self, escalation: Escalation, *, text: str, user: str, name: str, event_id: str
    ) -> bool:
        """The expert's text becomes the verified answer: askers told, ✅, a note with a
        Retire button in the thread. False when the escalation was answered already."""
        answered = await asyncio.to_thread(
            self._escalator.reply, escalation, text=text, author_id=user, author_name=name
        )
        if answered is None:
            return False  # a discussion, or a request settled by buttons
        verified = answered.verified
        for told in answered.view.askers:
            if told.thread is not None:
                await self._poster.post(
                    channel=told.thread.channel,
                    thread_ts=_thread_ts(told.thread),
                    message=told_message(verified),
                    event_id=event_id,
                )
        await self._done(escalation, event_id=event_id)
        await self._poster.post(
            channel=escalation.experts_channel,
            thread_ts=escalation.message_id,
            message=answered_note(verified),
            event_id=event_id,
        )
        return True

    async def open_answer_form(self, click: ButtonClick, trigger_id: str) -> None:
        """The Answer button: a modal to write the answer in (Slack's views.open)."""
        if not click.value.isdigit() or not trigger_id:
            return
        await self._poster.call(
            "views.open",
            lambda: self._client.views_open(trigger_id=trigger_id, view=answer_form(click.value)),
            event_id=f"answer form {click.action_ts}",
        )

    async def answer_submitted(self, *, escalation_id: str, text: str, user: str) -> None:
        """The modal's answer: as a first reply in the thread would be."""
        found = (
            await asyncio.to_thread(self._escalator.store.get, int(escalation_id))
            if escalation_id.isdigit()
            else None
        )
        if found is None or not text.strip():
            log.warning("ignoring an answer form for escalation %r", escalation_id)
            return
        name = await self._name(user)
        await self._answer(found, text=text, user=user, name=name, event_id=f"form {found.id}")

    async def _edit(self, escalation: Escalation, q: Question, *, text: str, name: str) -> None:
        target = self._escalator.target_of(escalation)
        edited = (
            await asyncio.to_thread(self._escalator.edit, target, text=text, by=name)
            if target is not None
            else None
        )
        if edited is None:
            note = SlackMessage(text="There is no verified answer here to edit (yet).")
        else:
            note = settled_message(edited, what="edited and restored", by=escape(name))
            await self._done(escalation, event_id=q.event_id)
        await self._poster.post(
            channel=q.channel, thread_ts=q.thread_ts, message=note, event_id=q.event_id
        )

    async def confirm(self, click: ButtonClick) -> None:
        await self._settle(click, what="confirmed")

    async def retire(self, click: ButtonClick) -> None:
        await self._settle(click, what="retired")

    async def _settle(self, click: ButtonClick, *, what: str) -> None:
        if not click.value.isdigit():
            log.warning("ignoring a %s button with value %r", what, click.value)
            return
        verified_id, name = int(click.value), await self._name(click.user)
        act = self._escalator.confirm if what == "confirmed" else self._escalator.retire
        settled = await asyncio.to_thread(act, verified_id, by=name)
        verified = await asyncio.to_thread(self._services.verified.get, verified_id)
        event_id = f"{what} {click.action_ts}"
        for escalation in settled:
            await self._done(escalation, event_id=event_id)
        found = await asyncio.to_thread(
            self._escalator.store.by_message, PLATFORM, click.channel, click.thread_ts or click.ts
        )
        if found is not None and found.id not in {e.id for e in settled}:
            await self._refresh(found.id, event_id=event_id)
        if verified is not None:
            await self._poster.post(
                channel=click.channel,
                thread_ts=click.thread_ts or click.ts,
                message=settled_message(verified, what=what, by=escape(name)),
                event_id=event_id,
            )

    async def _done(self, escalation: Escalation, *, event_id: str) -> None:
        """The escalation's message: ✅, and its content brought up to date."""
        if escalation.message_id is None:
            return
        await self._poster.react(
            channel=escalation.experts_channel,
            ts=escalation.message_id,
            name=DONE_REACTION,
            event_id=event_id,
        )
        await self._refresh(escalation.id, event_id=event_id)

    # ---- "Not what I asked"

    async def not_what_i_asked(self, click: ButtonClick) -> None:
        """The bot's own answer to the question a verified answer was served for."""
        if not click.value.isdigit():
            return
        answer_id = int(click.value)
        row = await asyncio.to_thread(self._services.answers.get, answer_id)
        ref = await asyncio.to_thread(self._services.answers.thread_of, answer_id)
        if row is None or ref is None:
            return
        if self._answering is None:
            return
        channel = await asyncio.to_thread(self._services.channels.get, PLATFORM, ref.channel)
        question = Question(
            event_id=f"not-verified {answer_id} {click.user} {click.action_ts}",
            team=ref.workspace,
            channel=ref.channel,
            user=click.user,
            text=str(row["question"]),
            ts=click.ts,
            thread_ts=_thread_ts(ref),
            direct=ref.channel.startswith("D"),
            mentioned=True,
            skip_verified=True,
        )
        await self._answering.answer_in(question, channel.scopes)

    # ---- requests to confirm, posted by the running bot

    async def post_pending(self) -> int:
        """Post the requests a re-ingest (or the age check) left; how many were posted."""
        pending = await asyncio.to_thread(self._escalator.store.claim_pending, PLATFORM)
        posted = 0
        for escalation in pending:
            view = await asyncio.to_thread(self._escalator.view, escalation)
            posted += await self._post_new(view, event_id=f"confirm {escalation.id}")
        return posted

    async def keep_posting(self, interval_s: float) -> None:
        while True:
            try:
                await self.post_pending()
            except Exception:
                log.exception("could not post the pending requests to confirm verified answers")
            await asyncio.sleep(interval_s)

    # ---- people

    async def _mentions(self, owners: tuple[str, ...]) -> list[str]:
        """Slack mentions of the owners: user ids as they are, e-mail addresses looked up
        (users.lookupByEmail; shown as the address when Slack knows no such user). Teams
        owners are not Slack users and are left out."""
        mentions: list[str] = []
        for owner in owners:
            if _SLACK_USER.match(owner):
                mentions.append(f"<@{owner}>")
            elif "@" in owner:
                user = await self._user_by_email(owner)
                mentions.append(f"<@{user}>" if user else escape(owner))
        return list(dict.fromkeys(mentions))

    async def _user_by_email(self, email: str) -> str | None:
        if email not in self._emails:
            response = await self._poster.call(
                "users.lookupByEmail",
                lambda: self._client.users_lookupByEmail(email=email),
                event_id=f"owner {email}",
            )
            user = (response.get("user") or {}) if response is not None else {}
            self._emails[email] = str(user.get("id") or "") or None
        return self._emails[email]

    async def _name(self, user: str) -> str:
        """A person's name as Slack shows it (their id when Slack will not say)."""
        if user not in self._names:
            response = await self._poster.call(
                "users.info", lambda: self._client.users_info(user=user), event_id=f"name {user}"
            )
            found = (response.get("user") or {}) if response is not None else {}
            profile = found.get("profile") or {}
            self._names[user] = str(
                profile.get("real_name")
                or profile.get("display_name")
                or found.get("real_name")
                or found.get("name")
                or user
            )
        return self._names[user]

    async def _whisper(self, click: ButtonClick, text: str) -> None:
        await self._poster.ephemeral(
            channel=click.channel,
            user=click.user,
            thread_ts=click.thread_ts,
            message=SlackMessage(text=text),
            event_id=f"whisper {click.action_ts}",
        )


async def post_pending_requests(services: Services) -> int:
    """Post the requests to confirm that an ingest just filed (the ingest has the bot's
    token): the experts hear within seconds even when no bot is running."""
    async with aiohttp.ClientSession() as session:
        client = web_client(services.settings, session=session)
        poster = SlackPoster(client, ChannelPacer(services.settings.slack_post_interval_s))
        return await SlackEscalating(services, poster, client, None).post_pending()


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _thread_ts(ref: ThreadRef) -> str | None:
    """Slack's thread of a stored thread: a top-level direct-message chat has none."""
    return ref.thread if ref.thread != ref.channel else None
