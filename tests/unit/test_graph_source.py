"""SharePoint/OneDrive entries in a sources file, who an item's permissions let read it,
and which Graph answers are throttling rather than a refusal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from knowledge.errors import SourceError
from knowledge.ingest.connectors.base import EVERYONE
from knowledge.ingest.connectors.graph_auth import GraphAccess, TokenSource
from knowledge.ingest.connectors.graph_errors import throttled
from knowledge.ingest.connectors.graph_items import access_of
from knowledge.ingest.connectors.polite import PoliteClient
from knowledge.ingest.options import IngestOptions
from knowledge.ingest.sources_file import GraphEntry, read_sources
from tests.fakes.graph_server import CLIENT_ID, SECRET, TENANT, fake_graph


def read(tmp_path: Path, entry: str) -> GraphEntry:
    file = tmp_path / "sources.toml"
    file.write_text(f'[[source]]\npath = "ok"\n\n[[source]]\n{entry}\n')
    found = read_sources(file, IngestOptions())[1]
    assert isinstance(found, GraphEntry)
    return found


def test_a_sharepoint_library_folder_and_a_onedrive_are_read_with_their_options(
    tmp_path: Path,
) -> None:
    site = read(
        tmp_path,
        'kind = "sharepoint"\nsite = "https://contoso.sharepoint.com/sites/hr"\n'
        'library = "Policies"\nfolder = "/Handbook/2026/"\nscope = "hr"\n'
        'owners = ["hr-it@contoso.com"]\nconcurrency = 2\n',
    )
    assert site.drive.library == "Policies" and site.drive.folder_path == "/Handbook/2026"
    assert site.drive.concurrency == 2 and site.options.scope == "hr"
    assert site.options.owners == ("hr-it@contoso.com",)
    assert site.drive.key == (
        "sharepoint:https://contoso.sharepoint.com/sites/hr library=Policies folder=/Handbook/2026"
    )
    onedrive = read(tmp_path, 'kind = "sharepoint"\nuser = "alice@contoso.com"\n')
    assert onedrive.drive.key == "onedrive:alice@contoso.com"


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ('kind = "sharepoint"', "needs either site"),
        (
            'kind = "sharepoint"\nsite = "https://c.sharepoint.com/sites/hr"\nuser = "a@c.com"',
            "not both",
        ),
        (
            'kind = "sharepoint"\n'
            'site = "https://c.sharepoint.com/sites/hr/Shared%20Documents/Forms/AllItems.aspx"',
            "points inside a site (Shared Documents/Forms/AllItems.aspx)",
        ),
        ('kind = "sharepoint"\nsite = "https://c.sharepoint.com/hr"', "/sites/NAME"),
        ('kind = "sharepoint"\nsite = "c.sharepoint.com/sites/hr"', "not a site URL"),
        ('kind = "sharepoint"\nuser = "alice"', "not an e-mail address"),
        ('kind = "sharepoint"\nuser = "a@c.com"\nlibrary = "Docs"', "drop library"),
        (
            'kind = "sharepoint"\nsite = "https://c.sharepoint.com/sites/hr"\nsitemap = "x"',
            "do not take sitemap",
        ),
        ('kind = "sharepoint"\nsite = "https://c.sharepoint.com/sites/hr"\nfolder = 3', "string"),
    ],
)
def test_a_bad_sharepoint_entry_says_what_to_change(tmp_path: Path, entry: str, said: str) -> None:
    with pytest.raises(SourceError) as caught:
        read(tmp_path, entry)
    assert "source entry #2" in str(caught.value) and said in str(caught.value)


def test_permissions_become_access_list_entries() -> None:
    permissions: list[dict[str, Any]] = [
        {"roles": ["read"], "grantedToV2": {"user": {"id": "AAD-1", "email": "Bob@Contoso.com"}}},
        {"roles": ["write"], "grantedToV2": {"group": {"id": "GROUP-9", "displayName": "HR"}}},
        {
            "roles": ["read"],
            "link": {"scope": "users", "type": "view"},
            "grantedToIdentitiesV2": [
                {"siteUser": {"loginName": "i:0#.f|membership|carol@contoso.com"}}
            ],
        },
        {"roles": ["owner"], "grantedToV2": {"siteGroup": {"displayName": "HR Owners"}}},
    ]
    assert access_of(permissions) == (
        "aad-1",
        "bob@contoso.com",
        "carol@contoso.com",
        "group:group-9",
        "sitegroup:HR Owners",
    )
    org = {"roles": ["read"], "link": {"scope": "organization", "type": "view"}}
    assert EVERYONE in access_of([*permissions, org])
    assert access_of([]) == ()  # no one may read it, so no one is shown it


def test_sharepoint_throttling_403s_are_waited_out_but_refusals_are_not() -> None:
    def answer(status: int, code: str = "", retry: str | None = None) -> httpx.Response:
        headers = {"Retry-After": retry} if retry else {}
        return httpx.Response(status, json={"error": {"code": code}}, headers=headers)

    assert throttled(answer(429)) and throttled(answer(503))
    assert throttled(answer(403, "activityLimitReached"))
    assert throttled(answer(403, "accessDenied", retry="5"))
    assert not throttled(answer(403, "accessDenied"))
    assert not throttled(answer(500))


def test_the_app_token_is_kept_until_shortly_before_it_expires() -> None:
    with fake_graph() as graph:
        access = GraphAccess(
            TENANT, CLIENT_ID, SECRET, graph_url=graph.graph_url, authority=graph.base
        )
        client = PoliteClient()
        try:
            tokens = TokenSource(access, client)
            first = tokens.token()
            assert tokens.token() == first and graph.count("/token") == 1
            graph.token_lifetime = 60  # shorter than the renewal margin: never reused
            renewed = tokens.renew(first)
            assert renewed != first and tokens.token() != renewed
            assert graph.count("/token") == 3
        finally:
            client.close()
