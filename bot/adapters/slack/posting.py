"""Every write to Slack goes through here: posts paced per channel, Slack's errors logged with
the event that caused them, and nothing raised into the answering flow (a failed reaction
must not lose an answer)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.web.async_slack_response import AsyncSlackResponse

from bot.adapters.slack.blocks import Block, SlackMessage
from bot.adapters.slack.pacing import ChannelPacer

log = logging.getLogger(__name__)

# Errors Slack reports with HTTP 200 that go away when asked again a little later (429 and
# 5xx responses are retried by the client's retry handlers before they get here).
TRANSIENT = frozenset({"internal_error", "fatal_error", "service_unavailable", "request_timeout"})
ATTEMPTS = 3
# Harmless outcomes of reacting twice or un-reacting what is gone (e.g. a redelivered event).
BENIGN = frozenset({"already_reacted", "no_reaction", "message_not_found"})

Call = Callable[[], Awaitable[AsyncSlackResponse]]


class SlackPoster:
    def __init__(self, client: AsyncWebClient, pacer: ChannelPacer, *, backoff_s: float = 1.0):
        self._client = client
        self._pacer = pacer
        self._backoff_s = backoff_s

    async def post(
        self, *, channel: str, thread_ts: str | None, message: SlackMessage, event_id: str
    ) -> str | None:
        """The new message's ts, or None when Slack would not take it (already logged)."""
        sent = await self.deliver(
            channel=channel, thread_ts=thread_ts, message=message, event_id=event_id
        )
        return sent.ts

    async def deliver(
        self, *, channel: str, thread_ts: str | None, message: SlackMessage, event_id: str
    ) -> Sent:
        """Post, and say why Slack refused (e.g. `not_in_channel`); refusals are logged."""

        async def send() -> AsyncSlackResponse:
            await self._pacer.wait(channel)
            return await self._client.chat_postMessage(
                channel=channel,
                thread_ts=thread_ts,
                unfurl_links=False,
                unfurl_media=False,
                **message.as_kwargs(),
            )

        response, error = await self._try("chat.postMessage", send)
        if response is None:
            _report("chat.postMessage", error, event_id=event_id, channel=channel, quiet=False)
        return Sent(response, error)

    async def call(self, method: str, call: Call, *, event_id: str) -> AsyncSlackResponse | None:
        """Any other Web API call, with the same retries; None (logged quietly) on refusal."""
        return await self._call(method, call, event_id=event_id, channel="-", quiet=True)

    async def ephemeral(
        self,
        *,
        channel: str,
        user: str,
        thread_ts: str | None,
        message: SlackMessage,
        event_id: str,
    ) -> bool:
        response = await self._call(
            "chat.postEphemeral",
            lambda: self._client.chat_postEphemeral(
                channel=channel, user=user, thread_ts=thread_ts, **message.as_kwargs()
            ),
            event_id=event_id,
            channel=channel,
        )
        return response is not None

    async def react(self, *, channel: str, ts: str, name: str, event_id: str) -> bool:
        """True when this call added the reaction (False if it was there already)."""
        response = await self._call(
            "reactions.add",
            lambda: self._client.reactions_add(channel=channel, timestamp=ts, name=name),
            event_id=event_id,
            channel=channel,
        )
        return response is not None

    async def unreact(self, *, channel: str, ts: str, name: str, event_id: str) -> None:
        await self._call(
            "reactions.remove",
            lambda: self._client.reactions_remove(channel=channel, timestamp=ts, name=name),
            event_id=event_id,
            channel=channel,
        )

    async def set_status(self, *, channel: str, thread_ts: str, status: str, event_id: str) -> bool:
        """The AI-app thread status ("is looking this up…"); "" clears it. False where the
        workspace or thread has no such surface."""
        response = await self._call(
            "assistant.threads.setStatus",
            lambda: self._client.assistant_threads_setStatus(
                channel_id=channel, thread_ts=thread_ts, status=status
            ),
            event_id=event_id,
            channel=channel,
            quiet=True,
        )
        return response is not None

    async def suggest_prompts(
        self,
        *,
        channel: str,
        thread_ts: str,
        title: str,
        prompts: list[dict[str, str]],
        event_id: str,
    ) -> bool:
        """The prompts an assistant thread offers (each a `title` and the `message` sent)."""
        response = await self._call(
            "assistant.threads.setSuggestedPrompts",
            lambda: self._client.assistant_threads_setSuggestedPrompts(
                channel_id=channel, thread_ts=thread_ts, title=title, prompts=prompts
            ),
            event_id=event_id,
            channel=channel,
        )
        return response is not None

    async def set_title(self, *, channel: str, thread_ts: str, title: str, event_id: str) -> bool:
        """An assistant thread's title in the user's history; False in a plain thread."""
        response = await self._call(
            "assistant.threads.setTitle",
            lambda: self._client.assistant_threads_setTitle(
                channel_id=channel, thread_ts=thread_ts, title=title
            ),
            event_id=event_id,
            channel=channel,
            quiet=True,
        )
        return response is not None

    async def update(self, *, channel: str, ts: str, message: SlackMessage, event_id: str) -> bool:
        """Replace a message's content (the finished answer over its draft)."""
        response = await self._call(
            "chat.update",
            lambda: self._client.chat_update(channel=channel, ts=ts, **message.as_kwargs()),
            event_id=event_id,
            channel=channel,
        )
        return response is not None

    async def start_stream(self, stream: StreamTarget, *, markdown: str) -> Sent:
        """Start a streamed reply (Slack's AI-app surface) holding `markdown`."""

        async def start() -> AsyncSlackResponse:
            await self._pacer.wait(stream.channel)
            return await self._client.chat_startStream(
                channel=stream.channel,
                thread_ts=stream.thread_ts,
                markdown_text=markdown,
                recipient_team_id=stream.team or None,
                recipient_user_id=stream.user or None,
            )

        return await self._attempt("chat.startStream", start, stream=stream)

    async def append_stream(self, stream: StreamTarget, *, ts: str, markdown: str) -> Sent:
        return await self._attempt(
            "chat.appendStream",
            lambda: self._client.chat_appendStream(
                channel=stream.channel, ts=ts, markdown_text=markdown
            ),
            stream=stream,
        )

    async def stop_stream(
        self,
        stream: StreamTarget,
        *,
        ts: str,
        markdown: str = "",
        blocks: list[Block] | None = None,
    ) -> Sent:
        return await self._attempt(
            "chat.stopStream",
            lambda: self._client.chat_stopStream(
                channel=stream.channel, ts=ts, markdown_text=markdown or None, blocks=blocks
            ),
            stream=stream,
        )

    async def _attempt(self, method: str, call: Call, *, stream: StreamTarget) -> Sent:
        """A streaming call: the response, or why Slack refused it. Refusals are expected
        (workspaces without the AI-app surface, expired streams) and only logged at INFO;
        the caller falls back to posting and editing."""
        response, error = await self._try(method, call)
        if response is None:
            log.info(
                "event %s: Slack %s in %s refused (%s); falling back to plain messages",
                stream.event_id,
                method,
                stream.channel,
                error,
            )
        return Sent(response, error)

    async def _call(
        self, method: str, call: Call, *, event_id: str, channel: str, quiet: bool = False
    ) -> AsyncSlackResponse | None:
        response, error = await self._try(method, call)
        if response is None:
            _report(method, error, event_id=event_id, channel=channel, quiet=quiet)
        return response

    async def _try(self, method: str, call: Call) -> tuple[AsyncSlackResponse | None, str]:
        """Slack's response, or None and Slack's error (retried first when transient)."""
        for attempt in range(1, ATTEMPTS + 1):
            try:
                return await call(), ""
            except SlackApiError as exc:
                data = exc.response.data if isinstance(exc.response.data, dict) else {}
                error = str(data.get("error") or exc.response.status_code)
                if error in TRANSIENT and attempt < ATTEMPTS:
                    await asyncio.sleep(self._backoff_s * attempt)
                    continue
                return None, error
            except (aiohttp.ClientError, TimeoutError) as exc:
                return None, repr(exc)
        return None, "no attempt"  # pragma: no cover - the loop always returns


@dataclass(frozen=True)
class StreamTarget:
    """Where a streamed reply goes: a thread, and (channels require it) its reader."""

    channel: str
    thread_ts: str
    team: str
    user: str
    event_id: str


@dataclass(frozen=True)
class Sent:
    response: AsyncSlackResponse | None
    error: str = ""

    @property
    def ts(self) -> str | None:
        if self.response is None:
            return None
        return str(self.response.get("ts") or "") or None


def _report(method: str, error: str, *, event_id: str, channel: str, quiet: bool) -> None:
    level = logging.DEBUG if quiet or error in BENIGN else logging.ERROR
    log.log(level, "event %s: Slack %s in %s failed: %s", event_id, method, channel, error)
