"""Who owns a source: the people asked when an answer from it is rated down or a verified
answer on it must be confirmed (issue 21). Given as `owners = [...]` in knowbot-sources.toml,
per [[source]] or for the folder; each is a Slack user id, `teams:<AAD object id>`, or an
e-mail address (resolved to a chat user when needed)."""

from __future__ import annotations

import re
from typing import Any

SLACK_USER = re.compile(r"^[UW][A-Z0-9]{6,}$")
TEAMS_USER = re.compile(r"^teams:[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$")
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")


def parse_owners(value: Any) -> tuple[str, ...]:
    """The owners as given, in order, once each; a ValueError naming each one that is not
    a Slack user id, a Teams user or an e-mail address."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise ValueError(f"owners must be a list of strings, not {value!r}")
    owners = [str(v).strip() for v in value]
    bad = [o for o in owners if not is_owner_id(o)]
    if bad:
        raise ValueError(
            f"unknown owner id(s) {', '.join(map(repr, bad))}: use a Slack user id (U0123ABCD), "
            "teams:<AAD object id> (a GUID) or an e-mail address"
        )
    return tuple(dict.fromkeys(owners))


def is_owner_id(owner: str) -> bool:
    return bool(SLACK_USER.match(owner) or TEAMS_USER.match(owner) or EMAIL.match(owner))
