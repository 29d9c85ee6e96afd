"""`knowbot ingest --sources FILE` with a Confluence space, as a user runs it: credentials
from the environment, answers linking to the Confluence page, and a search that breaks
part way or refused credentials named with the reason and exit code 1 while the other
sources still sync."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy.engine import URL

from tests.fakes.confluence_server import PAT, FakeConfluence, Space, fake_confluence
from tests.integration.test_cli_db import knowbot
from tests.integration.test_cli_knowledge import env_for


def sources_file(folder: Path, wiki: FakeConfluence) -> Path:
    (folder / "docs").mkdir(exist_ok=True)
    (folder / "docs" / "travel.txt").write_text(
        "TRAVEL\n\n1.1 Flights\nBook economy class for flights under six hours.\n"
    )
    file = folder / "sources.toml"
    file.write_text(
        '[[source]]\npath = "docs"\n\n'
        f'[[source]]\nkind = "confluence"\nbase_url = "{wiki.base}"\nspace = "HR"\n'
        'full_listing_hours = 0\nowners = ["hr-web@example.com"]\n'
    )
    return file


def wiki_with_pages(wiki: FakeConfluence) -> None:
    wiki.spaces["HR"] = Space(anonymous=True)
    wiki.page("1", "Annual leave", "<p>Staff get 24 days of annual leave a year.</p>")
    wiki.page("2", "Sick leave", "<p>Sick leave needs a note after three days.</p>")
    wiki.page("3", "Parental leave", "<p>Parents get 16 weeks of paid leave.</p>")


def test_a_confluence_space_syncs_and_answers_link_to_the_page(db_url: URL, tmp_path: Path) -> None:
    env = {**env_for(db_url), "CONFLUENCE_PAT": PAT}
    with fake_confluence() as wiki:
        wiki_with_pages(wiki)
        result = knowbot("ingest", "--sources", str(sources_file(tmp_path, wiki)), env=env)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "4 new" in result.stdout and "0 failed" in result.stdout
        asked = knowbot("ask", "How many days of annual leave do staff get?", "--json", env=env)
    assert asked.returncode == 0, asked.stderr
    urls = [s["url"] for s in json.loads(asked.stdout)["sources"]]
    assert f"{wiki.base}/spaces/HR/pages/1/Annual%20leave" in urls


def test_a_broken_listing_or_refused_token_is_named_and_the_exit_code_is_1(
    db_url: URL, tmp_path: Path
) -> None:
    env = {**env_for(db_url), "CONFLUENCE_PAT": PAT}
    with fake_confluence() as wiki:
        wiki_with_pages(wiki)
        file = sources_file(tmp_path, wiki)
        assert knowbot("ingest", "--sources", str(file), env=env).returncode == 0
        wiki.broken_search_page = 1
        broken = knowbot("ingest", "--sources", str(file), env=env)
        wiki.broken_search_page = None
        refused = knowbot("ingest", "--sources", str(file), env={**env, "CONFLUENCE_PAT": "old"})
    assert broken.returncode == 1
    out = " ".join(broken.stdout.split())
    assert f"failed confluence:{wiki.base}/spaces/HR" in out
    assert "HTTP 500" in out and "nothing was pruned" in out and "hr-web@example.com" in out
    assert refused.returncode == 1
    out = " ".join(refused.stdout.split())
    assert "HTTP 401" in out and "CONFLUENCE_PAT" in out
    assert "1 unchanged" in out  # the folder still synced
    assert "Traceback" not in broken.stdout + broken.stderr + refused.stdout + refused.stderr
