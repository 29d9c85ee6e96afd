"""A throwaway embedded PostgreSQL with knowbot's schema, for benchmarks."""

from __future__ import annotations

import shutil
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy.engine import URL, Engine

from bot.db import migrate
from bot.db.embedded import EmbeddedPostgres
from bot.db.engine import create_engine, ensure_database, normalize_url

warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")


@contextmanager
def bench_database() -> Iterator[tuple[Engine, URL]]:
    folder = Path(tempfile.mkdtemp(prefix="knowbot-bench-"))
    server = EmbeddedPostgres(folder / "pgdata")
    try:
        admin = normalize_url(server.start())
        ensure_database(admin, "bench")
        url = admin.set(database="bench")
        engine = create_engine(url)
        migrate.upgrade(engine)
        yield engine, url
        engine.dispose()
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def report(name: str, values: list[float], width: int = 22) -> None:
    p50, p95 = percentile(values, 50), percentile(values, 95)
    print(f"{name:{width}s} p50 {p50:7.1f} ms   p95 {p95:7.1f} ms")
