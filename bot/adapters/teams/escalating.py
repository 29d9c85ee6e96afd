"""The escalation loop in Teams: the experts' adaptive card posted into the configured
channel or conversation through the Bot Framework connector, joined repeats updating it,
the expert's answer (a reply in its reply chain that mentions the bot, or the card's answer
form) becoming the verified answer, the askers told in their own conversations, and the
card actions (Ask an expert, Not what I asked, Confirm, Retire). What each step means lives
in bot.verified.escalation; this module only talks to Teams."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from bot.adapters.teams.escalation_cards import (
    ACTIONS,
    ANSWER,
    ASKED,
    CONFIRM,
    EDIT_PREFIX,
    ESCALATE,
    NOT_VERIFIED,
    UNREACHABLE,
    experts_activity,
    note_activity,
    told_activity,
)
from bot.adapters.teams.incoming import PLATFORM, Message, split_conversation, user_id
from bot.adapters.teams.proactive import (
    TokenSource,
    app_token_source,
    post_activity,
    update_activity,
)
from bot.adapters.teams.workers import Workers
from bot.conversation.types import ThreadRef, Turn
from bot.errors import KnowbotError
from bot.store.escalations import Escalation
from bot.verified.escalation import View
from bot.wiring import Services

log = logging.getLogger(__name__)


def card_action(activity: Any) -> dict[str, Any] | None:
    """The data of one of our card buttons, when this message activity is a click."""
    value = activity.value
    if isinstance(value, dict) and value.get("knowbot") in ACTIONS:
        return value
    return None


class TeamsEscalating:
    def __init__(self, services: Services, workers: Workers) -> None:
        self._services = services
        self._escalator = services.escalator
        self._workers = workers
        self._token: TokenSource | None = app_token_source(services.settings)

    # ---- questions to the experts

    async def rated_down(self, activity: Any, answer_id: int) -> None:
        await self._escalate(activity, answer_id, rating=-1, tell=False)

    async def clicked(self, activity: Any, data: dict[str, Any]) -> None:
        """A card button: Ask an expert, Not what I asked, Answer, Confirm or Retire."""
        action = data["knowbot"]
        number = _number(data.get("answer") or data.get("escalation") or data.get("verified"))
        if number is None:
            log.warning("teams: ignoring a %s click without an id: %r", action, data)
            return
        if action == ESCALATE:
            await self._escalate(activity, number, rating=None, tell=True)
        elif action == NOT_VERIFIED:
            await self._not_verified(activity, number)
        elif action == ANSWER:
            await self._answer_form(activity, number, str(data.get("text") or ""))
        else:
            await self._settle(activity, number, confirm=action == CONFIRM)

    async def _escalate(
        self, activity: Any, answer_id: int, *, rating: int | None, tell: bool
    ) -> None:
        escalated = await self._workers.run(
            self._escalator.escalate,
            answer_id=answer_id,
            user_id=user_id(activity),
            rating=rating,
            service_url=str(activity.service_url or ""),
        )
        if escalated is None:
            return
        e = escalated.view.escalation
        if escalated.created:
            if not await self._post_new(escalated.view):
                await self._reply(activity, UNREACHABLE)
                return
        elif escalated.new_asker:
            await self._refresh(e.id)
        if tell:
            await self._reply(activity, ASKED)

    async def _post_new(self, view: View) -> bool:
        e = view.escalation
        service_url = e.service_url or self._services.settings.digest_teams_service_url or ""
        try:
            message_id = await post_activity(
                service_url=service_url,
                conversation_id=e.experts_channel,
                activity=experts_activity(view),
                token=self._token,
            )
        except (KnowbotError, OSError, TimeoutError) as exc:
            log.error(
                "teams: escalation %s could not be posted to the experts conversation %s: %s",
                e.id,
                e.experts_channel,
                exc,
            )
            await self._workers.run(self._escalator.store.unreachable, e.id, str(exc)[:500])
            return False
        await self._workers.run(self._escalator.store.posted, e.id, message_id)
        return True

    async def _refresh(self, escalation_id: int) -> None:
        view = await self._workers.run(self._escalator.view, escalation_id)
        e = view.escalation
        if not e.message_id:
            return
        try:
            await update_activity(
                service_url=e.service_url,
                conversation_id=e.experts_channel,
                activity_id=e.message_id,
                activity=experts_activity(view),
                token=self._token,
            )
        except (KnowbotError, OSError, TimeoutError) as exc:
            log.warning("teams: could not update escalation %s: %s", e.id, exc)

    # ---- the experts' side

    async def thread_reply(self, message: Message, activity: Any) -> bool:
        """True when the message is a reply in an escalation's reply chain (it is then never
        answered as a question): the first one answers it, `edit: …` changes the answer."""
        base, root = split_conversation(activity.conversation.id or "")
        if root is None:
            return False
        found = await self._workers.run(self._escalator.store.by_message, PLATFORM, base, root)
        if found is None:
            return False
        if not await self._workers.run(self._services.events.claim, PLATFORM, message.event_id):
            return True
        await self._answer(activity, found, message.text)
        return True

    async def _answer_form(self, activity: Any, escalation_id: int, text: str) -> None:
        found = await self._workers.run(self._escalator.store.get, escalation_id)
        if found is None or not text.strip():
            await self._reply(activity, "Write the answer in the box, then press Answer.")
            return
        await self._answer(activity, found, text)

    async def _answer(self, activity: Any, escalation: Escalation, text: str) -> None:
        sender = activity.from_property
        name = str(getattr(sender, "name", None) or user_id(activity))
        if text.lower().startswith(EDIT_PREFIX):
            target = self._escalator.target_of(escalation)
            edited = (
                await self._workers.run(
                    self._escalator.edit, target, text=text[len(EDIT_PREFIX) :], by=name
                )
                if target is not None
                else None
            )
            note = (
                f"Verified answer {edited.id} edited and restored by {name}."
                if edited
                else "There is no verified answer here to edit (yet)."
            )
            await self._reply(activity, note)
            await self._refresh(escalation.id)
            return
        answered = await self._workers.run(
            self._escalator.reply,
            escalation,
            text=text,
            author_id=f"teams:{user_id(activity)}",
            author_name=name,
        )
        if answered is None:
            return  # discussion
        for told in answered.view.askers:
            if told.thread is not None:
                await self._post(
                    escalation.service_url, told.thread, told_activity(answered.verified)
                )
        await self._refresh(escalation.id)
        await self._reply(
            activity,
            f"Saved as verified answer {answered.verified.id} (scope {answered.verified.scope}); "
            f"reply '{EDIT_PREFIX} new text' mentioning the bot to change it.",
        )

    async def _settle(self, activity: Any, verified_id: int, *, confirm: bool) -> None:
        name = str(getattr(activity.from_property, "name", None) or user_id(activity))
        act = self._escalator.confirm if confirm else self._escalator.retire
        settled = await self._workers.run(act, verified_id, by=name)
        for escalation in settled:
            await self._refresh(escalation.id)
        base, root = split_conversation(activity.conversation.id or "")
        here = await self._workers.run(
            self._escalator.store.by_message, PLATFORM, base, root or activity.reply_to_id or ""
        )
        if here is not None and here.id not in {e.id for e in settled}:
            await self._refresh(here.id)
        what = "confirmed" if confirm else "retired"
        await self._reply(activity, f"Verified answer {verified_id} {what} by {name}.")

    # ---- "Not what I asked"

    async def _not_verified(self, activity: Any, answer_id: int) -> None:
        """The bot's own answer to the question a verified answer was served for."""
        row = await self._workers.run(self._services.answers.get, answer_id)
        ref = await self._workers.run(self._services.answers.thread_of, answer_id)
        if row is None or ref is None:
            return
        from bot.adapters.teams.render import answer_activity  # the answer card's renderer

        channel = await self._workers.run(self._services.channels.get, PLATFORM, ref.channel)
        turn = _turn(ref, activity, str(row["question"]), channel.scopes)
        answer = await self._workers.run(self._services.pipeline.answer_now, turn)
        if answer is None:
            return
        reply = answer_activity(answer, channel_id=activity.channel_id)
        message_id = await self._post(
            str(activity.service_url or ""), ref, reply.serialize(), quiet=False
        )
        if message_id:
            await self._workers.run(
                self._services.answers.record_delivery,
                answer.id,
                platform=PLATFORM,
                channel=split_conversation(activity.conversation.id or "")[0],
                message_id=message_id,
            )

    # ---- requests to confirm, posted by the running bot

    async def post_pending(self) -> int:
        pending = await self._workers.run(self._escalator.store.claim_pending, PLATFORM)
        posted = 0
        for escalation in pending:
            view = await self._workers.run(self._escalator.view, escalation)
            posted += await self._post_new(view)
        return posted

    async def keep_posting(self, interval_s: float) -> None:
        while True:
            try:
                await self.post_pending()
            except Exception:
                log.exception("teams: could not post the pending requests to confirm")
            await asyncio.sleep(interval_s)

    # ---- posting

    async def _reply(self, activity: Any, text: str) -> None:
        """A note in the conversation (and reply chain) the activity came from."""
        try:
            await post_activity(
                service_url=str(activity.service_url or ""),
                conversation_id=str(activity.conversation.id or ""),
                activity=note_activity(text),
                token=self._token,
            )
        except (KnowbotError, OSError, TimeoutError) as exc:
            log.warning("teams: could not reply in %s: %s", activity.conversation.id, exc)

    async def _post(
        self, service_url: str, thread: ThreadRef, activity: dict[str, Any], *, quiet: bool = True
    ) -> str | None:
        try:
            return await post_activity(
                service_url=service_url,
                conversation_id=_conversation_of(thread),
                activity=activity,
                token=self._token,
            )
        except (KnowbotError, OSError, TimeoutError) as exc:
            (log.info if quiet else log.warning)("teams: could not post in %s: %s", thread, exc)
            return None


async def post_pending_requests(services: Services) -> int:
    """Post the requests to confirm that an ingest just filed, from the ingest itself
    (it has the bot's Teams credentials)."""
    workers = Workers()
    try:
        return await TeamsEscalating(services, workers).post_pending()
    finally:
        workers.shutdown()


def _conversation_of(thread: ThreadRef) -> str:
    """The conversation id a stored thread is posted to: a channel's reply chain, or the
    chat itself."""
    if thread.thread != thread.channel:
        return f"{thread.channel};messageid={thread.thread}"
    return thread.channel


def _turn(ref: ThreadRef, activity: Any, question: str, scopes: tuple[str, ...]) -> Turn:
    return Turn(
        thread=ref,
        event_id=f"teams-not-verified:{activity.id}",
        user_id=user_id(activity),
        text=question,
        scopes=scopes,
        skip_verified=True,
    )


def _number(value: Any) -> int | None:
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None
