"""Activity JSON shaped like what Teams posts to a bot (trimmed to the fields that matter)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from typing import Any

BOT_ID = "28:knowbot-app-id"
BOT_NAME = "knowbot"
TENANT = "72f988bf-tenant"
USER = {"id": "29:1asha", "name": "Asha Rao", "aadObjectId": "aad-asha"}
OTHER_USER = {"id": "29:1ben", "name": "Ben Okafor", "aadObjectId": "aad-ben"}
PERSONAL_CHAT = "a:1personal-chat-with-asha"
CHANNEL = "19:general@thread.tacv2"
TEAM = "19:team-benefits@thread.tacv2"

_ids = itertools.count(1_700_000_000_001)


def next_id() -> str:
    return str(next(_ids))


def _base(
    kind: str, service_url: str, conversation: dict[str, Any], sender: dict[str, Any]
) -> dict[str, Any]:
    channel_data: dict[str, Any] = {"tenant": {"id": TENANT}}
    if conversation.get("conversationType") == "channel":
        channel_data |= {
            "teamsChannelId": CHANNEL,
            "teamsTeamId": TEAM,
            "channel": {"id": CHANNEL},
            "team": {"id": TEAM},
        }
    return {
        "type": kind,
        "id": next_id(),
        "timestamp": "2026-11-21T10:00:00.000Z",
        "localTimestamp": "2026-11-21T11:00:00.000+01:00",
        "serviceUrl": service_url,
        "channelId": "msteams",
        "from": sender,
        "conversation": conversation,
        "recipient": {"id": BOT_ID, "name": BOT_NAME},
        "locale": "en-US",
        "channelData": channel_data,
    }


def personal(chat: str = PERSONAL_CHAT) -> dict[str, Any]:
    return {"conversationType": "personal", "tenantId": TENANT, "id": chat}


def channel_chain(root: str) -> dict[str, Any]:
    return {
        "isGroup": True,
        "conversationType": "channel",
        "tenantId": TENANT,
        "id": f"{CHANNEL};messageid={root}",
    }


def message(
    service_url: str,
    text: str | None,
    *,
    conversation: dict[str, Any] | None = None,
    sender: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    activity = _base("message", service_url, conversation or personal(), sender or USER)
    activity |= {"textFormat": "plain", "text": text, **extra}
    activity.setdefault("entities", [{"type": "clientInfo", "locale": "en-US", "platform": "Web"}])
    return activity


def channel_mention(
    service_url: str,
    question: str,
    *,
    root: str | None = None,
    sender: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """`@knowbot question` in a channel: a new post (its own root) or a reply in a chain."""
    mention = f"<at>{BOT_NAME}</at>"
    activity = message(
        service_url,
        f"{mention} {question}",
        sender=sender,
        textFormat="xml",
        entities=[
            {"type": "mention", "text": mention, "mentioned": {"id": BOT_ID, "name": BOT_NAME}},
            {"type": "clientInfo", "locale": "en-US", "platform": "Web"},
        ],
    )
    activity["conversation"] = channel_chain(root or activity["id"])
    return activity


def reaction(
    service_url: str,
    conversation: dict[str, Any],
    reply_to: str,
    *,
    added: Sequence[str] = (),
    removed: Sequence[str] = (),
    sender: dict[str, Any] | None = None,
) -> dict[str, Any]:
    activity = _base("messageReaction", service_url, conversation, sender or USER)
    activity["replyToId"] = reply_to
    if added:
        activity["reactionsAdded"] = [{"type": r} for r in added]
    if removed:
        activity["reactionsRemoved"] = [{"type": r} for r in removed]
    return activity


def feedback_invoke(
    service_url: str,
    conversation: dict[str, Any],
    reply_to: str,
    *,
    reaction: str,
    text: str = "",
    sender: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """What Teams sends when a user submits its built-in thumbs up/down dialog."""
    activity = _base("invoke", service_url, conversation, sender or USER)
    activity |= {
        "name": "message/submitAction",
        "replyToId": reply_to,
        "value": {
            "actionName": "feedback",
            "actionValue": {"reaction": reaction, "feedback": json.dumps({"feedbackText": text})},
        },
    }
    return activity
