"""Reading answers together with their ratings: what the export, the report and the digest
are built from. Writes stay in `feedback.py` and `answers.py`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from bot.db.tables import answer_deliveries, answers, feedback
from bot.store.feedback import Rating

Verdict = Literal["negative", "positive"]
EVAL_PLATFORM = "eval"  # the platform `knowbot eval qa` answers under


@dataclass(frozen=True)
class RatedAnswer:
    """One answer row (every column of `answers`) and every current rating on it."""

    answer: dict[str, Any]
    ratings: tuple[Rating, ...]

    @property
    def id(self) -> int:
        return int(self.answer["id"])

    @property
    def up(self) -> int:
        return sum(1 for r in self.ratings if r.rating > 0)

    @property
    def down(self) -> int:
        return sum(1 for r in self.ratings if r.rating < 0)

    @property
    def verdict(self) -> Verdict:
        """Negative when anyone down-voted it: one person saying "wrong" is worth a look even
        when others liked it. Every rated answer is exactly one of the two."""
        return "negative" if self.down else "positive"

    @property
    def reasons(self) -> list[str]:
        return [r.reason for r in self.ratings if r.reason]


@dataclass(frozen=True)
class Delivery:
    platform: str
    channel: str
    message_id: str


class RatedAnswerStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def rated(self, *, since: datetime | None = None) -> list[RatedAnswer]:
        """Answers with at least one rating (given or changed since `since`), oldest first,
        each with all of its ratings."""
        rated_since = sa.select(feedback.c.answer_id)
        if since is not None:
            rated_since = rated_since.where(feedback.c.updated_at >= since)
        query = sa.select(answers).where(answers.c.id.in_(rated_since)).order_by(answers.c.id)
        with self._engine.connect() as conn:
            rows = [dict(r._mapping) for r in conn.execute(query)]
            ids = [r["id"] for r in rows]
            ratings = _ratings(conn, ids) if ids else {}
        return [RatedAnswer(row, tuple(ratings.get(row["id"], ()))) for row in rows]

    def answers_since(self, since: datetime) -> int:
        """Answers given to people since then (`eval qa` runs are not people asking)."""
        query = (
            sa.select(sa.func.count())
            .select_from(answers)
            .where(answers.c.created_at >= since, answers.c.platform != EVAL_PLATFORM)
        )
        with self._engine.connect() as conn:
            return int(conn.execute(query).scalar_one())

    def deliveries(self, answer_ids: Sequence[int]) -> dict[int, Delivery]:
        """Where each answer was posted (its first delivery), for links back to it."""
        if not answer_ids:
            return {}
        query = (
            sa.select(answer_deliveries)
            .where(answer_deliveries.c.answer_id.in_(list(answer_ids)))
            .order_by(answer_deliveries.c.id)
        )
        out: dict[int, Delivery] = {}
        with self._engine.connect() as conn:
            for r in conn.execute(query):
                out.setdefault(r.answer_id, Delivery(r.platform, r.channel, r.message_id))
        return out


def _ratings(conn: sa.Connection, ids: list[int]) -> dict[int, list[Rating]]:
    out: dict[int, list[Rating]] = {}
    query = sa.select(feedback).where(feedback.c.answer_id.in_(ids)).order_by(feedback.c.id)
    for r in conn.execute(query):
        out.setdefault(r.answer_id, []).append(Rating.from_row(r))
    return out
