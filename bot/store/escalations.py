"""Escalations: questions sent to an experts channel, who asked them, and what came of them
(see bot.verified.escalation for the rules)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.engine import Connection, Engine

from bot.conversation.replies import NOT_FOUND
from bot.conversation.verified import VerifiedSource
from bot.db.tables import answers, threads
from bot.db.tables import escalation_askers as ea
from bot.db.tables import escalations as es
from knowledge.store.sources import owners_of
from knowledge.store.tables import kb_sources

OPEN = ("pending", "posting", "open")  # still waiting for an expert


@dataclass(frozen=True)
class NewEscalation:
    kind: str  # "question" | "confirm"
    platform: str
    experts_channel: str
    scope: str
    question: str
    question_key: str
    answer_text: str = ""
    sources: tuple[VerifiedSource, ...] = ()
    owners: tuple[str, ...] = ()
    verified_id: int | None = None
    service_url: str = ""


@dataclass(frozen=True)
class Escalation:
    id: int
    kind: str
    platform: str
    experts_channel: str
    message_id: str | None
    service_url: str
    scope: str
    question: str
    answer_text: str
    sources: tuple[VerifiedSource, ...]
    owners: tuple[str, ...]
    verified_id: int | None
    answered_verified_id: int | None
    status: str
    answered_by: str
    created_at: datetime


@dataclass(frozen=True)
class Asker:
    user_id: str
    answer_id: int | None = None
    rating: int | None = None
    reason: str = ""


@dataclass(frozen=True)
class Declined:
    answer_id: int
    question: str
    user_id: str
    platform: str
    channel: str


@dataclass(frozen=True)
class Joined:
    escalation: Escalation
    created: bool  # a new escalation (its message is still to be posted)
    new_asker: bool  # this person had not asked it yet


class EscalationStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def join_or_open(self, new: NewEscalation, asker: Asker, *, since: datetime) -> Joined:
        """The open escalation of the same question to the same experts since `since`, with
        this asker added; or a new one. One transaction under a lock on the question, so two
        people rating the same answer down at once still make one message."""
        with self._engine.begin() as conn:
            conn.execute(
                sa.select(sa.func.pg_advisory_xact_lock(sa.func.hashtext(new.question_key)))
            )
            row = conn.execute(
                sa.select(es)
                .where(
                    es.c.kind == new.kind,
                    es.c.platform == new.platform,
                    es.c.experts_channel == new.experts_channel,
                    es.c.question_key == new.question_key,
                    es.c.scope == new.scope,
                    es.c.status.in_(OPEN),
                    es.c.created_at >= since,
                )
                .order_by(es.c.id)
                .limit(1)
            ).first()
            created = row is None
            escalation_id = _insert(conn, new) if row is None else int(row.id)
            added = conn.execute(
                insert(ea)
                .values(
                    escalation_id=escalation_id,
                    user_id=asker.user_id,
                    answer_id=asker.answer_id,
                    rating=asker.rating,
                    reason=asker.reason,
                )
                .on_conflict_do_nothing()
                .returning(ea.c.user_id)
            ).first()
            escalation = _escalation(
                conn.execute(sa.select(es).where(es.c.id == escalation_id)).one()
            )
        return Joined(escalation, created, added is not None)

    def add(self, new: NewEscalation) -> int:
        with self._engine.begin() as conn:
            return _insert(conn, new)

    def get(self, escalation_id: int) -> Escalation | None:
        with self._engine.connect() as conn:
            row = conn.execute(sa.select(es).where(es.c.id == escalation_id)).first()
        return _escalation(row) if row else None

    def by_message(self, platform: str, channel: str, message_id: str) -> Escalation | None:
        with self._engine.connect() as conn:
            row = conn.execute(
                sa.select(es).where(
                    es.c.platform == platform,
                    es.c.experts_channel == channel,
                    es.c.message_id == message_id,
                )
            ).first()
        return _escalation(row) if row else None

    def askers(self, escalation_id: int) -> list[Asker]:
        query = sa.select(ea).where(ea.c.escalation_id == escalation_id).order_by(ea.c.created_at)
        with self._engine.connect() as conn:
            return [Asker(r.user_id, r.answer_id, r.rating, r.reason) for r in conn.execute(query)]

    def posted(self, escalation_id: int, message_id: str) -> None:
        self._set(escalation_id, status="open", message_id=message_id)

    def unreachable(self, escalation_id: int, detail: str) -> None:
        self._set(escalation_id, status="unreachable", detail=detail)

    def close(self, escalation_id: int, detail: str) -> None:
        self._set(escalation_id, status="closed", detail=detail)

    def claim_answer(self, escalation_id: int, *, answered_by: str) -> bool:
        """True for the first reply only: the escalation turns answered once."""
        with self._engine.begin() as conn:
            done = conn.execute(
                sa.update(es)
                .where(es.c.id == escalation_id, es.c.status.in_(OPEN))
                .values(
                    status="answered",
                    answered_by=answered_by,
                    answered_at=sa.func.now(),
                    updated_at=sa.func.now(),
                )
            )
        return done.rowcount > 0

    def set_answer(self, escalation_id: int, verified_id: int) -> None:
        self._set(escalation_id, answered_verified_id=verified_id)

    def claim_pending(self, platform: str, *, limit: int = 20) -> list[Escalation]:
        """Requests waiting to be posted on `platform`, taken by this process alone."""
        stale_before = sa.func.now() - timedelta(minutes=5)
        with self._engine.begin() as conn:
            ids = (
                sa.select(es.c.id)
                .where(
                    es.c.platform == platform,
                    es.c.kind == "confirm",
                    sa.or_(
                        es.c.status == "pending",
                        # taken by a process that died before posting it
                        sa.and_(es.c.status == "posting", es.c.updated_at < stale_before),
                    ),
                )
                .order_by(es.c.id)
                .limit(limit)
                .with_for_update(skip_locked=True)
            )
            rows = conn.execute(
                sa.update(es)
                .where(es.c.id.in_(ids.scalar_subquery()))
                .values(status="posting", updated_at=sa.func.now())
                .returning(*es.c)
            )
            return sorted((_escalation(r) for r in rows), key=lambda e: e.id)

    def confirm_open(self, verified_id: int) -> bool:
        """A request to confirm this verified answer is already waiting for its experts."""
        query = sa.select(
            sa.exists().where(
                es.c.kind == "confirm", es.c.verified_id == verified_id, es.c.status.in_(OPEN)
            )
        )
        with self._engine.connect() as conn:
            return bool(conn.execute(query).scalar())

    def close_confirms(self, verified_id: int, detail: str) -> list[Escalation]:
        """Settle every open request about this verified answer; the ones settled."""
        with self._engine.begin() as conn:
            rows = conn.execute(
                sa.update(es)
                .where(
                    es.c.kind == "confirm", es.c.verified_id == verified_id, es.c.status.in_(OPEN)
                )
                .values(status="closed", detail=detail, updated_at=sa.func.now())
                .returning(*es.c)
            )
            return [_escalation(r) for r in rows]

    def set_reason(self, *, answer_id: int, user_id: str, reason: str) -> list[int]:
        """The asker's reason for a rating down; the escalations it belongs to."""
        with self._engine.begin() as conn:
            rows = conn.execute(
                sa.update(ea)
                .where(ea.c.answer_id == answer_id, ea.c.user_id == user_id)
                .values(reason=reason)
                .returning(ea.c.escalation_id)
            )
            return sorted({int(r.escalation_id) for r in rows})

    def questions_between(
        self, since: datetime, until: datetime
    ) -> list[tuple[Escalation, tuple[str, ...]]]:
        """Question escalations opened in the period, each with the ids of its askers."""
        askers = sa.func.array_remove(sa.func.array_agg(ea.c.user_id), None).label("askers")
        query = (
            sa.select(es, askers)
            .select_from(es.outerjoin(ea, ea.c.escalation_id == es.c.id))
            .where(es.c.kind == "question", es.c.created_at >= since, es.c.created_at < until)
            .group_by(es.c.id)
            .order_by(es.c.id)
        )
        with self._engine.connect() as conn:
            return [(_escalation(r), tuple(r.askers or ())) for r in conn.execute(query)]

    def declined_between(self, since: datetime, until: datetime) -> list[Declined]:
        """Answers of the period that found nothing ("I could not find this …") and that
        nobody escalated: gaps the experts have not heard of."""
        escalated = sa.exists().where(ea.c.answer_id == answers.c.id)
        query = (
            sa.select(
                answers.c.id,
                answers.c.rewritten_question,
                answers.c.user_id,
                threads.c.platform,
                threads.c.channel,
            )
            .join(threads, threads.c.id == answers.c.thread_id)
            .where(
                answers.c.created_at >= since,
                answers.c.created_at < until,
                answers.c.bullets[0]["text"].astext == NOT_FOUND,
                ~escalated,
            )
            .order_by(answers.c.id)
        )
        with self._engine.connect() as conn:
            return [
                Declined(int(r.id), r.rewritten_question, r.user_id, r.platform, r.channel)
                for r in conn.execute(query)
            ]

    def source_scopes(self, source_ids: Sequence[int]) -> dict[int, str]:
        if not source_ids:
            return {}
        query = sa.select(kb_sources.c.id, kb_sources.c.scope).where(
            kb_sources.c.id.in_(list(source_ids))
        )
        with self._engine.connect() as conn:
            return {int(r.id): str(r.scope) for r in conn.execute(query)}

    def source_owners(self, source_ids: Sequence[int]) -> list[str]:
        """The owners of these sources, each once, in the order the sources are given."""
        with self._engine.connect() as conn:
            found = owners_of(conn, list(dict.fromkeys(source_ids)))
        return list(dict.fromkeys(o for s in source_ids for o in found.get(s, [])))

    def owners_in_scopes(self, scopes: Sequence[str]) -> list[str]:
        """Every owner of every source in these scopes (when an answer cited nothing)."""
        query = (
            sa.select(kb_sources.c.owners)
            .where(kb_sources.c.scope.in_(list(scopes)))
            .order_by(kb_sources.c.id)
        )
        with self._engine.connect() as conn:
            found = [o for r in conn.execute(query) for o in r.owners]
        return list(dict.fromkeys(found))

    def _set(self, escalation_id: int, **values: Any) -> None:
        with self._engine.begin() as conn:
            conn.execute(
                sa.update(es)
                .where(es.c.id == escalation_id)
                .values(**values, updated_at=sa.func.now())
            )


def _insert(conn: Connection, new: NewEscalation) -> int:
    values = {
        "kind": new.kind,
        "platform": new.platform,
        "experts_channel": new.experts_channel,
        "service_url": new.service_url,
        "scope": new.scope,
        "question": new.question,
        "question_key": new.question_key,
        "answer_text": new.answer_text,
        "sources": [s.as_json() for s in new.sources],
        "owners": list(new.owners),
        "verified_id": new.verified_id,
    }
    return int(conn.execute(sa.insert(es).values(**values).returning(es.c.id)).scalar_one())


def _escalation(row: Any) -> Escalation:
    return Escalation(
        id=int(row.id),
        kind=row.kind,
        platform=row.platform,
        experts_channel=row.experts_channel,
        message_id=row.message_id,
        service_url=row.service_url,
        scope=row.scope,
        question=row.question,
        answer_text=row.answer_text,
        sources=tuple(VerifiedSource.from_json(s) for s in row.sources or []),
        owners=tuple(row.owners or ()),
        verified_id=row.verified_id,
        answered_verified_id=row.answered_verified_id,
        status=row.status,
        answered_by=row.answered_by,
        created_at=row.created_at,
    )
