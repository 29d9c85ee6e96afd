"""A throwaway embedded PostgreSQL with knowbot's schema, for benchmarks."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import requests
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


@contextmanager
def serve_process(command: list[str], env: dict[str, str], log: Path, port: int) -> Iterator[str]:
    """`knowbot <command> --port PORT` as its own process, yielded (its base URL) once
    /readyz says 200; interrupted (as Ctrl-C would) on the way out."""
    url = f"http://127.0.0.1:{port}"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "bot", *command, "--port", str(port)],
            env={**os.environ, **env},
            stdout=out,
            stderr=out,
        )
        try:
            while True:
                if process.poll() is not None:
                    raise SystemExit(f"{' '.join(command)} exited:\n{log.read_text()}")
                try:
                    if requests.get(f"{url}/readyz", timeout=2).status_code == 200:
                        break
                except requests.RequestException:
                    pass
                time.sleep(0.05)
            yield url
        finally:
            process.send_signal(signal.SIGINT)
            process.wait(60)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def report(name: str, values: list[float], width: int = 22) -> None:
    p50, p95 = percentile(values, 50), percentile(values, 95)
    print(f"{name:{width}s} p50 {p50:7.1f} ms   p95 {p95:7.1f} ms")
