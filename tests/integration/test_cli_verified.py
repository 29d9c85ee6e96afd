"""`knowbot verified ...` and `knowbot ask --json` as a user runs them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sqlalchemy.engine import URL

from tests.integration.test_cli_db import knowbot
from tests.integration.test_cli_knowledge import env_for

GOOD: list[dict[str, Any]] = [
    {
        "question": "Can I carry over unused annual leave to next year?",
        "answer": "Yes, up to five days carry over to the next year.",
        "author": "Ana Lima",
        "scope": "default",
        "sources": ["https://intranet.example/hr/leave"],
    },
    {"question": "Who approves travel?", "answer": "Your line manager.", "author": "Bo"},
]


def write_lines(path: Path, rows: Sequence[object]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_bad_line_is_named_and_nothing_is_imported(db_url: URL, tmp_path: Path) -> None:
    env = env_for(db_url)
    bad = write_lines(tmp_path / "v.jsonl", [GOOD[0], {"question": "Who?", "author": "x"}, GOOD[1]])
    result = knowbot("verified", "import", str(bad), env=env)
    assert result.returncode == 1
    assert "line 2" in result.stderr and "no answer" in result.stderr
    assert "nothing imported" in result.stderr and "Traceback" not in result.stderr
    listed = knowbot("verified", "list", "--json", env=env)
    assert listed.returncode == 0 and listed.stdout.strip() == ""


def test_import_list_export_retire_and_ask(db_url: URL, tmp_path: Path) -> None:
    env = {**env_for(db_url), "KNOWBOT_VERIFIED_MIN_SCORE": "0.6"}
    result = knowbot("verified", "import", str(write_lines(tmp_path / "v.jsonl", GOOD)), env=env)
    assert result.returncode == 0, result.stderr
    assert "Imported 2 verified answer(s)" in result.stdout
    listed = knowbot("verified", "list", env=env)
    assert "Ana Lima" in listed.stdout and "Who approves travel?" in listed.stdout
    exported = [
        json.loads(line) for line in knowbot("verified", "export", env=env).stdout.splitlines()
    ]
    assert [e["question"] for e in exported] == [g["question"] for g in GOOD]
    assert exported[0]["sources"] == [
        {"title": "https://intranet.example/hr/leave", "url": "https://intranet.example/hr/leave"}
    ]

    asked = knowbot("ask", "can unused annual leave carry over to next year?", "--json", env=env)
    assert asked.returncode == 0, asked.stderr
    answer = json.loads(asked.stdout)
    verified = answer["verified"]
    assert verified["id"] == exported[0]["id"] and verified["author"] == "Ana Lima"
    assert verified["question"] == GOOD[0]["question"] and verified["verified_at"]
    assert answer["confidence"] == "High" and answer["notice"].startswith("Verified by Ana Lima")

    retired = knowbot("verified", "retire", str(exported[0]["id"]), env=env)
    assert retired.returncode == 0 and "Retired" in retired.stdout
    again = knowbot("ask", "can unused annual leave carry over to next year?", "--json", env=env)
    assert json.loads(again.stdout)["verified"] is None
    assert "carry over" not in knowbot("verified", "list", env=env).stdout
    missing = knowbot("verified", "retire", "999", env=env)
    assert missing.returncode == 1 and "no verified answer 999" in missing.stderr
