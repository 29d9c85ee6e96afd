"""URL templates for sources: filled from a chunk's place, cut back to the document when a
place is unknown, and refused at ingest with a reason when they cannot make links."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from knowledge.documents import ChunkDraft, ChunkKind
from knowledge.ingest.source_links import BadTemplate, UrlTemplate, link_values, linked

PDF = "https://intranet.example.com/policies/{path}#page={page}"


def fill(
    template: str, metadata: Mapping[str, object], path: str | None = "hr/Leave policy.pdf"
) -> str:
    return UrlTemplate.parse(template).fill(link_values(metadata, path=path))


def test_a_page_and_a_section_are_filled_and_encoded() -> None:
    assert (
        fill(PDF, {"page": 9})
        == "https://intranet.example.com/policies/hr/Leave%20policy.pdf#page=9"
    )
    section = {"section": "3 Benefits > 3.1 Room rent & ICU"}
    assert fill("https://wiki.example.com/{path}#{section}", section).endswith(
        "#3.1%20Room%20rent%20%26%20ICU"
    )


def test_rows_fill_their_table_and_key() -> None:
    row = {"table": "policies", "keys": {"policy_number": "0000-0001", "region": "North/East"}}
    assert (
        fill("https://crm.example.com/{table}/{key}", row, path=None)
        == "https://crm.example.com/policies/0000-0001/North%2FEast"
    )


def test_a_missing_value_drops_its_fragment_or_parameter_but_keeps_the_document() -> None:
    assert fill(PDF, {}) == "https://intranet.example.com/policies/hr/Leave%20policy.pdf"
    template = "https://x.example.com/view?doc={path}&page={page}"
    assert fill(template, {}) == "https://x.example.com/view?doc=hr/Leave%20policy.pdf"
    assert fill("https://x.example.com/{table}/{key}", {}, path=None) == ""  # no wrong link


@pytest.mark.parametrize(
    ("template", "says"),
    [
        ("https://x.example.com/{file}", "placeholders are"),
        ("intranet/{path}", "https://"),
        ("https://x.example.com/{path", "braces"),
        ("https://x.example.com/a b/{path}", "percent-encode"),
    ],
)
def test_a_template_that_cannot_make_links_is_refused_saying_why(template: str, says: str) -> None:
    with pytest.raises(BadTemplate, match=says):
        UrlTemplate.parse(template)


def test_linked_drafts_carry_their_url_and_others_are_left_alone() -> None:
    draft = ChunkDraft("k", ChunkKind.RULEBOOK, "text", "a.pdf", metadata={"page": 2})
    [with_link] = linked([draft], PDF, path="a.pdf")
    assert with_link.metadata["url"] == "https://intranet.example.com/policies/a.pdf#page=2"
    assert linked([draft], None, path="a.pdf") == [draft]
