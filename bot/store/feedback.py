"""Ratings from every platform in one place: one current rating per user per answer."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.engine import Engine

from bot.db.tables import answers, feedback


@dataclass(frozen=True)
class Rating:
    answer_id: int
    platform: str
    user_id: str
    signal: str  # the emoji, reaction type or button that carried it
    rating: int  # +1 or -1
    reason: str | None
    updated_at: datetime

    @classmethod
    def from_row(cls, row: Any) -> Rating:
        return cls(
            answer_id=row.answer_id,
            platform=row.platform,
            user_id=row.user_id,
            signal=row.signal,
            rating=row.rating,
            reason=row.reason,
            updated_at=row.updated_at,
        )


class FeedbackStore:
    def __init__(self, engine: Engine, *, max_answer_age: timedelta | None = None) -> None:
        self._engine = engine
        self._max_answer_age = max_answer_age

    def rate(
        self, *, answer_id: int, platform: str, user_id: str, signal: str, rating: int
    ) -> bool:
        """Set this user's rating; a later reaction replaces the earlier one.

        False, and nothing stored, when the answer does not exist (a reaction on some other
        message) or is older than ratings are kept for: a vote on a months-old answer says
        little about the prompts and knowledge serving today.
        """
        if rating not in (-1, 1):
            raise ValueError(f"rating must be +1 or -1, not {rating}")
        current = [answers.c.id == answer_id]
        if self._max_answer_age is not None:
            current.append(answers.c.created_at >= sa.func.now() - sa.literal(self._max_answer_age))
        source = sa.select(
            answers.c.id,
            sa.literal(platform, sa.Text),
            sa.literal(user_id, sa.Text),
            sa.literal(signal, sa.Text),
            sa.literal(rating, sa.SmallInteger),
        ).where(*current)
        new = insert(feedback).from_select(
            ["answer_id", "platform", "user_id", "signal", "rating"], source
        )
        stmt = new.on_conflict_do_update(
            constraint="uq_feedback_user",
            set_={
                "signal": signal,
                "rating": rating,
                "updated_at": sa.func.now(),
                # a new verdict's reason must be asked again; keep it when the sign holds
                "reason": sa.case((feedback.c.rating == rating, feedback.c.reason), else_=None),
            },
        ).returning(feedback.c.id)
        with self._engine.begin() as conn:
            return conn.execute(stmt).scalar() is not None

    def unrate(self, *, answer_id: int, platform: str, user_id: str, signal: str) -> bool:
        """Remove the rating if this signal set it (removing another emoji changes nothing)."""
        with self._engine.begin() as conn:
            result = conn.execute(
                sa.delete(feedback).where(
                    feedback.c.answer_id == answer_id,
                    feedback.c.platform == platform,
                    feedback.c.user_id == user_id,
                    feedback.c.signal == signal,
                )
            )
            return bool(result.rowcount)

    def set_reason(self, *, answer_id: int, platform: str, user_id: str, reason: str) -> bool:
        with self._engine.begin() as conn:
            result = conn.execute(
                sa.update(feedback)
                .where(
                    feedback.c.answer_id == answer_id,
                    feedback.c.platform == platform,
                    feedback.c.user_id == user_id,
                )
                .values(reason=reason, updated_at=sa.func.now())
            )
            return bool(result.rowcount)

    def for_answer(self, answer_id: int) -> list[Rating]:
        with self._engine.connect() as conn:
            rows = conn.execute(
                sa.select(feedback).where(feedback.c.answer_id == answer_id).order_by(feedback.c.id)
            )
            return [Rating.from_row(r) for r in rows]
