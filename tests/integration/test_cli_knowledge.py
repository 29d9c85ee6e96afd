"""`knowbot ingest` and `knowbot ask` as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy.engine import URL

from tests.integration.test_cli_db import knowbot

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "knowledge"


def env_for(db_url: URL) -> dict[str, str]:
    return {
        "DATABASE_URL": db_url.render_as_string(hide_password=False),
        "KNOWBOT_EMBED_MODEL": "hashing",
    }


def test_ingest_the_examples_then_ask_with_json(db_url: URL) -> None:
    env = env_for(db_url)
    ingest = knowbot("ingest", str(EXAMPLES), env=env)
    assert ingest.returncode == 0, ingest.stdout + ingest.stderr
    assert "0 failed" in ingest.stdout and "new" in ingest.stdout
    again = knowbot("ingest", str(EXAMPLES), env=env)
    assert "6 unchanged" in again.stdout
    result = knowbot("ask", "What is the PED waiting period?", "--json", env=env)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert set(answer) >= {
        "question",
        "rewritten_question",
        "expansions",
        "intent",
        "bullets",
        "sources",
        "confidence",
        "scores",
        "prompt",
        "answer_id",
        "timings_ms",
    }
    assert "pre-existing disease" in answer["rewritten_question"]
    assert answer["confidence"] in ("High", "Medium", "Low")
    assert all({"number", "title", "location", "text"} <= set(s) for s in answer["sources"])
    assert any("36 months" in b for b in answer["bullets"])


def test_a_failed_source_is_named_and_the_exit_code_says_so(db_url: URL, tmp_path: Path) -> None:
    (tmp_path / "good.txt").write_text("LEAVE\n\n1.1 Annual leave\nStaff get 24 days of leave.\n")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    result = knowbot("ingest", str(tmp_path), env=env_for(db_url))
    assert result.returncode == 1
    assert "broken.pdf" in result.stdout and "1 new" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr
