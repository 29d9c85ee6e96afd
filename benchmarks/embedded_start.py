"""Embedded PostgreSQL start time: cold (a new data folder, initdb) and warm (reused)."""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
import warnings
from pathlib import Path

from bot.db.engine import open_database
from bot.settings import Settings

warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")


def timed_open(data_dir: Path) -> float:
    started = time.perf_counter()
    db = open_database(Settings(_env_file=None, KNOWBOT_DATA_DIR=data_dir))  # type: ignore[call-arg]
    elapsed = time.perf_counter() - started
    db.close()
    return elapsed


def main(runs: int = 3) -> None:
    cold: list[float] = []
    warm: list[float] = []
    for _ in range(runs):
        folder = Path(tempfile.mkdtemp(prefix="knowbot-start-"))
        try:
            cold.append(timed_open(folder))
            warm.extend(timed_open(folder) for _ in range(3))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    cold_s, warm_s = statistics.median(cold), statistics.median(warm)
    print(f"cold start (initdb, start, create db, checks): median {cold_s:.2f} s of {len(cold)}")
    print(f"warm start (start, checks): median {warm_s:.2f} s of {len(warm)}")


if __name__ == "__main__":
    main()
