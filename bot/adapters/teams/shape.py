"""The fields of an incoming Activity this adapter and botbuilder read, with their types.

msrest's deserializer takes `"id": [1, 2]` for a string field as it is, so a list would
reach the connector's URL and the database; such bodies are refused with a 400 instead."""

from __future__ import annotations

from typing import Any

from bot.adapters.request_body import shape_problem

_ACCOUNT: dict[str, Any] = {"id": str, "name": str, "aadObjectId": str, "role": str}
ACTIVITY: dict[str, Any] = {
    **{key: str for key in ("type", "id", "name", "text", "textFormat", "replyToId")},
    **{key: str for key in ("channelId", "locale", "serviceUrl")},
    "from": _ACCOUNT,
    "recipient": _ACCOUNT,
    "conversation": {"id": str, "conversationType": str, "tenantId": str, "name": str},
    "entities": [dict],
    "attachments": [{"contentType": str, "contentUrl": str, "name": str}],
    "reactionsAdded": [{"type": str}],
    "reactionsRemoved": [{"type": str}],
    "membersAdded": [_ACCOUNT],
    "membersRemoved": [_ACCOUNT],
    "channelData": dict,
}


def problem(body: dict[str, Any]) -> str | None:
    return shape_problem(body, ACTIVITY, "activity")
