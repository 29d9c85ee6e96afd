"""Who an asker is: identities and groups from a fake Microsoft Graph on 127.0.0.1, cached;
and what a reader may read. When Graph refuses or knows nobody, the asker keeps only the
identities their platform gave: they see less, never more."""

from __future__ import annotations

from bot.people.graph import GraphCredentials, GraphDirectory
from bot.people.readers import Readers
from knowledge.access import EVERYONE, Reader
from tests.fakes.graph_groups import CLIENT_ID, TENANT, FakeGraph, FakeUser, fake_graph

DANA = FakeUser("obj-dana", "dana@example.com",
                [("finance-team-id", "Finance Team"), ("hr-id", "HR")])  # fmt: skip


def readers(graph: FakeGraph, secret: str = "s3cret") -> Readers:
    credentials = GraphCredentials(TENANT, CLIENT_ID, secret, graph.graph_url, graph.authority)
    return Readers(GraphDirectory(credentials))


def test_an_asker_gets_their_identities_and_every_group_across_pages() -> None:
    with fake_graph(DANA) as graph:
        resolved = readers(graph)
        reader = resolved.reader_for(["Dana@Example.com"])
        asked = len(graph.requests)
        assert resolved.reader_for(["dana@example.com"]) == reader  # kept a while
        assert len(graph.requests) == asked
    assert reader.principals == {
        EVERYONE,
        "dana@example.com",
        "obj-dana",
        "group:finance-team-id",
        "group:finance team",
        "group:hr-id",
        "group:hr",
    }  # the directory role on the first page is not a group
    assert reader.may_read(["Group:HR"]) and not reader.may_read(["group:legal"])


def test_a_refused_secret_or_an_unknown_person_means_no_groups() -> None:
    with fake_graph(DANA) as graph:
        refused = readers(graph, secret="expired").reader_for(["dana@example.com"])
        unknown = readers(graph).reader_for(["nobody@example.com"])
    assert refused.principals == {EVERYONE, "dana@example.com"}
    assert unknown.principals == {EVERYONE, "nobody@example.com"}


def test_without_graph_an_asker_is_their_identities_and_public_is_everyone_only() -> None:
    assert Readers(None).reader_for(["Eve@Example.com "]).principals == {
        EVERYONE, "eve@example.com"
    }  # fmt: skip
    assert Reader.public().filter() == [EVERYONE]
    assert Reader.unrestricted().filter() is None and Reader.unrestricted().may_read([])
    assert not Reader.public().may_read([])  # an empty access list opens to nobody
