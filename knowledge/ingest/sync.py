"""Syncing one connector into the index: list (or read its change feed), fetch what may
have changed, index each item as its own source, prune what a complete listing no longer
holds, and only then record the sync state.

What protects the index: a listing that failed or stopped part way prunes nothing; a
source that lists 0 items where it had items is a failure, not an instruction to delete
everything; a fetch that fails keeps the item's last good chunks.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Protocol
from urllib.parse import urlsplit

from sqlalchemy.engine import Engine

from knowledge.errors import SourceError
from knowledge.ingest.connectors.base import (
    Changes,
    Connector,
    Fetched,
    Item,
    NotModified,
)
from knowledge.ingest.kinds import SourceKind
from knowledge.ingest.loading import Loaded, load_bytes
from knowledge.ingest.options import IngestOptions
from knowledge.ingest.reports import IngestSummary, Progress, SourceReport
from knowledge.ingest.source_links import linked
from knowledge.store import sources as source_store
from knowledge.store import sync_state

log = logging.getLogger(__name__)

Outcome = Fetched | NotModified | SourceError


class ItemIndex(Protocol):
    """What syncing needs of the ingestor (knowledge.ingest.ingestor.Ingestor)."""

    def ingest_item(
        self,
        uri: str,
        kind: SourceKind,
        options: IngestOptions,
        content: Callable[[], bytes],
        load: Callable[[], Loaded],
        progress: Progress | None = None,
        access: Sequence[str] = ...,
    ) -> SourceReport: ...

    def set_access(self, scope: str, uri: str, access: Sequence[str]) -> int: ...

    def remove_sources(self, scope: str, uris: Sequence[str]) -> list[SourceReport]: ...

    def refresh_stats(self, reports: Sequence[SourceReport]) -> None: ...


@dataclass(frozen=True)
class Batch:
    """What one sync covers: items to (re)index, ids gone, the cursor after it."""

    upserts: list[Item]
    deletes: list[str]
    cursor: str | None
    listed: int  # a full listing's size; -1 for a change feed


def sync_connector(
    index: ItemIndex,
    engine: Engine,
    connector: Connector,
    options: IngestOptions,
    progress: Progress | None = None,
) -> IngestSummary:
    started = time.perf_counter()
    summary = IngestSummary()
    key = connector.key
    with engine.begin() as conn:
        state = sync_state.get(conn, key)
        known = sync_state.item_versions(conn, key)
        scopes = sync_state.item_scopes(conn, key, list(known))
    try:
        batch = _batch(connector, state.cursor if state else None, known)
    except SourceError as exc:  # which address failed, when it is not the source's own
        reason = exc.reason if exc.source in key else f"{exc.source}: {exc.reason}"
        return _failed(engine, summary, key, options, reason)
    except Exception as exc:  # a connector bug must not stop the other sources
        log.debug("listing %s failed", key, exc_info=True)
        reason = f"listing failed: {type(exc).__name__}: {exc}"
        return _failed(engine, summary, key, options, reason)
    had = max(len(known), state.listed_count if state else 0)
    if batch.listed == 0:
        reason = (
            f"listed 0 items where it had {had}; nothing was pruned — check the source's "
            f"address, {_where_to_look(key)}"
            if had
            else f"listed 0 items; check the source's address, {_where_to_look(key)}"
        )
        return _failed(engine, summary, key, options, reason)
    summary.reports += _index_items(index, engine, connector, options, batch.upserts, progress)
    summary.reports += _prune(index, engine, key, batch.deletes)
    indexed = [r.uri for r in summary.reports if r.status != "failed"]
    summary.reports += _moved_out(index, scopes, indexed, options.scope)
    failed = [r for r in summary.reports if r.status == "failed"]
    with engine.begin() as conn:  # after the batch is indexed, never before
        sync_state.record_success(
            conn,
            key,
            cursor=batch.cursor if not failed else (state.cursor if state else None),
            listed_count=batch.listed if batch.listed >= 0 else sync_state.item_count(conn, key),
            error=f"{len(failed)} item(s) failed; last good copies kept" if failed else None,
        )
    index.refresh_stats(summary.reports)
    summary.seconds = time.perf_counter() - started
    return summary


def _where_to_look(key: str) -> str:
    if key.startswith(("sharepoint:", "onedrive:")):
        return "its library and folder, and that the app may read them (Graph permissions)"
    if key.startswith("confluence:"):
        return "the space or CQL query, and that the account may read them"
    return "robots.txt and that the site is up (sitemap URL, start URL and prefix)"


def _batch(connector: Connector, cursor: str | None, known: dict[str, str]) -> Batch:
    """From the change feed when the connector has one (from the start, without a cursor,
    it enumerates everything, which reconciles like a listing), else a full listing."""
    changes: Changes | None = connector.changes(cursor)
    if changes is None and cursor is not None:  # the cursor expired: enumerate afresh
        cursor, changes = None, connector.changes(None)
    if changes is not None and cursor is not None:
        return Batch(changes.upserts, changes.deletes, changes.cursor, listed=-1)
    items = changes.upserts if changes is not None else connector.list_items()
    listed = {item.id for item in items}
    gone = [item_id for item_id in known if item_id not in listed]
    return Batch(items, gone, changes.cursor if changes else None, listed=len(items))


def _index_items(
    index: ItemIndex,
    engine: Engine,
    connector: Connector,
    options: IngestOptions,
    items: list[Item],
    progress: Progress | None,
) -> list[SourceReport]:
    with engine.begin() as conn:
        stored = {s.uri: s for s in source_store.list_sources(conn, scope=options.scope)}
        versions = sync_state.item_versions(conn, connector.key)
    wanted = options.as_json()

    def known(item: Item) -> str | None:
        source = stored.get(item.id)
        if source is None or source.status != "ok" or source.options != wanted:
            return None  # not indexed as these options would index it: fetch it all
        return versions.get(item.id) or None

    reports = []
    for item, outcome in _fetched(connector, items, known):
        report = _index_one(index, item, outcome, options, stored.get(item.id), progress)
        version = outcome.version if isinstance(outcome, Fetched | NotModified) else ""
        if report.status != "failed" or item.id not in versions:
            with engine.begin() as conn:  # failed items are remembered so they can be pruned
                sync_state.set_item(
                    conn,
                    connector.key,
                    item.id,
                    scope=options.scope,
                    version=version if report.status != "failed" else "",
                )
        reports.append(report)
    return reports


def _fetched(
    connector: Connector, items: list[Item], known: Callable[[Item], str | None]
) -> Iterator[tuple[Item, Outcome]]:
    """Fetches run `connector.concurrency` at a time, a window ahead of the indexing."""

    def fetch(item: Item) -> Outcome:
        try:
            return connector.fetch(item, known(item))
        except SourceError as exc:
            return exc
        except Exception as exc:
            return SourceError(item.id, f"fetch failed: {type(exc).__name__}: {exc}")

    window = max(1, connector.concurrency) * 4
    with ThreadPoolExecutor(max(1, connector.concurrency), thread_name_prefix="kb-fetch") as pool:
        for start in range(0, len(items), window):
            chunk = items[start : start + window]
            yield from zip(chunk, pool.map(fetch, chunk), strict=True)


def _index_one(
    index: ItemIndex,
    item: Item,
    outcome: Outcome,
    options: IngestOptions,
    existing: source_store.SourceRow | None,
    progress: Progress | None,
) -> SourceReport:
    kind = SourceKind.RULEBOOK
    if isinstance(outcome, NotModified):  # who may read it can change all the same
        index.set_access(options.scope, item.id, item.access)
        chunks = existing.chunk_count if existing else 0
        return SourceReport(item.id, kind.value, "unchanged", chunks=chunks)
    if isinstance(outcome, SourceError):  # the last good chunks stay, under today's access
        index.set_access(options.scope, item.id, item.access)
        error = outcome

        def content() -> bytes:
            raise error

        return index.ingest_item(item.id, kind, options, content, _never, progress, item.access)
    fetched = outcome
    return index.ingest_item(
        item.id,
        kind,
        options,
        content=lambda: fetched.content,
        load=lambda: _load(item, fetched, options),
        progress=progress,
        access=item.access,
    )


def _never() -> Loaded:
    raise AssertionError("a failed fetch is never loaded")


def _load(item: Item, fetched: Fetched, options: IngestOptions) -> Loaded:
    name = fetched.title or item.title or _name_from(item.link)
    loaded = load_bytes(fetched.content, fetched.media_type, name=name, uri=item.id)
    if options.url:  # a template overrides the item's own link
        path = urlsplit(item.link).path.lstrip("/")
        return replace(loaded, drafts=linked(loaded.drafts, options.url, path=path))
    pdf = fetched.media_type == "application/pdf"
    drafts = [
        replace(d, metadata={**d.metadata, "url": _place(item.link, pdf, d.metadata)})
        for d in loaded.drafts
    ]
    return replace(loaded, drafts=drafts)


def _place(link: str, pdf: bool, metadata: dict[str, object]) -> str:
    """The item's link, to the page for a PDF (browsers' viewers open `#page=N`)."""
    page = metadata.get("page")
    if pdf and page is not None and "#" not in link:
        return f"{link}#page={page}"
    return link


def _name_from(link: str) -> str:
    parts = urlsplit(link)
    last = parts.path.rstrip("/").rsplit("/", 1)[-1]
    return last.rsplit(".", 1)[0] if last else parts.netloc


def _prune(index: ItemIndex, engine: Engine, key: str, gone: list[str]) -> list[SourceReport]:
    if not gone:
        return []
    with engine.begin() as conn:
        scopes = sync_state.item_scopes(conn, key, gone)
    reports = []
    for scope in sorted(set(scopes.values())):
        reports += index.remove_sources(scope, [i for i, s in scopes.items() if s == scope])
    with engine.begin() as conn:
        sync_state.forget_items(conn, key, gone)
    return reports


def _moved_out(
    index: ItemIndex, scopes: dict[str, str], indexed: list[str], scope: str
) -> list[SourceReport]:
    """Items indexed in another scope before (the entry's scope changed) leave it, once
    they are indexed in the new one."""
    moved: dict[str, list[str]] = {}
    for item_id in indexed:
        old = scopes.get(item_id)
        if old is not None and old != scope:
            moved.setdefault(old, []).append(item_id)
    return [r for old, ids in sorted(moved.items()) for r in index.remove_sources(old, ids)]


def _failed(
    engine: Engine, summary: IngestSummary, key: str, options: IngestOptions, reason: str
) -> IngestSummary:
    if options.owners:
        reason += f" (owners: {', '.join(options.owners)})"
    with engine.begin() as conn:
        sync_state.record_failure(conn, key, reason)
    summary.reports.append(SourceReport(key, key.split(":", 1)[0], "failed", error=reason))
    return summary
