"""Ingesting sources: load, diff against what is stored, embed only what changed, write.

Each source is written in one transaction (its chunks, glossary rows or triples, and its
status), so an interrupted run leaves every source as it was before or as it is after.
Unchanged sources are recognised by their content hash before any parsing or embedding.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path

from sqlalchemy.engine import Connection, Engine

from knowledge.access import EVERYONE
from knowledge.errors import SourceError
from knowledge.ingest.connectors.base import Fetched, Item
from knowledge.ingest.connectors.folder import FolderConnector
from knowledge.ingest.connectors.sql import SqlConnector
from knowledge.ingest.kinds import SourceKind, detect_kind
from knowledge.ingest.loading import Loaded, load_file, rows_loaded, storable, with_links
from knowledge.ingest.manifest import options_for
from knowledge.ingest.options import IngestOptions
from knowledge.ingest.records import Pending, pending_records, source_hash
from knowledge.ingest.reports import IngestSummary, OnChange, Progress, SourceReport
from knowledge.ingest.source_links import linked
from knowledge.models.embeddings import Embedder
from knowledge.reading.loaders import faq as faq_loader
from knowledge.store import glossary as glossary_store
from knowledge.store import sources as source_store
from knowledge.store import triples as triple_store
from knowledge.store.chunk_filters import check_scope
from knowledge.store.chunks import ChunkRecord, ChunkStore

log = logging.getLogger(__name__)

EMBED_BATCH = 256


class Ingestor:
    def __init__(
        self,
        engine: Engine,
        chunks: ChunkStore,
        embedder: Embedder,
        *,
        paraphraser: faq_loader.Paraphraser | None = None,
        on_change: OnChange | None = None,
    ) -> None:
        self._on_change = on_change
        self._engine = engine
        self._chunks = chunks
        self._embedder = embedder
        self._paraphraser = paraphraser

    # --- entry points ----------------------------------------------------------------------

    def ingest_paths(
        self, paths: Sequence[Path], options: IngestOptions, progress: Progress | None = None
    ) -> IngestSummary:
        """Ingest files and folders; sources gone from a folder are removed (and reported)."""
        check_scope(options.scope)
        started = time.perf_counter()
        summary = IngestSummary()
        for path in paths:
            source = FolderConnector(path)
            items = source.list_items()
            removed = self._remove_missing(path, [source.path_of(i) for i in items], options.scope)
            summary.reports.extend(removed)
            if not source.exists and not removed:
                summary.reports.append(_missing(path))
            try:
                manifest = source.manifest()
            except SourceError as exc:
                summary.reports.append(
                    SourceReport(exc.source, "manifest", "failed", error=exc.reason)
                )
                continue
            for item in items:
                file_options = options_for(manifest.entry(source.path_of(item)), options)
                summary.reports.append(self._ingest_file(source, item, file_options, progress))
        self._refresh_stats(summary.reports)
        summary.seconds = time.perf_counter() - started
        return summary

    def ingest_sql(
        self, db_url: str, query: str, options: IngestOptions, progress: Progress | None = None
    ) -> IngestSummary:
        """Ingest rows from any SQLAlchemy database URL (a table name or a SELECT), through
        the SQL connector: one source, its URI the connector's key."""
        check_scope(options.scope)
        started = time.perf_counter()
        source = SqlConnector(db_url, query)
        try:
            item = source.list_items()[0]
        except Exception as exc:  # recorded against the source, as any failed read is
            report = self._ingest_source(
                source.key, SourceKind.ROWS, options, _raising(exc), _never_loaded, progress
            )
        else:
            report = self._ingest_rows(source, item, options, progress)
        self._refresh_stats([report])
        return IngestSummary(reports=[report], seconds=time.perf_counter() - started)

    def ingest_loaded(
        self,
        uri: str,
        kind: SourceKind,
        options: IngestOptions,
        loaded: Loaded,
        progress: Progress | None = None,
    ) -> SourceReport:
        """Ingest chunks produced elsewhere (an evaluation corpus, a generated document)."""
        check_scope(options.scope)
        content = json.dumps([[d.key, d.text] for d in loaded.drafts]).encode()
        report = self._ingest_source(uri, kind, options, lambda: content, lambda: loaded, progress)
        self._refresh_stats([report])
        return report

    def remove_scope(self, scope: str) -> int:
        """Delete everything in a scope (used by the retrieval evaluation's throwaway scope)."""
        with self._engine.begin() as conn:
            for source in source_store.list_sources(conn, scope=scope):
                self._chunks.delete_source(conn, source.id)
            removed = source_store.delete_scope(conn, scope)
            self._chunks.refresh_term_stats(conn, [scope])
            return removed

    def _refresh_stats(self, reports: Sequence[SourceReport]) -> None:
        """Word statistics for the full-text search follow what this run changed; and
        `on_change` hears of it."""
        changed = [r for r in reports if r.status in ("new", "changed", "removed")]
        if changed:
            scopes = None if any(not r.scope for r in changed) else [r.scope for r in changed]
            with self._engine.begin() as conn:
                self._chunks.refresh_term_stats(conn, scopes)
            if self._on_change is not None:
                self._on_change(reports)

    # --- one source -------------------------------------------------------------------------

    def ingest_item(
        self,
        uri: str,
        kind: SourceKind,
        options: IngestOptions,
        content: Callable[[], bytes],
        load: Callable[[], Loaded],
        progress: Progress | None = None,
        access: Sequence[str] = (EVERYONE,),
    ) -> SourceReport:
        """One item of a connector, as one source readable by `access` (word statistics:
        `refresh_stats`)."""
        check_scope(options.scope)
        return self._ingest_source(uri, kind, options, content, load, progress, access)

    def set_access(self, scope: str, uri: str, access: Sequence[str]) -> int:
        """A source's new access list, on the chunks it has (nothing is read or embedded);
        returns how many chunks changed."""
        with self._engine.begin() as conn:
            source = source_store.get(conn, scope, uri)
            if source is None or source.status != "ok":
                return 0
            return self._chunks.set_access(conn, source.id, access)

    def remove_sources(self, scope: str, uris: Sequence[str]) -> list[SourceReport]:
        """Items a complete listing no longer holds: their chunks go."""
        wanted, reports = set(uris), []
        with self._engine.begin() as conn:
            for source in source_store.list_sources(conn, scope=scope):
                if source.uri in wanted and source.status != "removed":
                    reports.append(self._remove(conn, source))
        return reports

    def refresh_stats(self, reports: Sequence[SourceReport]) -> None:
        self._refresh_stats(reports)

    def _ingest_rows(
        self,
        source: SqlConnector,
        item: Item,
        options: IngestOptions,
        progress: Progress | None,
    ) -> SourceReport:
        name = options.name or source.table

        def content() -> bytes:
            fetched = source.fetch(item, None)
            assert isinstance(fetched, Fetched)  # nothing is known, so nothing is "not modified"
            return fetched.content

        def load() -> Loaded:
            as_of = date.today().isoformat()
            loaded = rows_loaded(source.rows(item), options, table=name, as_of=as_of)
            return replace(loaded, drafts=linked(loaded.drafts, options.url, path=None))

        return self._ingest_source(item.id, SourceKind.ROWS, options, content, load, progress)

    def _ingest_file(
        self,
        source: FolderConnector,
        item: Item,
        options: IngestOptions,
        progress: Progress | None,
    ) -> SourceReport:
        path = source.path_of(item)
        uri = item.id
        try:
            kind = options.kind if options.kind != SourceKind.AUTO else detect_kind(path)
        except SourceError as exc:
            return SourceReport(uri=uri, kind="unknown", status="failed", error=exc.reason)
        as_of = datetime.fromtimestamp(path.stat().st_mtime, tz=UTC).date().isoformat()
        return self._ingest_source(
            uri,
            kind,
            options,
            content=lambda: source.content(item),
            load=lambda: with_links(
                load_file(path, kind, options, as_of, self._paraphraser), options, item.link
            ),
            progress=progress,
        )

    def _ingest_source(
        self,
        uri: str,
        kind: SourceKind,
        options: IngestOptions,
        content: Callable[[], bytes],
        load: Callable[[], Loaded],
        progress: Progress | None,
        access: Sequence[str] = (EVERYONE,),
    ) -> SourceReport:
        report = SourceReport(uri=uri, kind=kind.value, status="new", scope=options.scope)
        try:
            digest = source_hash(content(), kind, options)
            with self._engine.begin() as conn:
                existing = source_store.get(conn, options.scope, uri)
            if existing and existing.status == "ok" and existing.content_hash == digest:
                report.status, report.chunks = "unchanged", existing.chunk_count
                self._set_owners(uri, options)  # owners are not content: kept without reading
                self.set_access(options.scope, uri, access)  # nor is who may read it
                return report
            if existing and existing.status == "ok":
                report.status, report.source_id = "changed", existing.id
            loaded = storable(load())
            if not loaded.drafts:
                raise SourceError(uri, "nothing to index: the source is empty")
            self._write(uri, kind, options, digest, loaded, report, progress, access)
            self._set_owners(uri, options)
        except SourceError as exc:
            self._record_failure(uri, kind, options, exc.reason, report)
        except Exception as exc:  # one bad source never stops the rest
            log.debug("ingesting %s failed", uri, exc_info=True)
            self._record_failure(uri, kind, options, f"{type(exc).__name__}: {exc}", report)
        return report

    def _set_owners(self, uri: str, options: IngestOptions) -> None:
        with self._engine.begin() as conn:
            source_store.set_owners(conn, scope=options.scope, uri=uri, owners=options.owners)

    def _write(
        self,
        uri: str,
        kind: SourceKind,
        options: IngestOptions,
        digest: str,
        loaded: Loaded,
        report: SourceReport,
        progress: Progress | None,
        access: Sequence[str] = (EVERYONE,),
    ) -> None:
        with self._engine.begin() as conn:
            source_id = source_store.upsert(
                conn, scope=options.scope, uri=uri, kind=kind.value, options=options.as_json()
            )
            stored = self._chunks.fingerprints(conn, source_id)
        records = pending_records(loaded.drafts, scope=options.scope, source_id=source_id, uri=uri)
        stored_ids = set(stored.values())
        fresh = [r for r in records if r.node_id not in stored_ids]
        gone = sorted(stored_ids - {r.node_id for r in records})
        with self._engine.begin() as conn:  # the whole source, or nothing
            self._chunks.delete_nodes(conn, gone)
            self._embed_and_add(conn, fresh, f"source:{source_id}", uri, progress, access)
            self._chunks.set_access(conn, source_id, access)  # the chunks it kept
            if kind == SourceKind.GLOSSARY:
                glossary_store.replace(
                    conn, source_id=source_id, scope=options.scope, entries=loaded.glossary
                )
            if kind == SourceKind.TRIPLES:
                triple_store.replace(
                    conn, source_id=source_id, scope=options.scope, triples=loaded.triples
                )
            source_store.mark_ok(conn, source_id, content_hash=digest, chunk_count=len(records))
        report.chunks, report.added, report.removed = len(records), len(fresh), len(gone)
        report.instruction_like = sum(1 for r in records if r.metadata.get("instruction_like"))
        if report.instruction_like:
            log.warning(
                "%s: %d chunk(s) address an AI assistant (e.g. 'ignore previous instructions');"
                " flagged instruction_like, never quoted as an answer on their own",
                uri,
                report.instruction_like,
            )

    def _embed_and_add(
        self,
        conn: Connection,
        records: list[Pending],
        source_ref: str,
        uri: str,
        progress: Progress | None,
        access: Sequence[str],
    ) -> None:
        """Embed in batches; each batch is inserted while the next one is embedded.

        Postgres maintains the HNSW and full-text indexes in its own process while the
        model computes, so the two overlap. Everything stays inside the caller's
        transaction: an interruption leaves nothing of this source behind.
        """
        done = 0
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="kb-insert") as writer:
            pending: Future[None] | None = None
            for start in range(0, len(records), EMBED_BATCH):
                batch = records[start : start + EMBED_BATCH]
                vectors = self._embedder.embed_documents([p.embed_text for p in batch])
                rows = [
                    ChunkRecord(p.node_id, p.text, p.metadata, v)
                    for p, v in zip(batch, vectors, strict=True)
                ]
                if pending is not None:
                    pending.result()
                pending = writer.submit(
                    self._chunks.add, conn, rows, source_ref=source_ref, access=access
                )
                done += len(batch)
                if progress:
                    progress(Path(uri).name or uri, done, len(records))
            if pending is not None:
                pending.result()

    def _record_failure(
        self, uri: str, kind: SourceKind, options: IngestOptions, reason: str, report: SourceReport
    ) -> None:
        report.status, report.error = "failed", reason
        with self._engine.begin() as conn:
            source_id = source_store.upsert(
                conn, scope=options.scope, uri=uri, kind=kind.value, options=options.as_json()
            )
            source_store.mark_failed(conn, source_id, reason)

    def _remove_missing(self, root: Path, present: list[Path], scope: str) -> list[SourceReport]:
        """Sources once ingested from `root` whose files are gone: remove their chunks."""
        prefix = str(root.resolve())
        keep = {str(p.resolve()) for p in present}
        reports = []
        with self._engine.begin() as conn:
            for source in source_store.list_sources(conn, scope=scope):
                inside = source.uri == prefix or source.uri.startswith(prefix.rstrip("/") + "/")
                if inside and source.uri not in keep and source.status != "removed":
                    reports.append(self._remove(conn, source))
        return reports

    def _remove(self, conn: Connection, source: source_store.SourceRow) -> SourceReport:
        removed = self._chunks.delete_source(conn, source.id)
        glossary_store.replace(conn, source_id=source.id, scope=source.scope, entries=[])
        triple_store.replace(conn, source_id=source.id, scope=source.scope, triples=[])
        source_store.mark_removed(conn, [source.id])
        return SourceReport(
            source.uri,
            source.kind,
            "removed",
            removed=removed,
            scope=source.scope,
            source_id=source.id,
        )


def _missing(path: Path) -> SourceReport:
    return SourceReport(
        uri=str(path.resolve()),
        kind="unknown",
        status="failed",
        error="no such file or folder; check the path",
    )


def _raising(error: Exception) -> Callable[[], bytes]:
    def content() -> bytes:
        raise error

    return content


def _never_loaded() -> Loaded:
    raise AssertionError("a source whose content failed is never loaded")
