"""Slack event payloads in, neutral values out: which messages are questions, what their plain
text is, and where the conversation lives. Pure functions: no I/O, so the ack stays fast."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

from bot.adapters.slack.config import PLATFORM, reaction_name
from bot.conversation.types import ThreadRef, Turn

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

    def turn(self, scopes: tuple[str, ...]) -> Turn:
        return Turn(
            thread=self.ref,
            event_id=self.event_id,
            user_id=self.user,
            text=self.text,
            message_id=self.ts,
            scopes=scopes,
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
