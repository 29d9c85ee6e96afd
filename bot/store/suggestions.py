"""Questions worth offering before anyone asks: the ones people ask most that were rated
well, and the FAQ questions of the knowledge base."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg
from sqlalchemy.engine import Engine

from bot.db.tables import answers, channel_settings, feedback, threads
from bot.store.channels import DEFAULT_SCOPES
from bot.store.rated import EVAL_PLATFORM
from knowledge.tables import chunks

_TEXTS = pg.ARRAY(sa.Text)


class SuggestionStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def popular(
        self, *, scopes: Sequence[str], since: datetime, min_askers: int, limit: int
    ) -> list[str]:
        """Standalone questions (as rewritten: a follow-up's "and for Plan B?" makes a poor
        prompt) that at least `min_askers` different people asked since `since` and whose
        answers were rated up more often than down; most askers first.

        Only questions asked where the knowledge is no wider than `scopes` count, and only
        in threads not forgotten: a question from a restricted channel is not offered
        elsewhere, and `min_askers` keeps one person's question to themselves."""
        net = (
            sa.select(feedback.c.answer_id, sa.func.sum(feedback.c.rating).label("net"))
            .group_by(feedback.c.answer_id)
            .subquery()
        )
        key = sa.func.lower(
            sa.func.btrim(
                sa.func.regexp_replace(answers.c.rewritten_question, r"[\s?!.]+", " ", "g")
            )
        )
        seen_in = sa.func.coalesce(channel_settings.c.scopes, sa.cast(list(DEFAULT_SCOPES), _TEXTS))
        askers = sa.func.count(sa.distinct(answers.c.user_id))
        good = sa.func.count().filter(net.c.net > 0)
        bad = sa.func.count().filter(net.c.net < 0)
        latest = sa.func.array_agg(
            pg.aggregate_order_by(answers.c.rewritten_question, answers.c.created_at.desc()),
            type_=_TEXTS,
        )[1]  # the group's question as last asked
        query = (
            sa.select(latest)
            .select_from(
                answers.join(threads, threads.c.id == answers.c.thread_id)
                .outerjoin(
                    channel_settings,
                    sa.and_(
                        channel_settings.c.platform == threads.c.platform,
                        channel_settings.c.channel == threads.c.channel,
                    ),
                )
                .outerjoin(net, net.c.answer_id == answers.c.id)
            )
            .where(
                answers.c.platform != EVAL_PLATFORM,
                answers.c.created_at >= since,
                answers.c.model != "none",
                seen_in.op("<@")(sa.cast(list(scopes), _TEXTS)),
            )
            .group_by(key)
            .having(sa.and_(askers >= min_askers, good > bad))
            .order_by(
                askers.desc(), sa.func.count().desc(), sa.func.max(answers.c.created_at).desc()
            )
            .limit(limit)
        )
        with self._engine.connect() as conn:
            return [str(q) for q in conn.execute(query).scalars() if q]

    def faq_questions(self, *, scopes: Sequence[str], limit: int) -> list[str]:
        """The FAQ questions in `scopes`, in the order they were ingested (paraphrases
        generated at ingest are not questions anyone wrote)."""
        meta = chunks.c.metadata_
        question = meta["question"].astext
        query = (
            sa.select(question)
            .where(
                meta["kind"].astext == "faq",
                meta["scope"].astext.in_(list(scopes)),
                sa.not_(meta.has_key("paraphrase_of")),
            )
            .group_by(question)
            .order_by(sa.func.min(chunks.c.id))
            .limit(limit)
        )
        with self._engine.connect() as conn:
            return [str(q) for q in conn.execute(query).scalars() if q]
