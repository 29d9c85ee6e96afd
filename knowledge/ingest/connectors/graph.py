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
from pathlib import PurePosixPath
from urllib.parse import quote

import httpx

from knowledge.ingest.connectors.base import (
    Changes,
    Fetched,
    FetchFailed,
    Item,
    ListingFailed,
    NotModified,
)
from knowledge.ingest.connectors.graph_auth import GraphAccess, TokenSource
from knowledge.ingest.connectors.graph_drive import GraphDrive, site_path
from knowledge.ingest.connectors.graph_errors import GraphError, advice, graph_message, throttled
from knowledge.ingest.connectors.graph_items import Raw, access_of, below_root, joined, media_type
from knowledge.ingest.connectors.polite import PoliteClient

# Sharing changes appear in the feed too, so a permission change reaches the index.
PREFER = "deltashowremovedasdeleted, deltatraversepermissiongaps, deltashowsharingchanges"


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
            raise GraphError(url, f"{what} answered HTTP {status}{advice(response)}")
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
                    f"{page}{advice(response)}",
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
                self._folders[str(raw["id"])] = joined(self._parent_path(raw), raw)
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
            return below_root(str(ref["path"]))
        parent = str(ref.get("id", ""))
        if not parent:
            return ""
        if parent not in self._folders:
            folder = self._json(f"{self._drive_url()}/items/{parent}", "a folder lookup")
            above = "" if "root" in folder else joined(self._parent_path(folder), folder)
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
                    f"{response.status_code}{advice(response)}",
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


def _bearer(token: str, headers: dict[str, str] | None) -> dict[str, str]:
    return {**(headers or {}), "Authorization": f"Bearer {token}"}
