"""The connector interface and its records.

A connector answers three questions about its source: what is there now (`list_items`, a
full listing the index is reconciled against), what changed since a cursor (`changes`,
optional: `None` when the source has no change feed), and what one item holds (`fetch`).
Listing and fetching are separate so a failed listing prunes nothing and a failed fetch
keeps the item's last good chunks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from knowledge.access import EVERYONE  # an access list entry: open to the whole organisation
from knowledge.errors import SourceError


@dataclass(frozen=True)
class Item:
    """One thing a source holds. `id` is stable for the item's life (a URL, a path, a
    drive item id); `version` changes whenever its content does (ETag, mtime, hash)."""

    id: str
    version: str
    link: str
    access: tuple[str, ...] = (EVERYONE,)
    title: str = ""
    media_type: str = ""


@dataclass(frozen=True)
class Changes:
    """What changed since a cursor; `cursor` is where the next call starts."""

    upserts: list[Item] = field(default_factory=list)
    deletes: list[str] = field(default_factory=list)
    cursor: str | None = None


@dataclass(frozen=True)
class Fetched:
    """An item's bytes, their media type and the version they are (for the next
    conditional request)."""

    content: bytes
    media_type: str
    version: str
    title: str = ""


@dataclass(frozen=True)
class NotModified:
    """The source says the item is as it was at `known`: nothing was downloaded."""

    version: str


class ListingFailed(SourceError):
    """The listing failed or stopped part way: it says nothing about what is gone."""


class FetchFailed(SourceError):
    """One item could not be fetched; its last good chunks stay."""


class Connector(Protocol):
    @property
    def key(self) -> str:
        """Names the source in sync state and reports, e.g. 'web:https://example.com/sitemap.xml'."""
        ...

    @property
    def concurrency(self) -> int:
        """How many fetches may run at once against this source."""
        ...

    def list_items(self) -> list[Item]:
        """Everything the source holds now; raises ListingFailed unless complete."""
        ...

    def changes(self, cursor: str | None) -> Changes | None:
        """What changed since `cursor`, or None when the source has no change feed (or the
        cursor expired: the sync asks again with no cursor). With no cursor a feed
        enumerates everything as upserts, and the sync reconciles against that as a
        listing."""
        ...

    def fetch(self, item: Item, known: str | None) -> Fetched | NotModified:
        """The item's content, or NotModified when it is still at version `known`.
        Raises FetchFailed with the reason."""
        ...
