"""Prompts compete on real stored ratings: the pipeline records each choice, and ratings on
the answers (through the feedback store) decide the next one."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bot.cli.main import app
from bot.settings import Settings
from bot.wiring import Services
from tests.fakes.knowledge_base import bot_settings
from tests.fakes.openai_server import FakeOpenAI, fake_openai
from tests.feedback.helpers import ask, open_bot, rate, write_kb

V1_MARK = "the company's internal assistant"  # words only answer@v1's instructions use
V2_MARK = "the internal help desk"  # and answer@v2's


def reply(messages: list[dict[str, str]]) -> str:
    if "Classify" in messages[0]["content"]:
        return "lookup"
    context = messages[1]["content"]
    number = re.search(r"\[(\d+)\] policy\.txt", context)
    return f"- Covered after 36 months of continuous coverage [{number.group(1) if number else 1}]"


@contextmanager
def llm_bot(settings: Settings, kb: Path, **extra: str) -> Iterator[tuple[Services, FakeOpenAI]]:
    with fake_openai(reply) as llm:
        config = bot_settings(
            settings,
            OPENAI_BASE_URL=llm.base_url,
            KNOWBOT_BANDIT_EXPLORATION="0",  # the leader serves: the choice is deterministic
            KNOWBOT_BANDIT_REFRESH_S="0",  # every rating counts at once
            **extra,
        )
        with open_bot(config, kb) as services:
            yield services, llm


def test_down_votes_move_traffic_to_the_other_prompt_version(
    settings: Settings, tmp_path: Path
) -> None:
    with llm_bot(settings, write_kb(tmp_path / "kb")) as (services, llm):
        first = ask(services, "What is the PED waiting period?")
        assert first.prompt == "answer@v1" and V1_MARK in llm.system_prompts()[-1]
        assert services.answers.get(first.id)["prompt"] == "answer@v1"  # type: ignore[index]
        rate(services, first, -1, -1, -1)
        second = ask(services, "What is the PED waiting period?")
        assert second.prompt == "answer@v2" and V2_MARK in llm.system_prompts()[-1]
        rate(services, second, 1, 1)
        assert ask(services, "What is the PED waiting period?").prompt == "answer@v2"
        # a user changing their mind counts too: v1's critics now like it, v2's fans do not
        rate(services, first, 1, 1, 1)
        rate(services, second, -1, -1)
        assert ask(services, "What is the PED waiting period?").prompt == "answer@v1"


def test_with_learning_switched_off_the_incumbent_always_serves(
    settings: Settings, tmp_path: Path
) -> None:
    with llm_bot(settings, write_kb(tmp_path / "kb"), KNOWBOT_BANDIT="false") as (services, _):
        first = ask(services, "What is the PED waiting period?")
        rate(services, first, -1, -1, -1)
        assert ask(services, "What is the PED waiting period?").prompt == "answer@v1"


def test_live_versions_are_configuration(settings: Settings, tmp_path: Path) -> None:
    only_v2 = '{"answer": ["v2"]}'
    with llm_bot(settings, write_kb(tmp_path / "kb"), KNOWBOT_LIVE_PROMPTS=only_v2) as (svc, _):
        assert ask(svc, "What is the PED waiting period?").prompt == "answer@v2"


def test_ratings_of_quoted_passages_do_not_judge_the_prompt(
    settings: Settings, tmp_path: Path
) -> None:
    config = bot_settings(settings, KNOWBOT_BANDIT_EXPLORATION="0", KNOWBOT_BANDIT_REFRESH_S="0")
    with open_bot(config, write_kb(tmp_path / "kb")) as services:  # no language model
        first = ask(services, "What is the PED waiting period?")
        assert first.model == "extractive"
        rate(services, first, -1, -1, -1)
        assert ask(services, "What is the PED waiting period?").prompt == "answer@v1"


def test_the_graph_facts_format_is_chosen_the_same_way(settings: Settings, tmp_path: Path) -> None:
    config = bot_settings(settings, KNOWBOT_BANDIT_EXPLORATION="0", KNOWBOT_BANDIT_REFRESH_S="0")
    with open_bot(config, write_kb(tmp_path / "kb")) as services:
        first = ask(services, "What does Plan A cover?")
        assert first.choices["facts"] == "triples"
        assert "(Plan A, covers, road ambulance)" in graph_text(services, first.id)
        rate(services, first, -1, -1)
        second = ask(services, "What does Plan A cover?")
        assert second.choices["facts"] == "sentences"
        assert "Plan A covers road ambulance." in graph_text(services, second.id)
        unrelated = ask(services, "What is the PED waiting period?")
        assert "facts" not in unrelated.choices  # no graph facts were sent, nothing to learn


def graph_text(services: Services, answer_id: int) -> str:
    row = services.answers.get(answer_id)
    assert row is not None
    sent = [r for r in row["retrieved"] if r["kind"] == "graph" and "number" in r]
    assert sent, row["retrieved"]
    return str(sent[0]["text"])


def test_knowbot_feedback_versions_shows_who_serves_and_why(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert settings.database_url
    for name, value in {
        "DATABASE_URL": settings.database_url,
        "KNOWBOT_DATA_DIR": str(settings.data_dir),
        "KNOWBOT_EMBED_MODEL": "hashing",
    }.items():
        monkeypatch.setenv(name, value)
    with llm_bot(settings, write_kb(tmp_path / "kb")) as (services, _):
        rate(services, ask(services, "What is the PED waiting period?"), -1, -1, -1)
    result = CliRunner(env={"COLUMNS": "200"}).invoke(app, ["feedback", "versions"])
    assert result.exit_code == 0, result.output
    rows = [line.split("│")[1:-1] for line in result.output.splitlines() if "│ lookup" in line]
    cells = [[c.strip() for c in row] for row in rows]
    assert ["lookup", "answer", "v1", "0", "3", "0.20", "challenger"] in cells
    assert ["lookup", "answer", "v2", "0", "0", "0.50", "leader"] in cells
    assert ["lookup", "facts", "triples", "0", "0", "0.50", "leader"] in cells
