"""Answers with everything that produced them; which platform message carries which answer."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.engine import Engine

from bot.conversation.types import Answer, ThreadRef, Turn
from bot.db.tables import answer_deliveries, answers, threads
from bot.store.threads import add_messages, thread_id_in


class AnswerStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def save_turn(self, turn: Turn, answer: Answer, *, retrieved: list[dict[str, Any]]) -> int:
        """Store the user's turn, the bot's reply and the answer record in one transaction."""
        with self._engine.begin() as conn:
            thread_id = thread_id_in(conn, turn.thread)
            said = [("user", answer.question, turn.message_id)]
            add_messages(conn, thread_id, [*said, ("assistant", render_plain(answer), None)])
            values = answer_values(turn, answer, retrieved=retrieved)
            return int(
                conn.execute(
                    sa.insert(answers).values(thread_id=thread_id, **values).returning(answers.c.id)
                ).scalar_one()
            )

    def record_delivery(
        self, answer_id: int, *, platform: str, channel: str, message_id: str
    ) -> None:
        """Remember which platform message shows this answer (reactions arrive on it)."""
        stmt = (
            insert(answer_deliveries)
            .values(answer_id=answer_id, platform=platform, channel=channel, message_id=message_id)
            .on_conflict_do_nothing(constraint="uq_answer_deliveries")
        )
        with self._engine.begin() as conn:
            conn.execute(stmt)

    def answer_for_message(self, *, platform: str, channel: str, message_id: str) -> int | None:
        with self._engine.connect() as conn:
            return conn.execute(
                sa.select(answer_deliveries.c.answer_id).where(
                    answer_deliveries.c.platform == platform,
                    answer_deliveries.c.channel == channel,
                    answer_deliveries.c.message_id == message_id,
                )
            ).scalar()

    def thread_of(self, answer_id: int) -> ThreadRef | None:
        """The conversation an answer belongs to (to follow up on it in the same place)."""
        query = sa.select(
            threads.c.platform, threads.c.workspace, threads.c.channel, threads.c.thread_key
        ).join(answers, answers.c.thread_id == threads.c.id)
        with self._engine.connect() as conn:
            row = conn.execute(query.where(answers.c.id == answer_id)).first()
        return ThreadRef(row.platform, row.workspace, row.channel, row.thread_key) if row else None

    def get(self, answer_id: int) -> dict[str, Any] | None:
        with self._engine.connect() as conn:
            row = conn.execute(sa.select(answers).where(answers.c.id == answer_id)).first()
            return dict(row._mapping) if row else None


def answer_values(turn: Turn, answer: Answer, *, retrieved: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "platform": turn.thread.platform,
        "event_id": turn.event_id,
        "user_id": turn.user_id,
        "question": answer.question,
        "rewritten_question": answer.rewritten_question,
        "expansions": [asdict(e) for e in answer.expansions],
        "intent": answer.intent.value,
        "prompt": answer.prompt,
        "model": answer.model,
        "bullets": [{"text": b.text, "sources": list(b.source_numbers)} for b in answer.bullets],
        "sources": [asdict(s) for s in answer.sources],
        "retrieved": retrieved,
        "scores": answer.scores.as_dict(),
        "confidence": answer.confidence.value,
        "notice": answer.notice,
        "timings_ms": answer.timings_ms,
        "choices": answer.choices,
    }


def render_plain(answer: Answer) -> str:
    """The reply as thread history keeps it (what a follow-up is rewritten against)."""
    lines = [f"- {b.render()}" for b in answer.bullets]
    return "\n".join(lines) or answer.notice
