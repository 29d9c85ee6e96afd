"""`knowbot feedback report`: a page of charts built from real stored answers and ratings."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from bot.settings import Settings
from tests.fakes.knowledge_base import bot_settings
from tests.feedback.helpers import ask, backdate_ratings, open_bot, rate, write_kb

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def cli_settings(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    assert settings.database_url
    monkeypatch.setenv("DATABASE_URL", settings.database_url)
    monkeypatch.setenv("KNOWBOT_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("KNOWBOT_EMBED_MODEL", "hashing")
    return bot_settings(settings)


def report(out: Path) -> str:
    result = CliRunner().invoke(app, ["feedback", "report", "--out", str(out)])
    assert result.exit_code == 0, result.output + repr(result.exception)
    return (out / "index.html").read_text()


def test_the_report_charts_real_ratings(cli_settings: Settings, tmp_path: Path) -> None:
    with open_bot(cli_settings, write_kb(tmp_path / "kb")) as services:
        good = ask(services, "What is the PED waiting period?")
        bad = ask(services, "How do I submit a reimbursement claim?")
        also_bad = ask(services, "How do I submit a reimbursement claim?")
        rate(services, good, 1, 1, 1)
        backdate_ratings(services, good.id, timedelta(days=3))
        rate(services, bad, -1, -1, reason="wrong")
        rate(services, also_bad, -1, 1, reason="incomplete")
    out = tmp_path / "report"
    page = report(out)
    images = re.findall(r"<img src='([^']+)'", page)
    assert len(images) == 6
    for name in images:
        assert (out / name).read_bytes().startswith(PNG), name
    assert "7 ratings on 3 answers" in page and "57% positive" in page
    # what each confidence level turned out to mean, in one line
    levels = {good.confidence, bad.confidence}
    assert "Calibration (share rated positive per level)" in page
    assert all(f"{level.value} " in page.split("Calibration", 1)[1] for level in levels)
    assert "Checks that failed on rated answers" in page
    # the questions people down-voted, worst first, with why
    listed = page.split("<ol>", 1)[1]
    assert "How do I submit a reimbursement claim?" in listed
    assert "3 down, 1 up over 2 answer(s)" in listed and "incomplete, wrong" in listed
    assert "PED" not in listed  # nobody down-voted it


def test_an_empty_store_gets_a_page_saying_there_is_no_feedback_yet(
    cli_settings: Settings, tmp_path: Path
) -> None:
    out = tmp_path / "report"
    out.mkdir()
    (out / "by_intent.png").write_bytes(PNG)  # from an earlier run, when there was feedback
    page = report(out)
    assert "No feedback yet" in page
    assert "<img" not in page and not list(out.glob("*.png"))
