"""The embedded server: data survives restarts, crashes are recovered, processes can share it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from bot.conversation.types import ThreadRef
from bot.db.engine import open_database
from bot.db.migrate import upgrade
from bot.settings import Settings
from bot.store.threads import ThreadStore

REF = ThreadRef("console", "local", "cli", "t1")


def embedded_settings(data_dir: Path) -> Settings:
    return Settings(_env_file=None, KNOWBOT_DATA_DIR=data_dir)  # type: ignore[call-arg]


def postmaster_pid(pgdata: Path) -> int | None:
    pidfile = pgdata / "postmaster.pid"
    if not pidfile.exists():
        return None
    return int(pidfile.read_text().splitlines()[0])


def is_running(pid: int) -> bool:
    """Alive and not a zombie (this sandbox's init does not reap orphans)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_thread_history_survives_a_server_restart(tmp_path: Path) -> None:
    settings = embedded_settings(tmp_path)
    db = open_database(settings)
    upgrade(db.engine)
    ThreadStore(db.engine).append(REF, "user", "remember me")
    first_pid = postmaster_pid(settings.embedded_pgdata)
    db.close()
    assert first_pid is not None and not is_running(first_pid), "server was not stopped"

    db = open_database(settings)
    try:
        assert [t.text for t in ThreadStore(db.engine).history(REF)] == ["remember me"]
    finally:
        db.close()


def test_a_stale_pidfile_from_a_crash_does_not_block_the_next_start(tmp_path: Path) -> None:
    settings = embedded_settings(tmp_path)
    open_database(settings).close()
    # A crash leaves postmaster.pid behind; its pid now belongs to some other process.
    pidfile = settings.embedded_pgdata / "postmaster.pid"
    pidfile.write_text(f"{os.getpid()}\n{settings.embedded_pgdata}\n0\n\n/tmp\n\n0 0\nready\n")
    db = open_database(settings)
    try:
        upgrade(db.engine)
        ThreadStore(db.engine).append(REF, "user", "still works")
    finally:
        db.close()


def test_a_process_killed_while_attached_is_recovered(tmp_path: Path) -> None:
    settings = embedded_settings(tmp_path)
    # A child starts the server and dies without detaching (no atexit cleanup ran).
    script = (
        "import os, warnings; warnings.simplefilter('ignore');"
        "from bot.db.engine import open_database; from bot.settings import Settings;"
        f"open_database(Settings(_env_file=None, KNOWBOT_DATA_DIR={str(tmp_path)!r}));"
        "os._exit(0)"
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
    orphan = postmaster_pid(settings.embedded_pgdata)
    assert orphan is not None and is_running(orphan)

    db = open_database(settings)  # attaches to the orphaned server, drops the dead handle
    upgrade(db.engine)
    db.close()  # the last live handle leaves, so the server stops
    assert not is_running(orphan)


@pytest.mark.timeout(180)
def test_two_processes_starting_on_one_data_dir_both_succeed(tmp_path: Path) -> None:
    env = {**os.environ, "KNOWBOT_DATA_DIR": str(tmp_path)}
    env.pop("DATABASE_URL", None)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "bot", "db", "upgrade"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=150) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    status = subprocess.run(
        [sys.executable, "-m", "bot", "db", "status"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert status.returncode == 0, status.stderr
    assert "pending migrations │ none" in status.stdout


def test_the_embedded_server_gets_a_cache_sized_to_the_machine(tmp_path: Path) -> None:
    settings = embedded_settings(tmp_path)
    quarter_mb = psutil.virtual_memory().total // 4 // 2**20
    expected = min(max(quarter_mb, 128), 1024) * 2**20
    for _ in range(2):  # a restart keeps one setting, not two
        db = open_database(settings)
        try:
            with db.engine.connect() as conn:
                size = "SELECT setting::bigint * 8192 FROM pg_settings WHERE name='shared_buffers'"
                assert conn.exec_driver_sql(size).scalar_one() == expected
        finally:
            db.close()
    conf = (settings.embedded_pgdata / "postgresql.conf").read_text()
    assert conf.count("set by knowbot") == 1
