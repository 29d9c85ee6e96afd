"""Questions worth offering before anyone asks: the ones people ask most that were rated
well, the FAQ questions of the knowledge base, and the rulebook sections a question could be
about (the ones answers cite most, and the first ones of each rulebook).

`readers`: the principals of whoever the questions are offered to (None: no restriction);
nothing is drawn from a chunk they may not read, and a popular question counts only when
every answer to it cites only chunks they may read."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg
from sqlalchemy.engine import Engine

from bot.db.tables import answers, channel_settings, feedback, threads
from bot.store.channels import DEFAULT_SCOPES
from bot.store.rated import EVAL_PLATFORM
from knowledge.store.chunk_filters import access_filter
from knowledge.store.tables import chunks

_TEXTS = pg.ARRAY(sa.Text)
_META = chunks.c.metadata_
_SECTION = _META["section"].astext
_SOURCE = _META["source_id"].astext
_OPENING_CHARS = 1500  # enough of a section's first chunk to tell a contents page


@dataclass(frozen=True)
class SectionSeen:
    """A section of a rulebook: its path of headings ("3 Claims > 3.1 Room rent"), whether
    the path's first heading is the document's title (every section of that document sits
    under it), and the start of its text."""

    source_id: int
    path: str
    under_title: bool
    opening: str


class SuggestionStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def popular(
        self,
        *,
        scopes: Sequence[str],
        since: datetime,
        min_askers: int,
        limit: int,
        readers: Sequence[str] | None = None,
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
                *_cites_only_readable(readers),
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

    def faq_questions(
        self, *, scopes: Sequence[str], limit: int, readers: Sequence[str] | None = None
    ) -> list[str]:
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
                *access_filter(readers),
            )
            .group_by(question)
            .order_by(sa.func.min(chunks.c.id))
            .limit(limit)
        )
        with self._engine.connect() as conn:
            return [str(q) for q in conn.execute(query).scalars() if q]

    def cited_sections(
        self,
        *,
        scopes: Sequence[str],
        since: datetime,
        limit: int,
        readers: Sequence[str] | None = None,
    ) -> list[SectionSeen]:
        """The rulebook sections in `scopes` that answers given to people since `since` cite
        most (by how many answers cite them), most cited first."""
        element = sa.func.jsonb_array_elements(answers.c.sources, type_=pg.JSONB)  # one a row
        cites = (
            sa.select(
                answers.c.id.label("answer_id"), element.op("->>")("chunk_id").label("node_id")
            )
            .where(
                answers.c.platform != EVAL_PLATFORM,
                answers.c.created_at >= since,
                answers.c.model != "none",
            )
            .subquery()
        )
        cited = (
            sa.select(
                _SOURCE.label("source"),
                _SECTION.label("section"),
                sa.func.min(chunks.c.id).label("first_id"),
                sa.func.count(sa.distinct(cites.c.answer_id)).label("citing"),
                sa.func.max(cites.c.answer_id).label("latest"),
            )
            .select_from(cites.join(chunks, chunks.c.node_id == cites.c.node_id))
            .where(*_rulebook_sections(scopes, kinds=("rulebook", "table"), readers=readers))
            .group_by(_SOURCE, _SECTION)
            .order_by(sa.literal_column("citing").desc(), sa.literal_column("latest").desc())
            .limit(limit)
            .cte("cited")
        )
        shape = (
            sa.select(
                _SOURCE.label("source"),
                sa.func.count(sa.distinct(sa.func.split_part(_SECTION, " > ", 1))).label("tops"),
                sa.func.count(sa.distinct(_SECTION)).label("sections"),
            )
            .where(
                *_rulebook_sections(scopes, kinds=("rulebook", "table"), readers=readers),
                _SOURCE.in_(sa.select(cited.c.source)),
            )
            .group_by(_SOURCE)
            .subquery()
        )
        query = (
            sa.select(
                cited.c.source,
                cited.c.section,
                sa.and_(shape.c.tops == 1, shape.c.sections > 1),
                _opening(cited.c.first_id),
            )
            .join(shape, shape.c.source == cited.c.source)
            .order_by(cited.c.citing.desc(), cited.c.latest.desc())
        )
        return self._sections(query)

    def first_sections(
        self,
        *,
        scopes: Sequence[str],
        per_source: int,
        sources: int,
        readers: Sequence[str] | None = None,
    ) -> list[SectionSeen]:
        """The first `per_source` sections (by page, then as ingested) of the first `sources`
        rulebooks in `scopes`: each source's sections in order, the sources one after the
        other in the order they were ingested."""
        page = _META["page"].astext.cast(sa.Integer)
        firsts = (
            sa.select(
                _SOURCE.label("source"),
                _SECTION.label("section"),
                sa.func.split_part(_SECTION, " > ", 1).label("top"),
                sa.func.min(chunks.c.id).label("first_id"),
                sa.func.min(page).label("first_page"),
            )
            .where(*_rulebook_sections(scopes, kinds=("rulebook",), readers=readers))
            .group_by(_SOURCE, _SECTION)
            .subquery()
        )
        source = firsts.c.source
        place = sa.func.row_number().over(
            partition_by=source,
            order_by=(firsts.c.first_page.asc().nulls_last(), firsts.c.first_id),
        )
        under_title = sa.and_(  # one first heading over several sections: the title
            sa.func.min(firsts.c.top).over(partition_by=source)
            == sa.func.max(firsts.c.top).over(partition_by=source),
            sa.func.count().over(partition_by=source) > 1,
        )
        ranked = sa.select(
            firsts.c.source,
            firsts.c.section,
            firsts.c.first_id,
            place.label("place"),
            sa.func.min(firsts.c.first_id).over(partition_by=source).label("source_order"),
            under_title.label("under_title"),
        ).subquery()
        query = (
            sa.select(
                ranked.c.source, ranked.c.section, ranked.c.under_title, _opening(ranked.c.first_id)
            )
            .where(ranked.c.place <= per_source)
            .order_by(ranked.c.source_order, ranked.c.place)
            .limit(per_source * sources)
        )
        return self._sections(query)

    def rulebook_files(
        self, *, scopes: Sequence[str], limit: int, readers: Sequence[str] | None = None
    ) -> list[str]:
        """The file names of the rulebooks in `scopes`, in the order they were ingested."""
        file_name = _META["title"].astext
        query = (
            sa.select(file_name)
            .where(
                _META["kind"].astext == "rulebook",
                _META["scope"].astext.in_(list(scopes)),
                *access_filter(readers),
            )
            .group_by(file_name)
            .order_by(sa.func.min(chunks.c.id))
            .limit(limit)
        )
        with self._engine.connect() as conn:
            return [str(name) for name in conn.execute(query).scalars() if name]

    def _sections(self, query: sa.Select[tuple[str, str, bool, str]]) -> list[SectionSeen]:
        with self._engine.connect() as conn:
            return [
                SectionSeen(int(source), str(path), bool(titled), str(opening or ""))
                for source, path, titled, opening in conn.execute(query)
            ]


def _rulebook_sections(
    scopes: Sequence[str], *, kinds: Sequence[str], readers: Sequence[str] | None
) -> list[sa.ColumnElement[bool]]:
    return [
        _META["kind"].astext.in_(list(kinds)),
        _META["scope"].astext.in_(list(scopes)),
        sa.func.coalesce(_SECTION, "") != "",
        *access_filter(readers),
    ]


def _cites_only_readable(readers: Sequence[str] | None) -> list[sa.ColumnElement[bool]]:
    """The answer cites no chunk `readers` may not read (no condition without readers)."""
    if readers is None:
        return []
    cited = sa.func.jsonb_array_elements(answers.c.sources).table_valued(
        sa.column("value", pg.JSONB)
    )
    hidden = (
        sa.select(sa.literal(1))
        .select_from(cited)
        .join(chunks, chunks.c.node_id == cited.c.value.op("->>")("chunk_id"))
        .where(sa.not_(access_filter(readers)[0]))
    )
    return [sa.not_(sa.exists(hidden))]


def _opening(first_id: sa.ColumnElement[int]) -> sa.ScalarSelect[str]:
    """The start of the chunk with that id (a section's first)."""
    first = chunks.alias("first_chunk")
    return (
        sa.select(sa.func.left(first.c.text, _OPENING_CHARS))
        .where(first.c.id == first_id)
        .scalar_subquery()
    )
