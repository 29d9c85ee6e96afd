"""mypy over the project, started once and early: on a fresh clone it takes minutes on one
core, so the run starts it as soon as the tests are collected and lets it work beside the
tests that wait on the database and local servers (see conftest.pytest_collection_finish)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MYPY = pytest.StashKey[subprocess.Popen[str]]()


def start_mypy() -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "mypy"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
