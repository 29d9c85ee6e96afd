"""Thread memory: a conversation's turns, in order, keyed by platform/workspace/channel/thread."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.engine import Connection, Engine

from bot.conversation.types import HistoryTurn, ThreadRef
from bot.db.tables import messages, threads

ROLES = ("user", "assistant")


class ThreadStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def append(
        self, ref: ThreadRef, role: str, text: str, *, platform_message_id: str | None = None
    ) -> int:
        """Add one turn to the thread (creating the thread on first use); return its id."""
        with self._engine.begin() as conn:
            return append_in(conn, ref, role, text, platform_message_id=platform_message_id)

    def history(self, ref: ThreadRef, *, limit: int = 20) -> list[HistoryTurn]:
        """The thread's last `limit` turns, oldest first."""
        recent = (
            sa.select(messages.c.id, messages.c.role, messages.c.text)
            .join(threads, threads.c.id == messages.c.thread_id)
            .where(*_matches(ref))
            .order_by(messages.c.id.desc())
            .limit(limit)
            .subquery()
        )
        query = sa.select(recent.c.role, recent.c.text).order_by(recent.c.id)
        with self._engine.connect() as conn:
            return [HistoryTurn(role=r.role, text=r.text) for r in conn.execute(query)]

    def exists(self, ref: ThreadRef) -> bool:
        """True once the bot has answered in this thread (still true after `forget`, so a
        forgotten thread keeps getting answers without a new mention)."""
        with self._engine.connect() as conn:
            found = conn.execute(sa.select(threads.c.id).where(*_matches(ref))).scalar()
            return found is not None

    def forget(self, ref: ThreadRef) -> int:
        """Wipe a thread's stored turns; return how many were removed."""
        with self._engine.begin() as conn:
            thread_id = conn.execute(sa.select(threads.c.id).where(*_matches(ref))).scalar()
            if thread_id is None:
                return 0
            removed = conn.execute(sa.delete(messages).where(messages.c.thread_id == thread_id))
            return removed.rowcount or 0

    def expire(self, older_than: datetime) -> int:
        """Delete threads idle since before `older_than` (their turns go with them)."""
        with self._engine.begin() as conn:
            result = conn.execute(sa.delete(threads).where(threads.c.updated_at < older_than))
            return result.rowcount or 0


def append_in(
    conn: Connection,
    ref: ThreadRef,
    role: str,
    text: str,
    *,
    platform_message_id: str | None = None,
) -> int:
    """Append within the caller's transaction (the pipeline stores a whole turn at once)."""
    return add_messages(conn, thread_id_in(conn, ref), [(role, text, platform_message_id)])[0]


def add_messages(
    conn: Connection, thread_id: int, rows: Sequence[tuple[str, str, str | None]]
) -> list[int]:
    """Append (role, text, platform message id) rows to a thread in one statement, within
    the caller's transaction; their ids, in order."""
    for role, _, _ in rows:
        if role not in ROLES:
            raise ValueError(f"role must be one of {ROLES}, not {role!r}")
    values = [
        {"thread_id": thread_id, "role": role, "text": text, "platform_message_id": message_id}
        for role, text, message_id in rows
    ]
    inserted = conn.execute(sa.insert(messages).values(values).returning(messages.c.id))
    return [int(i) for i in inserted.scalars()]


def thread_id_in(conn: Connection, ref: ThreadRef) -> int:
    """The thread's id, created on first use; touching it marks it active."""
    stmt = (
        insert(threads)
        .values(
            platform=ref.platform,
            workspace=ref.workspace,
            channel=ref.channel,
            thread_key=ref.thread,
        )
        .on_conflict_do_update(constraint="uq_threads_key", set_={"updated_at": sa.func.now()})
        .returning(threads.c.id)
    )
    return int(conn.execute(stmt).scalar_one())


def _matches(ref: ThreadRef) -> tuple[sa.ColumnElement[bool], ...]:
    return (
        threads.c.platform == ref.platform,
        threads.c.workspace == ref.workspace,
        threads.c.channel == ref.channel,
        threads.c.thread_key == ref.thread,
    )
