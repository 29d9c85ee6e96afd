"""Thread memory: in order, bounded, and never shared between threads."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy.engine import Engine

from bot.conversation.types import HistoryTurn, ThreadRef
from bot.store.threads import ThreadStore

REF = ThreadRef(platform="slack", workspace="T1", channel="C1", thread="1700000000.0001")


def test_history_comes_back_in_order(engine: Engine) -> None:
    store = ThreadStore(engine)
    store.append(REF, "user", "What is the PED waiting period?", platform_message_id="m1")
    store.append(REF, "assistant", "36 months [1]")
    store.append(REF, "user", "and for cataract?")
    assert store.history(REF) == [
        HistoryTurn("user", "What is the PED waiting period?"),
        HistoryTurn("assistant", "36 months [1]"),
        HistoryTurn("user", "and for cataract?"),
    ]


def test_history_limit_keeps_the_most_recent_turns(engine: Engine) -> None:
    store = ThreadStore(engine)
    for i in range(10):
        store.append(REF, "user", f"question {i}")
    assert [t.text for t in store.history(REF, limit=3)] == [
        "question 7",
        "question 8",
        "question 9",
    ]


def test_threads_differing_in_any_part_of_the_key_never_share_turns(engine: Engine) -> None:
    store = ThreadStore(engine)
    others = [
        ThreadRef("teams", REF.workspace, REF.channel, REF.thread),
        ThreadRef(REF.platform, "T2", REF.channel, REF.thread),
        ThreadRef(REF.platform, REF.workspace, "C2", REF.thread),
        ThreadRef(REF.platform, REF.workspace, REF.channel, "1700000000.0002"),
    ]
    store.append(REF, "user", "secret of thread one")
    for i, other in enumerate(others):
        store.append(other, "user", f"other {i}")
    assert [t.text for t in store.history(REF)] == ["secret of thread one"]
    for i, other in enumerate(others):
        assert [t.text for t in store.history(other)] == [f"other {i}"]


def test_forget_wipes_only_that_thread(engine: Engine) -> None:
    store = ThreadStore(engine)
    other = ThreadRef("slack", "T1", "C1", "other")
    store.append(REF, "user", "one")
    store.append(REF, "assistant", "two")
    store.append(other, "user", "kept")
    assert store.forget(REF) == 2
    assert store.history(REF) == []
    assert [t.text for t in store.history(other)] == ["kept"]
    assert store.forget(ThreadRef("slack", "T9", "C9", "never")) == 0


def test_expire_removes_idle_threads_only(engine: Engine) -> None:
    store = ThreadStore(engine)
    store.append(REF, "user", "old question")
    assert store.expire(datetime.now(UTC) - timedelta(days=1)) == 0
    assert store.expire(datetime.now(UTC) + timedelta(seconds=1)) == 1
    assert store.history(REF) == []
