"""A sources file: every source to ingest, one `[[source]]` table each, for
`knowbot ingest --sources FILE` and the scheduled re-ingest (`KNOWBOT_SOURCES=FILE`).

    [[source]]                      # a file or folder, as `knowbot ingest PATH` takes it
    path = "policies/"              # relative to this file
    scope = "hr"

    [[source]]                      # a web site, by its sitemap ...
    kind = "web"
    sitemap = "https://intranet.example.com/sitemap.xml"
    owners = ["web-team@example.com"]

    [[source]]                      # ... or crawled from a start page within a prefix
    kind = "web"
    start = "https://intranet.example.com/handbook/"
    prefix = "https://intranet.example.com/handbook/"

    [[source]]                      # a Confluence space (or cql = "…")
    kind = "confluence"
    base_url = "https://example.atlassian.net/wiki"
    space = "HR"

    [[source]]                      # a SharePoint library (default: the site's default one)
    kind = "sharepoint"
    site = "https://contoso.sharepoint.com/sites/hr"
    library = "Policies"            # optional
    folder = "Handbook/2026"        # optional: only files below this folder

    [[source]]                      # a person's OneDrive
    kind = "sharepoint"
    user = "someone@example.com"

    [[source]]                      # rows of a database table (or a SELECT), as --sql/--db
    kind = "sql"
    db_env = "CRM_DATABASE_URL"     # the variable holding its URL (or db = "sqlite:///…")
    query = "agents"
    key = "agent_id"                # and time, group, metrics, name, as for CSV files

Every entry takes `scope`, `owners` (who to tell when it fails) and `url` (a link template
that overrides the item's own link). Web entries also take `max_pages` and `concurrency`;
Confluence entries `concurrency`, `overlap_minutes`, `full_listing_hours` and
`everyone_groups`, `space_readers` (see knowledge.ingest.connectors.confluence); SharePoint
entries `concurrency` (their credentials come from the settings). SQL entries take the
rows options of a folder's `knowbot-sources.toml` (`key`, `time`, `group`, `metrics`,
`name`); their `url` is a citation link, as everywhere, so the database is `db` or `db_env`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy.engine import Engine

from knowledge.errors import SourceError
from knowledge.ingest.connectors.confluence import ConfluenceConnector
from knowledge.ingest.connectors.confluence_space import ConfluenceAuth, ConfluenceSpace
from knowledge.ingest.connectors.graph import GraphConnector
from knowledge.ingest.connectors.graph_auth import GraphAccess
from knowledge.ingest.connectors.graph_drive import GraphDrive
from knowledge.ingest.connectors.web import WebConnector, WebSite
from knowledge.ingest.manifest import options_for
from knowledge.ingest.options import IngestOptions
from knowledge.ingest.reports import IngestSummary, Progress, SourceReport
from knowledge.ingest.sync import ItemIndex, sync_connector

CONNECTOR_KINDS = ("web", "confluence", "sharepoint", "onedrive", "sql")
WEB_KEYS = {"kind", "sitemap", "start", "prefix", "scope", "owners", "url", "max_pages"}
WEB_KEYS |= {"concurrency"}
CONFLUENCE_KEYS = {"kind", "base_url", "space", "cql", "scope", "owners", "url", "concurrency"}
CONFLUENCE_KEYS |= {"overlap_minutes", "full_listing_hours", "everyone_groups", "space_readers"}
GRAPH_KEYS = {"kind", "site", "user", "library", "folder", "scope", "owners", "url", "concurrency"}
SQL_KEYS = {"kind", "db", "db_env", "query", "scope", "owners", "url"}
SQL_KEYS |= {"key", "time", "group", "metrics", "name"}
GRAPH_NEEDS = (
    "set MICROSOFT_GRAPH_TENANT_ID, MICROSOFT_GRAPH_CLIENT_ID and MICROSOFT_GRAPH_CLIENT_SECRET "
    "(an app registration with Sites.Read.All and Files.Read.All application permissions)"
)


@dataclass(frozen=True)
class PathEntry:
    path: Path
    options: IngestOptions


@dataclass(frozen=True)
class WebEntry:
    site: WebSite
    options: IngestOptions


@dataclass(frozen=True)
class ConfluenceEntry:
    site: ConfluenceSpace
    options: IngestOptions


@dataclass(frozen=True)
class GraphEntry:
    drive: GraphDrive
    options: IngestOptions


@dataclass(frozen=True)
class SqlEntry:
    """`db` is the database's URL, or `db_env` names the environment variable holding it
    (read at each run, so the password stays out of the file)."""

    db: str | None
    db_env: str | None
    query: str
    options: IngestOptions

    def db_url(self, environ: Mapping[str, str]) -> str:
        if self.db is not None:
            return self.db
        value = environ.get(self.db_env or "")
        if not value:
            raise SourceError(
                f"sql:${self.db_env}#{self.query}",
                f"the environment variable {self.db_env} is not set; set it to the "
                "database's URL (e.g. postgresql+psycopg://user:pw@host/db)",
            )
        return value


SourceEntry = PathEntry | WebEntry | ConfluenceEntry | GraphEntry | SqlEntry


class Ingest(ItemIndex, Protocol):
    def ingest_paths(
        self, paths: Sequence[Path], options: IngestOptions, progress: Progress | None = None
    ) -> IngestSummary: ...

    def ingest_sql(
        self, db_url: str, query: str, options: IngestOptions, progress: Progress | None = None
    ) -> IngestSummary: ...


def read_sources(file: Path, base: IngestOptions) -> list[SourceEntry]:
    """The file's entries; a SourceError names the file, the entry and what to change."""
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise SourceError(str(file), f"cannot read the sources file ({exc}); fix it") from exc
    entries = data.get("source", [])
    if not isinstance(entries, list) or not entries:
        raise SourceError(str(file), "expected one or more [[source]] tables")
    return [_entry(file, number, entry, base) for number, entry in enumerate(entries, 1)]


def _entry(file: Path, number: int, entry: Any, base: IngestOptions) -> SourceEntry:
    where = f"{file}, source entry #{number}"
    if not isinstance(entry, dict):
        raise SourceError(where, "expected a table")
    kind = str(entry.get("kind", ""))
    if kind and kind not in CONNECTOR_KINDS and "path" not in entry:
        raise SourceError(
            where,
            f'kind = {kind!r} is not a kind of source; sources are paths, or kind = "web", '
            '"confluence", "sharepoint" or "sql"',
        )
    try:
        if kind == "web":
            return _web(where, entry, base)
        if kind == "confluence":
            return _confluence(where, entry, base)
        if kind in ("sharepoint", "onedrive"):
            return _graph(where, entry, base)
        if kind == "sql":
            return _sql(where, entry, base)
        if "path" not in entry:
            raise SourceError(where, 'needs path = FILE-OR-FOLDER, or kind = "web"')
        options = replace(options_for(entry, base), owners=_owners(entry, base))
        return PathEntry((file.parent / str(entry["path"])).resolve(), options)
    except (ValueError, TypeError) as exc:  # BadTemplate, a bad kind or number
        raise SourceError(where, str(exc)) from exc


def _web(where: str, entry: dict[str, Any], base: IngestOptions) -> WebEntry:
    _only(where, entry, WEB_KEYS, "web")
    site = WebSite(
        sitemap=entry.get("sitemap"),
        start=entry.get("start"),
        prefix=entry.get("prefix"),
        max_pages=int(entry.get("max_pages", WebSite.max_pages)),
        concurrency=int(entry.get("concurrency", WebSite.concurrency)),
    )
    options = _entry_options(entry, base)
    return WebEntry(site, options)


def _confluence(where: str, entry: dict[str, Any], base: IngestOptions) -> ConfluenceEntry:
    _only(where, entry, CONFLUENCE_KEYS, "confluence")
    if "base_url" not in entry:
        raise SourceError(
            where, 'needs base_url = "https://SITE.atlassian.net/wiki" (or the Data Center URL)'
        )
    defaults = ConfluenceSpace
    groups = _strings(entry.get("everyone_groups", list(defaults.everyone_groups)))
    site = ConfluenceSpace(
        base_url=str(entry["base_url"]),
        space=str(entry["space"]) if "space" in entry else None,
        cql=str(entry["cql"]) if "cql" in entry else None,
        concurrency=int(entry.get("concurrency", defaults.concurrency)),
        overlap_minutes=int(entry.get("overlap_minutes", defaults.overlap_minutes)),
        full_listing_hours=float(entry.get("full_listing_hours", defaults.full_listing_hours)),
        everyone_groups=groups,
        space_readers=_strings(entry.get("space_readers", [])),
    )
    options = _entry_options(entry, base)
    return ConfluenceEntry(site, options)


def _graph(where: str, entry: dict[str, Any], base: IngestOptions) -> GraphEntry:
    _only(where, entry, GRAPH_KEYS, "sharepoint")
    drive = GraphDrive(
        site=_text(entry, "site"),
        user=_text(entry, "user"),
        library=_text(entry, "library"),
        folder=_text(entry, "folder"),
        concurrency=int(entry.get("concurrency", GraphDrive.concurrency)),
    )
    options = _entry_options(entry, base)
    return GraphEntry(drive, options)


def _sql(where: str, entry: dict[str, Any], base: IngestOptions) -> SqlEntry:
    _only(where, entry, SQL_KEYS, "sql")
    db, db_env, query = _text(entry, "db"), _text(entry, "db_env"), _text(entry, "query")
    if (db is None) == (db_env is None):
        raise SourceError(
            where, 'needs either db = "URL" or db_env = "VARIABLE" (holding the URL), not both'
        )
    if not query:
        raise SourceError(where, 'needs query = "TABLE" (or a SELECT)')
    rows = {k: v for k, v in entry.items() if k not in ("kind", "db", "db_env", "query")}
    try:
        options = replace(options_for(rows, base), owners=_owners(entry, base))
    except SourceError as exc:
        raise SourceError(where, exc.reason) from exc
    if not options.keys:
        raise SourceError(where, 'needs key = "COLUMN" (the column naming each row)')
    return SqlEntry(db, db_env, query, options)


def _text(entry: dict[str, Any], key: str) -> str | None:
    value = entry.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{key} must be a string, not {value!r}")
    return value


def _strings(value: Any) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(str(v) for v in value)


def _owners(entry: dict[str, Any], base: IngestOptions) -> tuple[str, ...]:
    owners = entry.get("owners", list(base.owners))
    return (owners,) if isinstance(owners, str) else tuple(str(o) for o in owners)


def ingest_sources(
    index: Ingest,
    engine: Engine,
    entries: Sequence[SourceEntry],
    progress: Progress | None,
    confluence: ConfluenceAuth | None = None,
    *,
    graph: GraphAccess | None = None,
    environ: Mapping[str, str] | None = None,
) -> IngestSummary:
    """Every entry in turn; one that fails is reported and the others still sync.
    `graph`: the app credentials SharePoint and OneDrive entries sync with; `environ`:
    where SQL entries' `db_env` variables are looked up."""
    summary = IngestSummary()
    for entry in entries:
        if isinstance(entry, PathEntry):
            done = index.ingest_paths([entry.path], entry.options, progress)
        elif isinstance(entry, SqlEntry):
            done = _ingest_sql(index, entry, environ or {}, progress)
        elif isinstance(entry, GraphEntry) and graph is None:
            done = IngestSummary([_no_credentials(entry)])
        else:
            connector = _connector(entry, confluence or ConfluenceAuth(), graph)
            try:
                done = sync_connector(index, engine, connector, entry.options, progress)
            finally:
                connector.close()
        summary.reports += done.reports
        summary.seconds += done.seconds
    return summary


def _ingest_sql(
    index: Ingest, entry: SqlEntry, environ: Mapping[str, str], progress: Progress | None
) -> IngestSummary:
    try:
        db_url = entry.db_url(environ)
    except SourceError as exc:
        error = exc.reason
        if entry.options.owners:
            error += f" (owners: {', '.join(entry.options.owners)})"
        return IngestSummary([SourceReport(exc.source, "rows", "failed", error=error)])
    return index.ingest_sql(db_url, entry.query, entry.options, progress)


def _no_credentials(entry: GraphEntry) -> SourceReport:
    error = f"no Microsoft Graph credentials: {GRAPH_NEEDS}"
    if entry.options.owners:
        error += f" (owners: {', '.join(entry.options.owners)})"
    key = entry.drive.key
    return SourceReport(key, key.split(":", 1)[0], "failed", error=error)


def _connector(
    entry: WebEntry | ConfluenceEntry | GraphEntry,
    confluence: ConfluenceAuth,
    graph: GraphAccess | None,
) -> WebConnector | ConfluenceConnector | GraphConnector:
    if isinstance(entry, ConfluenceEntry):
        return ConfluenceConnector(entry.site, confluence)
    if isinstance(entry, GraphEntry):
        assert graph is not None
        return GraphConnector(entry.drive, graph)
    return WebConnector(entry.site)


def _only(where: str, entry: dict[str, Any], allowed: set[str] | frozenset[str], kind: str) -> None:
    """An entry names only keys its kind of source takes."""
    unknown = sorted(set(entry) - allowed)
    if unknown:
        raise SourceError(where, f"{kind} sources do not take {', '.join(unknown)}")


def _entry_options(entry: dict[str, Any], base: IngestOptions) -> IngestOptions:
    """The keys every kind of source takes: scope, url (the citation link) and owners."""
    return replace(
        base,
        scope=str(entry.get("scope", base.scope)),
        url=str(entry["url"]) if "url" in entry else None,
        owners=_owners(entry, base),
    )
