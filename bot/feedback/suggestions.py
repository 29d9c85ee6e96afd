"""Which questions to offer as suggested prompts (Slack's assistant threads): the ones a
deployment configured, else the questions people ask most that were rated well, topped up
with FAQ questions, then with questions drawn from the rulebooks themselves (the sections
answers cite most, then each rulebook's first sections), so a deployment nobody has asked
anything yet still offers some."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta

from bot.feedback.section_prompts import (
    document_question,
    first_section_questions,
    section_questions,
)
from bot.store.suggestions import SuggestionStore
from knowledge.access import Reader

MAX_PROMPTS = 4  # Slack shows at most four
MIN_ASKERS = 2  # a question one person asked stays theirs
LOOKBACK = timedelta(days=90)
SECTIONS_PER_RULEBOOK = 12  # enough to find four worth asking after contents and preambles


def suggested_questions(
    store: SuggestionStore,
    *,
    scopes: Sequence[str],
    configured: Sequence[str] | None,
    reader: Reader | None = None,
) -> list[str]:
    """Up to four questions for `reader` (None: anyone, so only what everyone may read)."""
    if configured is not None:
        return list(configured)[:MAX_PROMPTS]
    since = datetime.now(UTC) - LOOKBACK
    who = (reader or Reader.public()).filter()
    sources: tuple[Callable[[], Iterable[str]], ...] = (
        lambda: store.popular(
            scopes=scopes, since=since, min_askers=MIN_ASKERS, limit=MAX_PROMPTS, readers=who
        ),
        lambda: store.faq_questions(scopes=scopes, limit=MAX_PROMPTS * 2, readers=who),
        lambda: section_questions(
            store.cited_sections(scopes=scopes, since=since, limit=MAX_PROMPTS * 4, readers=who)
        ),
        lambda: first_section_questions(
            store.first_sections(
                scopes=scopes, per_source=SECTIONS_PER_RULEBOOK, sources=MAX_PROMPTS, readers=who
            )
        ),
        lambda: filter(
            None, map(document_question, store.rulebook_files(scopes=scopes, limit=8, readers=who))
        ),
    )
    chosen: list[str] = []
    taken: set[str] = set()
    for source in sources:  # each asked only while there is room left
        if len(chosen) >= MAX_PROMPTS:
            break
        for question in source():
            if _key(question) not in taken and len(chosen) < MAX_PROMPTS:
                chosen.append(question)
                taken.add(_key(question))
    return chosen


def _key(question: str) -> str:
    return " ".join(question.lower().strip(" ?!.").split())
