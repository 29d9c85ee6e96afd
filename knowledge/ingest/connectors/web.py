"""A web site as a source: its pages from a sitemap (or a crawl from a start URL within a
prefix), fetched politely — robots.txt obeyed, a cap on requests in flight, conditional
GETs so an unchanged page costs a 304 and no download — and cited by their own URL.

A listing is all or nothing: a sitemap that answers 500, or stops part way, raises
ListingFailed, and the caller prunes nothing on it.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import deque
from dataclasses import dataclass
from urllib.parse import urldefrag, urljoin, urlsplit
from urllib.robotparser import RobotFileParser

import httpx
from bs4 import BeautifulSoup

from knowledge.ingest.connectors.base import (
    Changes,
    Fetched,
    FetchFailed,
    Item,
    ListingFailed,
    NotModified,
)
from knowledge.ingest.connectors.polite import USER_AGENT, PoliteClient

_SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
MAX_SITEMAPS = 100  # nested sitemap files followed from one index


@dataclass(frozen=True)
class WebSite:
    """Where the pages are: a sitemap, or a start URL crawled within `prefix`."""

    sitemap: str | None = None
    start: str | None = None
    prefix: str | None = None
    max_pages: int = 5000
    concurrency: int = 4

    def __post_init__(self) -> None:
        if bool(self.sitemap) == bool(self.start):
            raise ValueError("a web source needs either sitemap = URL or start = URL (not both)")
        for url in (self.sitemap, self.start, self.prefix):
            if url and urlsplit(url).scheme not in ("http", "https"):
                raise ValueError(f"{url!r} is not an http(s) URL")

    @property
    def origin(self) -> str:
        parts = urlsplit(self.sitemap or self.start or "")
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def within(self) -> str:
        """Pages outside this prefix are not part of the source."""
        return self.prefix or (self.origin + "/")


class WebConnector:
    def __init__(self, site: WebSite, client: PoliteClient | None = None) -> None:
        self.site = site
        self._client = client or PoliteClient(concurrency=site.concurrency)
        self._crawled: dict[str, httpx.Response] = {}

    @property
    def key(self) -> str:
        return f"web:{self.site.sitemap or self.site.start}"

    @property
    def concurrency(self) -> int:
        return self.site.concurrency

    def changes(self, cursor: str | None) -> Changes | None:
        return None  # the web has no change feed: every sync is a listing

    def list_items(self) -> list[Item]:
        robots = self._robots()
        urls = self._sitemap_urls() if self.site.sitemap else self._crawl(robots)
        allowed = [u for u in urls if u.startswith(self.site.within)]
        allowed = [u for u in dict.fromkeys(allowed) if robots.can_fetch(USER_AGENT, u)]
        self._check_cap(len(allowed))
        return [Item(id=u, version="", link=u, media_type="") for u in allowed]

    def fetch(self, item: Item, known: str | None) -> Fetched | NotModified:
        if item.id in self._crawled:
            return _fetched(item, self._crawled.pop(item.id))
        try:
            response = self._client.get(item.id, headers=_conditional(known))
        except httpx.HTTPError as exc:
            raise FetchFailed(
                item.id, f"cannot reach the page ({exc}); kept its last copy"
            ) from exc
        if response.status_code == 304 and known:
            return NotModified(known)
        return _fetched(item, response)

    def close(self) -> None:
        self._client.close()

    # --- listing ------------------------------------------------------------------------------

    def _get_listing(self, url: str, what: str) -> httpx.Response:
        try:
            response = self._client.get(url)
        except httpx.HTTPError as exc:
            raise ListingFailed(
                url, f"cannot reach the {what} ({exc}); nothing was pruned"
            ) from exc
        if response.status_code != 200:
            raise ListingFailed(
                url,
                f"the {what} answered HTTP {response.status_code}; nothing was pruned — "
                "check the URL and the site, then sync again",
            )
        return response

    def _robots(self) -> RobotFileParser:
        url = self.site.origin + "/robots.txt"
        parser = RobotFileParser(url)
        try:
            response = self._client.get(url)
        except httpx.HTTPError as exc:
            raise ListingFailed(url, f"cannot read robots.txt ({exc}); nothing was pruned") from exc
        if response.status_code >= 500:
            raise ListingFailed(
                url,
                f"robots.txt answered HTTP {response.status_code}; the site may be down, so "
                "nothing was fetched or pruned — sync again later",
            )
        parser.parse(response.text.splitlines() if response.status_code == 200 else [])
        return parser

    def _sitemap_urls(self) -> list[str]:
        assert self.site.sitemap
        todo = deque([self.site.sitemap])
        seen: set[str] = set()
        pages: list[str] = []
        while todo:
            url = todo.popleft()
            if url in seen:
                continue
            if len(seen) >= MAX_SITEMAPS:
                raise ListingFailed(
                    self.site.sitemap,
                    f"the sitemap index names more than {MAX_SITEMAPS} sitemaps; nothing was "
                    "pruned — point `sitemap` at one of them",
                )
            seen.add(url)
            root = _xml(self._get_listing(url, "sitemap"), url)
            if root.tag == f"{_SITEMAP_NS}sitemapindex":
                todo.extend(_locs(root, "sitemap"))
            else:
                pages.extend(_locs(root, "url"))
        return pages

    def _check_cap(self, count: int) -> None:
        """More pages than the cap: a listing cut short would look like deletions."""
        if count > self.site.max_pages:
            raise ListingFailed(
                self.key,
                f"more than max_pages = {self.site.max_pages} pages; nothing was pruned — "
                "raise max_pages or narrow the prefix",
            )

    def _crawl(self, robots: RobotFileParser) -> list[str]:
        """Breadth-first from the start URL, links within the prefix only. The pages read
        here are kept, so fetching them again costs nothing."""
        assert self.site.start
        start = urldefrag(self.site.start).url
        todo, seen = deque([start]), {start}
        pages: list[str] = []
        while todo:
            self._check_cap(len(pages) + 1)
            url = todo.popleft()
            if not robots.can_fetch(USER_AGENT, url):
                continue
            response = self._crawl_get(url)
            if response is None:
                continue  # gone (404/410): not listed, so its chunks are pruned
            pages.append(url)
            self._crawled[url] = response
            if "html" in response.headers.get("content-type", ""):
                for link in _links(response):
                    if link.startswith(self.site.within) and link not in seen:
                        seen.add(link)
                        todo.append(link)
        return pages

    def _crawl_get(self, url: str) -> httpx.Response | None:
        """A crawled page; None when it is gone. Any other failure stops the listing:
        a page the crawl could not read must not look deleted."""
        try:
            response = self._client.get(url)
        except httpx.HTTPError as exc:
            raise ListingFailed(url, f"cannot reach the page ({exc}); nothing was pruned") from exc
        if response.status_code in (404, 410) and url != self.site.start:
            return None
        if response.status_code != 200:
            raise ListingFailed(
                url,
                f"the crawl stopped: HTTP {response.status_code}; nothing was pruned — "
                "check the site, then sync again",
            )
        return response


def _conditional(known: str | None) -> dict[str, str]:
    if not known:
        return {}
    validators = json.loads(known)
    headers = {}
    if validators.get("etag"):
        headers["If-None-Match"] = validators["etag"]
    if validators.get("last_modified"):
        headers["If-Modified-Since"] = validators["last_modified"]
    return headers


def _fetched(item: Item, response: httpx.Response) -> Fetched:
    if response.status_code != 200:
        raise FetchFailed(
            item.id,
            f"the page answered HTTP {response.status_code}; its last good copy stays "
            "searchable — check the page, or remove it from the sitemap",
        )
    media_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
    version = json.dumps(
        {
            "etag": response.headers.get("etag", ""),
            "last_modified": response.headers.get("last-modified", ""),
        },
        sort_keys=True,
    )
    if "html" not in media_type and media_type:
        return Fetched(response.content, media_type, version)
    title, main = _main_text(response.content)
    return Fetched(main, "text/html", version, title)


def _xml(response: httpx.Response, url: str) -> ET.Element:
    try:
        return ET.fromstring(response.content)
    except ET.ParseError as exc:
        raise ListingFailed(
            url, f"the sitemap is not valid XML ({exc}); nothing was pruned — fix the sitemap"
        ) from exc


def _locs(root: ET.Element, entry: str) -> list[str]:
    found = root.findall(f"{_SITEMAP_NS}{entry}/{_SITEMAP_NS}loc") or root.findall(f"{entry}/loc")
    return [loc.text.strip() for loc in found if loc.text and loc.text.strip()]


def _links(response: httpx.Response) -> list[str]:
    soup = BeautifulSoup(response.text, "html.parser")
    base = str(response.url)
    return [urldefrag(urljoin(base, str(a["href"]))).url for a in soup.find_all("a", href=True)]


def _main_text(content: bytes) -> tuple[str, bytes]:
    """The page's title and its main content: the <main> (or role=main, or a lone
    <article>) element, else the page without its navigation, header, footer and asides —
    the menu repeated on every page would otherwise be indexed hundreds of times."""
    soup = BeautifulSoup(content, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    articles = soup.find_all("article")
    roles = soup.select("[role=main]")
    mains = soup.find_all("main") or roles or (articles if len(articles) == 1 else [])
    main = mains[0] if mains else None
    if main is None:
        for tag in soup(["nav", "header", "footer", "aside"]):
            tag.decompose()
        return title, str(soup).encode()
    return title, f"<html><body>{main}</body></html>".encode()
