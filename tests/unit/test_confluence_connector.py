"""The Confluence connector's pieces that need no server: which credentials it sends,
how a storage-format page reads, and a search that points off the site."""

from __future__ import annotations

import base64

import httpx
import pytest

from knowledge.ingest.connectors.base import ListingFailed
from knowledge.ingest.connectors.confluence import ConfluenceConnector
from knowledge.ingest.connectors.confluence_content import page_html
from knowledge.ingest.connectors.confluence_space import (
    ConfluenceAuth,
    ConfluenceSpace,
    credentials,
)
from knowledge.ingest.connectors.polite import PoliteClient
from knowledge.ingest.loading import load_bytes

CLOUD = ConfluenceSpace(base_url="https://acme.atlassian.net/wiki", space="HR")
DATA_CENTER = ConfluenceSpace(base_url="https://wiki.acme.internal", space="HR")


def test_cloud_signs_in_with_email_and_api_token_data_center_with_a_pat() -> None:
    both = ConfluenceAuth(user="bot@acme.com", api_token="t0k", pat="p4t")
    basic = base64.b64encode(b"bot@acme.com:t0k").decode()
    assert credentials(CLOUD, both) == {"Authorization": f"Basic {basic}"}
    assert credentials(DATA_CENTER, both) == {"Authorization": "Bearer p4t"}
    cloud_missing = credentials(CLOUD, ConfluenceAuth(pat="p4t"))  # a PAT is no Cloud login
    assert isinstance(cloud_missing, str) and "CONFLUENCE_API_TOKEN" in cloud_missing
    dc_missing = credentials(DATA_CENTER, ConfluenceAuth())
    assert isinstance(dc_missing, str) and "CONFLUENCE_PAT" in dc_missing


def test_a_storage_format_page_reads_with_its_macros_code_and_links() -> None:
    storage = (
        "<h2>Claims</h2><p>Submit claims within <strong>30 days</strong>.</p>"
        '<ac:structured-macro ac:name="info"><ac:rich-text-body><p>Receipts are required '
        "over 50 EUR.</p></ac:rich-text-body></ac:structured-macro>"
        '<ac:structured-macro ac:name="code"><ac:plain-text-body><![CDATA[if a < b: pay()]]>'
        "</ac:plain-text-body></ac:structured-macro>"
        '<p>See <ac:link><ri:page ri:content-title="Travel policy"/></ac:link>.</p>'
    )
    loaded = load_bytes(page_html("Expenses", storage), "text/html", name="Expenses", uri="x")
    text = "\n".join(d.text for d in loaded.drafts)
    assert "Submit claims within 30 days." in text
    assert "Receipts are required over 50 EUR." in text  # inside a macro
    assert "if a < b: pay()" in text  # a code block's CDATA
    assert "See Travel policy." in text  # a link shows the page's title


def test_a_search_whose_next_link_leaves_the_site_stops_without_sending_credentials() -> None:
    asked: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url.host))
        body = {"results": [], "_links": {"next": "https://evil.example.com/rest/api/x"}}
        return httpx.Response(200, json=body)

    client = PoliteClient(transport=httpx.MockTransport(handler))
    connector = ConfluenceConnector(DATA_CENTER, ConfluenceAuth(pat="p4t"), client)
    with pytest.raises(ListingFailed) as caught:
        connector.list_items()
    assert "pointed off the site" in caught.value.reason
    assert asked == ["wiki.acme.internal"]


def test_a_page_on_two_search_pages_is_listed_once() -> None:
    def page(id: str) -> dict[str, object]:
        return {
            "id": id,
            "type": "page",
            "title": f"P{id}",
            "space": {"key": "HR"},
            "version": {"number": 1},
            "_links": {"webui": f"/pages/{id}"},
        }

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/rest/api/space/HR":
            read = {"operation": "read", "targetType": "space"}
            return httpx.Response(
                200, json={"permissions": [{"operation": read, "anonymousAccess": True}]}
            )
        if request.url.params.get("cursor") == "2":
            return httpx.Response(200, json={"results": [page("2"), page("3")], "_links": {}})
        next_link = "/rest/api/content/search?cursor=2"
        return httpx.Response(
            200, json={"results": [page("1"), page("2")], "_links": {"next": next_link}}
        )

    client = PoliteClient(transport=httpx.MockTransport(handler))
    connector = ConfluenceConnector(DATA_CENTER, ConfluenceAuth(pat="p4t"), client)
    ids = [item.id.rsplit("/", 1)[-1] for item in connector.list_items()]
    assert ids == ["1", "2", "3"]
