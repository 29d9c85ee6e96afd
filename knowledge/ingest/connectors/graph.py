"""A SharePoint document library or a OneDrive as a source, through Microsoft Graph with
app credentials. The drive's delta feed lists everything once (a full listing the index
is reconciled against) and then only what changed, from the delta link kept as the
cursor; an expired delta link (410) starts over from a full listing. Each file carries
who may read it (its permissions: people, groups, organisation-wide sharing links) and
is cited by its `webUrl`.

What protects the index: a delta feed that breaks part way raises ListingFailed (nothing
pruned, the old cursor kept); throttling (429, 503 and Graph's throttling 403s) is
waited out as the server asks, within a bound; a refused token is renewed once, and
refused credentials are reported with what to do.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import httpx

from knowledge.errors import SourceError
from knowledge.ingest.connectors.base import (
    EVERYONE,
    Changes,
    Fetched,
    FetchFailed,
    Item,
    ListingFailed,
    NotModified,
)
from knowledge.ingest.connectors.graph_auth import GraphAccess, TokenSource
from knowledge.ingest.connectors.polite import RETRIED, PoliteClient

# Sharing changes appear in the feed too, so a permission change reaches the index.
PREFER = "deltashowremovedasdeleted, deltatraversepermissiongaps, deltashowsharingchanges"
THROTTLE_CODES = frozenset({"activityLimitReached", "throttledRequest", "tooManyRequests"})
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
SITE_EXAMPLE = "https://TENANT.sharepoint.com/sites/NAME"
Raw = dict[str, Any]


@dataclass(frozen=True)
class GraphDrive:
    """Which drive: a SharePoint site's library (its default one unless named) or a
    person's OneDrive, optionally only below one folder."""

    site: str | None = None
    user: str | None = None
    library: str | None = None
    folder: str | None = None
    concurrency: int = 4

    def __post_init__(self) -> None:
        if bool(self.site) == bool(self.user):
            raise ValueError(
                f'a sharepoint source needs either site = "{SITE_EXAMPLE}" or '
                'user = "someone@example.com" (a OneDrive), not both'
            )
        if self.site:
            site_path(self.site)  # raises on a URL that is not a site
        if self.user and ("@" not in self.user or "/" in self.user):
            raise ValueError(f"user = {self.user!r} is not an e-mail address (UPN)")
        if self.user and self.library:
            raise ValueError("a OneDrive has one library: drop library = … for user = …")

    @property
    def key(self) -> str:
        what = f"sharepoint:{self.site}" if self.site else f"onedrive:{self.user}"
        extra = [f"library={self.library}"] if self.library else []
        extra += [f"folder={self.folder_path}"] if self.folder_path else []
        return " ".join([what, *extra])

    @property
    def folder_path(self) -> str:
        """The folder as '/A/B' below the drive's root; '' for the whole drive."""
        return "/" + (self.folder or "").strip("/") if (self.folder or "").strip("/") else ""


def site_path(site: str) -> tuple[str, str]:
    """(host, server-relative path) of a site URL; ValueError saying what to write."""
    parts = urlsplit(site)
    segments = [s for s in parts.path.split("/") if s]
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"site = {site!r} is not a site URL such as {SITE_EXAMPLE}")
    if segments and (segments[0].lower() not in ("sites", "teams") or len(segments) < 2):
        raise ValueError(f"site = {site!r} is not a site URL such as {SITE_EXAMPLE}")
    if len(segments) > 2 or parts.query or parts.fragment:
        inside = "/".join(unquote(s) for s in segments[2:]) or parts.query or parts.fragment
        raise ValueError(
            f"site = {site!r} points inside a site ({inside}); give the site itself "
            f'({SITE_EXAMPLE}) and name a library with library = "…" and a folder with '
            'folder = "…"'
        )
    return parts.hostname, "/" + "/".join(quote(unquote(s)) for s in segments)


class GraphError(SourceError):
    """Graph answered something the caller cannot go on from."""


class GraphConnector:
    def __init__(
        self,
        drive: GraphDrive,
        access: GraphAccess,
        client: PoliteClient | None = None,
    ) -> None:
        self.drive = drive
        self._base = access.graph_url.rstrip("/")
        self._client = client or PoliteClient(concurrency=drive.concurrency, retry_when=throttled)
        self._tokens = TokenSource(access, self._client)
        self._drive_id = ""
        self._folders: dict[str, str] = {}  # folder item id -> its path below the root

    @property
    def key(self) -> str:
        return self.drive.key

    @property
    def concurrency(self) -> int:
        return self.drive.concurrency

    def list_items(self) -> list[Item]:
        changes = self.changes(None)
        assert changes is not None  # a feed without a cursor always enumerates
        return changes.upserts

    def changes(self, cursor: str | None) -> Changes | None:
        """From the delta link `cursor`, or everything without one. None when the delta
        link expired (410) or a folder was deleted: a full listing must reconcile."""
        try:
            self._drive_url()  # resolved each sync: a site gone or renamed is caught here
            pages = self._delta(cursor)
            if pages is None:
                return None
            raws, delta_link = pages
            upserts, deletes, folder_gone = self._sort(raws)
            if folder_gone and cursor is not None:
                return None  # its files may not be listed one by one: reconcile
            items, vanished = self._with_access(upserts)
        except GraphError as exc:
            raise ListingFailed(self.key, f"{exc.reason}; nothing was pruned") from exc
        return Changes(items, deletes + vanished, delta_link)

    def fetch(self, item: Item, known: str | None) -> Fetched | NotModified:
        if known and known == item.version:
            return NotModified(known)  # the delta feed says nothing changed
        url = f"{self._base}/{item.id.removeprefix('graph:')}/content"
        try:
            response = self._get(url)
        except GraphError as exc:
            raise FetchFailed(item.id, f"{item.link}: {exc.reason}; kept its last copy") from exc
        if response.status_code == 404:
            raise FetchFailed(
                item.id, f"{item.link} is gone since it was listed; the next sync removes it"
            )
        if response.status_code != 200:
            raise FetchFailed(
                item.id,
                f"{item.link}: the download answered HTTP {response.status_code} "
                f"{graph_message(response)}; its last good copy stays searchable",
            )
        return Fetched(response.content, item.media_type, item.version, item.title)

    def close(self) -> None:
        self._client.close()

    # --- requests -----------------------------------------------------------------------------

    def _get(self, url: str, headers: dict[str, str] | None = None) -> httpx.Response:
        """A Graph GET with the app's token, renewed once when Graph refuses it."""
        token = self._tokens.token()
        try:
            response = self._client.get(url, headers=_bearer(token, headers))
            if response.status_code == 401:
                token = self._tokens.renew(token)
                response = self._client.get(url, headers=_bearer(token, headers))
        except httpx.HTTPError as exc:
            raise GraphError(url, f"cannot reach Microsoft Graph ({exc})") from exc
        if response.status_code == 401:
            raise GraphError(
                url,
                f"Graph refused a fresh token (HTTP 401 {graph_message(response)}); check the "
                "app registration's API permissions and admin consent",
            )
        return response

    def _json(self, url: str, what: str, headers: dict[str, str] | None = None) -> Raw:
        response = self._get(url, headers)
        if response.status_code != 200:
            status = response.status_code
            raise GraphError(url, f"{what} answered HTTP {status}{_advice(response)}")
        body: Raw = response.json()
        return body

    # --- the drive ------------------------------------------------------------------------------

    def _drive_url(self) -> str:
        if not self._drive_id:
            self._drive_id = self._find_drive()
        return f"{self._base}/drives/{self._drive_id}"

    def _find_drive(self) -> str:
        if self.drive.user:
            drive = self._json(f"{self._base}/users/{quote(self.drive.user)}/drive", "the OneDrive")
            return str(drive["id"])
        host, path = site_path(self.drive.site or "")
        address = f"{self._base}/sites/{host}" + (f":{path}" if path != "/" else "")
        site_id = quote(str(self._json(address, "the site lookup")["id"]), safe=",")
        if not self.drive.library:
            default = self._json(f"{self._base}/sites/{site_id}/drive", "the site's library")
            return str(default["id"])
        drives: list[Raw] = []
        url: str | None = f"{self._base}/sites/{site_id}/drives"
        while url:
            page = self._json(url, "the site's library list")
            drives += page.get("value", [])
            url = page.get("@odata.nextLink")
        for drive in drives:
            if str(drive.get("name", "")).lower() == self.drive.library.lower():
                return str(drive["id"])
        names = ", ".join(sorted(str(d.get("name")) for d in drives)) or "none"
        raise GraphError(
            self.drive.site or "",
            f"the site has no library named {self.drive.library!r} (it has: {names}); "
            "fix library = in the sources file",
        )

    def _delta(self, cursor: str | None) -> tuple[list[Raw], str] | None:
        """Every page of the feed; each item as its last page shows it."""
        url = cursor or f"{self._drive_url()}/root/delta"
        seen: dict[str, Raw] = {}
        page = 0
        while True:
            page += 1
            response = self._get(url, {"Prefer": PREFER})
            if response.status_code == 410 and cursor is not None:
                return None  # the delta link expired: start over
            if response.status_code != 200:
                raise GraphError(
                    url,
                    f"the change feed (delta) answered HTTP {response.status_code} on page "
                    f"{page}{_advice(response)}",
                )
            body = response.json()
            for raw in body.get("value", []):
                seen.pop(str(raw["id"]), None)
                seen[str(raw["id"])] = raw  # a repeated item: the later page wins
            if body.get("@odata.nextLink"):
                url = str(body["@odata.nextLink"])
            elif body.get("@odata.deltaLink"):
                return list(seen.values()), str(body["@odata.deltaLink"])
            else:
                raise GraphError(url, f"page {page} of the change feed has no next or delta link")

    def _sort(self, raws: list[Raw]) -> tuple[list[Raw], list[str], bool]:
        """Readable files in the folder; ids to delete (gone, moved out, no longer
        readable); whether a folder was deleted."""
        upserts: list[Raw] = []
        deletes: list[str] = []
        folder_gone = False
        for raw in raws:
            if "deleted" in raw:
                folder_gone = folder_gone or "folder" in raw
                deletes.append(self._item_id(raw))
            elif "root" in raw:
                self._folders[str(raw["id"])] = ""
            elif "folder" in raw and self.drive.folder_path:
                self._folders[str(raw["id"])] = _joined(self._parent_path(raw), raw)
            elif "file" in raw:
                if media_type(raw) and self._in_folder(raw):
                    upserts.append(raw)
                else:
                    deletes.append(self._item_id(raw))
        return upserts, deletes, folder_gone

    def _in_folder(self, raw: Raw) -> bool:
        folder = self.drive.folder_path.lower()
        if not folder:
            return True
        parent = self._parent_path(raw).lower()
        return parent == folder or parent.startswith(folder + "/")

    def _parent_path(self, raw: Raw) -> str:
        """The path of the item's folder. Delta pages often omit parentReference.path, so
        a folder not seen in this feed is looked up once."""
        ref = raw.get("parentReference") or {}
        if "path" in ref:
            return _below_root(str(ref["path"]))
        parent = str(ref.get("id", ""))
        if not parent:
            return ""
        if parent not in self._folders:
            folder = self._json(f"{self._drive_url()}/items/{parent}", "a folder lookup")
            above = "" if "root" in folder else _joined(self._parent_path(folder), folder)
            self._folders[parent] = above
        return self._folders[parent]

    def _item_id(self, raw: Raw) -> str:
        return f"graph:drives/{self._drive_id}/items/{raw['id']}"

    # --- permissions ------------------------------------------------------------------------------

    def _with_access(self, raws: list[Raw]) -> tuple[list[Item], list[str]]:
        """Items with who may read them; ids of files gone since the feed listed them."""
        with ThreadPoolExecutor(max(1, self.concurrency), thread_name_prefix="kb-graph") as pool:
            accesses = list(pool.map(self._access, raws))
        items, vanished = [], []
        for raw, access in zip(raws, accesses, strict=True):
            if access is None:
                vanished.append(self._item_id(raw))
            else:
                items.append(self._item(raw, access))
        return items, vanished

    def _access(self, raw: Raw) -> tuple[str, ...] | None:
        url: str | None = f"{self._drive_url()}/items/{raw['id']}/permissions"
        permissions: list[Raw] = []
        while url:
            response = self._get(url)
            if response.status_code == 404:
                return None
            if response.status_code != 200:
                raise GraphError(
                    url,
                    f"reading the permissions of {raw.get('name', raw['id'])!r} answered HTTP "
                    f"{response.status_code}{_advice(response)}",
                )
            body = response.json()
            permissions += body.get("value", [])
            url = body.get("@odata.nextLink")
        return access_of(permissions)

    def _item(self, raw: Raw, access: tuple[str, ...]) -> Item:
        tag = str(raw.get("cTag") or raw.get("eTag") or "")
        name = str(raw.get("name", ""))
        return Item(
            id=self._item_id(raw),
            version=json.dumps({"tag": tag, "access": list(access)}),
            link=str(raw.get("webUrl", "")),
            access=access,
            title=PurePosixPath(name).stem or name,
            media_type=media_type(raw),
        )


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


def throttled(response: httpx.Response) -> bool:
    """429 and 503, and the 403s SharePoint answers when it throttles (a Retry-After, or
    an `activityLimitReached` code) — not a permission problem, so waited out."""
    if response.status_code in RETRIED:
        return True
    if response.status_code != 403:
        return False
    return "retry-after" in response.headers or _error_code(response) in THROTTLE_CODES


def graph_message(response: httpx.Response) -> str:
    code, message = _error_code(response), _error_text(response)
    return f"({code}: {message})" if code or message else ""


def _error_code(response: httpx.Response) -> str:
    return str(_error(response).get("code", ""))


def _error_text(response: httpx.Response) -> str:
    return str(_error(response).get("message", ""))[:200]


def _error(response: httpx.Response) -> Raw:
    try:
        body = response.json()
    except ValueError:
        return {}
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, dict) else {}


def _advice(response: httpx.Response) -> str:
    status = response.status_code
    detail = f" {graph_message(response)}" if graph_message(response) else ""
    if status == 403:
        return (
            f"{detail} — the app may not read this: grant it Sites.Read.All (or Sites.Selected "
            "for this site) and Files.Read.All, with admin consent"
        )
    if status == 404:
        return f"{detail} — check the site URL (or user), library and folder in the sources file"
    if status in RETRIED:
        return f"{detail} — still throttled after the retries; sync again later"
    return f"{detail} — sync again later"


def _bearer(token: str, headers: dict[str, str] | None) -> dict[str, str]:
    return {**(headers or {}), "Authorization": f"Bearer {token}"}


def _below_root(path: str) -> str:
    """'/drives/ID/root:/A/B' -> '/A/B'; '/drives/ID/root:' -> ''."""
    below = unquote(path.split("root:", 1)[1]) if "root:" in path else ""
    return "/" + below.strip("/") if below.strip("/") else ""


def _joined(parent: str, raw: Raw) -> str:
    return f"{parent}/{raw.get('name', '')}"
