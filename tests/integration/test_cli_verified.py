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
    restored = knowbot("verified", "restore", str(exported[0]["id"]), env=env)
    assert restored.returncode == 0 and "served again" in restored.stdout
    assert "Ana Lima" in knowbot("verified", "list", env=env).stdout
    missing = knowbot("verified", "retire", "999", env=env)
    assert missing.returncode == 1 and "no verified answer 999" in missing.stderr


def faq_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "faq"
    folder.mkdir()
    corpus = [
        ("d1", "How many days of annual leave do staff get?", "Staff get 24 days a year."),
        ("d2", "Who approves travel requests?", "The line manager approves travel."),
        ("d3", "When is payroll run each month?", "Payroll runs on the 25th."),
    ]
    write_lines(folder / "corpus.jsonl", [{"_id": i, "title": t, "text": x} for i, t, x in corpus])
    queries = [
        ("q1", "how many annual leave days do staff get"),
        ("q2", "who approves my travel requests"),
        ("q3", "what is the canteen menu today"),
    ]
    write_lines(folder / "queries.jsonl", [{"_id": i, "text": t} for i, t in queries])
    (folder / "qrels.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\nq3\td3\t1\n", encoding="utf-8"
    )
    return folder


def test_eval_verified_counts_and_leaves_nothing_behind(db_url: URL, tmp_path: Path) -> None:
    env = {**env_for(db_url), "KNOWBOT_VERIFIED_MIN_SCORE": "0.6"}
    negatives = tmp_path / "negatives.txt"
    negatives.write_text("what is the canteen menu today\nwhere do I park my bike\n")
    folder = faq_folder(tmp_path)
    result = knowbot(
        "eval", "verified", str(folder), "--negatives", str(negatives), "--json", env=env
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    total = report["all"]
    assert (total["queries"], total["negatives"]) == (3, 2)
    assert total["served_right"] == 2 and total["served_wrong"] == 0
    assert total["served_none"] == 1 and total["negatives_served"] == 0
    assert report["rule"]["min_score"] == 0.6
    assert knowbot("verified", "list", "--json", env=env).stdout.strip() == ""
    table = knowbot("eval", "verified", str(folder), env=env)
    assert "held-out" in table.stdout and "min score 0.6" in table.stdout


def test_eval_verified_without_a_fitted_rule_says_what_to_do(db_url: URL, tmp_path: Path) -> None:
    result = knowbot("eval", "verified", str(faq_folder(tmp_path)), env=env_for(db_url))
    assert result.returncode == 1
    assert "No verified-answer rule is fitted" in result.stderr and "hashing" in result.stderr
