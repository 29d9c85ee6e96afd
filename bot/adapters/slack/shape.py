"""What a Slack request body must look like before slack-bolt may see it.

bolt trusts Slack's payloads: it calls `.get` on whatever sits under `event`, indexes
`authorizations[0]`, and matches listener patterns against `type` and `action_id`. A signed
body with a string where an object belongs therefore raised AttributeError or TypeError
inside bolt (an HTTP 500 with a traceback). The fields bolt and this adapter read are
checked here; anything else in the body is left alone."""

from __future__ import annotations

from typing import Any

from bot.adapters.request_body import shape_problem

ID = (str, dict)  # a user, team, channel or enterprise: its id, or an object with "id"

_MESSAGE: dict[str, Any] = {
    "type": str,
    "subtype": str,
    "user": ID,
    "channel": ID,
    "team": ID,
    "ts": str,
    "thread_ts": str,
}
_EVENT: dict[str, Any] = {
    **_MESSAGE,
    "item": {"type": str, "channel": str, "ts": str},
    "message": _MESSAGE,
    "previous_message": _MESSAGE,
    "assistant_thread": {"channel_id": str, "thread_ts": str},
    "function_execution_id": str,
}
BODY: dict[str, Any] = {
    **{key: str for key in ("type", "event_id", "team_id", "user_id", "channel_id")},
    **{key: str for key in ("enterprise_id", "command", "callback_id", "thread_ts")},
    **{key: str for key in ("response_url", "trigger_id", "challenge")},
    **{key: ID for key in ("enterprise", "team", "user", "channel")},
    "authorizations": [{"enterprise_id": str, "team_id": str, "user_id": str}],
    "actions": [{"action_id": str, "block_id": str, "type": str}],
    "response_urls": [{"response_url": str}],
    "event": _EVENT,
    "view": {"callback_id": str, "type": str, "team_id": str, "app_installed_team_id": str},
    "message": _MESSAGE,
    "previous_message": _MESSAGE,
    "item": dict,
    "assistant_thread": dict,
    "function_data": {"execution_id": str, "inputs": dict},
    "container": dict,
    "state": dict,
}


def problem(body: dict[str, Any]) -> str | None:
    """None when bolt can read `body`; else what is wrong, naming the field."""
    return shape_problem(body, BODY)
