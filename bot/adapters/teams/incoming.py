"""Teams activities in neutral terms: who asked what, in which thread, for which channel.

Teams names a channel reply chain `19:…@thread.skype;messageid=<root>`: the part before
`;messageid=` is the channel (what scopes and deliveries are keyed on), the root message id
is the thread. Personal and group chats are one thread each."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

from bot.conversation.types import ThreadRef, Turn
from knowledge.access import Reader

PLATFORM = "teams"
ADDRESSED_SCOPES = ("channel", "groupChat")  # where the bot answers only when mentioned

_MESSAGE_ID = ";messageid="
_AT = re.compile(r"<at\b[^>]*>(.*?)</at>", re.IGNORECASE | re.DOTALL)
_BREAKS = re.compile(r"<br\s*/?>|</p>|</div>", re.IGNORECASE)
_BLOCKS = re.compile(r"</?(?:p|div|span|b|i|u|s|em|strong|code|pre)\b[^>]*>", re.IGNORECASE)
_ANY_TAG = re.compile(r"<[^<>]+>")
_SPACES = re.compile(r"[ \t\u00a0]+")


@dataclass(frozen=True)
class Message:
    """A user's message the bot was asked to handle."""

    thread: ThreadRef
    conversation: str  # the conversation id without `;messageid=`: deliveries are keyed on it
    event_id: str
    user_id: str
    text: str  # mention and markup stripped
    message_id: str
    has_attachments: bool
    personal: bool = False  # a one-to-one chat with the bot (where Teams allows streaming)
    identities: tuple[str, ...] = ()  # the sender's Entra object id, and UPN when sent

    def turn(self, scopes: tuple[str, ...], asker: Reader | None = None) -> Turn:
        """A personal chat is private: its answer may show what `asker` may read."""
        return Turn(
            thread=self.thread,
            event_id=self.event_id,
            user_id=self.user_id,
            text=self.text,
            message_id=self.message_id,
            scopes=scopes,
            asker=asker,
            private=self.personal,
        )

    @property
    def channel(self) -> str:
        return self.thread.channel


def split_conversation(conversation_id: str) -> tuple[str, str | None]:
    """`19:x@thread.skype;messageid=17` -> (`19:x@thread.skype`, `17`)."""
    base, _, root = conversation_id.partition(_MESSAGE_ID)
    return base, root or None


def user_id(activity: Any) -> str:
    """The Entra object id when Teams sends it (stable across bots), else the Teams user id."""
    sender = activity.from_property
    if sender is None:
        return "unknown"
    return str(getattr(sender, "aad_object_id", None) or sender.id or "unknown")


def addressed_message(activity: Any) -> Message | None:
    """The message, or None when it is not for the bot: a channel or group chat message that
    does not mention it, the bot's own echo, or a card submit carrying no text."""
    conversation = activity.conversation
    if conversation is None or not conversation.id or not activity.id:
        return None
    bot_id = activity.recipient.id if activity.recipient is not None else None
    if activity.from_property is not None and activity.from_property.id == bot_id:
        return None  # the bot's own message echoed back
    text, mentioned = _question(activity, bot_id)
    addressed_only = conversation.conversation_type in ADDRESSED_SCOPES
    if addressed_only and not mentioned:
        return None
    attachments = bool(activity.attachments)
    if not text and not attachments and activity.value is not None:
        return None
    base, root = split_conversation(conversation.id)
    return Message(
        thread=ThreadRef(
            platform=PLATFORM,
            workspace=_tenant(activity),
            channel=_channel(activity, base),
            thread=(root or activity.id) if conversation.conversation_type == "channel" else base,
        ),
        conversation=base,
        event_id=f"{base}:{activity.id}",
        user_id=user_id(activity),
        text=text,
        message_id=str(activity.id),
        has_attachments=attachments,
        personal=conversation.conversation_type == "personal",
        identities=identities(activity),
    )


def identities(activity: Any) -> tuple[str, ...]:
    """Who sent the activity, as access lists name people: the Entra object id
    (`from.aadObjectId`), and the user principal name or e-mail address when the activity
    carries one (Microsoft Graph fills in the rest from the object id)."""
    sender = activity.from_property
    if sender is None:
        return ()
    extra = getattr(sender, "additional_properties", None) or {}
    found = [
        getattr(sender, "aad_object_id", None),
        extra.get("userPrincipalName"),
        extra.get("email"),
    ]
    return tuple(str(f) for f in found if isinstance(f, str) and f)


def mentions(activity: Any) -> list[dict[str, Any]]:
    return [e for e in map(entity_dict, activity.entities or []) if e.get("type") == "mention"]


def entity_dict(entity: Any) -> dict[str, Any]:
    """botbuilder keeps unknown entity fields in `additional_properties`; flatten them."""
    if isinstance(entity, dict):
        return entity
    return {"type": getattr(entity, "type", None), **(entity.additional_properties or {})}


def _question(activity: Any, bot_id: str | None) -> tuple[str, bool]:
    text = activity.text or ""
    mentioned = False
    for mention in mentions(activity):
        who = mention.get("mentioned")
        if bot_id and isinstance(who, dict) and who.get("id") == bot_id:
            mentioned = True
            if isinstance(mention.get("text"), str) and mention["text"]:
                text = text.replace(mention["text"], " ")
    text = _AT.sub(r"\1", text)  # other people's mentions keep their names
    text = _BLOCKS.sub("", _BREAKS.sub("\n", text))
    if (activity.text_format or "").lower() in ("xml", "html"):
        text = _ANY_TAG.sub("", text)  # links, images, lists: the words are what we search
    lines = (_SPACES.sub(" ", line).strip() for line in html.unescape(text).splitlines())
    return "\n".join(line for line in lines if line), mentioned


def _tenant(activity: Any) -> str:
    tenant = getattr(activity.conversation, "tenant_id", None)
    if not tenant:
        tenant = _channel_data_id(activity, "tenant")
    return str(tenant or "unknown")


def _channel(activity: Any, base: str) -> str:
    """A Teams channel's id from channelData when present; a chat's conversation id else."""
    return _channel_data_id(activity, "channel") or base


def _channel_data_id(activity: Any, key: str) -> str | None:
    """channelData.<key>.id when Teams sent it as it documents (an object with an id)."""
    data = activity.channel_data
    entry = data.get(key) if isinstance(data, dict) else None
    found = entry.get("id") if isinstance(entry, dict) else None
    return str(found) if isinstance(found, str | int) and found else None
