"""`knowbot ingest --sources FILE` as a user runs it: paths and a web site side by side, a
failing source named with its reason and exit code 1, and `ask --json` showing each
source's link."""

from __future__ import annotations

import json
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import URL

from tests.fakes.web_site import FakeSite, fake_site
from tests.integration.test_cli_db import knowbot
from tests.integration.test_cli_knowledge import env_for


def sources_file(folder: Path, site: FakeSite) -> Path:
    (folder / "docs").mkdir()
    (folder / "docs" / "travel.txt").write_text(
        "TRAVEL\n\n1.1 Flights\nBook economy class for flights under six hours.\n"
    )
    file = folder / "sources.toml"
    file.write_text(
        f'[[source]]\npath = "docs"\n\n'
        f'[[source]]\nkind = "web"\nsitemap = "{site.sitemap}"\n'
        f'owners = ["web-team@example.com"]\n'
    )
    return file


def test_a_web_source_and_a_folder_sync_and_answers_link_to_the_page(
    db_url: URL, tmp_path: Path
) -> None:
    env = env_for(db_url)
    with fake_site() as site:
        site.page("/hr/leave", "Annual leave", "<p>Staff get 24 days of annual leave a year.</p>")
        file = sources_file(tmp_path, site)
        result = knowbot("ingest", "--sources", str(file), env=env)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "2 new" in result.stdout and "0 failed" in result.stdout
        asked = knowbot("ask", "How many days of annual leave do staff get?", "--json", env=env)
    assert asked.returncode == 0, asked.stderr
    urls = [s["url"] for s in json.loads(asked.stdout)["sources"]]
    assert f"{site.base}/hr/leave" in urls


def test_a_sitemap_that_fails_is_named_the_rest_still_syncs_and_the_exit_code_is_1(
    db_url: URL, tmp_path: Path
) -> None:
    with fake_site() as site:
        site.page("/hr/leave", "Annual leave", "<p>Staff get 24 days of annual leave.</p>")
        site.broken.add("/sitemap.xml")
        result = knowbot(
            "ingest", "--sources", str(sources_file(tmp_path, site)), env=env_for(db_url)
        )
    assert result.returncode == 1
    out = " ".join(result.stdout.split())
    assert f"failed web:{site.sitemap}" in out
    assert "HTTP 500" in out and "nothing was pruned" in out and "web-team@example.com" in out
    assert "1 new" in out  # the folder still synced
    assert "Traceback" not in result.stdout + result.stderr


def test_a_sources_file_with_an_unknown_kind_says_so(db_url: URL, tmp_path: Path) -> None:
    file = tmp_path / "sources.toml"
    file.write_text('[[source]]\nkind = "gdrive"\nfolder = "HR"\n')
    result = knowbot("ingest", "--sources", str(file), env=env_for(db_url))
    assert result.returncode != 0
    out = " ".join((result.stdout + result.stderr).split())
    assert "source entry #1" in out and "'gdrive' is not a kind of source" in out
    assert "Traceback" not in out


def test_a_sql_entry_reads_its_database_url_from_the_variable_it_names(
    db_url: URL, tmp_path: Path
) -> None:
    crm = f"sqlite:///{tmp_path / 'crm.db'}"
    database = sa.create_engine(crm)
    with database.begin() as conn:
        conn.execute(sa.text("CREATE TABLE agents (agent_id TEXT, name TEXT, region TEXT)"))
        conn.execute(sa.text("INSERT INTO agents VALUES ('A-7', 'Leela Nair', 'South')"))
    database.dispose()
    file = tmp_path / "sources.toml"
    file.write_text(
        '[[source]]\nkind = "sql"\ndb_env = "CRM_URL"\nquery = "agents"\nkey = "agent_id"\n\n'
        '[[source]]\nkind = "sql"\ndb_env = "UNSET_CRM_URL"\nquery = "agents"\n'
        'key = "agent_id"\nowners = "crm-team@example.com"\n'
    )
    env = {**env_for(db_url), "CRM_URL": crm}
    result = knowbot("ingest", "--sources", str(file), env=env)
    assert result.returncode == 1  # the entry whose variable is unset
    out = " ".join(result.stdout.split())
    assert "UNSET_CRM_URL is not set" in out and "crm-team@example.com" in out
    assert "1 new" in out and "Traceback" not in result.stdout + result.stderr
    asked = knowbot("ask", "Which region is Leela Nair in?", "--json", env=env)
    assert asked.returncode == 0, asked.stderr
    assert "agent_id A-7" in asked.stdout
