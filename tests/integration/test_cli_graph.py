"""`knowbot ingest --sources FILE` with a SharePoint library as a user runs it, against a
fake Microsoft Graph: answers link to the file's webUrl; a feed that breaks part way, or
missing credentials, fail that source by name with exit code 1 while the rest syncs."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy.engine import URL

from tests.fakes.graph_server import CLIENT_ID, SECRET, TENANT, FakeGraph, fake_graph
from tests.integration.test_cli_db import knowbot
from tests.integration.test_cli_knowledge import env_for


def graph_env(db_url: URL, graph: FakeGraph) -> dict[str, str]:
    return {
        **env_for(db_url),
        "MICROSOFT_GRAPH_TENANT_ID": TENANT,
        "MICROSOFT_GRAPH_CLIENT_ID": CLIENT_ID,
        "MICROSOFT_GRAPH_CLIENT_SECRET": SECRET,
        "KNOWBOT_GRAPH_URL": graph.graph_url,
        "KNOWBOT_GRAPH_AUTHORITY": graph.base,
    }


def sources_file(folder: Path, graph: FakeGraph) -> Path:
    (folder / "docs").mkdir()
    (folder / "docs" / "travel.txt").write_text(
        "TRAVEL\n\n1.1 Flights\nBook economy class for flights under six hours.\n"
    )
    file = folder / "sources.toml"
    file.write_text(
        '[[source]]\npath = "docs"\n\n'
        f'[[source]]\nkind = "sharepoint"\nsite = "{graph.site}"\nfolder = "HR"\n'
        'owners = ["hr-it@contoso.com"]\n'
    )
    return file


def test_a_sharepoint_folder_syncs_and_answers_link_to_the_file(
    db_url: URL, tmp_path: Path
) -> None:
    with fake_graph() as graph:
        graph.add("Leave.md", "# Annual leave\n\nStaff get 24 days of annual leave.\n", folder="HR")
        graph.add("Other.md", "# Other\n\nNot in the folder.\n", folder="IT")
        env = graph_env(db_url, graph)
        file = sources_file(tmp_path, graph)
        result = knowbot("ingest", "--sources", str(file), env=env)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "2 new" in result.stdout and "0 failed" in result.stdout
        asked = knowbot("ask", "How many days of annual leave do staff get?", "--json", env=env)
        assert asked.returncode == 0, asked.stderr
        urls = [s["url"] for s in json.loads(asked.stdout)["sources"]]
        assert f"{graph.drive().web}/HR/Leave.md" in urls
        graph.broken_page = 1
        (tmp_path / "docs" / "visa.txt").write_text("VISA\n\n1.1 Visas\nHR books visas.\n")
        broken = knowbot("ingest", "--sources", str(file), env=env)
    assert broken.returncode == 1
    out = " ".join(broken.stdout.split())
    assert f"failed sharepoint:{graph.site} folder=/HR" in out
    assert "HTTP 500" in out and "nothing was pruned" in out and "hr-it@contoso.com" in out
    assert "1 new" in out  # the folder still synced
    assert "Traceback" not in broken.stdout + broken.stderr


def test_a_sharepoint_source_without_credentials_says_which_settings_it_needs(
    db_url: URL, tmp_path: Path
) -> None:
    with fake_graph() as graph:
        result = knowbot(
            "ingest", "--sources", str(sources_file(tmp_path, graph)), env=env_for(db_url)
        )
    assert result.returncode == 1
    out = " ".join(result.stdout.split())
    assert "no Microsoft Graph credentials" in out and "MICROSOFT_GRAPH_CLIENT_SECRET" in out
    assert "1 new" in out and "Traceback" not in out
