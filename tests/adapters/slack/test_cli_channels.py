"""`knowbot channels set|list` as an admin runs it, in-process (typer's CliRunner)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy.engine import URL, Engine
from typer.testing import CliRunner, Result

from bot.cli.main import app
from bot.errors import KnowbotError
from bot.store.channels import ChannelStore

Knowbot = Callable[..., Result]


@pytest.fixture
def knowbot(db_url: URL, monkeypatch: pytest.MonkeyPatch) -> Knowbot:
    monkeypatch.setenv("DATABASE_URL", db_url.render_as_string(hide_password=False))
    runner = CliRunner()

    def run(*args: str) -> Result:
        return runner.invoke(app, list(args))

    return run


def test_a_channel_is_mapped_to_scopes_and_listed(knowbot: Knowbot, engine: Engine) -> None:
    result = knowbot(
        "channels", "set", "C0HR12345", "--scope", "hr", "--scope", "benefits",
        "--require-mention",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "scopes hr, benefits; needs a mention" in result.stdout
    assert "nothing is ingested in scope 'hr'" in result.output  # a typo would show here

    listed = knowbot("channels", "list")
    assert listed.exit_code == 0, listed.output
    assert "C0HR12345" in listed.stdout and "hr, benefits" in listed.stdout

    saved = ChannelStore(engine).get("slack", "C0HR12345")
    assert saved.scopes == ("hr", "benefits") and saved.require_mention

    knowbot("channels", "set", "C0HR12345", "--no-require-mention")  # the scopes stay
    again = ChannelStore(engine).get("slack", "C0HR12345")
    assert again.scopes == ("hr", "benefits") and not again.require_mention


def test_a_channel_name_instead_of_its_id_is_refused_with_what_to_do(knowbot: Knowbot) -> None:
    result = knowbot("channels", "set", "#hr", "--scope", "hr")

    assert isinstance(result.exception, KnowbotError)
    assert "not a Slack channel ID" in str(result.exception)


def test_with_nothing_configured_list_says_what_channels_see(knowbot: Knowbot) -> None:
    result = knowbot("channels", "list")

    assert result.exit_code == 0 and "'default' scope" in result.stdout


def test_a_channel_escalates_to_an_experts_channel_until_told_not_to(
    knowbot: Knowbot, engine: Engine
) -> None:
    result = knowbot("channels", "set", "C0HR12345", "--escalate-to", "C0EXPERTS")
    assert result.exit_code == 0, result.output
    assert "escalates to C0EXPERTS" in result.stdout
    saved = ChannelStore(engine).get("slack", "C0HR12345")
    assert saved.escalate_to == "C0EXPERTS" and saved.scopes == ("default",)
    assert "C0EXPERTS" in knowbot("channels", "list").stdout

    knowbot("channels", "set", "C0HR12345", "--scope", "hr")  # the experts channel stays
    assert ChannelStore(engine).get("slack", "C0HR12345").escalate_to == "C0EXPERTS"
    assert knowbot("channels", "set", "C0HR12345", "--no-escalation").exit_code == 0
    assert ChannelStore(engine).get("slack", "C0HR12345").escalate_to is None

    teams = knowbot("channels", "set", "19:hr@thread.tacv2", "--platform", "teams",
                    "--escalate-to", "19:experts@thread.tacv2")  # fmt: skip
    assert teams.exit_code == 0, teams.output
    assert ChannelStore(engine).get("teams", "19:hr@thread.tacv2").escalate_to == (
        "19:experts@thread.tacv2"
    )


def test_an_experts_channel_name_instead_of_its_id_is_refused(knowbot: Knowbot) -> None:
    result = knowbot("channels", "set", "C0HR12345", "--escalate-to", "#experts")
    assert result.exit_code != 0
    assert "is not a Slack channel ID" in str(result.exception or result.output)
