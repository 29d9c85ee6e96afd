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

import hashlib
import json
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx

from knowledge.ingest.connectors.base import (
    Changes,
    Fetched,
    FetchFailed,
    Item,
    ListingFailed,
    NotModified,
)
from knowledge.ingest.connectors.confluence_content import (
    Content,
    content_of,
    page_html,
    readable,
    space_readers,
)
from knowledge.ingest.connectors.confluence_errors import refused
from knowledge.ingest.connectors.confluence_space import (
    ConfluenceAuth,
    ConfluenceSpace,
    credentials,
)
from knowledge.ingest.connectors.polite import PoliteClient

log = logging.getLogger(__name__)

SEARCH_LIMIT = 50  # results per search page (servers may cap it lower)
MAX_SEARCH_PAGES = 10_000  # a server that keeps answering "next" is not trusted forever
RESTRICTIONS = "restrictions.read.restrictions.user,restrictions.read.restrictions.group"
LISTING_EXPAND = f"version,space,ancestors,container,{RESTRICTIONS}"

Clock = Callable[[], datetime]


def _now() -> datetime:
    return datetime.now(UTC)


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

    contents: dict[str, Content] = field(default_factory=dict)
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
        wanted = [c for c in self._search(query) if c.type == "page" or readable(c)]
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

    def _search(self, query: str) -> list[Content]:
        params = {"cql": query, "limit": str(SEARCH_LIMIT), "expand": LISTING_EXPAND}
        url: str | None = f"{self.site.base_url}/rest/api/content/search?{urlencode(params)}"
        found: list[Content] = []
        for _ in range(MAX_SEARCH_PAGES):
            if url is None:
                return found
            data = self._json(url, "the content search")
            found += [content_of(r) for r in data.get("results", [])]
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

    def _access(self, content: Content, listing: _Listing) -> tuple[str, ...]:
        page = content if content.type != "attachment" else self._lookup(content.container, listing)
        levels = [self._lookup(a, listing).restriction for a in page.ancestors]
        restricted = [level for level in [*levels, page.restriction] if level is not None]
        if not restricted:
            return tuple(sorted(self._space_access(page.space, listing)))
        return tuple(sorted(frozenset.intersection(*restricted)))

    def _lookup(self, content_id: str, listing: _Listing) -> Content:
        """A page the search did not return (an ancestor outside the query, an
        attachment's page in a change feed): read on its own, once per listing."""
        if content_id not in listing.contents:
            params = {"expand": LISTING_EXPAND}
            url = f"{self.site.base_url}/rest/api/content/{content_id}?{urlencode(params)}"
            listing.contents[content_id] = content_of(self._json(url, f"page {content_id}"))
        return listing.contents[content_id]

    def _space_access(self, space: str, listing: _Listing) -> frozenset[str]:
        if space not in listing.spaces and self.site.space_readers:
            listing.spaces[space] = frozenset(self.site.space_readers)
        if space not in listing.spaces:
            url = f"{self.site.base_url}/rest/api/space/{space}?expand=permissions"
            permissions = self._json(url, f"space {space}").get("permissions")
            access = space_readers(permissions or [], self.site.everyone_groups)
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

    def _item_id(self, content: Content) -> str:
        return f"{self.site.base_url}/rest/api/content/{content.id}"

    def _item(self, content: Content, access: tuple[str, ...]) -> Item:
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
                item.id,
                refused(response, "the page", cloud=self.site.is_cloud)
                + "; its last good copy stays",
            )
        data = response.json()
        storage = str(((data.get("body") or {}).get("storage") or {}).get("value") or "")
        title = str(data.get("title") or item.title)
        return Fetched(page_html(title, storage), "text/html", item.version, title)

    def _fetch_attachment(self, item: Item) -> Fetched:
        content_id = item.id.rsplit("/", 1)[-1]
        url = f"{self.site.base_url}/rest/api/content/{content_id}?expand=version"
        meta = self._get(url, item.id)
        if meta.status_code != 200:
            raise FetchFailed(
                item.id,
                refused(meta, "the attachment", cloud=self.site.is_cloud)
                + "; its last good copy stays",
            )
        download = str((meta.json().get("_links") or {}).get("download") or "")
        response = self._get(self.site.base_url + download, item.id)
        if response.status_code != 200 or not download:
            raise FetchFailed(
                item.id,
                refused(response, "the attachment's download", cloud=self.site.is_cloud)
                + "; its last good copy stays",
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
            raise ListingFailed(
                self.key, refused(response, what, cloud=self.site.is_cloud) + "; nothing was pruned"
            )
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
