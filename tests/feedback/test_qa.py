"""`knowbot eval qa`: known questions through the real pipeline, and down-voted answers
exported straight into its format as a regression set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from bot.settings import Settings
from tests.fakes.knowledge_base import bot_settings
from tests.feedback.helpers import ask, open_bot, rate, write_kb


@pytest.fixture
def kb_settings(settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Settings:
    assert settings.database_url
    monkeypatch.setenv("DATABASE_URL", settings.database_url)
    monkeypatch.setenv("KNOWBOT_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("KNOWBOT_EMBED_MODEL", "hashing")
    config = bot_settings(settings)
    with open_bot(config, write_kb(tmp_path / "kb")):
        pass
    return config


def run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result.stdout


def eval_qa(path: Path) -> dict[str, object]:
    """The one-line summary, plus the per-case rows written beside the cases."""
    rows = path.with_suffix(".results.jsonl")
    [line] = run("eval", "qa", str(path), "--json", "--results", str(rows)).splitlines()
    report: dict[str, object] = json.loads(line)
    report["results"] = [json.loads(row) for row in rows.read_text().splitlines()]
    return report


def write_cases(path: Path, *cases: dict[str, object]) -> Path:
    path.write_text("".join(json.dumps(c) + "\n" for c in cases))
    return path


def test_answers_are_checked_for_the_expected_facts_and_a_source_that_has_them(
    kb_settings: Settings, tmp_path: Path
) -> None:
    cases = write_cases(
        tmp_path / "qa.jsonl",
        {"question": "What is the PED waiting period?", "expected_facts": ["36 months"]},
        {"question": "How do I submit a reimbursement claim?", "expected_facts": ["30 days"]},
        {"question": "What is the PED waiting period?", "expected_facts": ["48 months"]},
        {
            "question": "What is the room rent limit for Plan A?",
            "expected_answer": "Room rent is covered up to 1% of sum insured per day.",
        },
        {"question": "Who won the 1986 world cup?"},
        {"question": "What is the claim settlement ratio?", "unanswerable": True},
    )
    report = eval_qa(cases)
    assert (report["cases"], report["labelled"]) == (6, 4)
    results = {r["line"]: r for r in report["results"]}  # type: ignore[attr-defined]
    assert results[1]["contains"] and results[1]["cites"]
    assert results[2]["contains"] and results[2]["cites"]
    assert results[3]["contains"] is False and results[3]["missing"] == ["48 months"]
    assert results[4]["contains"] and results[4]["cites"]
    assert results[5]["contains"] is None and results[5]["confidence"] == "Low"
    assert results[6]["outcome"] == "declined"  # nothing on settlement ratios: it says so
    assert (report["stated"], report["cited"]) == (3, 3)
    assert (report["unanswerable"], report["unanswerable_declined"]) == (1, 1)
    assert report["confidence_by_outcome"]["missed"] and report["high_passed"]  # type: ignore[index]
    assert all(r["confidence"] in ("High", "Medium", "Low") for r in results.values())


def test_the_table_says_how_many_passed(kb_settings: Settings, tmp_path: Path) -> None:
    cases = write_cases(
        tmp_path / "qa.jsonl",
        {"question": "What is the PED waiting period?", "expected_facts": ["36 months"]},
    )
    assert "1/1 answers contain the expected facts" in run("eval", "qa", str(cases))


def test_down_voted_answers_become_a_regression_set(kb_settings: Settings, tmp_path: Path) -> None:
    with open_bot(kb_settings) as services:
        disliked = ask(services, "How do I submit a reimbursement claim?")
        liked = ask(services, "What is the PED waiting period?")
        rate(services, disliked, -1, reason="incomplete")
        rate(services, liked, 1)
    regressions = tmp_path / "regressions.jsonl"
    run("feedback", "export", "--format", "qa", "--rating", "negative", "--out", str(regressions))
    [case] = [json.loads(line) for line in regressions.read_text().splitlines()]
    assert case["question"] == "How do I submit a reimbursement claim?"
    assert case["expected_facts"] == [] and case["reasons"] == ["incomplete"]
    assert "30 days" in case["rejected_answer"]
    report = eval_qa(regressions)  # runs as exported: confidence shown, nothing to check yet
    assert report["cases"] == 1 and report["labelled"] == 0
    case["expected_facts"] = ["30 days"]  # what a reviewer writes in
    report = eval_qa(write_cases(regressions, case))
    assert report["cite_supporting_source"] == 1
    keepers = tmp_path / "keepers.jsonl"
    run("feedback", "export", "--format", "qa", "--rating", "positive", "--out", str(keepers))
    report = eval_qa(keepers)  # liked answers must stay right: their text is the expectation
    assert report["labelled"] == 1 and report["cite_supporting_source"] == 1


def test_a_bad_line_names_the_file_and_line(kb_settings: Settings, tmp_path: Path) -> None:
    cases = tmp_path / "qa.jsonl"
    cases.write_text('{"question": "What is PED?"}\n{"expected_facts": ["x"]}\n')
    result = CliRunner().invoke(app, ["eval", "qa", str(cases)])
    assert result.exit_code != 0
    assert f"{cases}:2" in str(result.exception) and "question" in str(result.exception)
