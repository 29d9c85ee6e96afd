"""A database table or SELECT as a source: one item, its rows. The item's id is
`sql:<URL without its password>#<query>` (the source's URI since SQL sources exist, so
indexes made before keep their identity); its version is a hash of the rows, and its
content the rows as JSON.

The rows the listing read are the ones fetched: one query per run, and the version always
describes the content handed on.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sqlalchemy.engine import make_url

from knowledge.errors import SourceError
from knowledge.ingest.connectors.base import (
    Changes,
    Fetched,
    FetchFailed,
    Item,
    ListingFailed,
    NotModified,
)
from knowledge.reading.loaders import rows as rows_loader

MEDIA_TYPE = "application/json"

Rows = list[dict[str, Any]]


class SqlConnector:
    def __init__(self, db_url: str, query: str) -> None:
        self.db_url = db_url
        self.query = query
        self._read: tuple[Rows, bytes] | None = None  # the rows of the last listing

    @property
    def key(self) -> str:
        return f"sql:{redacted(self.db_url)}#{self.query}"

    @property
    def concurrency(self) -> int:
        return 1

    @property
    def table(self) -> str:
        """What the rows are called in citations when no name is given."""
        return self.query if self.query.isidentifier() else "query"

    def list_items(self) -> list[Item]:
        """The one item, read now; raises ListingFailed with read_sql_rows's reason (a bad
        URL, a missing table, a failing query)."""
        try:
            rows, content = self._rows_read()
        except SourceError as exc:
            raise ListingFailed(exc.source, exc.reason) from exc
        self._read = rows, content
        return [self._item(content)]

    def changes(self, cursor: str | None) -> Changes | None:
        return None

    def fetch(self, item: Item, known: str | None) -> Fetched | NotModified:
        try:
            _, content = self._read or self._rows_read()
        except SourceError as exc:
            raise FetchFailed(exc.source, exc.reason) from exc
        version = _version(content)
        if known is not None and known == version:
            return NotModified(known)
        return Fetched(content, MEDIA_TYPE, version, item.title)

    def rows(self, item: Item) -> Rows:
        """The rows as the database gave them (dates and decimals as such, where the JSON
        content has their text); read again unless this connector just listed them."""
        if self._read is None:
            self._read = self._rows_read()
        return self._read[0]

    def _rows_read(self) -> tuple[Rows, bytes]:
        rows = rows_loader.read_sql_rows(self.db_url, self.query)
        return rows, rows_json(rows)

    def _item(self, content: bytes) -> Item:
        return Item(
            id=self.key,
            version=_version(content),
            link="",  # a database has no link of its own; an entry's `url` gives one
            title=self.table,
            media_type=MEDIA_TYPE,
        )


def rows_json(rows: Rows) -> bytes:
    """The rows as the content hashed for a SQL source (unchanged since SQL sources
    exist: a different text would re-read every indexed table once)."""
    return json.dumps(rows, sort_keys=True, default=str).encode()


def redacted(db_url: str) -> str:
    """The URL without its password, for a source's name and reports."""
    try:
        return make_url(db_url).render_as_string(hide_password=True)
    except Exception:
        return "database"


def _version(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()
