"""Verified answers: stored, listed, retired, suspended when a source under them changes, and
the candidates a new question is matched against (see bot.conversation.verified)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from bot.conversation.verified import Candidate, VerifiedAnswer, VerifiedSource
from bot.db.tables import answers, feedback
from bot.db.tables import verified_answers as va

_FIELDS = (
    va.c.id,
    va.c.scope,
    va.c.question,
    va.c.answer,
    va.c.author,
    va.c.verified_at,
    va.c.sources,
    va.c.status,
    va.c.status_reason,
    va.c.origin_escalation_id,
    va.c.author_id,
)


@dataclass(frozen=True)
class NewVerified:
    """A verified answer to store, with its two embeddings under `embed_model`."""

    scope: str
    question: str
    answer: str
    author: str
    sources: tuple[VerifiedSource, ...]
    question_embedding: Sequence[float]
    answer_embedding: Sequence[float]
    embed_model: str
    origin_escalation_id: int | None = None
    author_id: str = ""


class VerifiedStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def add(self, entries: Sequence[NewVerified]) -> list[int]:
        """Store every entry in one transaction (all or none); their ids, in order."""
        with self._engine.begin() as conn:
            return [_insert(conn, e) for e in entries]

    def get(self, verified_id: int) -> VerifiedAnswer | None:
        with self._engine.connect() as conn:
            row = conn.execute(sa.select(*_FIELDS).where(va.c.id == verified_id)).first()
        return _answer(row) if row else None

    def with_status(self, *statuses: str) -> list[VerifiedAnswer]:
        query = sa.select(*_FIELDS).where(va.c.status.in_(list(statuses))).order_by(va.c.id)
        with self._engine.connect() as conn:
            return [_answer(r) for r in conn.execute(query)]

    def set_status(self, verified_id: int, status: str, *, reason: str = "") -> bool:
        """False when there is no such verified answer."""
        with self._engine.begin() as conn:
            done = conn.execute(
                sa.update(va)
                .where(va.c.id == verified_id)
                .values(status=status, status_reason=reason, updated_at=sa.func.now())
            )
        return done.rowcount > 0

    def confirm(self, verified_id: int) -> bool:
        """Someone vouched for it again: active, and verified as of now."""
        with self._engine.begin() as conn:
            done = conn.execute(
                sa.update(va)
                .where(va.c.id == verified_id, va.c.status != "retired")
                .values(
                    status="active",
                    status_reason="",
                    verified_at=sa.func.now(),
                    updated_at=sa.func.now(),
                )
            )
        return done.rowcount > 0

    def revise(
        self, verified_id: int, *, answer: str, answer_embedding: Sequence[float], model: str
    ) -> bool:
        """New wording from its experts: active again, verified as of now. An answer
        embedded under another model keeps being re-embedded from its text (stale())."""
        with self._engine.begin() as conn:
            done = conn.execute(
                sa.update(va)
                .where(va.c.id == verified_id, va.c.embed_model == model)
                .values(
                    answer=answer,
                    answer_embedding=list(answer_embedding),
                    status="active",
                    status_reason="",
                    verified_at=sa.func.now(),
                    updated_at=sa.func.now(),
                )
            )
        return done.rowcount > 0

    def older_than(self, when: Any) -> list[VerifiedAnswer]:
        """Active answers last verified before `when` (to be confirmed again)."""
        query = (
            sa.select(*_FIELDS)
            .where(va.c.status == "active", va.c.verified_at < when)
            .order_by(va.c.id)
        )
        with self._engine.connect() as conn:
            return [_answer(r) for r in conn.execute(query)]

    def suspend_relying_on(
        self, *, source_ids: Sequence[int] = (), uris: Sequence[str] = (), reason: str
    ) -> list[int]:
        """Suspend every active answer that relies on one of these knowledge sources (named by
        id or by uri: a source changed or was removed); the ids suspended."""
        relies = [va.c.sources.contains([{"source_id": int(s)}]) for s in dict.fromkeys(source_ids)]
        relies += [va.c.sources.contains([{"uri": u}]) for u in dict.fromkeys(uris) if u]
        if not relies:
            return []
        with self._engine.begin() as conn:
            rows = conn.execute(
                sa.update(va)
                .where(va.c.status == "active", sa.or_(*relies))
                .values(status="suspended", status_reason=reason, updated_at=sa.func.now())
                .returning(va.c.id)
            )
            return sorted(int(r.id) for r in rows)

    def stale(self, model: str) -> list[VerifiedAnswer]:
        """Answers embedded by another model than `model` (to embed again from their text)."""
        query = sa.select(*_FIELDS).where(va.c.embed_model != model).order_by(va.c.id)
        with self._engine.connect() as conn:
            return [_answer(r) for r in conn.execute(query)]

    def set_embeddings(
        self, verified_id: int, *, question: Sequence[float], answer: Sequence[float], model: str
    ) -> None:
        with self._engine.begin() as conn:
            conn.execute(
                sa.update(va)
                .where(va.c.id == verified_id)
                .values(
                    question_embedding=list(question),
                    answer_embedding=list(answer),
                    embed_model=model,
                    updated_at=sa.func.now(),
                )
            )

    def any_active(self, *, scopes: Sequence[str], model: str) -> bool:
        query = sa.select(
            sa.exists().where(
                va.c.status == "active", va.c.scope.in_(list(scopes)), va.c.embed_model == model
            )
        )
        with self._engine.connect() as conn:
            return bool(conn.execute(query).scalar())

    def candidates(
        self,
        vector: Sequence[float],
        *,
        scopes: Sequence[str],
        model: str,
        question_weight: float,
        limit: int,
    ) -> list[Candidate]:
        """Active answers of `scopes` embedded by `model`, best blended similarity first.
        An exact scan: verified answers number in the hundreds or thousands, not millions."""
        q_sim = (1 - va.c.question_embedding.cosine_distance(list(vector))).label("q_sim")
        a_sim = (1 - va.c.answer_embedding.cosine_distance(list(vector))).label("a_sim")
        blended = question_weight * q_sim + (1 - question_weight) * a_sim
        query = (
            sa.select(*_FIELDS, q_sim, a_sim)
            .where(va.c.status == "active", va.c.scope.in_(list(scopes)), va.c.embed_model == model)
            .order_by(blended.desc(), va.c.id)
            .limit(limit)
        )
        with self._engine.connect() as conn:
            return [
                Candidate(_answer(r), float(r.q_sim), float(r.a_sim)) for r in conn.execute(query)
            ]

    def ratings(self, verified_ids: Sequence[int]) -> dict[int, tuple[int, int]]:
        """(up, down) per verified answer: the ratings of every answer that served it."""
        if not verified_ids:
            return {}
        served = answers.c.choices["verified"].astext
        up = sa.func.count().filter(feedback.c.rating > 0).label("up")
        down = sa.func.count().filter(feedback.c.rating < 0).label("down")
        query = (
            sa.select(served.label("verified"), up, down)
            .select_from(answers.join(feedback, feedback.c.answer_id == answers.c.id))
            .where(served.in_([str(i) for i in verified_ids]))
            .group_by(served)
        )
        with self._engine.connect() as conn:
            return {int(r.verified): (int(r.up), int(r.down)) for r in conn.execute(query)}

    def delete_scope(self, scope: str) -> int:
        """Remove every verified answer of a scope (the evaluation's throwaway scope)."""
        with self._engine.begin() as conn:
            return conn.execute(sa.delete(va).where(va.c.scope == scope)).rowcount


def _insert(conn: Connection, entry: NewVerified) -> int:
    values = {
        "scope": entry.scope,
        "question": entry.question,
        "answer": entry.answer,
        "author": entry.author,
        "sources": [s.as_json() for s in entry.sources],
        "question_embedding": list(entry.question_embedding),
        "answer_embedding": list(entry.answer_embedding),
        "embed_model": entry.embed_model,
        "origin_escalation_id": entry.origin_escalation_id,
        "author_id": entry.author_id,
    }
    return int(conn.execute(sa.insert(va).values(**values).returning(va.c.id)).scalar_one())


def _answer(row: Any) -> VerifiedAnswer:
    return VerifiedAnswer(
        id=int(row.id),
        scope=row.scope,
        question=row.question,
        answer=row.answer,
        author=row.author,
        verified_at=row.verified_at,
        sources=tuple(VerifiedSource.from_json(s) for s in row.sources or []),
        status=row.status,
        status_reason=row.status_reason,
        origin_escalation_id=row.origin_escalation_id,
        author_id=row.author_id,
    )
