"""What Graph says about a drive item, read into what the index keeps: the type knowbot
reads a file as (by its name), who may read it (from its permissions), and where it sits
below the drive's root.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote

from knowledge.ingest.connectors.base import EVERYONE

READABLE = {
    ".pdf": "application/pdf",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".txt": "text/plain",
    ".html": "text/html",
    ".htm": "text/html",
    ".aspx": "text/html",
}
Raw = dict[str, Any]


def access_of(permissions: list[Raw]) -> tuple[str, ...]:
    """Access list entries from an item's permissions (as knowledge.access compares them):
    `everyone` for an organisation (or anonymous) sharing link, a person's e-mail (or UPN)
    and Entra object id, `group:<object id>` for Entra groups, `sitegroup:<name>` for
    SharePoint groups (whose members are not resolved: no reader matches them). No
    permissions at all: an empty list, which no one matches."""
    entries: set[str] = set()
    for permission in permissions:
        link = permission.get("link") or {}
        if link.get("scope") in ("organization", "anonymous"):
            entries.add(EVERYONE)
            continue
        granted = [permission.get("grantedToV2") or permission.get("grantedTo") or {}]
        granted += permission.get("grantedToIdentitiesV2") or []
        granted += permission.get("grantedToIdentities") or []
        for identity in granted:
            entries |= _identity_entries(identity)
    return tuple(sorted(entries))


def _identity_entries(identity: Raw) -> set[str]:
    entries = set()
    for kind in ("user", "siteUser"):
        who = identity.get(kind) or {}
        login = str(who.get("loginName", "")).rsplit("|", 1)[-1]
        email = who.get("email") or (login if "@" in login else "")
        if email:
            entries.add(str(email).lower())
        if kind == "user" and who.get("id"):
            entries.add(str(who["id"]).lower())
    if (identity.get("group") or {}).get("id"):
        entries.add(f"group:{str(identity['group']['id']).lower()}")
    site_group = identity.get("siteGroup") or {}
    if site_group.get("loginName") or site_group.get("displayName"):
        entries.add(f"sitegroup:{site_group.get('loginName') or site_group['displayName']}")
    return entries


def media_type(raw: Raw) -> str:
    """The type knowbot reads the file as, by its name; '' for files it cannot read."""
    return READABLE.get(PurePosixPath(str(raw.get("name", ""))).suffix.lower(), "")


def below_root(path: str) -> str:
    """'/drives/ID/root:/A/B' -> '/A/B'; '/drives/ID/root:' -> ''."""
    below = unquote(path.split("root:", 1)[1]) if "root:" in path else ""
    return "/" + below.strip("/") if below.strip("/") else ""


def joined(parent: str, raw: Raw) -> str:
    return f"{parent}/{raw.get('name', '')}"
