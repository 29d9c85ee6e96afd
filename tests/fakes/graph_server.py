"""A small fake Microsoft Graph (and its token endpoint) on 127.0.0.1, speaking the subset
a SharePoint/OneDrive sync uses: a client-credentials token, the site lookup
(`/sites/{host}:/sites/NAME`), a site's drives, a user's drive, `root/delta` paged by
`@odata.nextLink` to an `@odata.deltaLink`, item lookups, permissions, and `/content`
answering 302 to a pre-authenticated download URL.

Levers for what a sync must survive: a repeated item across delta pages, deleted items, an
expired delta link (410), a delta page answering 500, throttling (429 or SharePoint's 403
with Retry-After), refused tokens and an expired client secret. Every request is recorded,
so a test can count downloads and permission reads.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote

from aiohttp import web

from tests.fakes.openai_server import serve_app

TENANT = "contoso-tenant"
CLIENT_ID = "knowbot-app"
SECRET = "s3cret"
HOST = "contoso.sharepoint.com"
SITE_PATH = "/sites/hr"
SITE_ID = f"{HOST},site-1,web-1"
USER = "alice@contoso.com"
Raw = dict[str, Any]


def org_link() -> Raw:
    return {"id": "link-org", "roles": ["read"], "link": {"scope": "organization", "type": "view"}}


def user_grant(email: str, object_id: str = "") -> Raw:
    who = {
        "email": email,
        "displayName": email.split("@")[0],
        **({"id": object_id} if object_id else {}),
    }
    return {"id": f"perm-{email}", "roles": ["read"], "grantedToV2": {"user": who}}


def group_grant(group_id: str) -> Raw:
    return {
        "id": f"perm-{group_id}",
        "roles": ["write"],
        "grantedToV2": {"group": {"id": group_id, "displayName": "Group " + group_id}},
    }


@dataclass
class File:
    id: str
    name: str
    folder: str  # '' or 'A/B' below the drive's root
    content: bytes
    permissions: list[Raw]
    version: int = 1


@dataclass
class Drive:
    id: str
    name: str
    web: str
    files: dict[str, File] = field(default_factory=dict)
    seq: int = 0
    changed: dict[str, tuple[int, str]] = field(default_factory=dict)  # id -> (seq, kind)
    deleted: set[str] = field(default_factory=set)
    deleted_folders: set[str] = field(default_factory=set)
    next_id: int = 0

    def touch(self, item_id: str, kind: str) -> None:
        self.seq += 1
        self.changed[item_id] = (self.seq, kind)

    def folders(self) -> list[str]:
        paths = set()
        for f in self.files.values():
            parts = [p for p in f.folder.split("/") if p]
            paths |= {"/".join(parts[: n + 1]) for n in range(len(parts))}
        return sorted(paths)


@dataclass
class FakeGraph:
    base: str = ""
    drives: dict[str, Drive] = field(default_factory=dict)
    page_size: int = 50
    with_paths: bool = True  # parentReference.path in delta items (Graph often omits it)
    secret_expired: bool = False
    issued: set[str] = field(default_factory=set)
    token_lifetime: int = 3600
    expire_delta_links: bool = False  # every delta link answers 410 resyncRequired
    broken_page: int | None = None  # this delta page (1-based) answers 500
    repeat: str | None = None  # a file id listed stale on page 1, current later
    throttle: dict[str, int] = field(default_factory=dict)  # path suffix -> throttled answers
    throttle_status: int = 429
    denied: set[str] = field(default_factory=set)  # path suffixes answering 403 accessDenied
    retry_after: str = "1"
    requests: list[tuple[str, str, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    # --- what a test sets up ------------------------------------------------------------------

    @property
    def graph_url(self) -> str:
        return f"{self.base}/v1.0"

    @property
    def site(self) -> str:
        return f"https://{HOST}{SITE_PATH}"

    def drive(self, name: str = "Documents") -> Drive:
        return self.drives[name]

    def add(
        self,
        name: str,
        content: bytes | str,
        *,
        folder: str = "",
        drive: str = "Documents",
        permissions: list[Raw] | None = None,
    ) -> str:
        d = self.drives[drive]
        d.next_id += 1
        item_id = f"{d.id}-item-{d.next_id:04d}"
        data = content.encode() if isinstance(content, str) else content
        d.files[item_id] = File(item_id, name, folder.strip("/"), data, permissions or [org_link()])
        d.touch(item_id, "content")
        return item_id

    def edit(self, item_id: str, content: bytes | str, drive: str = "Documents") -> None:
        f = self.drives[drive].files[item_id]
        f.content = content.encode() if isinstance(content, str) else content
        f.version += 1
        self.drives[drive].touch(item_id, "content")

    def share(self, item_id: str, permissions: list[Raw], drive: str = "Documents") -> None:
        self.drives[drive].files[item_id].permissions = permissions
        self.drives[drive].touch(item_id, "sharing")

    def delete(self, item_id: str, drive: str = "Documents") -> None:
        d = self.drives[drive]
        del d.files[item_id]
        d.deleted.add(item_id)
        d.touch(item_id, "deleted")

    def delete_folder(self, folder: str, drive: str = "Documents") -> None:
        """The folder goes with its files; the feed names only the folder (as Graph may)."""
        d = self.drives[drive]
        for item_id in [i for i, f in d.files.items() if (f.folder + "/").startswith(folder + "/")]:
            del d.files[item_id]
        folder_id = "folder:" + folder.replace("/", "|")
        d.deleted_folders.add(folder_id)
        d.touch(folder_id, "deleted")

    def revoke_tokens(self) -> None:
        """Tokens issued so far are refused (as after a secret rotation)."""
        self.issued.clear()

    def downloads(self) -> list[str]:
        return [p for m, p, s in self.requests if p.startswith("/download/") and s == 200]

    def count(self, suffix: str) -> int:
        return sum(1 for _, p, _ in self.requests if p.endswith(suffix))

    def reset_counts(self) -> None:
        with self.lock:
            self.requests.clear()

    # --- serving ------------------------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.StreamResponse:
        response = await self._route(request)
        with self.lock:
            self.requests.append((request.method, request.path, response.status))
        return response

    async def _route(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        for suffix, left in self.throttle.items():
            if left > 0 and path.endswith(suffix):
                self.throttle[suffix] -= 1
                code = "activityLimitReached" if self.throttle_status == 403 else "TooManyRequests"
                return _error(self.throttle_status, code, "throttled", self.retry_after)
        if any(path.endswith(suffix) for suffix in self.denied):
            return _error(403, "accessDenied", "Access denied")
        if path == f"/{TENANT}/oauth2/v2.0/token" and request.method == "POST":
            return self._token(dict(await request.post()))
        if path.startswith("/download/"):
            return self._download(request)
        if not path.startswith("/v1.0/"):
            return _error(404, "itemNotFound", "no such endpoint")
        auth = request.headers.get("Authorization", "")
        if auth.removeprefix("Bearer ") not in self.issued:
            return _error(401, "InvalidAuthenticationToken", "Access token has expired.")
        return self._graph(request, unquote(path.removeprefix("/v1.0")))

    def _token(self, form: dict[str, Any]) -> web.Response:
        if form.get("client_id") != CLIENT_ID or self.secret_expired:
            description = (
                f"AADSTS7000222: The provided client secret keys for app '{CLIENT_ID}' are "
                "expired. Visit the Azure portal to create new keys for your app."
            )
            body = {
                "error": "invalid_client",
                "error_description": description,
                "error_codes": [7000222],
            }
            return web.json_response(body, status=401)
        if form.get("client_secret") != SECRET or form.get("grant_type") != "client_credentials":
            body = {"error": "invalid_client", "error_codes": [7000215]}
            return web.json_response(body, status=401)
        token = f"token-{len(self.issued) + 1}-{id(form)}"
        self.issued.add(token)
        issued = {"token_type": "Bearer", "expires_in": self.token_lifetime, "access_token": token}
        return web.json_response(issued)

    def _graph(self, request: web.Request, path: str) -> web.Response:
        if path == f"/sites/{HOST}:{SITE_PATH}":
            return web.json_response({"id": SITE_ID, "webUrl": self.site})
        if path.startswith("/sites/") and ":" in path:
            return _error(404, "itemNotFound", "Requested site could not be found")
        if path == f"/sites/{SITE_ID}/drive":
            return web.json_response(self._drive_json(self.drives["Documents"]))
        if path == f"/sites/{SITE_ID}/drives":
            sp = [d for d in self.drives.values() if not d.id.startswith("onedrive")]
            return web.json_response({"value": [self._drive_json(d) for d in sp]})
        if path == f"/users/{USER}/drive" and "OneDrive" in self.drives:
            return web.json_response(self._drive_json(self.drives["OneDrive"]))
        parts = path.strip("/").split("/")
        drive = next((d for d in self.drives.values() if parts[1:2] == [d.id]), None)
        if parts[0] != "drives" or drive is None:
            return _error(404, "itemNotFound", f"no such resource {path}")
        rest = parts[2:]
        if rest == ["root", "delta"]:
            return self._delta(request, drive)
        if len(rest) >= 2 and rest[0] == "items":
            return self._item(request, drive, rest[1], rest[2:])
        return _error(404, "itemNotFound", f"no such resource {path}")

    def _drive_json(self, drive: Drive) -> Raw:
        return {"id": drive.id, "name": drive.name, "webUrl": drive.web, "driveType": "business"}

    def _item(
        self, request: web.Request, drive: Drive, item_id: str, rest: list[str]
    ) -> web.Response:
        if item_id == f"{drive.id}-root":
            return web.json_response({"id": item_id, "name": "root", "root": {}, "folder": {}})
        if item_id.startswith("folder:"):
            folder = item_id.removeprefix("folder:").replace("|", "/")
            return web.json_response(self._folder_raw(drive, folder, with_path=True))
        file = drive.files.get(item_id)
        if file is None:
            return _error(404, "itemNotFound", "The resource could not be found.")
        if rest == ["permissions"]:
            return web.json_response({"value": file.permissions})
        if rest == ["content"]:
            location = f"{self.base}/download/{drive.id}/{item_id}?tempauth=abc{file.version}"
            return web.Response(status=302, headers={"Location": location})
        return web.json_response(self._file_raw(drive, file, with_path=True))

    def _download(self, request: web.Request) -> web.Response:
        _, _, drive_id, item_id = request.path.split("/", 3)
        drive = next(d for d in self.drives.values() if d.id == drive_id)
        file = drive.files.get(item_id)
        if file is None or not request.query.get("tempauth"):
            return web.Response(status=404)
        return web.Response(body=file.content, content_type="application/octet-stream")

    # --- delta ----------------------------------------------------------------------------------

    def _delta(self, request: web.Request, drive: Drive) -> web.Response:
        token = request.query.get("token")
        if token is not None and self.expire_delta_links:
            return _error(410, "resyncRequired", "Resync required. Replace any local items.")
        upto = int(request.query.get("upto", drive.seq))
        skip = int(request.query.get("skip", 0))
        page = skip // self.page_size + 1
        if self.broken_page == page:
            return _error(500, "generalException", "An unexpected error occurred.")
        sharing = "deltashowsharingchanges" in request.headers.get("Prefer", "")
        entries = (
            self._changes_since(drive, int(token), upto, sharing)
            if token is not None
            else self._everything(drive)
        )
        body: Raw = {"value": entries[skip : skip + self.page_size]}
        link = f"{self.graph_url}/drives/{drive.id}/root/delta"
        if skip + self.page_size < len(entries):
            since = f"token={token}&" if token is not None else ""
            body["@odata.nextLink"] = f"{link}?{since}upto={upto}&skip={skip + self.page_size}"
        else:
            body["@odata.deltaLink"] = f"{link}?token={upto}"
        return web.json_response(body)

    def _everything(self, drive: Drive) -> list[Raw]:
        root: Raw = {"id": f"{drive.id}-root", "name": "root", "root": {}, "folder": {}}
        entries = [root] + [self._folder_raw(drive, f) for f in drive.folders()]
        files = [self._file_raw(drive, f) for f in sorted(drive.files.values(), key=lambda f: f.id)]
        if self.repeat and self.repeat in drive.files:
            stale = {**self._file_raw(drive, drive.files[self.repeat]), "cTag": "stale"}
            stale["webUrl"] = f"{drive.web}/old-name.md"
            entries.append(stale)
        return entries + files

    def _changes_since(self, drive: Drive, token: int, upto: int, sharing: bool) -> list[Raw]:
        entries: list[Raw] = []
        for item_id, (seq, kind) in sorted(drive.changed.items(), key=lambda kv: kv[1][0]):
            if not token < seq <= upto or (kind == "sharing" and not sharing):
                continue
            if item_id in drive.files:
                entries.append(self._file_raw(drive, drive.files[item_id]))
            elif item_id in drive.deleted:
                entries.append({"id": item_id, "deleted": {"state": "deleted"}, "file": {}})
            elif item_id in drive.deleted_folders:
                entries.append({"id": item_id, "deleted": {"state": "deleted"}, "folder": {}})
        return entries

    def _file_raw(self, drive: Drive, file: File, *, with_path: bool = False) -> Raw:
        folder_url = f"{drive.web}/{file.folder}" if file.folder else drive.web
        return {
            "id": file.id,
            "name": file.name,
            "eTag": f'"{{{file.id}}},{file.version}"',
            "cTag": f'"c:{{{file.id}}},{file.version}"',
            "webUrl": f"{folder_url}/{quote(file.name)}",
            "size": len(file.content),
            "file": {"mimeType": "application/octet-stream"},
            "parentReference": self._parent(drive, file.folder, with_path),
        }

    def _folder_raw(self, drive: Drive, folder: str, *, with_path: bool = False) -> Raw:
        parent, _, name = folder.rpartition("/")
        return {
            "id": "folder:" + folder.replace("/", "|"),
            "name": name,
            "folder": {"childCount": 1},
            "parentReference": self._parent(drive, parent, with_path),
        }

    def _parent(self, drive: Drive, folder: str, with_path: bool) -> Raw:
        ref: Raw = {"driveId": drive.id}
        ref["id"] = "folder:" + folder.replace("/", "|") if folder else f"{drive.id}-root"
        if self.with_paths or with_path:
            ref["path"] = f"/drives/{drive.id}/root:" + (f"/{quote(folder)}" if folder else "")
        return ref


def _error(status: int, code: str, message: str, retry_after: str | None = None) -> web.Response:
    headers = {"Retry-After": retry_after} if retry_after else None
    body = {"error": {"code": code, "message": message}}
    return web.json_response(body, status=status, headers=headers)


@contextmanager
def fake_graph() -> Iterator[FakeGraph]:
    graph = FakeGraph()
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", graph.handle)
    with serve_app(app) as base:
        graph.base = base
        web_root = f"https://{HOST}{SITE_PATH}"
        graph.drives["Documents"] = Drive("drive-docs", "Documents", f"{web_root}/Shared Documents")
        graph.drives["Policies"] = Drive("drive-pol", "Policies", f"{web_root}/Policies")
        graph.drives["OneDrive"] = Drive(
            "onedrive-alice", "OneDrive", "https://contoso-my.sharepoint.com/personal/alice"
        )
        yield graph
