"""What a Slack request body must look like before slack-bolt may see it.

bolt trusts Slack's payloads: it calls `.get` on whatever sits under `event`, indexes
`authorizations[0]`, and matches listener patterns against `type` and `action_id`. A signed
body with a string where an object belongs therefore raised AttributeError or TypeError
inside bolt (an HTTP 500 with a traceback). The fields bolt and this adapter read are
checked here; anything else in the body is left alone."""

from __future__ import annotations

from typing import Any

# key -> what it may hold (None is always allowed: Slack leaves fields out or null)
_IDENTITY = ("enterprise", "team", "user", "channel")  # an id string or an object with "id"
_OBJECTS = (
    "event",
    "view",
    "message",
    "previous_message",
    "item",
    "assistant_thread",
    "function_data",
    "container",
    "state",
)
_OBJECT_LISTS = ("authorizations", "actions", "response_urls")
_STRINGS = (
    "type",
    "subtype",
    "command",
    "callback_id",
    "action_id",
    "block_id",
    "event_id",
    "team_id",
    "user_id",
    "channel_id",
    "enterprise_id",
    "thread_ts",
    "ts",
    "response_url",
    "trigger_id",
    "challenge",
)
_MAX_LEVELS = 4  # body -> event -> item/message -> ...: deep enough for every field bolt reads


def problem(body: dict[str, Any]) -> str | None:
    """None when bolt can read `body`; else what is wrong, naming the field."""
    return _problem(body, "body", _MAX_LEVELS)


def _problem(obj: dict[str, Any], where: str, levels: int) -> str | None:
    for key in _STRINGS:
        value = obj.get(key)
        if value is not None and not isinstance(value, str):
            return f"{where}.{key} must be a string, not {type(value).__name__}"
    for key in _IDENTITY:
        value = obj.get(key)
        if value is not None and not isinstance(value, str | dict):
            return f"{where}.{key} must be an id or an object, not {type(value).__name__}"
    children: list[tuple[str, dict[str, Any]]] = []
    for key in _OBJECTS:
        value = obj.get(key)
        if value is not None and not isinstance(value, dict):
            return f"{where}.{key} must be an object, not {type(value).__name__}"
        if value is not None:
            children.append((f"{where}.{key}", value))
    for key in _OBJECT_LISTS:
        value = obj.get(key)
        if value is None:
            continue
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            return f"{where}.{key} must be a list of objects"
        children += [(f"{where}.{key}[{i}]", v) for i, v in enumerate(value[:5])]
    children += [(f"{where}.{k}", v) for k in _IDENTITY if isinstance(v := obj.get(k), dict)]
    if levels <= 1:
        return None
    for child_where, child in children:
        found = _problem(child, child_where, levels - 1)
        if found:
            return found
    return None
