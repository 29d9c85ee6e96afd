"""Request bodies shaped like the ones Slack sends (fields as in Slack's Events API,
interactivity and slash-command docs), and Slack's request signing."""

from __future__ import annotations

import itertools
import json
import time
import uuid
from typing import Any
from urllib.parse import urlencode

from slack_sdk.signature import SignatureVerifier

from tests.fakes.slack_server import BOT_USER, TEAM

SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
APP_ID = "A0KNOWBOT"
USER = "U0ALICE"
OTHER_USER = "U0BOB"
CHANNEL = "C0HR"
DM = "D0ALICE"

_ts = itertools.count(1)


def new_ts() -> str:
    return f"{1_700_000_000 + next(_ts)}.{next(_ts):06d}"


def signed_headers(
    body: str, *, secret: str = SECRET, timestamp: int | None = None, retry: int | None = None
) -> dict[str, str]:
    stamp = str(timestamp if timestamp is not None else int(time.time()))
    signature = SignatureVerifier(secret).generate_signature(timestamp=stamp, body=body)
    assert signature is not None  # only None when the timestamp or body is missing
    headers = {"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": signature}
    if retry is not None:
        headers["X-Slack-Retry-Num"] = str(retry)
        headers["X-Slack-Retry-Reason"] = "http_timeout"
    return headers


def event_callback(event: dict[str, Any], *, event_id: str | None = None) -> dict[str, Any]:
    return {
        "token": "legacy-verification-token",
        "team_id": TEAM,
        "context_team_id": TEAM,
        "api_app_id": APP_ID,
        "event": event,
        "type": "event_callback",
        "event_id": event_id or f"Ev{uuid.uuid4().hex[:10].upper()}",
        "event_time": int(time.time()),
        "authorizations": [
            {
                "enterprise_id": None,
                "team_id": TEAM,
                "user_id": BOT_USER,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
        "is_ext_shared_channel": False,
        "event_context": f"4-{uuid.uuid4().hex}",
    }


def _rich_text(text: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "rich_text",
            "block_id": uuid.uuid4().hex[:5],
            "elements": [
                {"type": "rich_text_section", "elements": [{"type": "text", "text": text}]}
            ],
        }
    ]


def mention(
    text: str, *, channel: str = CHANNEL, user: str = USER, thread_ts: str | None = None
) -> dict[str, Any]:
    """`app_mention`: someone wrote `@knowbot ...` in a channel."""
    ts = new_ts()
    event = {
        "client_msg_id": str(uuid.uuid4()),
        "type": "app_mention",
        "text": f"<@{BOT_USER}> {text}",
        "user": user,
        "ts": ts,
        "blocks": _rich_text(text),
        "team": TEAM,
        "channel": channel,
        "event_ts": ts,
    }
    if thread_ts:
        event["thread_ts"] = thread_ts
    return event_callback(event)


def message(
    text: str,
    *,
    channel: str = CHANNEL,
    user: str = USER,
    thread_ts: str | None = None,
    channel_type: str = "channel",
    **extra: Any,
) -> dict[str, Any]:
    """`message.channels` / `message.im`: a plain message (in a thread when thread_ts)."""
    ts = new_ts()
    event: dict[str, Any] = {
        "client_msg_id": str(uuid.uuid4()),
        "type": "message",
        "text": text,
        "user": user,
        "ts": ts,
        "blocks": _rich_text(text),
        "team": TEAM,
        "channel": channel,
        "event_ts": ts,
        "channel_type": channel_type,
    }
    if thread_ts:
        event["thread_ts"] = thread_ts
        event["parent_user_id"] = USER
    event.update(extra)
    return event_callback(event)


def direct_message(text: str, *, thread_ts: str | None = None) -> dict[str, Any]:
    return message(text, channel=DM, channel_type="im", thread_ts=thread_ts)


def edited(channel: str = CHANNEL) -> dict[str, Any]:
    ts = new_ts()
    return event_callback(
        {
            "type": "message",
            "subtype": "message_changed",
            "message": {
                "type": "message",
                "user": USER,
                "text": "what is the PED waiting period? (edited)",
                "edited": {"user": USER, "ts": ts},
                "ts": "1700000000.000001",
            },
            "previous_message": {"type": "message", "user": USER, "text": "what is PED"},
            "channel": channel,
            "hidden": True,
            "ts": ts,
            "event_ts": ts,
            "channel_type": "channel",
        }
    )


def deleted(channel: str = CHANNEL) -> dict[str, Any]:
    ts = new_ts()
    return event_callback(
        {
            "type": "message",
            "subtype": "message_deleted",
            "hidden": True,
            "deleted_ts": "1700000000.000001",
            "channel": channel,
            "previous_message": {"type": "message", "user": USER, "text": "what is PED?"},
            "ts": ts,
            "event_ts": ts,
            "channel_type": "channel",
        }
    )


def bot_message(text: str, *, channel: str = DM, bot_id: str = "B0OTHER") -> dict[str, Any]:
    ts = new_ts()
    return event_callback(
        {
            "type": "message",
            "subtype": "bot_message",
            "text": text,
            "ts": ts,
            "username": "otherbot",
            "bot_id": bot_id,
            "channel": channel,
            "event_ts": ts,
            "channel_type": "im" if channel.startswith("D") else "channel",
        }
    )


def reaction(
    name: str, *, ts: str, channel: str = CHANNEL, user: str = USER, removed: bool = False
) -> dict[str, Any]:
    return event_callback(
        {
            "type": "reaction_removed" if removed else "reaction_added",
            "user": user,
            "reaction": name,
            "item": {"type": "message", "channel": channel, "ts": ts},
            "item_user": BOT_USER,
            "event_ts": new_ts(),
        }
    )


def assistant_thread_started(
    *, thread_ts: str, channel: str = DM, user: str = USER
) -> dict[str, Any]:
    """The user opened an assistant thread in Slack's AI-app view."""
    return event_callback(
        {
            "type": "assistant_thread_started",
            "assistant_thread": {
                "user_id": user,
                "context": {"channel_id": CHANNEL, "team_id": TEAM, "enterprise_id": None},
                "channel_id": channel,
                "thread_ts": thread_ts,
            },
            "event_ts": new_ts(),
        }
    )


def feedback_click(
    value: str, *, message_ts: str, channel: str = CHANNEL, user: str = USER, thread_ts: str = ""
) -> str:
    """`block_actions` from the feedback buttons under an answer (form body)."""
    container = {
        "type": "message",
        "message_ts": message_ts,
        "channel_id": channel,
        "is_ephemeral": False,
        "thread_ts": thread_ts or message_ts,
    }
    action = {
        "type": "feedback_buttons",
        "action_id": "knowbot_feedback",
        "block_id": "fb01",
        "value": value,
        "action_ts": str(time.time()),
    }
    payload = _block_actions(container, action, user=user, channel=channel)
    payload["message"] = {"type": "message", "user": BOT_USER, "ts": message_ts, "text": "answer"}
    payload["response_url"] = "https://hooks.slack.com/actions/T0KNOWBOT/1/abc"
    return urlencode({"payload": json.dumps(payload)})


def reason_click(*, value: str, response_url: str, user: str = USER, channel: str = CHANNEL) -> str:
    """`block_actions` from a button in the ephemeral "what was wrong?" message (form body)."""
    key = value.split(":", 1)[1]
    container = {
        "type": "message",
        "message_ts": new_ts(),
        "channel_id": channel,
        "is_ephemeral": True,
    }
    action = {
        "action_id": f"knowbot_reason_{key}",
        "block_id": "knowbot_reason",
        "text": {"type": "plain_text", "text": key, "emoji": True},
        "value": value,
        "type": "button",
        "action_ts": str(time.time()),
    }
    payload = _block_actions(container, action, user=user, channel=channel)
    payload["response_url"] = response_url
    return urlencode({"payload": json.dumps(payload)})


def button_click(
    action_id: str,
    value: str,
    *,
    message_ts: str,
    channel: str = CHANNEL,
    user: str = USER,
    thread_ts: str | None = None,
) -> str:
    """`block_actions` from a plain button on a message the bot posted (form body)."""
    container: dict[str, Any] = {
        "type": "message",
        "message_ts": message_ts,
        "channel_id": channel,
        "is_ephemeral": False,
    }
    message_body: dict[str, Any] = {"type": "message", "user": BOT_USER, "ts": message_ts}
    if thread_ts:
        container["thread_ts"] = thread_ts
        message_body["thread_ts"] = thread_ts
    action = {
        "type": "button",
        "action_id": action_id,
        "block_id": "b01",
        "text": {"type": "plain_text", "text": action_id},
        "value": value,
        "action_ts": str(time.time()),
    }
    payload = _block_actions(container, action, user=user, channel=channel)
    payload["message"] = message_body
    payload["response_url"] = "https://hooks.slack.com/actions/T0KNOWBOT/1/abc"
    return urlencode({"payload": json.dumps(payload)})


def view_submission(view: dict[str, Any], *, values: dict[str, Any], user: str = USER) -> str:
    """A modal the bot opened, submitted (form body): `values` as Slack's view state."""
    payload = {
        "type": "view_submission",
        "team": {"id": TEAM, "domain": "knowbot-test"},
        "user": {"id": user, "username": "expert", "name": "expert", "team_id": TEAM},
        "api_app_id": APP_ID,
        "token": "legacy-verification-token",
        "trigger_id": "123.456.def",
        "view": {**view, "id": "V0ANSWER", "team_id": TEAM, "state": {"values": values}},
        "response_urls": [],
        "is_enterprise_install": False,
    }
    return urlencode({"payload": json.dumps(payload)})


def _block_actions(
    container: dict[str, Any], action: dict[str, Any], *, user: str, channel: str
) -> dict[str, Any]:
    """The envelope Slack wraps a click on a block element in."""
    return {
        "type": "block_actions",
        "user": {"id": user, "username": "alice", "name": "alice", "team_id": TEAM},
        "api_app_id": APP_ID,
        "token": "legacy-verification-token",
        "container": container,
        "trigger_id": "123.456.abc",
        "team": {"id": TEAM, "domain": "knowbot-test"},
        "enterprise": None,
        "is_enterprise_install": False,
        "channel": {"id": channel, "name": "hr"},
        "state": {"values": {}},
        "actions": [action],
    }


def slash_command(
    command: str, text: str, *, channel: str, response_url: str, user: str = USER
) -> str:
    return urlencode(
        {
            "token": "legacy-verification-token",
            "team_id": TEAM,
            "team_domain": "knowbot-test",
            "channel_id": channel,
            "channel_name": "directmessage" if channel.startswith("D") else "hr",
            "user_id": user,
            "user_name": "alice",
            "command": command,
            "text": text,
            "api_app_id": APP_ID,
            "is_enterprise_install": "false",
            "response_url": response_url,
            "trigger_id": "123.456.abc",
        }
    )


def message_shortcut(
    callback_id: str, *, channel: str, ts: str, thread_ts: str | None, response_url: str
) -> str:
    message_body: dict[str, Any] = {"type": "message", "user": USER, "ts": ts, "text": "hi"}
    if thread_ts:
        message_body["thread_ts"] = thread_ts
    payload = {
        "type": "message_action",
        "token": "legacy-verification-token",
        "action_ts": str(time.time()),
        "team": {"id": TEAM, "domain": "knowbot-test"},
        "user": {"id": USER, "username": "alice", "team_id": TEAM, "name": "alice"},
        "channel": {"id": channel, "name": "hr"},
        "is_enterprise_install": False,
        "enterprise": None,
        "callback_id": callback_id,
        "trigger_id": "123.456.abc",
        "response_url": response_url,
        "message_ts": ts,
        "message": message_body,
    }
    return urlencode({"payload": json.dumps(payload)})
