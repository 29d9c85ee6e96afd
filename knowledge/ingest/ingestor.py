"""Ingesting sources: load, diff against what is stored, embed only what changed, write.

Each source is written in one transaction (its chunks, glossary rows or triples, and its
status), so an interrupted run leaves every source as it was before or as it is after.
Unchanged sources are recognised by their content hash before any parsing or embedding.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Connection, Engine

from knowledge.documents import ChunkDraft, GlossaryEntry, Triple
from knowledge.errors import SourceError
from knowledge.ingest.embedding_text import RECIPE, embed_text
from knowledge.ingest.facts import derive_facts
from knowledge.ingest.injection import addresses_assistant
from knowledge.ingest.kinds import KNOWN_SUFFIXES, SourceKind, detect_kind
from knowledge.ingest.manifest import options_for, read_manifest
from knowledge.ingest.options import IngestOptions
from knowledge.ingest.source_links import linked
from knowledge.models.embeddings import Embedder
from knowledge.reading.loaders import faq as faq_loader
from knowledge.reading.loaders import glossary as glossary_loader
from knowledge.reading.loaders import rows as rows_loader
from knowledge.reading.loaders import triples as triples_loader
from knowledge.reading.loaders.rulebooks import load_rulebook
from knowledge.store import glossary as glossary_store
from knowledge.store import sources as source_store
from knowledge.store import triples as triple_store
from knowledge.store.chunks import ChunkRecord, ChunkStore, check_scope

log = logging.getLogger(__name__)

NODE_NAMESPACE = uuid.UUID("0d9a3c2e-6b1f-4a53-9a53-6b6e6f77626f")
EMBED_BATCH = 256

Progress = Callable[[str, int, int], None]  # (description, done, total)
# Told of every run's reports once it is written (e.g. to suspend verified answers that rely
# on a changed or removed source); it must not raise.
OnChange = Callable[[Sequence["SourceReport"]], None]


@dataclass
class SourceReport:
    uri: str
    kind: str
    status: str  # new | changed | unchanged | removed | failed
    chunks: int = 0
    added: int = 0
    removed: int = 0
    error: str = ""
    instruction_like: int = 0  # chunks that address an AI assistant (knowledge.ingest.injection)
    scope: str = ""
    source_id: int | None = None  # known for changed and removed sources


@dataclass
class IngestSummary:
    reports: list[SourceReport] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, status: str) -> int:
        return sum(1 for r in self.reports if r.status == status)

    @property
    def failed(self) -> list[SourceReport]:
        return [r for r in self.reports if r.status == "failed"]

    @property
    def chunks(self) -> int:
        return sum(r.chunks for r in self.reports if r.status != "removed")

    @property
    def embedded(self) -> int:
        return sum(r.added for r in self.reports)


@dataclass(frozen=True)
class Loaded:
    """What one source turned into."""

    drafts: list[ChunkDraft]
    glossary: list[GlossaryEntry] = field(default_factory=list)
    triples: list[Triple] = field(default_factory=list)


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
            files, missing = _expand(path)
            removed = self._remove_missing(path, files, options.scope)
            summary.reports.extend(removed)
            if missing and not removed:
                summary.reports.append(missing)
            try:
                manifest = read_manifest(path if path.is_dir() else path.parent)
            except SourceError as exc:
                summary.reports.append(
                    SourceReport(exc.source, "manifest", "failed", error=exc.reason)
                )
                continue
            folder = path if path.is_dir() else path.parent
            for file in files:
                file_options = options_for(manifest.entry(file), options)
                link_path = file.relative_to(folder).as_posix()
                summary.reports.append(self._ingest_file(file, file_options, progress, link_path))
        self._refresh_stats(summary.reports)
        summary.seconds = time.perf_counter() - started
        return summary

    def ingest_sql(
        self, db_url: str, query: str, options: IngestOptions, progress: Progress | None = None
    ) -> IngestSummary:
        """Ingest rows from any SQLAlchemy database URL (a table name or a SELECT)."""
        check_scope(options.scope)
        started = time.perf_counter()
        name = options.name or (query if query.isidentifier() else "query")
        uri = f"sql:{_redact(db_url)}#{query}"

        def load() -> Loaded:
            rows = rows_loader.read_sql_rows(db_url, query)
            loaded = self._rows(rows, options, table=name, as_of=date.today().isoformat())
            return replace(loaded, drafts=linked(loaded.drafts, options.url, path=None))

        def content() -> bytes:
            rows = rows_loader.read_sql_rows(db_url, query)
            return json.dumps(rows, sort_keys=True, default=str).encode()

        report = self._ingest_source(uri, SourceKind.ROWS, options, content, load, progress)
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
            return source_store.delete_scope(conn, scope)

    def _refresh_stats(self, reports: Sequence[SourceReport]) -> None:
        """Word statistics for the full-text search follow what this run changed; and
        `on_change` hears of it."""
        if any(r.status in ("new", "changed", "removed") for r in reports):
            with self._engine.begin() as conn:
                self._chunks.refresh_term_stats(conn)
            if self._on_change is not None:
                self._on_change(reports)

    # --- one source -------------------------------------------------------------------------

    def _ingest_file(
        self, path: Path, options: IngestOptions, progress: Progress | None, link_path: str
    ) -> SourceReport:
        uri = str(path.resolve())
        try:
            kind = options.kind if options.kind != SourceKind.AUTO else detect_kind(path)
        except SourceError as exc:
            return SourceReport(uri=uri, kind="unknown", status="failed", error=exc.reason)
        as_of = datetime.fromtimestamp(path.stat().st_mtime, tz=UTC).date().isoformat()
        return self._ingest_source(
            uri,
            kind,
            options,
            content=path.read_bytes,
            load=lambda: self._linked(
                self._load_file(path, kind, options, as_of=as_of), options, link_path
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
    ) -> SourceReport:
        report = SourceReport(uri=uri, kind=kind.value, status="new", scope=options.scope)
        try:
            digest = _source_hash(content(), kind, options)
            with self._engine.begin() as conn:
                existing = source_store.get(conn, options.scope, uri)
            if existing and existing.status == "ok" and existing.content_hash == digest:
                report.status, report.chunks = "unchanged", existing.chunk_count
                self._set_owners(uri, options)  # owners are not content: kept without reading
                return report
            if existing and existing.status == "ok":
                report.status, report.source_id = "changed", existing.id
            loaded = load()
            if not loaded.drafts:
                raise SourceError(uri, "nothing to index: the source is empty")
            self._write(uri, kind, options, digest, loaded, report, progress)
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
    ) -> None:
        with self._engine.begin() as conn:
            source_id = source_store.upsert(
                conn, scope=options.scope, uri=uri, kind=kind.value, options=options.as_json()
            )
            stored = self._chunks.fingerprints(conn, source_id)
        records = _records(loaded.drafts, scope=options.scope, source_id=source_id, uri=uri)
        stored_ids = set(stored.values())
        fresh = [r for r in records if r.node_id not in stored_ids]
        gone = sorted(stored_ids - {r.node_id for r in records})
        with self._engine.begin() as conn:  # the whole source, or nothing
            self._chunks.delete_nodes(conn, gone)
            self._embed_and_add(conn, fresh, f"source:{source_id}", uri, progress)
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
        records: list[_Pending],
        source_ref: str,
        uri: str,
        progress: Progress | None,
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
                pending = writer.submit(self._chunks.add, conn, rows, source_ref=source_ref)
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
                    removed = self._chunks.delete_source(conn, source.id)
                    glossary_store.replace(conn, source_id=source.id, scope=scope, entries=[])
                    triple_store.replace(conn, source_id=source.id, scope=scope, triples=[])
                    source_store.mark_removed(conn, [source.id])
                    reports.append(
                        SourceReport(
                            source.uri,
                            source.kind,
                            "removed",
                            removed=removed,
                            scope=scope,
                            source_id=source.id,
                        )
                    )
        return reports

    # --- loading ------------------------------------------------------------------------------

    def _load_file(
        self, path: Path, kind: SourceKind, options: IngestOptions, as_of: str
    ) -> Loaded:
        source = path.name
        if kind == SourceKind.RULEBOOK:
            return Loaded(load_rulebook(path))
        if kind == SourceKind.GLOSSARY:
            entries = glossary_loader.read_glossary(path)
            return Loaded(glossary_loader.glossary_chunks(entries, source=source), glossary=entries)
        if kind == SourceKind.FAQ:
            faqs = faq_loader.read_faq(path)
            drafts = faq_loader.faq_chunks(faqs, source=source, paraphraser=self._paraphraser)
            return Loaded(drafts)
        if kind == SourceKind.TRIPLES:
            triples = triples_loader.read_triples(path)
            return Loaded(triples_loader.triple_chunks(triples, source=source), triples=triples)
        rows = rows_loader.read_csv_rows(path)
        return self._rows(rows, options, table=options.name or path.stem, as_of=as_of)

    @staticmethod
    def _linked(loaded: Loaded, options: IngestOptions, link_path: str) -> Loaded:
        """Chunks carry the link to their place when the source has a url template."""
        return replace(loaded, drafts=linked(loaded.drafts, options.url, path=link_path))

    def _rows(
        self, rows: Sequence[dict[str, Any]], options: IngestOptions, *, table: str, as_of: str
    ) -> Loaded:
        if not options.keys:
            raise SourceError(
                table, "rows need a key column: pass --key COLUMN (the column naming each row)"
            )
        spec = rows_loader.RowsSpec(
            keys=options.keys, time=options.time, group=options.group, metrics=options.metrics
        )
        drafts = rows_loader.row_chunks(rows, spec, table=table, as_of=as_of)
        drafts += derive_facts(rows, spec, table=table, as_of=as_of)
        return Loaded(drafts)


@dataclass(frozen=True)
class _Pending:
    node_id: str
    text: str
    embed_text: str
    metadata: dict[str, Any]


def _records(
    drafts: Iterable[ChunkDraft], *, scope: str, source_id: int, uri: str
) -> list[_Pending]:
    out: dict[str, _Pending] = {}
    for draft in drafts:
        chunk_hash = _chunk_hash(draft)
        node_id = str(uuid.uuid5(NODE_NAMESPACE, f"{scope}|{uri}|{draft.key}|{chunk_hash}"))
        metadata = {
            **draft.metadata,
            "scope": scope,
            "source_id": source_id,
            "source_uri": uri,
            "kind": draft.kind.value,
            "title": draft.title,
            "location": draft.location,
            "key": draft.key,
            "hash": chunk_hash,
        }
        if addresses_assistant(draft.text):
            metadata["instruction_like"] = True
        out[node_id] = _Pending(node_id, draft.text, embed_text(draft), metadata)
    return list(out.values())


def _chunk_hash(draft: ChunkDraft) -> str:
    """The chunk as stored and, where it differs, as embedded: a change to either makes
    it a new chunk (and only such chunks are embedded again)."""
    fields: list[object] = [draft.kind.value, draft.text, draft.title, draft.location]
    fields.append(draft.metadata)
    embedded = embed_text(draft)
    if embedded != draft.text:
        fields.append(embedded)
    payload = json.dumps(fields, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def _source_hash(content: bytes, kind: SourceKind, options: IngestOptions) -> str:
    digest = hashlib.sha256(content)
    recipe = [kind.value, options.as_json(), RECIPE]  # a new recipe reads every source again
    digest.update(json.dumps(recipe, sort_keys=True).encode())
    return digest.hexdigest()


def _expand(path: Path) -> tuple[list[Path], SourceReport | None]:
    if path.is_dir():
        files = sorted(
            p
            for p in path.rglob("*")
            if p.is_file() and p.suffix.lower() in KNOWN_SUFFIXES and not p.name.startswith(".")
        )
        return files, None
    if path.is_file():
        return [path], None
    missing = SourceReport(
        uri=str(path.resolve()),
        kind="unknown",
        status="failed",
        error="no such file or folder; check the path",
    )
    return [], missing


def _redact(db_url: str) -> str:
    from sqlalchemy.engine import make_url

    try:
        return make_url(db_url).render_as_string(hide_password=True)
    except Exception:
        return "database"
