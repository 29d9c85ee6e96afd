"""ruff and mypy are part of the test run, and the chat-platform boundary holds."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLATFORM_PACKAGES = ("slack_bolt", "slack_sdk", "botbuilder", "aiohttp")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_ruff_is_clean() -> None:
    result = run("ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_is_clean() -> None:
    result = run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_pipeline_and_knowledge_import_no_chat_platform() -> None:
    offenders = []
    for folder in (ROOT / "bot" / "conversation", ROOT / "knowledge"):
        for path in folder.rglob("*.py"):
            for name in imported_modules(path):
                if name.split(".")[0] in PLATFORM_PACKAGES:
                    offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []


def test_knowledge_does_not_depend_on_the_chat_side() -> None:
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in (ROOT / "knowledge").rglob("*.py")
        for name in imported_modules(path)
        if name.split(".")[0] == "bot"
    ]
    assert offenders == []
