"""A small fake intranet site on 127.0.0.1: pages with ETags and Last-Modified, a robots.txt,
a sitemap index over sitemap files of 50 pages each, and levers for the failures a sync
must survive (a 429 with Retry-After, a sitemap file answering 500). Every request is
recorded, so a test can count what was downloaded and what was answered 304."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from aiohttp import web

from tests.fakes.openai_server import serve_app

PER_SITEMAP = 50
LAST_MODIFIED = "Wed, 25 Nov 2026 09:00:00 GMT"


@dataclass(frozen=True)
class Request:
    path: str
    status: int
    conditional: bool


@dataclass
class FakeSite:
    base: str = ""
    pages: dict[str, str] = field(default_factory=dict)  # path -> HTML
    robots: str = "User-agent: *\nDisallow: /private/\n"
    throttle: dict[str, int] = field(default_factory=dict)  # path -> 429s still to answer
    retry_after: str = "1"
    broken: set[str] = field(default_factory=set)  # paths answering 500
    requests: list[Request] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def sitemap(self) -> str:
        return f"{self.base}/sitemap.xml"

    def page(self, path: str, title: str, body: str) -> None:
        self.pages[path] = (
            f"<html><head><title>{title}</title></head><body><nav>Home | Search</nav>"
            f"<main><h1>{title}</h1>{body}</main><footer>© Example Ltd</footer></body></html>"
        )

    def content_fetches(self) -> list[Request]:
        """Page downloads: 200s for pages (not robots.txt or sitemaps)."""
        return [r for r in self.requests if r.path in self.pages and r.status == 200]

    def reset_counts(self) -> None:
        with self.lock:
            self.requests.clear()

    def _record(self, request: web.Request, status: int) -> None:
        conditional = "If-None-Match" in request.headers or "If-Modified-Since" in request.headers
        with self.lock:
            self.requests.append(Request(request.path, status, conditional))

    def _sitemap_files(self) -> list[str]:
        count = max(1, -(-len(self.pages) // PER_SITEMAP))
        return [f"/sitemap-{n}.xml" for n in range(1, count + 1)]

    async def handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        if path in self.broken:
            return self._answer(request, web.Response(status=500, text="server error"))
        if self.throttle.get(path, 0) > 0:
            self.throttle[path] -= 1
            headers = {"Retry-After": self.retry_after}
            return self._answer(request, web.Response(status=429, headers=headers))
        if path == "/robots.txt":
            return self._answer(request, web.Response(text=self.robots))
        if path == "/sitemap.xml":
            return self._answer(request, _xml(_index(self.base, self._sitemap_files())))
        if path in self._sitemap_files():
            number = int(path.removeprefix("/sitemap-").removesuffix(".xml"))
            chunk = sorted(self.pages)[(number - 1) * PER_SITEMAP : number * PER_SITEMAP]
            return self._answer(request, _xml(_urlset(self.base, chunk)))
        if path not in self.pages:
            return self._answer(request, web.Response(status=404, text="not found"))
        return self._answer(request, self._page(request, self.pages[path]))

    def _page(self, request: web.Request, html: str) -> web.Response:
        etag = '"' + hashlib.sha256(html.encode()).hexdigest()[:16] + '"'
        headers = {"ETag": etag, "Last-Modified": LAST_MODIFIED}
        if request.headers.get("If-None-Match") == etag:
            return web.Response(status=304, headers=headers)
        return web.Response(text=html, content_type="text/html", headers=headers)

    def _answer(self, request: web.Request, response: web.Response) -> web.Response:
        self._record(request, response.status)
        return response


def _xml(text: str) -> web.Response:
    return web.Response(text=text, content_type="application/xml")


def _index(base: str, files: list[str]) -> str:
    entries = "".join(f"<sitemap><loc>{base}{f}</loc></sitemap>" for f in files)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</sitemapindex>'
    )


def _urlset(base: str, paths: list[str]) -> str:
    entries = "".join(f"<url><loc>{base}{p}</loc></url>" for p in paths)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'
    )


@contextmanager
def fake_site() -> Iterator[FakeSite]:
    site = FakeSite()
    app = web.Application()
    app.router.add_route("GET", "/{tail:.*}", site.handle)
    with serve_app(app) as base:
        site.base = base
        yield site
