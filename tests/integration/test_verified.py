"""Verified answers on the real Postgres: stored, matched within the asker's scopes only,
never when suspended or retired, never across embedding models, and served by the pipeline
as the person's answer at High."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from bot.adapters.console import console_turn
from bot.conversation.types import Confidence
from bot.conversation.verified import MatchRule, VerifiedMatcher, VerifiedSource
from bot.settings import Settings
from bot.store.verified import VerifiedStore
from bot.verified.entries import Entry
from bot.verified.importing import import_entries, reembed_stale
from bot.wiring import Services, open_services
from knowledge.ingest.options import IngestOptions
from knowledge.models.embeddings import HashingEmbedder
from knowledge.store.sources import list_sources
from knowledge.store.tables import chunks
from tests.fakes.knowledge_base import bot_settings

EMBED = HashingEmbedder(model_name="hashing")
RULE = MatchRule(question_weight=0.5, min_score=0.6, min_margin=0.0)
CARRY = "Can I carry over unused annual leave to next year?"
CARRY_ANSWER = "Yes, up to five days of annual leave carry over to the next year."


def entry(question: str, answer: str, *, scope: str = "default", author: str = "Ana") -> Entry:
    source = VerifiedSource(title="HR policy", url="https://intranet.example/hr", source_id=7)
    return Entry(1, question, answer, author, scope, (source,))


def imported(engine: Engine, *entries: Entry, model: str = "hashing") -> VerifiedStore:
    store = VerifiedStore(engine)
    import_entries(store, entries, embed=EMBED.embed_documents, model=model)
    return store


def matcher(store: VerifiedStore, rule: MatchRule = RULE) -> VerifiedMatcher:
    return VerifiedMatcher(store, embed=EMBED.embed_documents, model="hashing", rule=rule)


def test_a_paraphrase_gets_the_verified_answer_with_its_sources(engine: Engine) -> None:
    store = imported(
        engine, entry(CARRY, CARRY_ANSWER), entry("Who approves expenses?", "Finance.")
    )
    found = matcher(store).match("can unused annual leave carry over to next year", ["default"])
    assert found is not None and found.answer == CARRY_ANSWER and found.author == "Ana"
    assert found.sources[0].url == "https://intranet.example/hr"
    assert matcher(store).match("What is the office wifi password?", ["default"]) is None


def test_a_verified_answer_never_crosses_scopes(engine: Engine) -> None:
    store = imported(engine, entry(CARRY, CARRY_ANSWER, scope="hr"))
    assert matcher(store).match(CARRY, ["finance", "default"]) is None
    assert matcher(store).match(CARRY, []) is None
    found = matcher(store).match(CARRY, ["finance", "hr"])
    assert found is not None and found.scope == "hr"


def test_suspended_and_retired_answers_are_never_served(engine: Engine) -> None:
    store = imported(engine, entry(CARRY, CARRY_ANSWER))
    (verified_id,) = [v.id for v in store.with_status("active")]
    store.set_status(verified_id, "suspended", reason="its source changed")
    assert matcher(store).match(CARRY, ["default"]) is None
    assert [v.status_reason for v in store.with_status("suspended")] == ["its source changed"]
    store.set_status(verified_id, "retired")
    assert matcher(store).match(CARRY, ["default"]) is None
    store.set_status(verified_id, "active")
    assert matcher(store).match(CARRY, ["default"]) is not None


def test_answers_of_another_model_are_not_compared_until_embedded_again(engine: Engine) -> None:
    store = imported(engine, entry(CARRY, CARRY_ANSWER), model="some-older-model")
    assert matcher(store).match(CARRY, ["default"]) is None
    assert reembed_stale(store, embed=EMBED.embed_documents, model="hashing") == 1
    assert reembed_stale(store, embed=EMBED.embed_documents, model="hashing") == 0
    assert matcher(store).match(CARRY, ["default"]) is not None


def test_a_near_tie_between_two_entries_is_not_served_when_a_margin_is_needed(
    engine: Engine,
) -> None:
    store = imported(
        engine,
        entry("What is a coronavirus?", "A family of viruses."),
        entry("What is a novel coronavirus?", "A coronavirus not identified before."),
    )
    asked = "What is a new coronavirus?"
    assert matcher(store).match(asked, ["default"]) is not None
    strict = MatchRule(question_weight=0.5, min_score=0.3, min_margin=0.2)
    assert matcher(store, strict).match(asked, ["default"]) is None


def test_answers_relying_on_a_changed_source_are_suspended(engine: Engine) -> None:
    store = imported(engine, entry(CARRY, CARRY_ANSWER))  # relies on source 7
    store.add([])  # nothing to add stores nothing
    unrelated = Entry(2, "Who approves expenses?", "Finance.", "Bo", "default", ())
    import_entries(store, [unrelated], embed=EMBED.embed_documents, model="hashing")
    suspended = store.suspend_relying_on(source_ids=[7, 9], reason="HR policy changed")
    assert [store.get(i).question for i in suspended] == [CARRY]  # type: ignore[union-attr]
    assert [v.question for v in store.with_status("active")] == ["Who approves expenses?"]
    assert store.suspend_relying_on(source_ids=[7], reason="again") == []  # already suspended


@pytest.fixture
def services(settings: Settings, knowledge_dir: Path) -> Iterator[Services]:
    with open_services(bot_settings(settings, KNOWBOT_VERIFIED_MIN_SCORE="0.6")) as svc:
        svc.knowledge.ingestor.ingest_paths([knowledge_dir], IngestOptions())
        import_entries(
            svc.verified,
            [entry(CARRY, CARRY_ANSWER, author="Ana Lima")],
            embed=svc.knowledge.embeddings,
            model=svc.knowledge.embedding_model,
        )
        yield svc


def test_the_pipeline_serves_the_verified_answer_at_high(services: Services) -> None:
    turn = console_turn("can unused annual leave carry over to next year?", thread="v1",
                        scopes=("default",))  # fmt: skip
    answer = services.pipeline.answer_now(turn)
    assert answer is not None and answer.verified is not None
    assert answer.confidence == Confidence.HIGH
    assert [b.text for b in answer.bullets] == [CARRY_ANSWER]
    assert answer.bullets[0].source_numbers == (1,)
    assert answer.sources[0].title == "HR policy"
    assert answer.notice.startswith("Verified by Ana Lima on ")
    row = services.answers.get(answer.id)
    assert row is not None and row["choices"] == {"verified": str(answer.verified.id)}


def test_a_channel_that_cannot_see_the_scope_gets_the_normal_answer(services: Services) -> None:
    turn = console_turn(CARRY, thread="v2", scopes=("finance",))
    answer = services.pipeline.answer_now(turn)
    assert answer is not None and answer.verified is None
    assert CARRY_ANSWER not in " ".join(b.text for b in answer.bullets)


def test_other_questions_get_the_normal_answer(services: Services) -> None:
    turn = console_turn("What is the PED waiting period?", thread="v3", scopes=("default",))
    answer = services.pipeline.answer_now(turn)
    assert answer is not None and answer.verified is None
    assert any("36 months" in b.text for b in answer.bullets)


def test_a_reingest_that_changes_or_removes_a_source_suspends_what_relies_on_it(
    settings: Settings, knowledge_dir: Path
) -> None:
    policy, glossary = knowledge_dir / "policy.txt", knowledge_dir / "glossary.csv"
    with open_services(bot_settings(settings, KNOWBOT_VERIFIED_MIN_SCORE="0.6")) as svc:
        ingestor = svc.knowledge.ingestor
        ingestor.ingest_paths([knowledge_dir], IngestOptions())
        with svc.db.engine.connect() as conn:
            ids = {s.uri: s.id for s in list_sources(conn, scope="default")}
            a_chunk = conn.execute(
                sa.select(chunks.c.node_id)
                .where(chunks.c.metadata_["source_uri"].astext == str(policy.resolve()))
                .limit(1)
            ).scalar_one()
        on_policy = Entry(1, CARRY, CARRY_ANSWER, "Ana", "default",
                          (VerifiedSource(uri=str(policy.resolve())),))  # fmt: skip
        on_glossary = Entry(2, "What does PED mean?", "Pre-existing disease.", "Bo", "default",
                            (VerifiedSource(source_id=ids[str(glossary.resolve())]),))  # fmt: skip
        on_chunk = Entry(4, "How long is the waiting period?", "36 months.", "Di", "default",
                         (VerifiedSource(title="Policy", chunk_id=a_chunk),))  # fmt: skip
        unrelated = Entry(3, "Who approves travel?", "Your manager.", "Cy", "default", ())
        embed, model = svc.knowledge.embeddings, svc.knowledge.embedding_model
        import_entries(svc.verified, [on_policy, on_glossary, unrelated, on_chunk], embed=embed,
                       model=model, locate=svc.knowledge.chunk_sources)  # fmt: skip

        ingestor.ingest_paths([knowledge_dir], IngestOptions())  # nothing changed
        assert len(svc.verified.with_status("active")) == 4

        policy.write_text(policy.read_text() + "\n9.1 Carry over\nFive days carry over.\n")
        ingestor.ingest_paths([knowledge_dir], IngestOptions())
        suspended = svc.verified.with_status("suspended")
        assert [v.question for v in suspended] == [CARRY, on_chunk.question]
        assert all("changed at re-ingest" in v.status_reason for v in suspended)
        turn = console_turn(CARRY, thread="v9", scopes=("default",))
        answer = svc.pipeline.answer_now(turn)
        assert answer is not None and answer.verified is None

        glossary.unlink()
        ingestor.ingest_paths([knowledge_dir], IngestOptions())
        assert [v.question for v in svc.verified.with_status("active")] == [unrelated.question]
        reasons = [v.status_reason for v in svc.verified.with_status("suspended")]
        assert any("was removed" in r for r in reasons)


def test_a_channel_with_no_verified_answers_costs_no_embedding(engine: Engine) -> None:
    store = imported(engine, entry(CARRY, CARRY_ANSWER, scope="hr"))
    embedded: list[str] = []

    def counting(texts: Sequence[str]) -> list[list[float]]:
        embedded.extend(texts)
        return EMBED.embed_documents(texts)

    found = VerifiedMatcher(store, embed=counting, model="hashing", rule=RULE)
    assert found.match(CARRY, ["default"]) is None and embedded == []
    assert found.match(CARRY, ["hr"]) is not None and embedded == [CARRY]
