"""The `knowbot` command as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy.engine import URL


def knowbot(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_db_upgrade_is_idempotent(empty_db_url: URL) -> None:
    env = {"DATABASE_URL": empty_db_url.render_as_string(hide_password=False)}
    first = knowbot("db", "upgrade", env=env)
    assert first.returncode == 0, first.stderr
    assert "Applied" in first.stdout
    second = knowbot("db", "upgrade", env=env)
    assert second.returncode == 0, second.stderr
    assert "Already up to date" in second.stdout


def test_unreachable_database_is_one_readable_line_without_traceback(tmp_path: Path) -> None:
    result = knowbot("db", "status", env={"DATABASE_URL": "postgresql://kb:pw@127.0.0.1:9/kb"})
    assert result.returncode == 1
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "127.0.0.1:9" in lines[0] and "refused" in lines[0].lower()
    assert "Traceback" not in result.stderr


def test_debug_flag_shows_the_traceback(tmp_path: Path) -> None:
    result = knowbot(
        "--debug", "db", "status", env={"DATABASE_URL": "postgresql://kb:pw@127.0.0.1:9/kb"}
    )
    assert result.returncode == 1
    assert "Traceback" in result.stderr


def test_db_status_against_the_embedded_server(tmp_path: Path) -> None:
    env = {"KNOWBOT_DATA_DIR": str(tmp_path)}
    assert knowbot("db", "upgrade", env=env).returncode == 0
    result = knowbot("db", "status", env=env)
    assert result.returncode == 0, result.stderr
    assert "PostgreSQL" in result.stdout and "18" in result.stdout
    assert "pgvector" in result.stdout and "0.8" in result.stdout
