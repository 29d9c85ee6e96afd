"""A small fake Confluence on 127.0.0.1 (under a `/wiki` context path, as Cloud has),
speaking the REST subset the connector uses: the CQL content search (`space = "KEY"`,
`type in (…)`, `lastmodified >= now("-Nm")`) paged by `_links.next` with a cursor,
content with its version, ancestors, container and read restrictions, a space with its
permissions, page bodies in storage format and attachment downloads. Levers for what a
sync must survive: a 429 with Retry-After, a search page answering 500, refused
credentials. Every request is recorded, so a test can count what was downloaded."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote, urlencode

from aiohttp import web

from tests.fakes.openai_server import serve_app

CONTEXT = "/wiki"
PAT = "fake-personal-access-token"


@dataclass(frozen=True)
class Request:
    path: str
    query: dict[str, str]
    status: int


@dataclass
class Content:
    id: str
    type: str  # page | attachment
    title: str
    space: str
    body: str = ""  # storage format (pages)
    parent: str | None = None  # a page's parent page
    container: str | None = None  # an attachment's page
    media_type: str = ""
    data: bytes = b""
    version: int = 1
    users: list[dict[str, str]] = field(default_factory=list)  # read restrictions
    groups: list[str] = field(default_factory=list)
    modified: datetime = field(default_factory=lambda: datetime.now(UTC))


@dataclass
class Space:
    anonymous: bool = False
    users: list[dict[str, str]] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)


@dataclass
class FakeConfluence:
    base: str = ""  # the site's base URL, context path included
    contents: dict[str, Content] = field(default_factory=dict)
    spaces: dict[str, Space] = field(default_factory=dict)
    page_size: int = 2  # the server's cap on search results per page
    authorization: str = f"Bearer {PAT}"
    throttle: dict[str, int] = field(default_factory=dict)  # path -> 429s still to answer
    retry_after: str = "1"
    broken_search_page: int | None = None  # this search page (0-based) answers 500
    broken: set[str] = field(default_factory=set)  # paths answering 500
    forbidden: set[str] = field(default_factory=set)  # paths answering 403
    requests: list[Request] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    # --- building the site --------------------------------------------------------------------

    def page(
        self, id: str, title: str, body: str, *, space: str = "HR", parent: str | None = None
    ) -> None:
        self.contents[id] = Content(id, "page", title, space, body=body, parent=parent)

    def attachment(self, id: str, page: str, filename: str, data: bytes, media_type: str) -> None:
        space = self.contents[page].space
        self.contents[id] = Content(
            id, "attachment", filename, space, container=page, media_type=media_type, data=data
        )

    def edit(self, id: str, body: str) -> None:
        content = self.contents[id]
        content.body, content.version = body, content.version + 1
        content.modified = datetime.now(UTC)

    def restrict(
        self, id: str, *, users: list[dict[str, str]] | None = None, groups: list[str] | None = None
    ) -> None:
        """Read restrictions change; as in Confluence, neither version nor last-modified
        date moves."""
        self.contents[id].users = users or []
        self.contents[id].groups = groups or []

    def age(self, minutes: float) -> None:
        """Everything was last modified `minutes` earlier than it says."""
        for content in self.contents.values():
            content.modified -= timedelta(minutes=minutes)

    # --- what was asked -----------------------------------------------------------------------

    def content_fetches(self) -> list[Request]:
        """Page bodies and attachment downloads answered 200."""
        return [
            r
            for r in self.requests
            if r.status == 200
            and ("body.storage" in r.query.get("expand", "") or "/download/" in r.path)
        ]

    def searches(self) -> list[Request]:
        return [r for r in self.requests if r.path.endswith("/rest/api/content/search")]

    def reset_counts(self) -> None:
        with self.lock:
            self.requests.clear()

    # --- serving ------------------------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path.removeprefix(CONTEXT)
        if request.headers.get("Authorization") != self.authorization:
            return self._answer(
                request, _json({"message": "Unauthorized; scope does not match"}, 401)
            )
        if request.path in self.forbidden:
            return self._answer(request, _json({"message": "Current user not permitted"}, 403))
        if request.path in self.broken:
            return self._answer(request, web.Response(status=500, text="Internal server error"))
        if self.throttle.get(request.path, 0) > 0:
            self.throttle[request.path] -= 1
            return self._answer(
                request, web.Response(status=429, headers={"Retry-After": self.retry_after})
            )
        if path == "/rest/api/content/search":
            return self._answer(request, self._search(request))
        if match := re.fullmatch(r"/rest/api/content/(\w+)", path):
            return self._answer(request, self._content(match.group(1), request))
        if match := re.fullmatch(r"/rest/api/space/(\w+)", path):
            return self._answer(request, self._space(match.group(1)))
        if match := re.fullmatch(r"/download/attachments/(\w+)/(.+)", path):
            return self._answer(request, self._download(match.group(1), match.group(2)))
        return self._answer(request, _json({"message": "not found"}, 404))

    def _search(self, request: web.Request) -> web.Response:
        cql = request.query.get("cql", "")
        found = self._matching(cql)
        if found is None:
            return _json({"message": f"Could not parse cql : {cql}"}, 400)
        start = int(request.query.get("cursor", "0"))
        if (
            self.broken_search_page is not None
            and start == self.broken_search_page * self.page_size
        ):
            return web.Response(status=500, text="Internal server error")
        limit = min(int(request.query.get("limit", "25")), self.page_size)
        chunk = found[start : start + limit]
        links: dict[str, str] = {"base": self.base, "context": CONTEXT}
        if start + limit < len(found):
            query = {**request.query, "cursor": str(start + limit), "next": "true"}
            links["next"] = "/rest/api/content/search?" + urlencode(query)
        return _json(
            {"results": [self._json(c, False) for c in chunk], "size": len(chunk), "_links": links}
        )

    def _matching(self, cql: str) -> list[Content] | None:
        """What a CQL query finds, in id order; None when the fake cannot read the query."""
        space = re.search(r'space = "([^"]+)"', cql)
        types = re.search(r"type in \(([^)]*)\)", cql)
        since = re.search(r'lastmodified >= now\("-(\d+)m"\)', cql)
        if not space or not types:
            return None
        wanted = {t.strip() for t in types.group(1).split(",")}
        cutoff = datetime.now(UTC) - timedelta(minutes=int(since.group(1))) if since else None
        found = [
            c
            for c in self.contents.values()
            if c.space == space.group(1)
            and c.type in wanted
            and (cutoff is None or c.modified >= cutoff)
        ]
        return sorted(found, key=lambda c: int(c.id))

    def _content(self, id: str, request: web.Request) -> web.Response:
        content = self.contents.get(id)
        if content is None:
            return _json({"message": f"No content found with id: {id}"}, 404)
        return _json(self._json(content, "body.storage" in request.query.get("expand", "")))

    def _space(self, key: str) -> web.Response:
        space = self.spaces.get(key)
        if space is None:
            return _json({"message": f"No space with key : {key}"}, 404)
        read = {"operation": "read", "targetType": "space"}
        permissions: list[dict[str, Any]] = [
            {
                "operation": {"operation": "administer", "targetType": "space"},
                "subjects": {"group": {"results": [{"name": "admins"}]}},
            },
        ]
        if space.anonymous:
            permissions.append({"operation": read, "anonymousAccess": True})
        if space.users or space.groups:
            subjects = {
                "user": {"results": space.users, "size": len(space.users)},
                "group": {
                    "results": [{"name": g} for g in space.groups],
                    "size": len(space.groups),
                },
            }
            permissions.append({"operation": read, "subjects": subjects, "anonymousAccess": False})
        return _json({"key": key, "name": key, "permissions": permissions})

    def _download(self, page: str, filename: str) -> web.Response:
        for content in self.contents.values():
            if content.container == page and content.title == filename:
                return web.Response(body=content.data, content_type=content.media_type)
        return _json({"message": "not found"}, 404)

    def _json(self, content: Content, body: bool) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": content.id,
            "type": content.type,
            "status": "current",
            "title": content.title,
            "space": {"key": content.space},
            "version": {"number": content.version, "when": content.modified.isoformat()},
            "ancestors": [{"id": a, "type": "page"} for a in self._ancestors(content)],
            "restrictions": {
                "read": {
                    "operation": "read",
                    "restrictions": {
                        "user": {"results": content.users, "size": len(content.users)},
                        "group": {
                            "results": [{"name": g} for g in content.groups],
                            "size": len(content.groups),
                        },
                    },
                }
            },
        }
        if content.type == "attachment":
            page = content.container or ""
            data["container"] = {"id": page, "type": "page"}
            data["extensions"] = {"mediaType": content.media_type}
            name = quote(content.title)
            data["_links"] = {
                "webui": f"/pages/viewpageattachments.action?pageId={page}&preview={name}",
                "download": f"/download/attachments/{page}/{name}?version={content.version}",
            }
        else:
            data["_links"] = {
                "webui": f"/spaces/{content.space}/pages/{content.id}/{quote(content.title)}"
            }
        if body:
            data["body"] = {"storage": {"value": content.body, "representation": "storage"}}
        return data

    def _ancestors(self, content: Content) -> list[str]:
        chain, parent = [], content.parent if content.type == "page" else None
        while parent is not None:
            chain.append(parent)
            parent = self.contents[parent].parent
        return list(reversed(chain))

    def _answer(self, request: web.Request, response: web.Response) -> web.Response:
        with self.lock:
            self.requests.append(Request(request.path, dict(request.query), response.status))
        return response


def _json(data: dict[str, Any], status: int = 200) -> web.Response:
    return web.json_response(data, status=status)


@contextmanager
def fake_confluence() -> Iterator[FakeConfluence]:
    site = FakeConfluence()
    app = web.Application()
    app.router.add_route("GET", "/{tail:.*}", site.handle)
    with serve_app(app) as base:
        site.base = base + CONTEXT
        yield site
