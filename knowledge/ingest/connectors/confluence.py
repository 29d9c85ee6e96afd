"""Confluence (Cloud or Data Center) as a source: the pages of a space (or of a CQL query)
and their PDF/DOCX attachments, cited by their page links, readable by whom Confluence
lets read them.

Listing and change feed are one REST call, the CQL content search
(`/rest/api/content/search`, paged by `_links.next`), with versions, ancestors and read
restrictions expanded; bodies are not expanded (a listing stays cheap) and are fetched one
page at a time (`/rest/api/content/{id}?expand=body.storage`), only when the version
differs from the one indexed. Attachments download through their own link.

- The first sync, and a full listing every `full_listing_hours`, list everything: the sync
  reconciles against them (what is no longer listed is pruned; nothing is pruned from a
  listing that failed). In between, a sync asks only for what changed:
  `lastmodified >= now("-Nm")`, N being the minutes since the last sync began plus an
  overlap (CQL dates have minute precision and are read in the site's time zone; a relative
  date needs no time zone). Deletions and restriction changes do not change `lastmodified`:
  they reach the index with the next full listing.
- Who may read an item: a page's read restrictions and those of every ancestor (a reader
  must pass each of them); with none, the space's read permission. An attachment is read
  as its page is. Users are named by e-mail (else `confluence-user:ID`), groups as
  `group:NAME`; anonymous access, or a group in `everyone_groups`, opens an item to
  everyone. Where restrictions are on several levels only principals named on every level
  are kept (a user named on one level and a group on another cannot be checked here, so
  they are left out: too few readers, never too many); a page nobody would keep is not
  listed.
- The version an item is indexed at is its Confluence version number plus a digest of its
  access list, so a restriction change re-reads the item and what is stored with it is
  current.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx

from knowledge.ingest.connectors.base import (
    EVERYONE,
    Changes,
    Fetched,
    FetchFailed,
    Item,
    ListingFailed,
    NotModified,
)
from knowledge.ingest.connectors.polite import PoliteClient
from knowledge.ingest.loading import MEDIA_SUFFIXES

log = logging.getLogger(__name__)

KIND = "confluence"
SEARCH_LIMIT = 50  # results per search page (servers may cap it lower)
MAX_SEARCH_PAGES = 10_000  # a server that keeps answering "next" is not trusted forever
RESTRICTIONS = "restrictions.read.restrictions.user,restrictions.read.restrictions.group"
LISTING_EXPAND = f"version,space,ancestors,container,{RESTRICTIONS}"
TYPES = "type in (page, attachment)"
ATTACHMENT_TYPES = frozenset(t for t in MEDIA_SUFFIXES if "html" not in t)
_SPACE_KEY = re.compile(r"^~?[A-Za-z0-9_]+$")
_CDATA = re.compile(r"<!\[CDATA\[(.*?)\]\]>", re.DOTALL)
_BARE_LINK = re.compile(r'<ac:link>\s*<ri:page ri:content-title="([^"]*)"[^>]*/>\s*</ac:link>')

Clock = Callable[[], datetime]


def _now() -> datetime:
    return datetime.now(UTC)


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


@dataclass(frozen=True)
class _Content:
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


@dataclass(frozen=True)
class _Cursor:
    since: datetime  # when the sync this cursor ends began
    full: datetime  # when the last full listing began

    def dump(self) -> str:
        return json.dumps({"since": self.since.isoformat(), "full": self.full.isoformat()})

    @staticmethod
    def load(raw: str) -> _Cursor | None:
        try:
            data = json.loads(raw)
            return _Cursor(
                datetime.fromisoformat(data["since"]), datetime.fromisoformat(data["full"])
            )
        except (ValueError, KeyError, TypeError):
            return None  # not ours (or damaged): a full listing follows


@dataclass
class _Listing:
    """One listing's lookups: contents by id (from the search or read one by one) and
    space permissions."""

    contents: dict[str, _Content] = field(default_factory=dict)
    spaces: dict[str, frozenset[str]] = field(default_factory=dict)


class ConfluenceConnector:
    def __init__(
        self,
        site: ConfluenceSpace,
        auth: ConfluenceAuth,
        client: PoliteClient | None = None,
        clock: Clock = _now,
    ) -> None:
        self.site = site
        self._auth = credentials(site, auth)
        self._client = client or PoliteClient(concurrency=site.concurrency)
        self._clock = clock

    @property
    def key(self) -> str:
        return self.site.key

    @property
    def concurrency(self) -> int:
        return self.site.concurrency

    def list_items(self) -> list[Item]:
        items, _ = self._listed(self.site.query, full=True)
        return items

    def changes(self, cursor: str | None) -> Changes | None:
        started = self._clock()
        last = _Cursor.load(cursor) if cursor else None
        if cursor is None:  # from the start: everything, reconciled like a listing
            items, _ = self._listed(self.site.query, full=True)
            return Changes(upserts=items, cursor=_Cursor(started, started).dump())
        if last is None or self._full_listing_due(last, started):
            return None  # a full listing follows
        elapsed = max(0, math.ceil((started - last.since).total_seconds() / 60))
        minutes = elapsed + self.site.overlap_minutes
        query = f'{self.site.query} and lastmodified >= now("-{minutes}m")'
        items, unreadable = self._listed(query, full=False)
        return Changes(upserts=items, deletes=unreadable, cursor=_Cursor(started, last.full).dump())

    def fetch(self, item: Item, known: str | None) -> Fetched | NotModified:
        if known and known == item.version:
            return NotModified(known)  # the listing said which version it is: nothing to read
        content_id = item.id.rsplit("/", 1)[-1]
        if item.media_type == "text/html":
            return self._fetch_page(item, content_id)
        return self._fetch_attachment(item)

    def close(self) -> None:
        self._client.close()

    # --- listing ------------------------------------------------------------------------------

    def _full_listing_due(self, last: _Cursor, now: datetime) -> bool:
        return now - last.full >= timedelta(hours=self.site.full_listing_hours)

    def _listed(self, query: str, *, full: bool) -> tuple[list[Item], list[str]]:
        """The items a query finds, with their access lists; and the ids of those nobody
        may read here (left out of a listing, deleted from a change feed)."""
        listing = _Listing()
        wanted = [c for c in self._search(query) if c.type == "page" or _readable(c)]
        listing.contents.update({c.id: c for c in wanted})
        found = list(listing.contents.values())  # an item on two search pages counts once
        items, unreadable = [], []
        for content in found:
            access = self._access(content, listing)
            if not access:
                log.warning(
                    "%s: %s %r has read restrictions no principal passes on every level; "
                    "not indexed",
                    self.key,
                    content.type,
                    content.title,
                )
                unreadable.append(self._item_id(content))
                continue
            items.append(self._item(content, access))
        if full and not items:
            what = f"space {self.site.space!r}" if self.site.space else f"cql {self.site.cql!r}"
            raise ListingFailed(
                self.key,
                f"{what} lists no pages or attachments the API user may read; nothing was "
                "pruned — check the space key (or the CQL) and that the user can view the space",
            )
        return items, unreadable

    def _search(self, query: str) -> list[_Content]:
        params = {"cql": query, "limit": str(SEARCH_LIMIT), "expand": LISTING_EXPAND}
        url: str | None = f"{self.site.base_url}/rest/api/content/search?{urlencode(params)}"
        found: list[_Content] = []
        for _ in range(MAX_SEARCH_PAGES):
            if url is None:
                return found
            data = self._json(url, "the content search")
            found += [_content(r) for r in data.get("results", [])]
            url = self._next(data)
        raise ListingFailed(
            self.key, f"the search kept paging past {MAX_SEARCH_PAGES} pages; nothing was pruned"
        )

    def _next(self, data: dict[str, Any]) -> str | None:
        """The next search page: `_links.next` is relative to the site's base (`_links.base`);
        it must stay on this site, since the request carries the credentials."""
        link = str((data.get("_links") or {}).get("next") or "")
        if not link:
            return None
        if link.startswith(("http://", "https://")):
            if not link.startswith(self.site.base_url + "/"):
                raise ListingFailed(
                    self.key, f"the search pointed off the site ({link}); nothing was pruned"
                )
            return link
        context = urlsplit(self.site.base_url).path.rstrip("/")
        if context and link.startswith(context + "/"):
            link = link[len(context) :]  # some servers include the context path
        return self.site.base_url + link

    def _access(self, content: _Content, listing: _Listing) -> tuple[str, ...]:
        page = content if content.type != "attachment" else self._lookup(content.container, listing)
        levels = [self._lookup(a, listing).restriction for a in page.ancestors]
        restricted = [level for level in [*levels, page.restriction] if level is not None]
        if not restricted:
            return tuple(sorted(self._space_access(page.space, listing)))
        return tuple(sorted(frozenset.intersection(*restricted)))

    def _lookup(self, content_id: str, listing: _Listing) -> _Content:
        """A page the search did not return (an ancestor outside the query, an
        attachment's page in a change feed): read on its own, once per listing."""
        if content_id not in listing.contents:
            params = {"expand": LISTING_EXPAND}
            url = f"{self.site.base_url}/rest/api/content/{content_id}?{urlencode(params)}"
            listing.contents[content_id] = _content(self._json(url, f"page {content_id}"))
        return listing.contents[content_id]

    def _space_access(self, space: str, listing: _Listing) -> frozenset[str]:
        if space not in listing.spaces and self.site.space_readers:
            listing.spaces[space] = frozenset(self.site.space_readers)
        if space not in listing.spaces:
            url = f"{self.site.base_url}/rest/api/space/{space}?expand=permissions"
            permissions = self._json(url, f"space {space}").get("permissions")
            access = _space_readers(permissions or [], self.site.everyone_groups)
            if not access:
                raise ListingFailed(
                    self.key,
                    f"cannot tell who may read space {space}: Confluence showed the API user "
                    "none of its permissions; nothing was synced — let the user see the "
                    "space's permissions (space admin), give the token the "
                    "read:space.permission:confluence scope, or name the readers in the "
                    'entry (space_readers = ["everyone"] or ["group:NAME", …])',
                )
            listing.spaces[space] = access
        return listing.spaces[space]

    def _item_id(self, content: _Content) -> str:
        return f"{self.site.base_url}/rest/api/content/{content.id}"

    def _item(self, content: _Content, access: tuple[str, ...]) -> Item:
        digest = hashlib.sha256("\n".join(access).encode()).hexdigest()[:12]
        webui = content.webui or content.download
        page = content.type != "attachment"
        return Item(
            id=self._item_id(content),
            version=f"{content.version}:{digest}",
            link=self.site.base_url + webui if webui.startswith("/") else webui,
            access=access,
            title=content.title if page else content.title.rsplit(".", 1)[0],
            media_type="text/html" if page else content.media_type,
        )

    # --- fetching -----------------------------------------------------------------------------

    def _fetch_page(self, item: Item, content_id: str) -> Fetched:
        url = f"{self.site.base_url}/rest/api/content/{content_id}?expand=body.storage,version"
        response = self._get(url, item.id)
        if response.status_code != 200:
            raise FetchFailed(
                item.id, self._refused(response, "the page") + "; its last good copy stays"
            )
        data = response.json()
        storage = str(((data.get("body") or {}).get("storage") or {}).get("value") or "")
        title = str(data.get("title") or item.title)
        return Fetched(_page_html(title, storage), "text/html", item.version, title)

    def _fetch_attachment(self, item: Item) -> Fetched:
        content_id = item.id.rsplit("/", 1)[-1]
        url = f"{self.site.base_url}/rest/api/content/{content_id}?expand=version"
        meta = self._get(url, item.id)
        if meta.status_code != 200:
            raise FetchFailed(
                item.id, self._refused(meta, "the attachment") + "; its last good copy stays"
            )
        download = str((meta.json().get("_links") or {}).get("download") or "")
        response = self._get(self.site.base_url + download, item.id)
        if response.status_code != 200 or not download:
            raise FetchFailed(
                item.id,
                self._refused(response, "the attachment's download") + "; its last good copy stays",
            )
        return Fetched(response.content, item.media_type, item.version, item.title)

    # --- HTTP ---------------------------------------------------------------------------------

    def _get(self, url: str, item_id: str | None = None) -> httpx.Response:
        """The response; unreachable or without credentials, a ListingFailed (a
        FetchFailed when fetching `item_id`)."""
        failed = ListingFailed if item_id is None else FetchFailed
        if isinstance(self._auth, str):
            raise failed(self.key, self._auth + "; nothing was synced")
        try:
            return self._client.get(url, headers={**self._auth, "Accept": "application/json"})
        except httpx.HTTPError as exc:
            kept = "nothing was pruned" if item_id is None else "its last good copy stays"
            raise failed(item_id or self.key, f"cannot reach Confluence ({exc}); {kept}") from exc

    def _json(self, url: str, what: str) -> dict[str, Any]:
        response = self._get(url)
        if response.status_code != 200:
            raise ListingFailed(self.key, self._refused(response, what) + "; nothing was pruned")
        try:
            data = response.json()
        except ValueError as exc:
            raise ListingFailed(
                self.key,
                f"{what} did not answer JSON — is base_url the Confluence site? Nothing was pruned",
            ) from exc
        if not isinstance(data, dict):
            raise ListingFailed(self.key, f"{what} answered unexpected JSON; nothing was pruned")
        return data

    def _refused(self, response: httpx.Response, what: str) -> str:
        status = response.status_code
        if status == 401:
            fix = (
                "check CONFLUENCE_USER (the account's e-mail) and CONFLUENCE_API_TOKEN (tokens "
                "expire: create a new one at id.atlassian.com)"
                if self.site.is_cloud
                else "check CONFLUENCE_PAT (a personal access token that has not expired)"
            )
            return f"Confluence refused the credentials (HTTP 401) for {what} — {fix}"
        if status == 403:
            return (
                f"Confluence forbade {what} (HTTP 403) — the API user must be able to view the "
                "space, and a scoped token needs read:confluence-content.all, "
                "read:confluence-space.summary, read:confluence-props and search:confluence (or "
                "the granular read:page:confluence, read:attachment:confluence, "
                "read:space:confluence, read:space.permission:confluence, "
                "read:content.restriction:confluence)"
            )
        if status == 404:
            return (
                f"{what} was not found (HTTP 404) — check base_url (Cloud: "
                "https://SITE.atlassian.net/wiki) and the space key"
            )
        if status == 400:
            return f"Confluence refused the query (HTTP 400: {_message(response)}) — check cql"
        if status in (429, 503):
            return f"{what} was still throttled (HTTP {status}) after retries — sync again later"
        return f"{what} answered HTTP {status} — check that Confluence is up, then sync again"


def _content(data: dict[str, Any]) -> _Content:
    links = data.get("_links") or {}
    container = data.get("container") or {}
    extensions = data.get("extensions") or {}
    metadata = data.get("metadata") or {}
    return _Content(
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


def _space_readers(permissions: list[Any], everyone_groups: tuple[str, ...]) -> frozenset[str]:
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


def _readable(content: _Content) -> bool:
    """Attachments the readers take (PDF, DOCX, Markdown, text); HTML attachments are
    left out, so `text/html` always means a page."""
    return content.type == "attachment" and content.media_type in ATTACHMENT_TYPES


def _page_html(title: str, storage: str) -> bytes:
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


def _message(response: httpx.Response) -> str:
    try:
        return str(response.json().get("message") or response.text[:200])
    except ValueError:
        return response.text[:200]
