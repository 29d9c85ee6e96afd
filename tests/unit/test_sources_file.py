"""Reading a sources file, and the wait a throttled server asks for."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import httpx
import pytest

from knowledge.errors import SourceError
from knowledge.ingest.connectors.polite import RetryPolicy, retry_after
from knowledge.ingest.options import IngestOptions
from knowledge.ingest.sources_file import (
    ConfluenceEntry,
    PathEntry,
    SqlEntry,
    WebEntry,
    read_sources,
)


def write(tmp_path: Path, text: str) -> Path:
    file = tmp_path / "sources.toml"
    file.write_text(text)
    return file


def test_paths_and_web_sites_with_their_options(tmp_path: Path) -> None:
    file = write(
        tmp_path,
        '[[source]]\npath = "docs"\nscope = "hr"\n\n'
        '[[source]]\nkind = "web"\nstart = "https://intra.example.com/hb/"\n'
        'prefix = "https://intra.example.com/hb/"\nowners = "web@example.com"\n'
        'url = "https://intra.example.com/hb/{path}"\nconcurrency = 2\n',
    )
    folder, web = read_sources(file, IngestOptions())
    assert isinstance(folder, PathEntry) and folder.path == (tmp_path / "docs").resolve()
    assert folder.options.scope == "hr"
    assert isinstance(web, WebEntry) and web.site.start == "https://intra.example.com/hb/"
    assert web.site.concurrency == 2 and web.options.owners == ("web@example.com",)
    assert web.options.url == "https://intra.example.com/hb/{path}"


def test_a_sql_table_with_its_rows_options_and_its_url_from_the_environment(
    tmp_path: Path,
) -> None:
    file = write(
        tmp_path,
        '[[source]]\nkind = "sql"\ndb_env = "CRM_URL"\nquery = "agents"\nkey = "agent_id"\n'
        'group = "region"\nscope = "sales"\nowners = "crm@example.com"\n'
        'url = "https://crm.example.com/agents"\n',
    )
    [entry] = read_sources(file, IngestOptions())
    assert isinstance(entry, SqlEntry) and entry.query == "agents"
    assert entry.options.keys == ("agent_id",) and entry.options.group == "region"
    assert entry.options.scope == "sales" and entry.options.owners == ("crm@example.com",)
    assert entry.options.url == "https://crm.example.com/agents"  # a link, not the database
    assert entry.db_url({"CRM_URL": "sqlite:///crm.db"}) == "sqlite:///crm.db"
    with pytest.raises(SourceError, match="CRM_URL is not set"):
        entry.db_url({})


def test_a_confluence_space_or_query_with_its_options(tmp_path: Path) -> None:
    file = write(
        tmp_path,
        '[[source]]\nkind = "confluence"\nbase_url = "https://acme.atlassian.net/wiki/"\n'
        'space = "HR"\nscope = "hr"\nowners = ["hr-web@example.com"]\n\n'
        '[[source]]\nkind = "confluence"\nbase_url = "https://wiki.acme.internal"\n'
        'cql = "label = policy"\nfull_listing_hours = 0\neveryone_groups = []\n',
    )
    space, query = read_sources(file, IngestOptions())
    assert isinstance(space, ConfluenceEntry) and isinstance(query, ConfluenceEntry)
    assert space.site.base_url == "https://acme.atlassian.net/wiki" and space.site.is_cloud
    assert space.site.space == "HR" and space.options.scope == "hr"
    assert space.options.owners == ("hr-web@example.com",)
    assert space.site.key == "confluence:https://acme.atlassian.net/wiki/spaces/HR"
    assert query.site.query == "(label = policy) and type in (page, attachment)"
    assert query.site.full_listing_hours == 0 and query.site.everyone_groups == ()
    assert not query.site.is_cloud


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ('kind = "web"\nsitemap = "https://a/s.xml"\nstart = "https://a/"', "not both"),
        ('kind = "web"', "needs either sitemap"),
        ('kind = "web"\nsitemap = "ftp://a/s.xml"', "not an http(s) URL"),
        ('kind = "web"\nsitemap = "https://a/s.xml"\nurl = "https://a/{nope}"', "{nope}"),
        ('kind = "web"\nsitemap = "https://a/s.xml"\nfolder = "x"', "do not take folder"),
        ('kind = "gdrive"', "not a kind of source"),
        ('kind = "confluence"\nspace = "HR"', "needs base_url"),
        ('kind = "confluence"\nbase_url = "https://a.atlassian.net/wiki"', "either space"),
        (
            'kind = "confluence"\nbase_url = "https://a.atlassian.net"\nspace = "HR"',
            "ends in /wiki",
        ),
        (
            'kind = "confluence"\nbase_url = "https://a.atlassian.net/wiki/spaces/HR/overview"\n'
            'space = "HR"',
            "is a page or space address",
        ),
        ('kind = "confluence"\nbase_url = "https://w.example.com"\nspace = "H R"', "space key"),
        (
            'kind = "confluence"\nbase_url = "https://w.example.com"\nspace = "HR"\nsite = "x"',
            "do not take site",
        ),
        ('kind = "sql"\nquery = "t"\nkey = "id"', "needs either db"),
        ('kind = "sql"\ndb = "sqlite://"\ndb_env = "X"\nquery = "t"\nkey = "id"', "not both"),
        ('kind = "sql"\ndb = "sqlite://"\nkey = "id"', "needs query"),
        ('kind = "sql"\ndb = "sqlite://"\nquery = "t"', "needs key"),
        ('kind = "sql"\ndb = "sqlite://"\nquery = "t"\nkey = "id"\nsite = "x"', "do not take site"),
        ('scope = "hr"', "needs path"),
    ],
)
def test_a_bad_entry_is_named_with_what_to_change(tmp_path: Path, entry: str, said: str) -> None:
    file = write(tmp_path, f'[[source]]\npath = "ok"\n\n[[source]]\n{entry}\n')
    with pytest.raises(SourceError) as caught:
        read_sources(file, IngestOptions())
    assert "source entry #2" in str(caught.value) and said in str(caught.value)


def test_retry_after_in_seconds_or_as_a_date_is_bounded() -> None:
    policy = RetryPolicy(max_wait=30.0, default_wait=1.0)

    def wait(value: str | None) -> float:
        headers = {"Retry-After": value} if value is not None else {}
        return retry_after(httpx.Response(429, headers=headers), policy)

    assert wait("5") == 5.0
    assert wait("3600") == 30.0  # a day-long ban is not waited out in a sync
    assert wait(None) == 1.0 and wait("soon") == 1.0
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=10), usegmt=True)
    assert 8.0 <= wait(later) <= 10.0
