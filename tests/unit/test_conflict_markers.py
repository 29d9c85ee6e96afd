"""No tracked file keeps a merge conflict's markers: the README once shipped two versions of
a section between `<<<<<<< HEAD` and `>>>>>>> issue-14`, and it is the first page anyone
reads."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def conflict_markers(path: Path) -> list[tuple[int, str]]:
    """(line number, line) of every conflict marker in a text file; none in a binary one.
    A marker is a line starting with seven `<` or `>`, or a line of exactly seven `=`."""
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return []
    return [
        (number, line)
        for number, line in enumerate(text.splitlines(), start=1)
        if line.startswith(("<<<<<<<", ">>>>>>>")) or line == "======="
    ]


def tracked_files() -> list[Path]:
    """The files git tracks in this checkout; skips the test where there is no git checkout
    (a source tarball, an installed copy)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed: no list of tracked files to scan")
    top = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"], cwd=ROOT, capture_output=True, text=True
    )
    if top.returncode != 0 or Path(top.stdout.strip()).resolve() != ROOT:
        pytest.skip(f"{ROOT} is not a git checkout (a tarball?): no tracked files to scan")
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode("utf-8")
    return [ROOT / name for name in listed.split("\0") if name and (ROOT / name).is_file()]


def test_no_tracked_file_holds_conflict_markers() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line}"
        for path in tracked_files()
        for number, line in conflict_markers(path)
    ]
    assert not found, "merge conflict markers left in:\n" + "\n".join(found)


def test_a_planted_conflict_is_caught(tmp_path: Path) -> None:
    planted = tmp_path / "README.md"
    planted.write_text(
        "# Title\n\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> issue-14\nafter\n",
        encoding="utf-8",
    )
    assert conflict_markers(planted) == [
        (3, "<<<<<<< HEAD"),
        (5, "======="),
        (7, ">>>>>>> issue-14"),
    ]


def test_lookalikes_and_binaries_are_not_markers(tmp_path: Path) -> None:
    text = tmp_path / "notes.md"
    text.write_text("Heading\n========\n  <<<<<<< indented\n= = =\n", encoding="utf-8")
    binary = tmp_path / "icon.png"
    binary.write_bytes(b"\x89PNG\0\0<<<<<<< HEAD\n=======\n")
    assert conflict_markers(text) == []
    assert conflict_markers(binary) == []
