"""The shipped Slack app manifest asks for what the bot listens to: an admin who pastes it
gets an app whose events, command and shortcut all reach a listener."""

from __future__ import annotations

from pathlib import Path

import yaml

from bot.adapters.slack.forgetting import COMMAND, SHORTCUT

MANIFEST = Path(__file__).resolve().parents[3] / "deploy" / "slack" / "manifest.yml"


def test_the_manifest_subscribes_to_every_event_the_bot_handles_with_the_scopes_they_need() -> None:
    manifest = yaml.safe_load(MANIFEST.read_text())
    events = set(manifest["settings"]["event_subscriptions"]["bot_events"])
    scopes = set(manifest["oauth_config"]["scopes"]["bot"])

    assert {"app_mention", "message.im", "message.channels"} <= events
    assert {"reaction_added", "reaction_removed"} <= events
    needed = {
        "app_mentions:read", "channels:history", "im:history", "chat:write",
        "reactions:read", "reactions:write", "commands",
    }  # fmt: skip
    assert needed <= scopes
    assert manifest["settings"]["socket_mode_enabled"] is True
    assert manifest["settings"]["interactivity"]["is_enabled"] is True  # the reason buttons


def test_the_manifest_command_and_shortcut_are_the_ones_the_bot_listens_for() -> None:
    features = yaml.safe_load(MANIFEST.read_text())["features"]

    assert [c["command"] for c in features["slash_commands"]] == [COMMAND]
    assert [s["callback_id"] for s in features["shortcuts"]] == [SHORTCUT]


def test_the_manifest_turns_on_the_ai_app_view_with_what_its_features_need() -> None:
    manifest = yaml.safe_load(MANIFEST.read_text())

    assert manifest["features"]["assistant_view"]["assistant_description"]
    assert "assistant:write" in manifest["oauth_config"]["scopes"]["bot"]  # prompts, title
    assert "chat:write" in manifest["oauth_config"]["scopes"]["bot"]  # streams and edits too
    assert "assistant_thread_started" in manifest["settings"]["event_subscriptions"]["bot_events"]
    assert "message.im" in manifest["settings"]["event_subscriptions"]["bot_events"]


def test_the_manifest_has_the_scopes_escalation_needs() -> None:
    """Experts' names (users.info) and owners given by e-mail (users.lookupByEmail)."""
    manifest = yaml.safe_load(MANIFEST.read_text())
    assert {"users:read", "users:read.email"} <= set(manifest["oauth_config"]["scopes"]["bot"])
