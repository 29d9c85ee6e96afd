"""`knowbot feedback export`: one record per rated answer, with what a prompt engineer needs."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import cast

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from bot.settings import Settings
from bot.wiring import Services
from tests.fakes.knowledge_base import bot_settings
from tests.feedback.helpers import ask, backdate_ratings, open_bot, rate, write_kb

CHECKS = {
    "qa_continuity",
    "numbers",
    "not_copied",
    "numeric_sense",
    "context_focus",
    "contextual_continuity",
    "polarity",
    "answerability",
}


@pytest.fixture
def cli_env(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """The CLI reads its settings from the environment, as a user's shell would set it."""
    assert settings.database_url
    monkeypatch.setenv("DATABASE_URL", settings.database_url)
    monkeypatch.setenv("KNOWBOT_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("KNOWBOT_EMBED_MODEL", "hashing")
    return bot_settings(settings)


@pytest.fixture
def rated_bot(cli_env: Settings, tmp_path: Path) -> Iterator[Services]:
    """Three answers: liked (rated a while ago), disputed (down-voted with a reason), unrated."""
    with open_bot(cli_env, write_kb(tmp_path / "kb")) as services:
        liked = ask(services, "What is the PED waiting period?")
        disputed = ask(services, "How do I submit a reimbursement claim?")
        ask(services, "What is the room rent limit for Plan A?")
        rate(services, liked, 1, 1)
        backdate_ratings(services, liked.id, timedelta(days=10))
        rate(services, disputed, -1, 1, reason="outdated")
        yield services


def export(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / f"export-{len(list(tmp_path.glob('export-*')))}"
    result = CliRunner().invoke(app, ["feedback", "export", *args, "--out", str(out)])
    assert result.exit_code == 0, result.output + repr(result.exception)
    return out


def records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_jsonl_has_everything_needed_to_rewrite_the_prompt(
    rated_bot: Services, tmp_path: Path
) -> None:
    got = {r["question"]: r for r in records(export(tmp_path))}
    assert set(got) == {"What is the PED waiting period?", "How do I submit a reimbursement claim?"}
    liked = got["What is the PED waiting period?"]
    assert "pre-existing disease" in str(liked["rewritten_question"])
    assert liked["expansions"] == [
        {"original": "PED", "replacement": "pre-existing disease", "kind": "acronym"}
    ]
    assert liked["intent"] and liked["model"] == "extractive"
    assert liked["prompt"] == f"{liked['prompt_name']}@{liked['prompt_version']}"
    scores = cast("dict[str, int]", liked["scores"])
    assert set(scores) == CHECKS
    assert set(cast("list[str]", liked["failed_checks"])) == {c for c in scores if not scores[c]}
    assert liked["confidence"] in ("High", "Medium", "Low")
    assert "36 months" in str(liked["answer"])
    # every [n] the answer cites is a context block as sent, with its chunk id and text
    context = {c["number"]: c for c in liked["context"]}  # type: ignore[attr-defined]
    cited = {n for b in liked["bullets"] for n in b["sources"]}  # type: ignore[attr-defined]
    assert cited and cited <= set(context)
    assert any("36 months" in context[n]["text"] and context[n]["chunk_id"] for n in cited)
    assert [r["rating"] for r in liked["ratings"]] == [1, 1]  # type: ignore[attr-defined]
    disputed = got["How do I submit a reimbursement claim?"]
    assert disputed["verdict"] == "negative" and (disputed["up"], disputed["down"]) == (1, 1)
    assert [r["reason"] for r in disputed["ratings"]] == ["outdated", None]  # type: ignore[attr-defined]


def test_rating_and_since_filters(rated_bot: Services, tmp_path: Path) -> None:
    def questions(*args: str) -> list[object]:
        return [r["question"] for r in records(export(tmp_path, *args))]

    assert questions("--rating", "negative") == ["How do I submit a reimbursement claim?"]
    assert questions("--rating", "positive") == ["What is the PED waiting period?"]
    five_days_ago = (datetime.now(UTC) - timedelta(days=5)).date().isoformat()
    assert questions("--since", five_days_ago) == ["How do I submit a reimbursement claim?"]
    assert questions("--since", "2000-01-01", "--rating", "positive") == [
        "What is the PED waiting period?"
    ]


def test_csv_is_flat_with_one_column_per_check(rated_bot: Services, tmp_path: Path) -> None:
    with export(tmp_path, "--format", "csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2
    disputed = next(r for r in rows if r["verdict"] == "negative")
    assert disputed["reasons"] == "outdated"
    assert {f"check_{c}" for c in CHECKS} <= set(disputed)
    assert all(disputed[f"check_{c}"] in ("0", "1") for c in CHECKS)
    assert json.loads(disputed["context_chunk_ids"])
    assert "30 days" in disputed["answer"]
    assert [r["rating"] for r in json.loads(disputed["ratings"])] == [-1, 1]


def test_an_empty_store_exports_an_empty_file_not_an_error(
    cli_env: Settings, tmp_path: Path
) -> None:
    with open_bot(cli_env):
        pass
    assert export(tmp_path).read_text() == ""
    with export(tmp_path, "--format", "csv").open(newline="") as f:
        assert list(csv.DictReader(f)) == []


def test_a_bad_date_is_a_readable_error(cli_env: Settings) -> None:
    result = CliRunner().invoke(app, ["feedback", "export", "--since", "last tuesday"])
    assert result.exit_code != 0
    assert "YYYY-MM-DD" in str(result.exception)
