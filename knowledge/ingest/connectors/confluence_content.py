"""What Confluence's REST API says about a page or attachment, read into plain records:
its version, place in the page tree, read restrictions (users by e-mail, else
`confluence-user:ID`; groups as `group:NAME`), who may read its space, and a page's
storage format as HTML the HTML reader takes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from knowledge.ingest.connectors.base import EVERYONE
from knowledge.ingest.loading import MEDIA_SUFFIXES

ATTACHMENT_TYPES = frozenset(t for t in MEDIA_SUFFIXES if "html" not in t)
_CDATA = re.compile(r"<!\[CDATA\[(.*?)\]\]>", re.DOTALL)
_BARE_LINK = re.compile(r'<ac:link>\s*<ri:page ri:content-title="([^"]*)"[^>]*/>\s*</ac:link>')


@dataclass(frozen=True)
class Content:
    """What a search result says about one page or attachment."""

    id: str
    type: str
    title: str
    version: int
    space: str
    webui: str
    download: str
    media_type: str
    ancestors: tuple[str, ...]  # page ids, the root first
    container: str  # an attachment's page
    restriction: frozenset[str] | None  # read restrictions; None: unrestricted


def content_of(data: dict[str, Any]) -> Content:
    links = data.get("_links") or {}
    container = data.get("container") or {}
    extensions = data.get("extensions") or {}
    metadata = data.get("metadata") or {}
    return Content(
        id=str(data.get("id", "")),
        type=str(data.get("type", "page")),
        title=str(data.get("title", "")),
        version=int((data.get("version") or {}).get("number") or 0),
        space=str((data.get("space") or {}).get("key") or ""),
        webui=str(links.get("webui") or ""),
        download=str(links.get("download") or ""),
        media_type=str(extensions.get("mediaType") or metadata.get("mediaType") or "").lower(),
        ancestors=tuple(str(a.get("id")) for a in data.get("ancestors") or []),
        container=str(container.get("id") or ""),
        restriction=_restriction(data.get("restrictions") or {}),
    )


def _restriction(restrictions: dict[str, Any]) -> frozenset[str] | None:
    read = ((restrictions.get("read") or {}).get("restrictions")) or {}
    users = ((read.get("user") or {}).get("results")) or []
    groups = ((read.get("group") or {}).get("results")) or []
    if not users and not groups:
        return None
    return frozenset([_user(u) for u in users] + [_group(g) for g in groups])


def _user(user: dict[str, Any]) -> str:
    email = str(user.get("email") or "").strip().lower()
    if email:
        return email
    ident = user.get("accountId") or user.get("userKey") or user.get("username") or ""
    return f"confluence-user:{ident}"


def _group(group: dict[str, Any]) -> str:
    return f"group:{group.get('name') or group.get('id') or ''}"


def space_readers(permissions: list[Any], everyone_groups: tuple[str, ...]) -> frozenset[str]:
    """Who may read a space: EVERYONE when anonymous users (or a group every member of
    the organisation is in) may, else its users and groups."""
    readers: set[str] = set()
    for permission in permissions:
        operation = permission.get("operation") or {}
        if operation.get("operation") != "read" or operation.get("targetType") != "space":
            continue
        if permission.get("anonymousAccess") or permission.get("unlicensedAccess"):
            return frozenset([EVERYONE])
        subjects = permission.get("subjects") or {}
        for group in (subjects.get("group") or {}).get("results") or []:
            if group.get("name") in everyone_groups:
                return frozenset([EVERYONE])
            readers.add(_group(group))
        readers.update(_user(u) for u in (subjects.get("user") or {}).get("results") or [])
    return frozenset(readers)


def readable(content: Content) -> bool:
    """Attachments the readers take (PDF, DOCX, Markdown, text); HTML attachments are
    left out, so `text/html` always means a page."""
    return content.type == "attachment" and content.media_type in ATTACHMENT_TYPES


def page_html(title: str, storage: str) -> bytes:
    """Storage-format XHTML as a page the HTML reader takes: CDATA sections (code and
    plain-text macros) become text, and a link to a page without link text shows the
    page's title, as Confluence shows it."""
    body = _CDATA.sub(lambda m: _escape(m.group(1)), storage)
    body = _BARE_LINK.sub(lambda m: m.group(1), body)
    return (
        f"<html><head><title>{_escape(title)}</title></head>"
        f"<body><h1>{_escape(title)}</h1>{body}</body></html>"
    ).encode()


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
