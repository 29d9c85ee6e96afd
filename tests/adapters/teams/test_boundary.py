"""The Bot Framework Python SDK is archived upstream: all of it stays in bot/adapters/teams/,
so moving to its successor touches one folder."""

from __future__ import annotations

from tests.test_code_quality import ROOT, imported_modules

BOT_FRAMEWORK = ("botbuilder", "botframework", "msrest")


def test_only_the_teams_adapter_imports_the_bot_framework_sdk() -> None:
    teams = ROOT / "bot" / "adapters" / "teams"
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for folder in ("bot", "knowledge", "tests")
        for path in (ROOT / folder).rglob("*.py")
        if teams not in path.parents
        for name in imported_modules(path)
        if name.split(".")[0] in BOT_FRAMEWORK
    ]
    assert offenders == []
    assert any(  # the check looks where the SDK really is
        "botbuilder" in name.split(".")[0]
        for path in teams.glob("*.py")
        for name in imported_modules(path)
    )
