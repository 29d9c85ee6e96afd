"""Connecting to PostgreSQL: the configured server, or the embedded one when none is set."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

import psycopg
import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.ext import asyncio as sa_async
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.pool import ConnectionPoolEntry

from bot.db.embedded import EmbeddedPostgres
from bot.errors import DatabaseUnavailable
from bot.settings import Settings

log = logging.getLogger(__name__)

EMBEDDED_DATABASE = "knowbot"


@dataclass
class Database:
    """An engine plus, when we started it, the embedded server behind it."""

    engine: Engine
    url: URL
    embedded: EmbeddedPostgres | None = None
    _closed: bool = field(default=False, repr=False)

    @property
    def where(self) -> str:
        """Where the data lives, for messages: host:port/db or the embedded data folder."""
        if self.embedded is not None:
            return f"embedded PostgreSQL in {self.embedded.pgdata}"
        return describe_url(self.url)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.engine.dispose()
        if self.embedded is not None:
            self.embedded.stop()


def normalize_url(raw: str) -> URL:
    """Accept postgres://, postgresql:// and postgresql+psycopg:// alike; use psycopg 3."""
    try:
        url = make_url(raw.strip())
    except Exception as exc:
        raise DatabaseUnavailable(
            f"DATABASE_URL is not a valid URL ({exc}); expected "
            "postgresql://USER:PASSWORD@HOST:PORT/DATABASE"
        ) from exc
    if url.get_backend_name() not in ("postgres", "postgresql"):
        raise DatabaseUnavailable(
            f"DATABASE_URL must point at PostgreSQL, not {url.get_backend_name()!r}."
        )
    return url.set(drivername="postgresql+psycopg")


def describe_url(url: URL) -> str:
    host = url.host or url.query.get("host") or "localhost"
    port = f":{url.port}" if url.port else ""
    return f"{host}{port}/{url.database or ''}"


# pgvector 0.8: keep scanning the HNSW graph until filtered queries (by scope) have enough
# rows, instead of returning short result lists; a candidate list of 100 (the default 40 is
# below the 50 candidates the retriever asks for).
SESSION_OPTIONS = "-c hnsw.iterative_scan=relaxed_order -c hnsw.ef_search=100"


# A pooled connection idle longer than this is pinged before use, and replaced if the
# server dropped it (a restart, an idle timeout). One back from use moments ago is not:
# a question takes about seven connections in turn, and a ping before each cost a round
# trip apiece (about 6 ms of the pipeline's overhead, benchmarks/README.md).
PING_AFTER_IDLE_S = 5.0


def create_engine(
    url: URL, *, pool_size: int = 5, ping_after_idle_s: float = PING_AFTER_IDLE_S
) -> Engine:
    # ClientCursor: LlamaIndex's PGVectorStore sends `SET hnsw.ef_search = $1`, which
    # server-side binding rejects (see DESIGN.md, known technical facts).
    engine = sa.create_engine(
        url,
        connect_args={
            "cursor_factory": psycopg.ClientCursor,
            "connect_timeout": 10,
            "options": SESSION_OPTIONS,
        },
        pool_size=pool_size,
        max_overflow=10,
    )
    _ping_when_idle(engine, ping_after_idle_s)
    return engine


def _ping_when_idle(engine: Engine, after_s: float) -> None:
    """SQLAlchemy's `pool_pre_ping`, for connections that sat idle `after_s` or longer: a
    dead one raises DisconnectionError, and the pool connects afresh (up to three times)."""

    @sa.event.listens_for(engine, "checkin")
    def _idle_from(dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
        record.info["idle_since"] = time.monotonic()

    @sa.event.listens_for(engine, "checkout")
    def _alive(dbapi_connection: Any, record: ConnectionPoolEntry, proxy: Any) -> None:
        idle_since = record.info.get("idle_since")
        if idle_since is None or time.monotonic() - idle_since < after_s:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except psycopg.Error as exc:
            raise sa.exc.DisconnectionError(f"a pooled connection was dropped: {exc}") from exc


def create_async_engine(url: URL) -> AsyncEngine:
    """For LlamaIndex's PGVectorStore, which wants both; it connects only if used."""
    return sa_async.create_async_engine(
        url,
        connect_args={"cursor_factory": psycopg.AsyncClientCursor, "options": SESSION_OPTIONS},
        pool_pre_ping=True,
    )


def open_database(settings: Settings) -> Database:
    """Connect to DATABASE_URL, or start the embedded server when it is unset."""
    if settings.database_url:
        url = normalize_url(settings.database_url)
        db = Database(engine=create_engine(url), url=url)
    else:
        db = _open_embedded(settings)
    try:
        check_server(db)
    except Exception:
        db.close()
        raise
    return db


def _open_embedded(settings: Settings) -> Database:
    embedded = EmbeddedPostgres(settings.embedded_pgdata)
    admin_url = normalize_url(embedded.start())
    try:
        ensure_database(admin_url, EMBEDDED_DATABASE)
    except Exception:
        embedded.stop()
        raise
    url = admin_url.set(database=EMBEDDED_DATABASE)
    return Database(engine=create_engine(url), url=url, embedded=embedded)


def ensure_database(admin_url: URL, name: str) -> None:
    """Create database `name` on the server if it does not exist yet."""
    engine = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            exists = conn.execute(
                sa.text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name}
            ).scalar()
            if not exists:
                try:
                    conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
                except (sa.exc.ProgrammingError, sa.exc.IntegrityError) as exc:
                    if "already exists" not in str(exc):  # else: a concurrent process won
                        raise
    finally:
        engine.dispose()


def check_server(db: Database) -> None:
    """Fail early, in one line, when the server is unreachable or lacks pgvector."""
    try:
        with db.engine.connect() as conn:
            available = conn.execute(
                sa.text("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
            ).scalar()
    except sa.exc.OperationalError as exc:
        raise DatabaseUnavailable(
            f"Cannot connect to PostgreSQL at {db.where}: {first_line(exc.orig or exc)}. "
            "Check DATABASE_URL and that the server is running (or unset DATABASE_URL "
            "to use the embedded server)."
        ) from exc
    if not available:
        raise DatabaseUnavailable(
            f"PostgreSQL at {db.where} has no 'vector' extension (pgvector). Install pgvector "
            "on that server (e.g. the postgresql-NN-pgvector package, or the pgvector/pgvector "
            "Docker image), or unset DATABASE_URL to use the embedded server, which bundles it."
        )


def first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0].strip()
