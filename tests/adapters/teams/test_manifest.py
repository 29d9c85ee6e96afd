"""The Teams app package parts: a manifest Teams accepts once its placeholders are filled,
and the two icons at the sizes Teams requires."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any, cast

from PIL import Image

TEAMS = Path(__file__).resolve().parents[3] / "deploy" / "teams"


def filled_manifest(app_id: str) -> dict[str, Any]:
    text = (TEAMS / "manifest.json").read_text()
    values = {
        "MICROSOFT_APP_ID": app_id,
        "COMPANY_NAME": "Contoso",
        "COMPANY_WEBSITE": "https://contoso.example",
        "BOT_DOMAIN": "knowbot.contoso.example",
    }
    placeholders = set(re.findall(r"\$\{\{(\w+)\}\}", text))
    assert placeholders == set(values), "the README lists exactly these placeholders"
    for name, value in values.items():
        text = text.replace("${{" + name + "}}", value)
    return json.loads(text)


def test_the_manifest_names_the_bot_by_its_app_id_in_every_scope() -> None:
    app_id = str(uuid.uuid4())
    manifest = filled_manifest(app_id)
    [bot] = manifest["bots"]
    assert manifest["id"] == bot["botId"] == app_id
    assert set(bot["scopes"]) == {"personal", "team", "groupChat"}
    assert len(manifest["name"]["short"]) <= 30
    assert len(manifest["description"]["short"]) <= 80
    assert len(manifest["description"]["full"]) <= 4000
    assert (TEAMS / manifest["icons"]["color"]).exists()


def test_the_icons_have_the_sizes_teams_requires() -> None:
    color = Image.open(TEAMS / "color.png")
    outline = Image.open(TEAMS / "outline.png").convert("RGBA")
    assert color.size == (192, 192) and outline.size == (32, 32)
    # RGBA: one tuple of four bands per pixel
    pixels = cast("tuple[tuple[int, ...], ...]", outline.get_flattened_data())
    assert {p[:3] for p in pixels if p[3]} == {(255, 255, 255)}  # white on transparent
    assert any(p[3] == 0 for p in pixels)


def test_a_personal_chat_offers_prompt_starters_within_teams_limits() -> None:
    [bot] = filled_manifest(str(uuid.uuid4()))["bots"]
    lists = {scope: entry["commands"] for entry in bot["commandLists"] for scope in entry["scopes"]}

    assert set(lists) == {"personal", "team", "groupChat"}  # each scope in one list
    starters = [c["title"] for c in lists["personal"] if c["title"] != "forget this thread"]
    assert len(starters) >= 3 and all(title.endswith("?") for title in starters)
    for commands in lists.values():
        assert len(commands) <= 10
        assert "forget this thread" in [c["title"] for c in commands]
        assert all(len(c["title"]) <= 32 and len(c["description"]) <= 128 for c in commands)
