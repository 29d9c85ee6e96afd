"""`knowbot --help`, a subcommand's help and a mistyped command answer at once: the CLI
loads the model stack (llama-index, torch, nltk, the bot's wiring) only for a command that
runs, not to describe itself."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("llama_index.core", "torch", "nltk", "sentence_transformers", "bot.wiring")
COMMANDS = (
    "ingest",
    "ask",
    "chat",
    "scheduler",
    "db",
    "eval",
    "serve",
    "channels",
    "feedback",
    "verified",
)
# Import the CLI, list what is loaded; show `ingest --help`, list again.
LOADED = f"""
import contextlib, io, sys
import bot.cli.main
print(sorted(m for m in {HEAVY!r} if m in sys.modules))
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    bot.cli.main.app(["ingest", "--help"], prog_name="knowbot")
print(sorted(m for m in {HEAVY!r} if m in sys.modules))
"""


def _python(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **{k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
        "KNOWBOT_DATA_DIR": str(cwd / "data"),
        "PYTHONPATH": str(ROOT),  # this checkout's code, not an installed copy
        "COLUMNS": "200",  # rich wraps nothing the tests look for
    }
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,  # no .env of the developer's
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_the_cli_and_its_help_load_no_model_stack(tmp_path: Path) -> None:
    result = _python(["-c", LOADED], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["[]", "[]"], result.stdout + result.stderr


def test_help_lists_the_commands(tmp_path: Path) -> None:
    result = _python(["-m", "bot", "--help"], tmp_path)
    assert result.returncode == 0, result.stderr
    for command in COMMANDS:
        assert f" {command} " in result.stdout, f"{command} missing:\n{result.stdout}"


def test_ingest_help_names_its_options(tmp_path: Path) -> None:
    result = _python(["-m", "bot", "ingest", "--help"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "--kind" in result.stdout
    assert "auto|rulebook|rows|glossary|faq|triples" in result.stdout
    assert "--sources" in result.stdout
