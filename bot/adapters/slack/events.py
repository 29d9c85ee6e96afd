"""Slack event payloads in, neutral values out: which messages are questions, what their plain
text is, and where the conversation lives. Pure functions: no I/O, so the ack stays fast."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

from bot.adapters.slack.config import PLATFORM, reaction_name
from bot.conversation.types import ThreadRef, Turn
from knowledge.access import Reader

# A user's message with a file or sent "also to the channel" is still a question; every other
# subtype (edits, deletions, joins, bot messages ...) is not.
QUESTION_SUBTYPES = frozenset({None, "thread_broadcast", "file_share"})

_USER_MENTION = re.compile(r"<@([UW][A-Z0-9]+)(?:\|([^>]*))?>")
_CHANNEL_LINK = re.compile(r"<#[CG][A-Z0-9]+(?:\|([^>]*))?>")
_SPECIAL = re.compile(r"<!(here|channel|everyone)(?:\|[^>]*)?>")
_SUBTEAM = re.compile(r"<!subteam\^[A-Z0-9]+(?:\|([^>]*))?>")
_LINK = re.compile(r"<((?:https?|mailto):[^<>|]+)(?:\|([^<>]*))?>")
_SPACES = re.compile(r"[ \t\u00a0]+")
_FORGET = re.compile(
    r"^\W*(?:please\s+)?forget\s+(?:this|the|our)\s+(?:thread|conversation|chat)\W*$", re.I
)


@dataclass(frozen=True)
class Question:
    """A user's message the bot may answer."""

    event_id: str
    team: str
    channel: str
    user: str
    text: str  # plain text, the bot's mention removed
    ts: str  # the user's message
    thread_ts: str | None  # the thread it was posted in, if any
    direct: bool  # a direct message with the bot
    mentioned: bool
    skip_verified: bool = False  # "Not what I asked": the bot's own answer

    @property
    def reply_thread(self) -> str | None:
        """Where the answer goes: the message's thread (a channel message starts one); a
        top-level direct message is answered in place, like a chat."""
        if self.thread_ts:
            return self.thread_ts
        return None if self.direct else self.ts

    @property
    def ref(self) -> ThreadRef:
        """A top-level direct-message conversation is one thread, keyed by its channel."""
        return ThreadRef(PLATFORM, self.team, self.channel, self.reply_thread or self.channel)

    @property
    def is_reply(self) -> bool:
        return self.thread_ts is not None and self.thread_ts != self.ts

    @property
    def is_forget(self) -> bool:
        return bool(_FORGET.match(self.text))

    def turn(self, scopes: tuple[str, ...], asker: Reader | None = None) -> Turn:
        """A direct message is private: its answer may show what `asker` may read."""
        return Turn(
            thread=self.ref,
            event_id=self.event_id,
            user_id=self.user,
            text=self.text,
            message_id=self.ts,
            scopes=scopes,
            asker=asker,
            private=self.direct,
            skip_verified=self.skip_verified,
        )


@dataclass(frozen=True)
class Reaction:
    """A user's emoji on a message (any message: whether it is an answer is looked up later)."""

    event_id: str
    user: str
    name: str  # skin tone removed
    channel: str
    ts: str


def question_from(body: dict[str, Any], *, bot_user_id: str | None) -> Question | None:
    """The question in an `app_mention` or `message` event; None for anything not from a
    person (bots, the bot itself), edits, deletions and other subtypes."""
    event = body.get("event") or {}
    user, channel, ts = event.get("user"), event.get("channel"), event.get("ts")
    if event.get("type") not in ("app_mention", "message") or not (user and channel and ts):
        return None
    if event.get("subtype") not in QUESTION_SUBTYPES or event.get("bot_id") or event.get("edited"):
        return None
    if user == bot_user_id:
        return None
    raw = str(event.get("text") or "")
    mentioned = event["type"] == "app_mention" or (
        bot_user_id is not None and f"<@{bot_user_id}" in raw
    )
    thread_ts = event.get("thread_ts")
    return Question(
        event_id=str(body.get("event_id") or f"{channel}-{ts}"),
        team=str(body.get("team_id") or event.get("team") or ""),
        channel=str(channel),
        user=str(user),
        text=plain_text(raw, bot_user_id=bot_user_id),
        ts=str(ts),
        thread_ts=str(thread_ts) if thread_ts else None,
        direct=is_direct(event),
        mentioned=mentioned,
    )


def is_direct(event: dict[str, Any]) -> bool:
    """`app_mention` events carry no channel_type; direct-message channel ids start with D."""
    return event.get("channel_type") == "im" or str(event.get("channel", "")).startswith("D")


def reaction_from(body: dict[str, Any], *, bot_user_id: str | None) -> Reaction | None:
    """The reaction in a `reaction_added`/`reaction_removed` event; None for the bot's own
    reactions (its confidence and working emoji) and for reactions on files."""
    event = body.get("event") or {}
    item = event.get("item") or {}
    user, name = event.get("user"), event.get("reaction")
    if item.get("type") != "message" or not (user and name and item.get("channel")):
        return None
    if user == bot_user_id or not item.get("ts"):
        return None
    return Reaction(
        event_id=str(body.get("event_id") or ""),
        user=str(user),
        name=reaction_name(str(name)),
        channel=str(item["channel"]),
        ts=str(item["ts"]),
    )


@dataclass(frozen=True)
class OpenedThread:
    """An assistant thread the user just opened in Slack's AI-app view."""

    event_id: str
    channel: str  # the direct-message channel the thread lives in
    thread_ts: str
    user: str


@dataclass(frozen=True)
class FeedbackClick:
    """A click on the feedback buttons under an answer."""

    user: str
    channel: str
    ts: str  # the answer's message
    value: str  # GOOD or BAD (config.py)
    action_ts: str


def opened_thread_from(body: dict[str, Any]) -> OpenedThread | None:
    """The `assistant_thread_started` event's thread; None when it names none."""
    thread = (body.get("event") or {}).get("assistant_thread") or {}
    channel, thread_ts = thread.get("channel_id"), thread.get("thread_ts")
    if not (isinstance(channel, str) and channel and isinstance(thread_ts, str) and thread_ts):
        return None
    return OpenedThread(
        event_id=str(body.get("event_id") or f"{channel}-{thread_ts}"),
        channel=channel,
        thread_ts=thread_ts,
        user=id_of(thread.get("user_id")),
    )


def feedback_click_from(body: dict[str, Any]) -> FeedbackClick | None:
    """The clicked button of a `block_actions` payload from an answer's feedback buttons."""
    action = (body.get("actions") or [{}])[0]
    container = _object(body.get("container"))
    message = _object(body.get("message"))
    channel = id_of(body.get("channel")) or str(container.get("channel_id") or "")
    ts = str(container.get("message_ts") or message.get("ts") or "")
    value = action.get("value") if isinstance(action, dict) else None
    user = id_of(body.get("user"))
    if not (channel and ts and user and isinstance(value, str)):
        return None
    return FeedbackClick(user, channel, ts, value, str(action.get("action_ts") or ""))


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def id_of(value: Any) -> str:
    """Slack names a user, team or channel by its id, or by an object carrying "id"."""
    if isinstance(value, dict):
        value = value.get("id")
    return str(value) if isinstance(value, str | int) else ""


def plain_text(text: str, *, bot_user_id: str | None) -> str:
    """Slack's markup as a person reads it: the bot's mention dropped, links as their labels,
    `&amp;` and friends decoded (the pipeline sees what the user typed)."""

    def user(match: re.Match[str]) -> str:
        if match.group(1) == bot_user_id:
            return ""
        return f"@{match.group(2) or match.group(1)}"

    text = _USER_MENTION.sub(user, text)
    text = _CHANNEL_LINK.sub(lambda m: f"#{m.group(1) or 'channel'}", text)
    text = _SPECIAL.sub(lambda m: f"@{m.group(1)}", text)
    text = _SUBTEAM.sub(lambda m: m.group(1) or "@group", text)
    text = _LINK.sub(lambda m: m.group(2) or m.group(1), text)
    return _SPACES.sub(" ", html.unescape(text)).strip()
