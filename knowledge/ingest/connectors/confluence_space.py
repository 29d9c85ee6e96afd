"""Which Confluence content a source means (a space, or a CQL query, on one site) and
the credentials it is read with: checked when the sources file is read, so a wrong
address or space key is named before anything is synced.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

KIND = "confluence"
TYPES = "type in (page, attachment)"
_SPACE_KEY = re.compile(r"^~?[A-Za-z0-9_]+$")


@dataclass(frozen=True)
class ConfluenceSpace:
    """Where the content is: a space, or a CQL query, on one Confluence site."""

    base_url: str
    space: str | None = None
    cql: str | None = None
    concurrency: int = 4
    overlap_minutes: int = 10
    full_listing_hours: float = 6.0
    everyone_groups: tuple[str, ...] = ("confluence-users",)
    space_readers: tuple[str, ...] = ()  # given: who may read unrestricted pages, not asked

    def __post_init__(self) -> None:
        object.__setattr__(self, "base_url", self.base_url.rstrip("/"))
        parts = urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"base_url {self.base_url!r} is not an http(s) URL")
        if "/spaces/" in parts.path or "/pages/" in parts.path or "/display/" in parts.path:
            raise ValueError(
                f"base_url {self.base_url!r} is a page or space address; give the site's "
                'address (Cloud: "https://SITE.atlassian.net/wiki") and the space as space = "KEY"'
            )
        if self.is_cloud and not parts.path.rstrip("/").endswith("/wiki"):
            raise ValueError(
                f"a Confluence Cloud base_url ends in /wiki: "
                f'"{parts.scheme}://{parts.netloc}/wiki", not {self.base_url!r}'
            )
        if bool(self.space) == bool(self.cql):
            raise ValueError('a confluence source needs either space = "KEY" or cql = "…"')
        if self.space and not _SPACE_KEY.match(self.space):
            raise ValueError(
                f"space = {self.space!r} is not a space key (letters and digits, as in the "
                "space's address: …/spaces/KEY/…)"
            )
        if self.cql and "order by" in self.cql.lower():
            raise ValueError("cql must not have an ORDER BY: knowbot adds its own clauses")
        if self.overlap_minutes < 1 or self.full_listing_hours < 0 or self.concurrency < 1:
            raise ValueError(
                "overlap_minutes and concurrency must be at least 1, full_listing_hours at least 0"
            )

    @property
    def is_cloud(self) -> bool:
        return (urlsplit(self.base_url).hostname or "").endswith(".atlassian.net")

    @property
    def query(self) -> str:
        where = f'space = "{self.space}"' if self.space else f"({self.cql})"
        return f"{where} and {TYPES}"

    @property
    def key(self) -> str:
        if self.space:
            return f"{KIND}:{self.base_url}/spaces/{self.space}"
        return f"{KIND}:{self.base_url}?cql={self.cql}"


@dataclass(frozen=True)
class ConfluenceAuth:
    """Credentials (from the settings: CONFLUENCE_USER, CONFLUENCE_API_TOKEN, CONFLUENCE_PAT)."""

    user: str = ""
    api_token: str = ""
    pat: str = ""


def credentials(site: ConfluenceSpace, auth: ConfluenceAuth) -> dict[str, str] | str:
    """The Authorization header, or what to set when there is none to send. Cloud takes
    the account's e-mail and an API token (basic auth); Data Center a personal access token
    (a bearer token), or a user name and password."""
    if auth.pat and not site.is_cloud:
        return {"Authorization": f"Bearer {auth.pat}"}
    if auth.user and auth.api_token:
        pair = base64.b64encode(f"{auth.user}:{auth.api_token}".encode()).decode()
        return {"Authorization": f"Basic {pair}"}
    if site.is_cloud:
        return (
            "no credentials: set CONFLUENCE_USER (the account's e-mail) and "
            "CONFLUENCE_API_TOKEN (an API token of that account)"
        )
    return (
        "no credentials: set CONFLUENCE_PAT (a personal access token of a user who can read "
        "the space)"
    )
