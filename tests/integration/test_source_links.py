"""Sources that link to the document: the url template in knowbot-sources.toml is filled
for every chunk at ingest, reaches the answer's sources and is stored with the answer."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.adapters.console import console_turn
from bot.feedback.export import record
from bot.settings import Settings
from bot.wiring import Services, open_services
from knowledge.ingest.options import IngestOptions
from tests.fakes.knowledge_base import bot_settings, write_policy_kb

PAGE_LINK = "https://intranet.example.com/kb/{path}#:~:text={section}"
ROWS = "policy_number,plan,premium\n0000-0001,Plan A,1200\n0000-0002,Plan B,1900\n"
MANIFEST = f"""url = "{PAGE_LINK}"

[[source]]
path = "policies.csv"
kind = "rows"
key = ["policy_number"]
url = "https://crm.example.com/{{table}}/{{key}}"
"""


@pytest.fixture
def services(settings: Settings) -> Iterator[Services]:
    with open_services(bot_settings(settings)) as svc:
        yield svc


def linked_kb(folder: Path, manifest: str = MANIFEST) -> Path:
    write_policy_kb(folder)
    (folder / "policies.csv").write_text(ROWS)
    (folder / "knowbot-sources.toml").write_text(manifest)
    return folder


def sources_of(services: Services, question: str) -> dict[str, str]:
    """The answer's sources' links by title and location."""
    answer = services.pipeline.answer_now(
        console_turn(question, thread=question, scopes=("default",))
    )
    assert answer is not None
    stored = services.answers.get(answer.id)
    assert stored is not None
    assert [s["url"] for s in stored["sources"]] == [s.url for s in answer.sources]
    return {f"{s.title} — {s.location}": s.url for s in answer.sources}


def test_a_cited_passage_links_to_its_section_and_a_row_to_its_record(
    services: Services, tmp_path: Path
) -> None:
    kb = linked_kb(tmp_path / "kb")
    services.knowledge.ingestor.ingest_paths([kb], IngestOptions())

    claims = sources_of(services, "how are reimbursement claims settled?")
    assert claims["policy.txt — 5.2 Reimbursement claims"] == (
        "https://intranet.example.com/kb/policy.txt#:~:text=5.2%20Reimbursement%20claims"
    )
    rows = sources_of(services, "what is the premium of policy 0000-0002?")
    row = next(url for where, url in rows.items() if "policy_number 0000-0002" in where)
    assert row == "https://crm.example.com/policies/0000-0002"


def test_a_changed_template_relinks_the_chunks_and_an_unchanged_one_costs_nothing(
    services: Services, tmp_path: Path
) -> None:
    kb = linked_kb(tmp_path / "kb")
    ingestor = services.knowledge.ingestor
    ingestor.ingest_paths([kb], IngestOptions())
    again = ingestor.ingest_paths([kb], IngestOptions())
    assert {r.status for r in again.reports} == {"unchanged"}

    moved = MANIFEST.replace("intranet.example.com/kb", "wiki.example.com/policies")
    (kb / "knowbot-sources.toml").write_text(moved)
    report = ingestor.ingest_paths([kb], IngestOptions())
    assert {r.uri.rsplit("/", 1)[-1]: r.status for r in report.reports}["policy.txt"] == "changed"
    claims = sources_of(services, "how are reimbursement claims settled?")
    assert claims["policy.txt — 5.2 Reimbursement claims"].startswith(
        "https://wiki.example.com/policies/policy.txt#"
    )


def test_without_a_template_sources_read_as_before(services: Services, tmp_path: Path) -> None:
    services.knowledge.ingestor.ingest_paths([write_policy_kb(tmp_path / "kb")], IngestOptions())

    assert set(sources_of(services, "how are reimbursement claims settled?").values()) == {""}


def test_a_template_that_cannot_make_links_fails_ingest_saying_why(
    services: Services, tmp_path: Path
) -> None:
    kb = linked_kb(tmp_path / "kb", 'url = "intranet/{path}#page={pages}"\n')

    report = services.knowledge.ingestor.ingest_paths([kb], IngestOptions())

    [failed] = report.failed
    assert failed.uri.endswith("knowbot-sources.toml")
    assert "{pages}" in failed.error and "{path}" in failed.error


def test_the_feedback_export_keeps_the_links(services: Services, tmp_path: Path) -> None:
    services.knowledge.ingestor.ingest_paths([linked_kb(tmp_path / "kb")], IngestOptions())
    answer = services.pipeline.answer_now(
        console_turn("how are reimbursement claims settled?", thread="x", scopes=("default",))
    )
    assert answer is not None
    services.feedback.rate(
        answer_id=answer.id, platform="console", user_id="u", signal="+1", rating=1
    )

    [rated] = services.rated.rated()
    exported = record(rated)

    link = "https://intranet.example.com/kb/policy.txt#:~:text=5.2%20Reimbursement%20claims"
    assert link in [s["url"] for s in exported["sources"]]
    assert link in [c["url"] for c in exported["context"]]
    json.dumps(exported, default=str)  # as the jsonl export writes it
