"""A mistyped command gets the short usage and a hint, as every Click/Typer program gives,
not a Python traceback; and nothing is started for it (no embedded PostgreSQL)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KNOWBOT = Path(sys.executable).parent / "knowbot"
MISTAKES = {
    "unknown command": (["foo"], "No such command 'foo'"),
    "missing argument": (["ask"], "Missing argument"),
    "unknown option": (["channels", "set", "C1", "--no-such-option"], "No such option"),
}


def test_usage_errors_print_usage_and_exit_2(tmp_path: Path) -> None:
    if not KNOWBOT.exists():
        pytest.skip(f"knowbot is not installed beside {sys.executable}")
    data_dir = tmp_path / "data"
    env = {
        **{k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
        "KNOWBOT_DATA_DIR": str(data_dir),
        "PYTHONPATH": str(ROOT),  # this checkout's code behind the installed script
        "COLUMNS": "100",
    }
    # The three start at once: each pays the CLI's import time, the wall clock only once.
    running = {
        name: subprocess.Popen(
            [str(KNOWBOT), *args],
            cwd=tmp_path,  # no .env of the developer's
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, (args, _) in MISTAKES.items()
    }
    for name, process in running.items():
        stdout, stderr = process.communicate(timeout=180)
        output = stdout + stderr
        assert process.returncode == 2, f"{name}: exit {process.returncode}\n{output}"
        assert "Traceback" not in output, f"{name}:\n{output}"
        assert "Usage: knowbot" in output, f"{name}:\n{output}"
        assert "--help' for help" in output, f"{name}:\n{output}"
        assert MISTAKES[name][1] in output, f"{name}:\n{output}"
    assert not (data_dir / "pgdata").exists(), "a usage error started the embedded database"
