"""Permission-aware answers on the real Postgres + pgvector: each item's access list is
stored with its chunks, and restricted content reaches only people who may read it — in a
direct message, never in a channel, never in a citation, a suggested prompt or a verified
answer to anyone else; `knowbot ask --as` answers as that person; and a reader who may read
few of the nearest chunks still gets a full result list."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine

from bot.conversation.types import Answer, ThreadRef, Turn
from bot.conversation.verified import VerifiedSource
from bot.db.engine import SESSION_OPTIONS
from bot.feedback.suggestions import suggested_questions
from bot.settings import Settings
from bot.verified.entries import Entry
from bot.verified.importing import import_entries
from bot.wiring import Services, open_services
from knowledge.access import EVERYONE, Reader
from knowledge.ingest.options import IngestOptions
from knowledge.ingest.sync import sync_connector
from knowledge.store.chunks import ChunkRecord
from tests.fakes.graph_groups import FakeUser, fake_graph
from tests.fakes.knowledge_base import bot_settings
from tests.fakes.shelf import FINANCE, HANDBOOK_ID, PAY, PAY_ID, QUESTION, SECRET, shelf
from tests.integration.knowledge_fixtures import CountingEmbedder, make_knowledge
from tests.integration.test_cli_db import knowbot
from tests.integration.test_cli_knowledge import env_for

DANA = Reader.person(["dana@example.com"], ["finance-team-id"])  # in the finance group
EVE = Reader.person(["eve@example.com"])  # in no group


def access_of(engine: Engine) -> dict[str, set[tuple[str, ...]]]:
    query = sa.text("SELECT metadata_->>'source_uri', access FROM data_kb_chunks")
    found: dict[str, set[tuple[str, ...]]] = {}
    with engine.connect() as conn:
        for uri, access in conn.execute(query):
            found.setdefault(uri, set()).add(tuple(access))
    return found


def shown(answer: Answer | None) -> str:
    """Everything the person reads: bullets, notice and every cited source."""
    assert answer is not None
    parts = [b.text for b in answer.bullets] + [answer.notice]
    parts += [f"{s.title} {s.url} {s.text}" for s in answer.sources]
    return "\n".join(parts)


def dm(text: str, asker: Reader, thread: str) -> Turn:
    return Turn(ThreadRef("slack", "T1", "D-dm", thread), f"ev-{thread}", "U1", text,
                asker=asker, private=True)  # fmt: skip


def channel(text: str, asker: Reader, thread: str) -> Turn:
    return Turn(ThreadRef("slack", "T1", "C-general", thread), f"ev-{thread}", "U1", text,
                asker=asker, private=False)  # fmt: skip


@pytest.fixture
def services(settings: Settings) -> Iterator[Services]:
    with open_services(bot_settings(settings, KNOWBOT_VERIFIED_MIN_SCORE="0.6")) as svc:
        summary = sync_connector(svc.knowledge.ingestor, svc.db.engine, shelf(), IngestOptions())
        assert summary.failed == []
        yield svc


def test_sync_stores_each_items_access_and_a_permission_change_embeds_nothing(
    engine: Engine, db_url: URL
) -> None:
    embedder = CountingEmbedder()
    kb = make_knowledge(engine, db_url, embedder)
    source = shelf(pay_access=("group:Finance-Team-ID", "CFO@example.com "))
    sync_connector(kb.ingestor, engine, source, IngestOptions())
    stored = access_of(engine)
    assert stored[HANDBOOK_ID] == {(EVERYONE,)}
    assert stored[PAY_ID] == {("group:finance-team-id", "cfo@example.com")}  # as compared
    embedded, fetched = embedder.embedded, list(source.fetched)

    source.docs[PAY_ID] = ("Executive pay", PAY, (EVERYONE,))  # shared with everyone
    summary = sync_connector(kb.ingestor, engine, source, IngestOptions())
    assert summary.count("unchanged") == 2
    assert access_of(engine)[PAY_ID] == {(EVERYONE,)}
    assert embedder.embedded == embedded and source.fetched == fetched  # nothing re-read
    hits = kb.retriever.retrieve(QUESTION, scopes=["default"], readers=[EVERYONE]).chunks
    assert any(SECRET in h.text for h in hits)

    source.docs[PAY_ID] = ("Executive pay", PAY, ("cfo@example.com",))  # and taken back
    sync_connector(kb.ingestor, engine, source, IngestOptions())
    hits = kb.retriever.retrieve(QUESTION, scopes=["default"], readers=[EVERYONE]).chunks
    assert hits and not any(SECRET in h.text for h in hits)


def test_restricted_content_reaches_a_dm_with_access_only(services: Services) -> None:
    pipeline = services.pipeline
    assert SECRET in shown(pipeline.answer_now(dm(QUESTION, DANA, "dana-1")))
    assert SECRET not in shown(pipeline.answer_now(dm(QUESTION, EVE, "eve-1")))
    unknown = Turn(ThreadRef("slack", "T1", "D-x", "x"), "ev-x", "U9", QUESTION, private=True)
    assert SECRET not in shown(pipeline.answer_now(unknown))  # an asker nobody resolved


def test_a_channel_never_shows_restricted_content_even_to_someone_with_access(
    services: Services,
) -> None:
    answer = services.pipeline.answer_now(channel(QUESTION, DANA, "general-1"))
    assert SECRET not in shown(answer)
    assert answer is not None and all(PAY_ID not in s.url for s in answer.sources)


def test_a_citation_never_names_a_restricted_document(services: Services) -> None:
    asked = "Executive pay: when are salaries reviewed?"  # names the restricted document
    answer = services.pipeline.answer_now(dm(asked, EVE, "eve-2"))
    assert answer is not None and answer.sources
    assert all(s.title != "Executive pay" and PAY_ID not in s.url for s in answer.sources)
    assert "April" in shown(answer)  # the open handbook still answers


def test_suggested_prompts_hold_nothing_from_restricted_documents(services: Services) -> None:
    store = services.suggestions
    for reader in (EVE, Reader.public(), None):
        offered = suggested_questions(store, scopes=["default"], configured=None, reader=reader)
        assert offered and not any("executive" in q.lower() for q in offered), offered
    assert store.rulebook_files(scopes=["default"], limit=8, readers=DANA.filter()) == [
        "Staff handbook.md", "Executive pay.md"
    ]  # fmt: skip
    assert store.rulebook_files(scopes=["default"], limit=8, readers=EVE.filter()) == [
        "Staff handbook.md"
    ]
    dana = suggested_questions(store, scopes=["default"], configured=None, reader=DANA)
    eve = suggested_questions(store, scopes=["default"], configured=None, reader=EVE)
    assert any("executive" in q.lower() for q in dana) or dana == eve  # at most four fit


def test_a_verified_answer_from_a_restricted_document_is_served_only_to_readers(
    services: Services,
) -> None:
    knowledge = services.knowledge
    entry = Entry(
        1,
        "What is the top of the executive salary band?",
        f"The top of the executive salary band is {SECRET} euros a year.",
        "Fatima",
        "default",
        (VerifiedSource(title="Executive pay", uri=PAY_ID),),
    )
    import_entries(services.verified, [entry], embed=knowledge.embeddings,
                   model=knowledge.embedding_model)  # fmt: skip
    pipeline = services.pipeline
    served = pipeline.answer_now(dm(entry.question, DANA, "dana-v"))
    assert served is not None and served.verified is not None
    for turn in (dm(entry.question, EVE, "eve-v"), channel(entry.question, DANA, "chan-v")):
        answer = pipeline.answer_now(turn)
        assert answer is not None and answer.verified is None
        assert SECRET not in shown(answer)
    by_link = VerifiedSource(url=f"{PAY_ID}#section")  # a source given only by its link
    assert not knowledge.may_read(EVE, urls=[by_link.url])
    assert knowledge.may_read(DANA, urls=[by_link.url])
    assert knowledge.may_read(EVE, urls=["https://elsewhere.example/page"])  # not indexed


def test_ask_as_answers_as_that_person_with_groups_from_graph(
    db_url: URL, settings: Settings
) -> None:
    with open_services(bot_settings(settings)) as svc:
        sync_connector(svc.knowledge.ingestor, svc.db.engine, shelf(), IngestOptions())
    dana = FakeUser("obj-dana", "dana@example.com", [("finance-team-id", "Finance Team")])
    eve = FakeUser("obj-eve", "eve@example.com")
    with fake_graph(dana, eve) as graph:
        env = {**env_for(db_url), **graph.env()}
        as_dana = knowbot("ask", QUESTION, "--json", "--as", "Dana@Example.com", env=env)
        as_eve = knowbot("ask", QUESTION, "--json", "--as", "eve@example.com", env=env)
        assert any("transitiveMemberOf?page=2" in r for r in graph.requests)  # every page
    assert as_dana.returncode == 0, as_dana.stderr
    assert SECRET in json.dumps(json.loads(as_dana.stdout)["sources"])
    assert as_eve.returncode == 0, as_eve.stderr
    assert SECRET not in as_eve.stdout
    operator = knowbot("ask", QUESTION, "--json", env=env_for(db_url))  # the operator: all
    assert SECRET in operator.stdout
    without_graph = knowbot("ask", QUESTION, "--json", "--as", "dana@example.com",
                            env=env_for(db_url))  # fmt: skip
    assert without_graph.returncode == 0 and SECRET not in without_graph.stdout  # no groups
    blank = knowbot("ask", QUESTION, "--as", " ", env=env_for(db_url))
    assert blank.returncode != 0 and "e-mail" in blank.stderr


def test_a_restricted_reader_gets_a_full_list_when_restricted_chunks_outrank_open_ones(
    engine: Engine, db_url: URL
) -> None:
    kb = make_knowledge(engine, db_url)
    near, far = _vectors(kb.chunks.dim, 400, spread=0.05), _vectors(kb.chunks.dim, 80, spread=0.6)
    with engine.begin() as conn:
        for name, vectors, access in (("secret", near, FINANCE), ("open", far, (EVERYONE,))):
            records = [
                ChunkRecord(f"{name}-{i}", f"{name} chunk {i}",
                            {"scope": "default", "source_id": 1, "kind": "rulebook"}, v)
                for i, v in enumerate(vectors)
            ]  # fmt: skip
            kb.chunks.add(conn, records, source_ref="source:1", access=access)
    query = _unit(kb.chunks.dim)
    hits = kb.chunks.dense(query, scopes=["default"], limit=50, readers=[EVERYONE])
    assert len(hits) == 50 and all(h.node_id.startswith("open-") for h in hits)
    everything = kb.chunks.dense(query, scopes=["default"], limit=50)
    assert all(h.node_id.startswith("secret-") for h in everything)  # they do outrank
    # The planner may answer a small table from the access index and a sort; on the HNSW
    # index (forced here), the iterative scan the sessions turn on is what fills the list.
    forced = "-c enable_seqscan=off -c enable_bitmapscan=off"
    assert len(_dense_on_index(engine.url, f"{SESSION_OPTIONS} {forced}", query)) == 50
    assert len(_dense_on_index(engine.url, f"-c hnsw.ef_search=100 {forced}", query)) < 50


def _dense_on_index(url: URL, options: str, query: list[float]) -> list[str]:
    engine = sa.create_engine(url, connect_args={"options": options})
    try:
        with engine.connect() as conn:
            plan = "\n".join(
                r[0] for r in conn.execute(sa.text(f"EXPLAIN {_NEAREST}"), {"q": str(query)})
            )
            assert "kb_chunks_embedding" in plan
            return [r[0] for r in conn.execute(sa.text(_NEAREST), {"q": str(query)})]
    finally:
        engine.dispose()


_NEAREST = (
    "SELECT node_id FROM data_kb_chunks WHERE access && ARRAY['everyone'] "
    "ORDER BY embedding <=> CAST(:q AS vector) LIMIT 50"
)


def _unit(dim: int) -> list[float]:
    return [1.0] + [0.0] * (dim - 1)


def _vectors(dim: int, count: int, *, spread: float) -> list[list[float]]:
    rng = random.Random(count)
    return [[1.0 + rng.gauss(0, spread)] + [rng.gauss(0, spread) for _ in range(dim - 1)]
            for _ in range(count)]  # fmt: skip


def test_a_popular_question_answered_from_a_restricted_document_is_offered_to_readers_only(
    services: Services,
) -> None:
    for asker in ("U-dana", "U-finn"):  # two people of the finance group ask and like it
        turn = Turn(ThreadRef("slack", "T1", f"D-{asker}", "1"), f"ev-{asker}", asker, QUESTION,
                    asker=DANA, private=True)  # fmt: skip
        answer = services.pipeline.answer_now(turn)
        assert answer is not None and SECRET in shown(answer)
        assert services.feedback.rate(answer_id=answer.id, platform="slack", user_id=asker,
                                      signal="+1", rating=1)  # fmt: skip
    store = services.suggestions
    assert suggested_questions(store, scopes=["default"], configured=None, reader=DANA)[0] == (
        QUESTION
    )
    for reader in (EVE, Reader.public()):
        offered = suggested_questions(store, scopes=["default"], configured=None, reader=reader)
        assert QUESTION not in offered and offered
